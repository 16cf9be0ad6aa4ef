/* frame.c - a dump as text lines that survive a shared console, and the
 * extract mode that turns a console capture back into the exact bytes.
 *
 *   #TRACER BEGIN 2
 *   #T 0 <base64 of up to 48 bytes> <crc32 of those bytes, 8 hex>
 *   #T 1 ...
 *   #TRACER END 2 <total bytes> <crc32 of all bytes>
 *
 * Kernel messages may come between lines, or before a marker on the same
 * line; a message that lands inside a line breaks that line, which the
 * extractor reports by number. Each framed dump is a standalone pipe-mode
 * perf.data, so any one of them decodes alone. Lines go out through
 * the writer frame_begin is given, so framing knows no sink.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "frame.h"

#define LINE 48

static const char b64[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static u32 crc32(u32 c, const unsigned char *p, size_t n)
{
	int k;

	c = ~c;
	while (n--)
		for (c ^= *p++, k = 0; k < 8; k++)
			c = c >> 1 ^ (0xEDB88320 & -(c & 1));
	return ~c;
}


static struct {
	unsigned char b[LINE];
	size_t n;
	u32 seq, crc;
	u64 len;
	int dump;
} fo;

static void (*fo_put)(const char *, size_t);

static void frame_line(void)
{
	char l[16 + 24 + LINE * 4 / 3 + 16], *p = l;
	size_t i;

	if (!fo.n)
		return;
	p = utoa(memcpy(p, "#T ", 3) + 3, fo.seq++);
	*p++ = ' ';
	for (i = 0; i < fo.n; i += 3) {
		u32 v = fo.b[i] << 16 | (i + 1 < fo.n ? fo.b[i + 1] << 8 : 0) |
			(i + 2 < fo.n ? fo.b[i + 2] : 0);

		*p++ = b64[v >> 18];
		*p++ = b64[v >> 12 & 63];
		*p++ = i + 1 < fo.n ? b64[v >> 6 & 63] : '=';
		*p++ = i + 2 < fo.n ? b64[v & 63] : '=';
	}
	*p++ = ' ';
	p = hex8(p, crc32(0, fo.b, fo.n));
	*p++ = '\n';
	fo_put(l, p - l);
	fo.n = 0;
}

void frame_begin(int dump, void (*put)(const char *, size_t))
{
	char l[48], *p;

	fo_put = put;
	memset(&fo, 0, sizeof(fo));
	fo.dump = dump;
	/* A newline first: the console may be in the middle of a line. */
	p = utoa(memcpy(l, "\n#TRACER BEGIN ", 15) + 15, dump);
	*p++ = '\n';
	fo_put(l, p - l);
}

void frame_put(const void *v, size_t n)
{
	const unsigned char *s = v;

	fo.crc = crc32(fo.crc, s, n);
	fo.len += n;
	while (n) {
		size_t k = LINE - fo.n < n ? LINE - fo.n : n;

		memcpy(fo.b + fo.n, s, k);
		fo.n += k, s += k, n -= k;
		if (fo.n == LINE)
			frame_line();
	}
}

void frame_end(void)
{
	char l[80], *p;

	frame_line();
	p = utoa(memcpy(l, "#TRACER END ", 12) + 12, fo.dump);
	*p++ = ' ';
	p = utoa(p, fo.len);
	*p++ = ' ';
	p = hex8(p, fo.crc);
	*p++ = '\n';
	fo_put(l, p - l);
}

/* ---- extract mode: tracer -x [-n N] [-o FILE] < capture ---- */

static int unb64(const char *s, size_t n, unsigned char *out)
{
	size_t i, k = 0;

	if (n % 4)
		return -1;
	for (i = 0; i < n; i += 4) {
		u32 v = 0;
		int j, pad = 0;

		for (j = 0; j < 4; j++) {
			const char *c = s[i + j] == '=' ? 0 : xstrchr(b64, s[i + j]);

			if (s[i + j] == '=' && i + 4 == n && j >= 2)
				pad++;
			else if (!c || !s[i + j] || pad)
				return -1;
			v = v << 6 | (c ? c - b64 : 0);
		}
		out[k++] = v >> 16;
		if (pad < 2)
			out[k++] = v >> 8;
		if (pad < 1)
			out[k++] = v;
	}
	return k;
}

struct xdump {
	unsigned char *b;
	size_t n, cap, last;	/* last: the size of the last line's bytes */
	u64 next;		/* the line number expected next */
	int dump, bad, done;
};

static void xput(struct xdump *d, const unsigned char *p, size_t n)
{
	if (!n)
		return;
	if (d->n + n > d->cap) {
		d->cap = (d->n + n) * 2;
		d->b = xrealloc(d->b, d->n, d->cap);
	}
	memcpy(d->b + d->n, p, n);
	d->n += n;
}

/* One "#T N DATA CRC" line of dump d, found at line ln of the capture. */
/* "DATA CRC" of n chars: decode into raw; its length, or -1. The CRC
 * is exactly 8 hex digits; a console may put more after them on the
 * same line (a kernel message). */
static int xdata(const char *data, size_t n, unsigned char *raw)
{
	const char *sp = memchr(data, ' ', n);
	char *e;
	u32 crc;
	int k;

	if (!sp || sp - data > LINE * 4 / 3 || data + n - sp - 1 < 8 ||
	    (k = unb64(data, sp - data, raw)) < 0)
		return -1;
	crc = xtou(sp + 1, &e, 16);
	return e == sp + 9 && crc32(0, raw, k) == crc ? k : -1;
}

/* The kernel prints to the console past the tty, so a message (which
 * ends in a newline) can land inside one of our lines: our line's start,
 * then the message, then the rest of our line on a later capture line.
 * Try the start of this line joined to each of the next few lines. */
static int xrepair(const char *data, const char *rest, unsigned char *raw)
{
	char join[2 * LINE + 64];
	size_t k = span(data, b64 + 0, 1), r;
	int i, n;

	while (data[k] == '=')
		k++;
	if (k > LINE * 4 / 3)
		return -1;
	for (i = 0; i < 4 && rest && *rest; i++) {
		r = span(rest, "\r\n", 0);
		if (k + r < sizeof(join)) {
			memcpy(join, data, k);
			memcpy(join + k, rest, r);
			join[k + r] = 0;
			if ((n = xdata(join, k + r, raw)) >= 0)
				return n;
		}
		rest = xstrchr(rest, '\n');
		rest = rest ? rest + 1 : 0;
	}
	return -1;
}

static void xline(struct xdump *d, char *s, long ln, const char *rest)
{
	char *e, *data;
	u64 seq = xtou(s, &e, 10);
	unsigned char raw[LINE + 3];
	int n;

	data = e + 1;
	if (*e != ' ' || ((n = xdata(data, strlen(data), raw)) < 0 &&
			  (n = xrepair(data, rest, raw)) < 0)) {
		msg("dump %d: capture line %L is corrupt (frame line %L)", d->dump, (u64)ln, d->next);
		d->bad = 1;
		d->next++;
		d->last = 0;
		return;
	}
	if (seq < d->next) {
		/* The line before, again (a console that repeated it): harmless. */
		if (seq + 1 == d->next && d->last == (size_t)n && (!n || !memcmp(d->b + d->n - n, raw, n)))
			return;
		msg("dump %d: frame line %L is out of order (capture line %L)", d->dump, seq, (u64)ln);
		d->bad = 1;
		return;
	}
	if (seq > d->next) {
		msg("dump %d: frame lines %L to %L are missing (before capture line %L)",
		    d->dump, d->next, seq - 1, (u64)ln);
		d->bad = 1;
	}
	d->next = seq + 1;
	d->last = n;
	xput(d, raw, n);
}

static void xend(struct xdump *d, char *s, long ln)
{
	char *e;
	unsigned long len = xtou(s, &e, 10);
	u32 crc = xtou(e, 0, 16);

	if (d->n != len || crc32(0, d->b, d->n) != crc) {
		msg("dump %d: %L bytes recovered of %L, or the checksum is wrong (end at capture line %L)",
		    d->dump, (u64)d->n, (u64)len, (u64)ln);
		d->bad = 1;
	}
	d->done = 1;
}

static int xwrite(const char *name, struct xdump *d)
{
	int fd = name ? open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600) : 1;
	size_t off = 0;

	if (fd < 0) {
		msg("%s:", name);
		return 1;
	}
	while (off < d->n) {
		ssize_t w = write(fd, d->b + off, d->n - off);

		if (w <= 0) {
			msg("write %s:", name ? name : "stdout");
			return 1;
		}
		off += w;
	}
	if (name)
		close(fd);
	return 0;
}

int frame_bad;	/* the dump each is handed is damaged */

/* Read the capture (pre[0, n), then fd), recover every framed dump,
 * write the chosen one(s): -n's, or the last complete one; or hand each
 * to each (tracer -p). NUL bytes (line noise, a board's
 * reset) end a line. Exit 0 when what was asked for came out whole,
 * else 1. */
int frame_extract(int sel, const char *out, const void *pre, size_t n, int fd,
		  void (*each)(const u8 *, size_t))
{
	struct xdump *d = 0;
	char *buf = 0, *line, *nl, *end;
	size_t cap = 0, dcap = 0, i;
	ssize_t r;
	long ln = 0;
	int nd = 0, rc = 0, cur = -1;

	buf = xrealloc(buf, 0, cap = n + 65536);
	memcpy(buf, pre, n);
	for (;;) {
		if (n + 65536 > cap)
			buf = xrealloc(buf, n, cap = cap * 2 + 65536);
		if ((r = read(fd, buf + n, cap - n - 1)) <= 0)
			break;
		n += r;
	}
	for (i = 0; i < n; i++)
		if (!buf[i])
			buf[i] = '\n';
	buf[n] = 0;
	for (line = buf, end = buf + n; line < end; line = nl ? nl + 1 : end) {
		char *m;

		ln++;
		nl = xstrchr(line, '\n');
		if (nl)
			*nl = 0;
		if (nl > line && nl[-1] == '\r')
			nl[-1] = 0;
		if ((m = xstrstr(line, "#TRACER BEGIN "))) {
			if (cur >= 0 && !d[cur].done) {
				msg("dump %d: no end marker before capture line %L", d[cur].dump, (u64)ln);
				d[cur].bad = 1;
			}
			if ((size_t)nd == dcap) {
				d = xrealloc(d, dcap * sizeof(*d), (2 * dcap + 64) * sizeof(*d));
				dcap = 2 * dcap + 64;
			}
			cur = nd++;
			memset(d + cur, 0, sizeof(*d));
			d[cur].dump = xtou(m + 14, 0, 10);
		} else if (cur >= 0 && !d[cur].done && (m = xstrstr(line, "#T "))) {
			xline(d + cur, m + 3, ln, nl ? nl + 1 : 0);
		} else if (cur >= 0 && !d[cur].done && (m = xstrstr(line, "#TRACER END "))) {
			xend(d + cur, xstrchr(m + 12, ' ') ? xstrchr(m + 12, ' ') + 1 : m + 12, ln);
		}
	}
	if (cur >= 0 && !d[cur].done) {
		msg("dump %d: the capture ends before its end marker", d[cur].dump);
		d[cur].bad = 1;
	}
	if (!nd)
		die(1, "no framed dump in the input");
	for (i = 0; i < (size_t)nd; i++) {
		msg("dump %d: %L bytes, %s", d[i].dump, (u64)d[i].n, d[i].bad ? "DAMAGED" : "ok");
		if (each) {
			frame_bad = d[i].bad;
			each(d[i].b, d[i].n);
			rc |= d[i].bad;
		}
	}
	if (each)
		return rc;
	if (out) {
		char name[4096];

		if (strlen(out) > 4000)
			die(2, "%s: path too long", out);
		for (i = 0; i < (size_t)nd; i++) {
			fmt(name, sizeof(name), i ? "%s.%u" : "%s", out, (unsigned)i);
			rc |= xwrite(name, d + i) | d[i].bad;
		}
		return rc;
	}
	if (sel) {
		for (i = nd; i-- > 0 && d[i].dump != sel;)
			;
		if (i == (size_t)-1)
			die(1, "no dump %d in the input", sel);
	} else {
		for (i = nd; i-- > 0 && d[i].bad;)
			;
		if (i == (size_t)-1)
			die(1, "no complete dump in the input; -n N writes a damaged one");
	}
	return xwrite(0, d + i) | d[i].bad;
}
