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

static const char b64[] =	/* and its pad */
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=";

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

/* Memory is bounded whatever the capture: it is read through a window
 * of XBUF, a line longer than XLINE is cut there, and the only dump
 * held is the one -x writes to stdout (up to XMAX; -o FILE and -p take
 * each dump as it comes): the one being read, and the one chosen so
 * far. */
#define XBUF (64 << 10)
#define XLINE 4096
#define XMAX (64 << 20)
#define XNUL (1 << 20)		/* NUL bytes in a row: not a capture */
#define XJUMP (1 << 20)		/* frame lines a console may lose: 48 MiB */

struct xdump {
	unsigned char *b, last[LINE];	/* held bytes; the last line's */
	u64 n, hn, next;	/* bytes recovered, held; the line number expected next */
	size_t nl;		/* the size of the last line's bytes */
	u32 crc;
	int dump, bad, done, fd, hold;	/* fd: -o's file */
	int fails;		/* lines not repaired: past 64, none tried */
};

static void (*x_each)(const u8 *, size_t);
static const char *x_out;
static int x_sel, x_rc;
static unsigned x_seq;		/* -o: the next name's number */
static char x_name[4096];	/* -o: this dump's file */
static struct { unsigned char *b; u64 n; int bad, any; } x_got;	/* -x to stdout */
static unsigned char *x_hb[2];	/* -x to stdout: this dump, the chosen one */

static void xput(struct xdump *d, const unsigned char *p, size_t n)
{
	if (!n)
		return;
	if (x_each && !d->bad)
		x_each(p, n);
	if (d->fd >= 0 && !d->bad) {	/* -o: a damaged dump's file goes at its end */
		size_t off = 0;
		ssize_t w;

		while (off < n && (w = write(d->fd, p + off, n - off)) > 0)
			off += w;
		if (off < n)
			msg("dump %d: write %s:", d->dump, x_name), d->bad = 1;
	}
	if (d->hold && d->hn + n > XMAX && !d->bad)
		msg("dump %d: over %u MiB: -o FILE writes any size", d->dump, XMAX >> 20);
	if (d->hold && d->hn + n > XMAX)
		d->bad = 1;
	else if (d->hold)
		memcpy(d->b + d->hn, p, n), d->hn += n;
	d->n += n;
	d->crc = crc32(d->crc, p, n);
	memcpy(d->last, p, n);
	d->nl = n;
}

/* "N DATA CRC" of n chars: decode into raw; its length (its number in
 * *seq, its digits in *nd), or -1. The CRC is exactly 8 hex digits; a
 * console may put more after them on the same line (a kernel message). */
static int xdata(const char *s, size_t n, u64 *seq, int *nd, unsigned char *raw)
{
	const char *data, *sp, *end = s + n;
	char *e;
	u32 crc;
	int k;

	if (n < 1 || *s < '0' || *s > '9')
		return -1;
	*seq = xtou(s, &e, 10), *nd = e - s, data = e + 1;
	if (e >= end || *e != ' ' || !(sp = memchr(data, ' ', end - data)) ||
	    sp - data > LINE * 4 / 3 || end - sp - 1 < 8 ||
	    (k = unb64(data, sp - data, raw)) < 1)	/* (none: its CRC is 0) */
		return -1;
	crc = xtou(sp + 1, &e, 16);
	return e == sp + 9 && crc32(0, raw, k) == crc ? k : -1;
}

/* chars of set that end s[0, n), back to no further than s[lo] */
static size_t back(const char *s, size_t n, size_t lo, const char *set)
{
	size_t k = 0;

	while (n - k > lo && s[n - k - 1] && xstrchr(set, s[n - k - 1]))
		k++;
	return k;
}

#define XSHORT (20 + LINE * 4 / 3 + 10)	/* our longest line: "N DATA CRC" */

static int xlinehas(const char *s, const char *w)
{
	const char *m = xstrstr(s, w), *nl = xstrchr(s, '\n');

	return m && (!nl || m < nl);
}

/* A join to try: our line's start s[0, i) and its end t[j, e); kept
 * when its CRC holds: done (1) when it bears the number due. */
struct xjoin {
	u64 want, seq;
	int n;
	unsigned char alt[LINE + 3];
};

static int xtry(struct xjoin *c, const char *s, size_t i, const char *t, size_t j, size_t e,
		unsigned char *raw)
{
	char join[2 * XSHORT];
	u64 q;
	int k, nd;

	if (i + e - j >= sizeof(join))
		return 0;
	memcpy(join, s, i), memcpy(join + i, t + j, e - j), join[i + e - j] = 0;
	if ((k = xdata(join, i + e - j, &q, &nd, raw)) < 0)
		return 0;
	if (q == c->want)
		return c->seq = q, c->n = k, 1;
	if (c->n < 0)	/* a second choice */
		c->seq = q, c->n = k, memcpy(c->alt, raw, k);
	return 0;
}

/* The kernel prints to the console past the tty, so a message, or a
 * piece of one (pr_cont: "segfault ... code 1", later " in exe[...]"),
 * can land anywhere inside one of our lines: in its number, its data or
 * its CRC. With its newline, the rest of our line is the end of a later
 * capture line; without, the end of this one. So our line is a start
 * of this one, up to where the message began (at most as far as our
 * alphabet goes: s[0, pv)), and an end of this or one of the next four
 * lines, as long as "N DATA CRC" needs (DATA is 4k base64 chars): the
 * CRC says which pair is ours, and the number due, which it does not
 * cover, picks among those that hold. */
static int xrepair(const char *s, const char *rest, u64 want, u64 *seq, unsigned char *raw)
{
	static const char dig[] = "0123456789", hex[] = "0123456789abcdef";
	static struct xjoin c;
	const char *ln[5], *t;
	char num[24];
	size_t D = utoa(num, want) - num, ds = span(s, dig, 1), sd = 0, pv = ds, i, r, q, j, m, lo;
	int l, nl = 1;

	if (s[ds] == ' ') {	/* its number whole: its data, its CRC's start */
		pv = sd = ds + 1 + span(s + ds + 1, b64, 1);
		if (s[sd] == ' ')
			pv = sd + 1 + ((r = span(s + sd + 1, hex, 1)) < 8 ? r : 8);
	}
	/* (the tty keeps our order: the rest comes before our next line) */
	for (ln[0] = s + strlen(s); rest && *rest && nl < 5 && !xlinehas(rest, "#T"); nl++) {
		ln[nl] = rest, rest = xstrchr(rest, '\n');
		rest = rest ? rest + 1 : 0;
	}
	c.want = want, c.n = -1;
	for (i = (pv < XSHORT ? pv : XSHORT) + 1; i--;)
		for (l = 0; l < nl; l++) {
			t = l ? ln[l] : s + i, lo = !l;
			r = l ? span(t, "\r\n", 0) : (size_t)(ln[0] - t);
			if (i > sd && sd && (m = 9 + sd - i) >= 1 && m <= 8) {
				/* the message inside the CRC: its last m digits end t */
				if (r >= lo + m && back(t, r, r - m, hex) == m && xtry(&c, s, i, t, r - m, r, raw))
					return *seq = c.seq, c.n;
				continue;
			}
			if (r < lo + 9 || back(t, r, r - 8, hex) < 8 || t[r - 9] != ' ')
				continue;	/* " CRC" ends t */
			q = r - 9 - back(t, r - 9, lo, b64);	/* where t's data begins */
			if (i <= ds) {	/* in the number: the rest of it, " ", data */
				if (q > lo && t[q - 1] == ' ' && D >= i && q - 1 >= lo + D - i &&
				    xtry(&c, s, i, t, q - 1 - (D - i), r, raw))
					return *seq = c.seq, c.n;
				continue;
			}
			for (j = r - 9; j + 1 > q && i + (r - 9 - j) <= ds + 1 + LINE * 4 / 3; j--)
				if ((i - ds - 1 + r - 9 - j) % 4 == 0 && xtry(&c, s, i, t, j, r, raw))
					return *seq = c.seq, c.n;
		}
	if (c.n >= 0)
		memcpy(raw, c.alt, c.n), *seq = c.seq;
	return c.n;
}

static void xline(struct xdump *d, char *s, long ln, const char *rest)
{
	unsigned char raw[LINE + 3];
	u64 seq;
	int n, nd = 0;

	if ((n = xdata(s, strlen(s), &seq, &nd, raw)) < 0 &&
	    (d->fails > 64 || (n = xrepair(s, rest, d->next, &seq, raw)) < 0)) {
		msg("dump %d: capture line %L is corrupt (frame line %L)", d->dump, (u64)ln, d->next);
		d->bad = 1;
		d->fails++;
		d->next++;
		d->nl = 0;
		return;
	}
	if (seq > d->next + XJUMP || nd > 19) {
		/* its bytes are whole (the CRC covers them), its number is not */
		msg("dump %d: capture line %L is corrupt (frame line %L: its number is garbled)",
		    d->dump, (u64)ln, d->next);
		d->bad = 1;
		d->next++;
		d->nl = 0;
		return;
	}
	if (seq < d->next) {
		/* The line before, again (a console that repeated it): harmless. */
		if (seq + 1 == d->next && d->nl == (size_t)n && !memcmp(d->last, raw, n))
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
	xput(d, raw, n);
}

static void xend(struct xdump *d, char *s, long ln)
{
	char *e;
	unsigned long len = xtou(s, &e, 10);
	u32 crc = xtou(e, 0, 16);

	if (d->n != len || d->crc != crc) {
		msg("dump %d: %L bytes recovered of %L, or the checksum is wrong (end at capture line %L)",
		    d->dump, (u64)d->n, (u64)len, (u64)ln);
		d->bad = 1;
	}
	d->done = 1;
}

/* A dump begins: -o's file is opened, or the window to hold it. */
static void xbegin(struct xdump *d, int dump)
{
	char *name = x_name;

	memset(d, 0, sizeof(*d));
	d->dump = dump, d->fd = -1;
	if (x_each)
		return x_each(0, 0);
	if (x_out) {	/* the next free of FILE, FILE.1, ...: none written over */
		do
			fmt(name, sizeof(x_name), x_seq ? "%s.%u" : "%s", x_out, x_seq), x_seq++;
		while ((d->fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0 && errno == EEXIST);
		if (d->fd < 0)
			msg("%s:", name), x_rc = 1;
		return;
	}
	if (x_sel && dump != x_sel)
		return;
	if (!x_hb[0])
		x_hb[0] = xmalloc(XMAX), x_hb[1] = xmalloc(XMAX);
	d->b = x_hb[0] == x_got.b ? x_hb[1] : x_hb[0];
	d->hold = 1;
}

/* A dump ends (its end marker, the next one's begin, or the capture's
 * end): said, closed, handed on, or chosen. */
static void xfinish(struct xdump *d)
{
	msg("dump %d: %L bytes, %s", d->dump, d->n, d->bad ? "DAMAGED" : "ok");
	if (x_each)
		x_each(0, d->bad ? 2 : 1);
	if (d->fd >= 0)
		close(d->fd);
	/* -o: no file of a damaged dump (perf would stop inside it); its
	 * name goes to the next. -n N without -o writes what came. */
	if (d->fd >= 0 && d->bad) {
		unlink(x_name);
		x_seq--;
		msg("dump %d: DAMAGED: no file for it; tracer -x -n %d > FILE writes what came", d->dump, d->dump);
	}
	if (x_each || x_out)
		x_rc |= d->bad;
	else if (d->hold && (x_sel || !d->bad))
		x_got.b = d->b, x_got.n = d->hn, x_got.bad = d->bad, x_got.any = 1;
}

/* New bytes of the capture: NULs (line noise, a board's reset) end a
 * line, and so does a line's XLINE-th byte. The newlines they hold. */
static size_t xclean(char *p, size_t n, size_t *run, u64 *nul)
{
	size_t k = 0;

	for (; n--; p++) {
		*nul = *p ? 0 : *nul + 1;
		if (!*p || ++*run >= XLINE)
			*p = '\n';
		if (*p == '\n')
			k++, *run = 0;
	}
	return k;
}

/* Read the capture (pre[0, n), then fd) line by line, recover every
 * framed dump, write the chosen one(s): -n's, or the last complete
 * one; or hand each to each (tracer -p) as it comes. Exit 0 when what
 * was asked for came out whole, else 1. A line is taken when the next
 * four are in the window too (xrepair looks at them). */
int frame_extract(int sel, const char *out, const void *pre, size_t n, int fd,
		  void (*each)(const u8 *, size_t))
{
	static char buf[XBUF + 1];
	struct xdump d;
	char *line = buf, *nl, *m;
	const char *pp = pre;	/* what the caller read already: first */
	size_t have = 0, nls = 0, run = 0;
	u64 nul = 0, off = 0;
	ssize_t r;
	long ln = 0;
	int nd = 0, cur = 0, eof = 0;

	x_each = each, x_out = out, x_sel = sel, x_rc = 0;
	memset(&x_got, 0, sizeof(x_got));
	if (out && strlen(out) > 4000)
		die(2, "%s: path too long", out);
	for (;;) {
		if (!eof && nls < 5) {
			memmove(buf, line, have -= line - buf);
			line = buf;
			if (n) {	/* pre, in pieces the buffer holds */
				r = n < XBUF - have ? n : XBUF - have;
				memcpy(buf + have, pp, r);
				pp += r, n -= r;
			} else if ((r = read(fd, buf + have, XBUF - have)) <= 0) {
				if (r < 0)
					msg("read:"), x_rc = 1;
				eof = 1;
				continue;
			}
			nls += xclean(buf + have, r, &run, &nul);
			have += r, off += r;
			if (nul >= XNUL) {
				msg("%u MiB of NUL bytes in a row: not a capture; read no further", XNUL >> 20);
				eof = 1, x_rc = 1;
			}
			continue;
		}
		if (line == buf + have)
			break;
		buf[have] = 0;
		ln++;
		if ((nl = memchr(line, '\n', buf + have - line)))
			*nl = 0, nls--;
		if (nl > line && nl[-1] == '\r')
			nl[-1] = 0;
		if ((m = xstrstr(line, "#TRACER BEGIN "))) {
			if (cur && !d.done) {
				msg("dump %d: no end marker before capture line %L", d.dump, (u64)ln);
				d.bad = 1;
			}
			if (cur && !d.done)
				xfinish(&d);
			/* (a kernel message inside the marker: the number
			 * follows it, on the next line) */
			xbegin(&d, xtou(m[14] == '[' && nl ? nl + 1 : m + 14, 0, 10)), nd++;
			cur = 1;
		} else if (cur && !d.done && (m = xstrstr(line, "#T "))) {
			xline(&d, m + 3, ln, nl ? nl + 1 : 0);
		} else if (cur && !d.done && (m = xstrstr(line, "#TRACER END "))) {
			xend(&d, xstrchr(m + 12, ' ') ? xstrchr(m + 12, ' ') + 1 : m + 12, ln);
			xfinish(&d);
		}
		line = nl ? nl + 1 : buf + have;
	}
	if (cur && !d.done) {
		msg("dump %d: the capture ends before its end marker", d.dump);
		d.bad = 1;
		xfinish(&d);
	}
	if (!nd)
		die(1, "no framed dump in the input");
	if (each || out)
		return x_rc;
	if (!x_got.any && sel)
		die(1, "no dump %d in the input", sel);
	if (!x_got.any)
		die(1, "no complete dump in the input; -n N writes a damaged one");
	for (off = 0; off < x_got.n; off += r)
		if ((r = write(1, x_got.b + off, x_got.n - off)) <= 0) {
			msg("write stdout:");
			return 1;
		}
	return x_got.bad | x_rc;
}
