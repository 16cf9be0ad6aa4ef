/* push.c - every dump into S3-compatible object storage (push=URL).
 *
 * A dump is made and kept first: a standalone file-mode perf.data in
 * the spool (a memfd, or a file in spool=DIR that outlives a kill or a
 * reboot), bounded by count and bytes, the oldest dropped first. Then
 * the loop sends the spool's oldest as an HTTP PUT signed with AWS
 * Signature Version 4, over one non-blocking connection whose fd waits
 * in the loop's poll with the others: nothing here blocks, so a signal
 * or a tripwire dumps at once while an upload crawls. Nothing pending
 * means no fd and no timeout: no wake-up.
 *
 * A spool file is the perf.data, then a trailer: the object's key, the
 * body's SHA-256 and its x-amz-meta-* headers, one per line, then the
 * trailer's length in 8 hex digits and a newline. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include "config.h"
#include "pull.h"
#include "sha.h"
#include "s3.h"
#include "push.h"

#ifndef VERSION
#define VERSION "unknown"
#endif
#define TRAIL 1024		/* a trailer's most */
#define STALL 30000000		/* us without progress: cut, sent again */
#define BACKOFF_MAX 32		/* s between tries while the store is away */

char *cfg_push;
static char *s3key, *region = "us-east-1", *spool_dir;
static long spool_max = 8;
static u64 spool_bytes = 32 << 20;
static char host[128], *bucket, *prefix = "";
static u64 sa[16];		/* the store's address (pull_addr's) */
static unsigned salen;
static char board[65], boot[40], krel[65], mach[65];

struct item {
	int fd;
	u64 size;		/* the body's */
	char t[TRAIL];		/* its trailer */
	char file[256];		/* in spool=DIR, or "" */
};
static struct item *q, pend;	/* the spool, oldest first; the dump being made */
static int nq;
static u64 qbytes, dropped, seqms, fseq;	/* fseq: spool=DIR's next file */

/* The one upload. */
enum { IDLE, CONN, SEND, RECV };
static struct {
	int fd, st, tries, outq;	/* outq: bytes the peer had not taken */
	u64 at, t0, prog;	/* request bytes sent; started; progress */
	size_t hn, an;		/* the head's length; the answer's */
	char h[4096];		/* the request's head, then the answer */
} up;
static u64 next_try;		/* us, while the store is away */
static unsigned backoff;	/* s */
static int paused, skewed;	/* refused; corrected the clock once */
static long long skew;		/* s: the store's clock less ours */
static long long off;		/* s: a test's wrong clock (TRACER_CLOCK) */

/* Our wall clock, in s */
static long long wall(void)
{
	return clock_ns(CLOCK_REALTIME) / 1000000000 + off;
}

/* ---- the config ---- */

/* host[:port] from /etc/hosts or as an address, into sa */
static const char *resolve(const char *h, const char *port)
{
	static char b[8192];
	char ip[40], spec[64], *p, *nl;
	long n;

	fmt(spec, sizeof(spec), "%s:%s", h, port);
	if (!pull_addr(spec, sa, &salen))
		return 0;
	n = readfile("/etc/hosts", b, sizeof(b) - 1);
	b[n > 0 ? n : 0] = 0;
	for (p = b; *p; p = nl + !!*nl) {
		char *w, *e;

		nl = p + span(p, "\n", 0);
		e = p + span(p, "#\n", 0);
		w = p + span(p, " \t", 1);
		n = span(w, " \t#\n", 0);
		if (w >= e || (size_t)n >= sizeof(ip))
			continue;
		memcpy(ip, w, n), ip[n] = 0;
		for (w += n; w < e; w += n) {
			w += span(w, " \t", 1);
			n = span(w, " \t#\n", 0);
			if (n && (size_t)n == strlen(h) && !memcmp(w, h, n)) {
				fmt(spec, sizeof(spec), "%s:%s", ip, port);
				if (!pull_addr(spec, sa, &salen))
					return 0;
			}
		}
	}
	return "not an IPv4 address, nor a name /etc/hosts gives one (no DNS here)";
}

/* push=http://HOST[:PORT]/BUCKET[/PREFIX] */
static const char *url(char *v)
{
	char *h, *p, *c;

	if (!strncmp(v, "https://", 8))
		return "no TLS in tracer: reach an HTTPS store through a gateway or stunnel (README)";
	if (strncmp(v, "http://", 7))
		return "push=http://HOST[:PORT]/BUCKET[/PREFIX]";
	h = v + 7;
	p = h + span(h, "/", 0);
	if (!*p || !p[1] || p[1] == '/' || p - h >= (long)sizeof(host) || p == h)
		return "push=http://HOST[:PORT]/BUCKET[/PREFIX]: a bucket is needed";
	memcpy(host, h, p - h);
	host[p - h] = 0;
	bucket = xstrdup(p + 1);
	if ((c = xstrchr(bucket, '/'))) {
		*c++ = 0;
		prefix = c;
		for (c += strlen(c); c > prefix && c[-1] == '/'; )
			*--c = 0;
	}
	if (strlen(bucket) > 63 || strlen(prefix) > 100)
		return "a bucket of at most 63 bytes, a prefix of at most 100";
	if ((c = xstrchr(host, ':'))) {
		char hn[128];

		memcpy(hn, host, c - host);
		hn[c - host] = 0;
		return resolve(hn, c + 1);
	}
	return resolve(host, "80");
}

static int keys;	/* s3key= region= spool= given */

int push_key(const char *key, char *val, const char **why)
{
	*why = 0;
	keys += !!strcmp(key, "push");
	if (!strcmp(key, "push")) {
		if (cfg_push)
			*why = "given twice: each key once";
		else if (!(*why = url(val)))
			cfg_push = val;
	} else if (!strcmp(key, "s3key")) {
		s3key = val;
	} else if (!strcmp(key, "region")) {
		if (!*val || strlen(val) > 32 || val[span(val, "abcdefghijklmnopqrstuvwxyz0123456789-", 1)])
			*why = "region=NAME: us-east-1, eu-central-1, ...";
		region = val;
	} else if (!strcmp(key, "spool")) {
		if (*val == '/') {
			spool_dir = val;
			if (strlen(val) > 200)
				*why = "spool=DIR: a path of at most 200 bytes";
		} else {
			u64 v = num(val, 1);

			if (val[span(val, "0123456789", 1)])	/* a size */
				spool_bytes = v, *why = v < 4096 ? "spool=SIZE: 4k or more" : 0;
			else
				spool_max = v, *why = v < 1 || v > 1024 ? "spool=N: 1 to 1024 dumps" : 0;
		}
	} else {
		return 0;
	}
	return 1;
}

/* The secret and its id from s3key=FILE (the AWS shared credentials
 * file, [default]); 0, or why not. */
static const char *cred(char *id, char *sec)
{
	char b[4097], *p, *nl;
	int fd = open(s3key, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC), in = 0;
	unsigned m;
	struct stat st;
	long n;

	*id = *sec = 0;
	if (fd < 0)
		return "can't open s3key=";
	m = fd_stat(fd);
	if (!m && !fstat(fd, &st))
		m = st.st_mode;
	n = S_ISREG(m) ? read(fd, b, sizeof(b) - 1) : -1;
	close(fd);
	if (n < 0)
		return "s3key= is no regular file";
	if (m & 044)
		return "others may read s3key= (chmod 600 it)";
	b[n] = 0;
	for (p = b; *p; p = nl + !!*nl) {
		char *k, *v, *e;
		size_t kn;

		nl = p + span(p, "\n", 0);
		k = p + span(p, " \t", 1);
		if (*k == '[') {
			in = !strncmp(k, "[default]", 9);
			continue;
		}
		kn = span(k, " \t=\n\r", 0);
		v = k + kn + span(k + kn, " \t", 1);
		if (!in || *v != '=')
			continue;
		v += 1 + span(v + 1, " \t", 1);
		for (e = nl; e > v && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'); e--)
			;
		if (e - v > 127)
			return "a key of more than 127 bytes in s3key=";
		if (kn == 17 && !strncmp(k, "aws_access_key_id", 17))
			memcpy(id, v, e - v), id[e - v] = 0;
		if (kn == 21 && !strncmp(k, "aws_secret_access_key", 21))
			memcpy(sec, v, e - v), sec[e - v] = 0;
	}
	return *id && *sec ? 0 : "s3key= needs [default] with aws_access_key_id = and aws_secret_access_key =";
}

/* ---- the spool ---- */

static void item_free(struct item *it)
{
	qbytes -= it->size;
	close(it->fd);
	if (*it->file)
		unlink(it->file);
	memmove(it, it + 1, (q + --nq - it) * sizeof(*it));
}

/* Within the bounds with more (0 or 1) of size bytes: the oldest go
 * (at start, with none to come, the newest stays whatever its size). */
static void make_room(u64 size, int more)
{
	while (nq > !more && (nq + more > spool_max || qbytes + size > spool_bytes)) {
		char k[TRAIL];

		if (up.st) {		/* the oldest is the one on its way */
			close(up.fd);
			up.fd = -1, up.st = IDLE;
		}
		dropped++;
		fmt(k, sizeof(k), "%s", q->t);
		k[span(k, "\n", 0)] = 0;
		msg("push: the spool is full (%d dumps, %L bytes): dropped %s, the oldest (%L so far)",
		    nq, qbytes, k, dropped);
		item_free(q);
	}
}

/* A spool file's trailer into it (0), or -1: not one of ours. */
static int trailer_read(struct item *it)
{
	char l[10];
	u64 n, sz = lseek(it->fd, 0, SEEK_END);

	if (sz < 9 || pread(it->fd, l, 9, sz - 9) != 9 || l[8] != '\n')
		return -1;
	l[8] = 0;
	n = xtou(l, 0, 16);
	if (n >= TRAIL || n + 9 > sz || pread(it->fd, it->t, n, sz - 9 - n) != (long)n)
		return -1;
	it->t[n] = 0;
	it->size = sz - 9 - n;
	/* the key, a SHA-256 in hex, then name:value lines (all of them
	 * ended): what start() takes apart, checked once here */
	{
		char *p = it->t + span(it->t, "\n", 0), *e = it->t + n;
		int k;

		if (p == it->t || p + 66 > e || p[65] != '\n' || span(p + 1, "0123456789abcdef", 1) != 64 || e[-1] != '\n')
			return -1;
		for (p += 66, k = 0; p < e; p += span(p, "\n", 0) + 1, k++)
			if (k == 7 || span(p, ":\n", 0) == span(p, "\n", 0))
				return -1;
	}
	return 0;
}

static void spool_one(const char *name, void *ctx)
{
	struct item it;
	size_t n = strlen(name);
	long pid;

	it.fd = -1;
	if (*name == '.' && n > 4 && !strcmp(name + n - 4, ".tmp")) {
		/* a dump cut short by a kill: its tracer is gone */
		pid = xtou(name + 1, 0, 10);
		fmt(it.file, sizeof(it.file), "%s/%s", spool_dir, name);
		if (pid > 0 && kill(pid, 0) && errno == ESRCH)
			unlink(it.file);
		return;
	}
	if (n < 6 || strcmp(name + n - 5, ".push") || n > 40)
		return;
	fmt(it.file, sizeof(it.file), "%s/%s", spool_dir, name);
	if ((it.fd = open(it.file, O_RDONLY | O_CLOEXEC)) < 0 || trailer_read(&it)) {
		msg("push: %s: not a dump of the spool, left alone", it.file);
		if (it.fd >= 0)
			close(it.fd);
		return;
	}
	if (xtou(name, 0, 10) >= fseq)
		fseq = xtou(name, 0, 10) + 1;
	/* in order of the names (as made), the newest kept */
	for (n = nq; n && strcmp(q[n - 1].file, it.file) > 0; n--)
		;
	memmove(q + n + 1, q + n, (nq - n) * sizeof(*q));
	q[n] = it;
	nq++;
	qbytes += it.size;
	make_room(0, 0);
}

void push_init(void)
{
	char id[128], sec[128];
	const char *why;
	struct utsname u;
	long n;

	up.fd = -1;
	/* For tests only: TRACER_CLOCK=-7200 is a board's clock 2 h behind */
	if (CFG_TESTHOOKS && (why = hook("TRACER_CLOCK")))
		off = *why == '-' ? -(long long)xtou(why + 1, 0, 10) : (long long)xtou(why, 0, 10);
	if (!cfg_push) {
		if (keys)
			die(2, "config: s3key=, region= and spool= go with push=");
		return;
	}
	if (!s3key)
		die(2, "config: push= needs s3key=FILE (the AWS credentials file format, mode 600)");
	if ((why = cred(id, sec)))
		die(2, "config: %s: %s", s3key, why);
	uname(&u);
	memcpy(board, u.nodename, 64), memcpy(krel, u.release, 64), memcpy(mach, u.machine, 64);
	n = readfile("/proc/sys/kernel/random/boot_id", boot, 37);
	boot[n == 37 ? 36 : 0] = 0;
	if (!*boot)
		memcpy(boot, "no-boot-id", 11);
	q = xmalloc((spool_max + 1) * sizeof(*q));
	if (spool_dir) {
		if (path_mode(spool_dir) != S_IFDIR || access(spool_dir, W_OK))
			die(2, "config: spool=%s: not a directory tracer may write", spool_dir);
		dir_each(spool_dir, spool_one, 0);
		if (nq)
			msg("push: %d dumps of %L bytes in %s wait to be sent", nq, qbytes, spool_dir);
	}
}

/* printable ASCII, one space at most in a row, trimmed: a header value */
static void clean(char *o, size_t n, const char *s)
{
	size_t k = 0;

	for (; *s && k + 1 < n; s++) {
		char c = *s < ' ' || *s > '~' ? '?' : *s;

		if (c != ' ' || (k && o[k - 1] != ' '))
			o[k++] = c;
	}
	while (k && o[k - 1] == ' ')
		k--;
	o[k] = 0;
}

/* v in w digits, zero-padded (its last w digits) */
static char *pad(char *o, u64 v, int w)
{
	o[w] = 0;
	while (w--)
		o[w] = '0' + v % 10, v /= 10;
	return o;
}

int push_open(char *name, size_t n, const char *why)
{
	struct item *it = &pend;
	char slug[48], r[128], ms[16];
	u64 t = clock_ns(CLOCK_BOOTTIME) / 1000000;
	size_t i;
	int fd;

	/* the key: PREFIX/BOARD/BOOT_ID/MS-REASON.data, MS since boot (12
	 * digits: they sort), REASON up to " by " or a filter */
	seqms = t > seqms ? t : seqms + 1;
	clean(r, sizeof(r), why);
	for (i = 0; r[i] && r[i] != '/' && i < sizeof(slug) - 1 && strncmp(r + i, " by ", 4); i++)
		slug[i] = r[i] == '.' || r[i] == '_' || (unsigned)((r[i] | 32) - 'a') < 26 || (unsigned)(r[i] - '0') < 10 ? r[i] : '-';
	slug[i] = 0;
	/* key and reason now; push_add puts the rest after them */
	fmt(it->t, TRAIL, "%s%s%s/%s/%s-%s.data\n%s\n", prefix, *prefix ? "/" : "", board, boot,
	    pad(ms, seqms, 12), slug, r);
	*it->file = 0;
	if (spool_dir) {
		fmt(it->file, sizeof(it->file), "%s/.%u.tmp", spool_dir, (unsigned)getpid());
		fd = open(it->file, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	} else {
		fd = memfd_create("tracer-push", MFD_CLOEXEC);
	}
	if (fd < 0) {
		msg(spool_dir ? "push: %s:" : "push: no memfd (Linux 3.17+; spool=DIR works without):", it->file);
		return -1;
	}
	fmt(name, n, "the push spool, as %s", it->t);
	name[span(name, "\n", 0)] = 0;
	return fd;
}

int push_add(int fd, int err, u64 size)
{
	struct item *it = &pend;
	struct sha256 s;
	static u8 b[1 << 16];
	char *t = it->t, *reason = t + span(t, "\n", 0) + 1, r[128], h[65], l[9], f[32];
	u8 d[32];
	u64 o;
	long k;
	size_t n;

	fmt(r, sizeof(r), "%s", reason);
	r[span(r, "\n", 0)] = 0;
	sha256_init(&s);
	for (o = 0; !err && o < size; o += k) {
		if ((k = pread(fd, b, size - o < sizeof(b) ? size - o : sizeof(b), o)) <= 0)
			err = k ? errno : EIO;
		else
			sha256_add(&s, b, k);
	}
	sha256_end(&s, d);
	/* key, sha, then the headers to sign, sorted by name */
	fmt(reason, TRAIL - (reason - t), "%s\nx-amz-meta-board:%s\nx-amz-meta-boot-id:%s\nx-amz-meta-kernel:%s\n"
	    "x-amz-meta-machine:%s\nx-amz-meta-reason:%s\nx-amz-meta-tracer:%s\n",
	    hexstr(h, d, 32), board, boot, krel, mach, r, VERSION);
	n = strlen(t);
	*hex8(l, n) = '\n';	/* the trailer's length */
	if (!err && (pwrite(fd, t, n, size) != (long)n || pwrite(fd, l, 9, size + n) != 9))
		err = errno ? errno : EIO;
	/* whole now: under its name, the next of the spool's, never over
	 * another (link, not rename) */
	while (!err && spool_dir) {
		char tmp[256];

		fmt(tmp, sizeof(tmp), "%s", it->file);
		fmt(it->file, sizeof(it->file), "%s/%s.push", spool_dir, pad(f, fseq++, 12));
		if (!link(tmp, it->file)) {
			unlink(tmp);
			break;
		}
		if (errno != EEXIST || fseq % 1000 == 0)
			err = errno;
		memcpy(it->file, tmp, sizeof(tmp));
	}
	if (err) {
		if (spool_dir)
			unlink(it->file);
		close(fd);
		return err;
	}
	it->fd = fd;
	it->size = size;
	make_room(size, 1);
	q[nq++] = *it;
	qbytes += size;
	paused = 0;		/* a new dump tries again what was refused */
	return 0;
}

/* ---- the upload ---- */

/* YYYYMMDDTHHMMSSZ for t (s since 1970) */
static void amz_date(char *o, u64 t)
{
	u64 d = t / 86400, s = t % 86400;
	/* days to the civil date (Howard Hinnant's algorithm) */
	u64 z = d + 719468, era = z / 146097, doe = z - era * 146097;
	u64 yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	u64 doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
	u64 day = doy - (153 * mp + 2) / 5 + 1, mon = mp < 10 ? mp + 3 : mp - 9;
	u64 y = yoe + era * 400 + (mon <= 2);
	u64 v[6] = { y, mon, day, s / 3600, s / 60 % 60, s % 60 };
	int i, w[6] = { 4, 2, 2, 2, 2, 2 };

	for (i = 0; i < 6; i++) {
		int k;

		for (k = w[i]; k--; v[i] /= 10)
			o[k] = '0' + v[i] % 10;
		o += w[i];
		if (i == 2)
			*o++ = 'T';
	}
	*o++ = 'Z';
	*o = 0;
}

/* A Date: header's time ("Fri, 27 Nov 2026 12:04:01 GMT"), or 0 */
static u64 http_date(const char *s)
{
	static const char mon[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	u64 d, m, y, hh, mm, ss;
	char *e;
	int i;

	s += span(s, ", ", 0);
	s += span(s, ", ", 1);
	d = xtou(s, &e, 10);
	for (i = 0; i < 12 && strncmp(e + 1, mon + 3 * i, 3); i++)
		;
	if (i == 12 || *e != ' ')
		return 0;
	m = i + 1;
	y = xtou(e + 5, &e, 10);
	hh = xtou(e + 1, &e, 10);
	mm = xtou(e + 1, &e, 10);
	ss = xtou(e + 1, &e, 10);
	/* the civil date to days */
	y -= m <= 2;
	{
		u64 era = y / 400, yoe = y - era * 400;
		u64 doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
		u64 doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;

		return (era * 146097 + doe - 719468) * 86400 + hh * 3600 + mm * 60 + ss;
	}
}

/* In the answer, header name's value (to the line's end), or 0. */
static char *header(const char *name)
{
	char *p = up.h;
	size_t n = strlen(name);

	while ((p = xstrchr(p, '\n'))) {
		size_t i;

		for (p++, i = 0; i < n && (p[i] | 32) == name[i]; i++)
			;
		if (i == n && p[n] == ':')
			return p + n + 1 + span(p + n + 1, " ", 1);
	}
	return 0;
}

static void up_close(void)
{
	if (up.fd >= 0)
		close(up.fd);
	up.fd = -1;
	up.st = IDLE;
}

/* Not this time: again after the backoff, said at tries 1, 2, 4, ...;
 * why, or the error err (lib's words for the usual ones, without the
 * 2 KiB of libc's strerror) */
static void retry(const char *why, int err)
{
	up_close();
	backoff = backoff ? (backoff * 2 > BACKOFF_MAX ? BACKOFF_MAX : backoff * 2) : 1;
	next_try = now_us() + backoff * 1000000ULL;
	if (!why)
		why = err == ECONNREFUSED ? "connection refused" : err == ETIMEDOUT ? "timed out" :
		      err == EHOSTUNREACH || err == ENETUNREACH ? "unreachable" : 0;
	errno = err;
	if (up.tries & (up.tries - 1))
		return;
	if (why)
		msg("push: %s: %s; %d dumps wait, again in %u s (try %d)", host, why, nq, backoff, up.tries);
	else
		msg("push: %s: %d dumps wait, again in %u s (try %d):", host, nq, backoff, up.tries);
}

static void start(void)
{
	char id[128], sec[128], date[20], sha[65], path[512], auth[768], t[TRAIL];
	const char *hd[8], *why;
	char *p, *key;
	int i;
	struct s3req r;

	if ((why = cred(id, sec))) {
		msg("push: %s: %s; %d dumps kept, sent after the next dump", s3key, why, nq);
		paused = 1;
		return;
	}
	memcpy(t, q->t, TRAIL);
	key = t;
	p = t + span(t, "\n", 0), *p++ = 0;
	memcpy(sha, p, 64), sha[64] = 0;
	p += 65;
	for (i = 0; i < 7 && *p; i++, p += span(p, "\n", 0), *p++ = 0)
		hd[i] = p;
	hd[i] = 0;
	amz_date(date, wall() + skew);
	fmt(path, sizeof(path), "/%s/", bucket);
	if (!s3_uri(path + strlen(path), sizeof(path) - strlen(path), key))
		path[0] = 0;
	r = (struct s3req){ "PUT", host, path, "", date, region, "s3", id, sec, sha, hd, 0 };
	if (!path[0] || !s3_auth(&r, auth, sizeof(auth))) {
		msg("push: %s: the key is too long to sign; dropped", key);
		item_free(q);
		return;
	}
	fmt(up.h, sizeof(up.h), "PUT %s HTTP/1.1\r\nHost: %s\r\nContent-Length: %L\r\nx-amz-content-sha256: %s\r\n"
	    "x-amz-date: %s\r\n", path, host, q->size, sha, date);
	for (i = 0; hd[i]; i++) {
		char *c = xstrchr(hd[i], ':');

		*c = 0;
		fmt(up.h + strlen(up.h), sizeof(up.h) - strlen(up.h), "%s: %s\r\n", hd[i], c + 1);
	}
	fmt(up.h + strlen(up.h), sizeof(up.h) - strlen(up.h), "Authorization: %s\r\nConnection: close\r\n\r\n", auth);
	up.hn = strlen(up.h);
	up.at = up.an = 0;
	up.outq = -1;
	up.t0 = up.prog = now_us();
	up.tries++;
	up.fd = socket(salen == sizeof(struct sockaddr_in) ? AF_INET : AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (up.fd < 0 || (connect(up.fd, (void *)sa, salen) && errno != EINPROGRESS)) {
		retry(0, errno);
		return;
	}
	up.st = CONN;
}

/* What the store said: 2xx arrived; RequestTimeTooSkewed corrects our
 * clock from its Date: once; another 4xx is a refusal that holds
 * until the next dump; the rest, or no answer, tries again later. */
static void answer(void)
{
	char code[64] = "", *c, *e;
	int st = 0;
	u64 t = now_us() - up.t0;

	up.h[up.an] = 0;
	if (!strncmp(up.h, "HTTP/1.", 7))
		st = xtou(up.h + 9, 0, 10);
	if ((c = xstrstr(up.h, "<Code>")) && (e = xstrstr(c, "</Code>")) && e - c - 6 < (long)sizeof(code))
		memcpy(code, c + 6, e - c - 6), code[e - c - 6] = 0;
	if (st >= 200 && st < 300) {
		char k[TRAIL];

		fmt(k, sizeof(k), "%s", q->t);
		k[span(k, "\n", 0)] = 0;
		msg("push: %s arrived: %L bytes in %L.%u s%s", k, q->size, t / 1000000, (unsigned)(t / 100000 % 10),
		    up.tries > 1 ? " (after tries that failed)" : "");
		up_close();
		item_free(q);
		backoff = up.tries = skewed = 0;
		next_try = 0;
	} else if (!strcmp(code, "RequestTimeTooSkewed") && !skewed && (c = header("date")) && http_date(c)) {
		skewed = 1;
		skew = (long long)http_date(c) - wall();
		msg("push: our clock is %L s %s the store's (RequestTimeTooSkewed): signing with its time",
		    (u64)(skew < 0 ? -skew : skew), skew < 0 ? "ahead of" : "behind");
		up_close();
		next_try = 0;
	} else if (st >= 400 && st < 500 && st != 408 && strcmp(code, "RequestTimeout")) {
		msg("push: %s refused it: HTTP %d %s; %d dumps kept, tried again after the next dump",
		    host, st, *code ? code : "(no S3 error code)", nq);
		up_close();
		paused = 1;
		up.tries = 0;
	} else {
		char why[96];

		fmt(why, sizeof(why), st ? "HTTP %d %s" : "no answer", st, code);
		retry(why, 0);
	}
}

int push_fds(struct pollfd *p)
{
	u64 now = now_us();

	p->fd = up.fd;
	p->events = up.st == CONN ? POLLOUT : up.st == SEND ? POLLOUT | POLLIN : POLLIN;
	if (up.st)
		return up.prog + STALL > now ? (up.prog + STALL - now) / 1000 + 1 : 0;
	if (!nq || paused)
		return -1;
	return next_try > now ? (next_try - now) / 1000 + 1 : 0;
}

/* The body from its spool fd, in pieces: what the socket takes. */
static void send_some(void)
{
	static char b[1 << 14];
	int i;

	for (i = 0; i < 64 && up.at < up.hn + q->size; i++) {
		const char *p = up.h + up.at;
		long n = up.hn - up.at, w;

		if (up.at >= up.hn) {
			u64 o = up.at - up.hn, left = q->size - o;

			n = pread(q->fd, b, left < sizeof(b) ? left : sizeof(b), o);
			if (n <= 0) {
				retry("reading the spool failed", 0);
				return;
			}
			p = b;
		}
		w = send(up.fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w < 0) {
			if (errno != EAGAIN && errno != EINTR)
				up.st = RECV;	/* its answer may say why */
			return;
		}
		up.at += w;
		up.prog = now_us();
	}
	if (up.at >= up.hn + q->size)
		up.st = RECV;
}

void push_step(const struct pollfd *p)
{
	int e = 0;
	socklen_t el = sizeof(e);
	long n;

	if (!up.st) {
		if (nq && !paused && now_us() >= next_try)
			start();
		return;
	}
	/* Progress is also what the peer took of what the kernel holds:
	 * a slow link drains it long after the last send. */
	if (now_us() - up.prog >= STALL) {
		int o = -1;

		if (ioctl(up.fd, TIOCOUTQ, &o) || o <= 0 || o == up.outq) {
			retry("no progress for 30 s", 0);
			return;
		}
		up.outq = o;
		up.prog = now_us();
	}
	if (!p->revents)
		return;
	if (up.st == CONN) {
		if (getsockopt(up.fd, SOL_SOCKET, SO_ERROR, &e, &el) || e) {
			retry(0, e ? e : errno);
			return;
		}
		up.st = SEND;
	}
	if (up.st == SEND && p->revents & POLLIN)
		up.st = RECV;
	if (up.st == SEND) {
		send_some();
		return;
	}
	/* the answer: up to its end (Connection: close, or its length)
	 * or a full buffer */
	if (!(p->revents & (POLLIN | POLLHUP | POLLERR)))
		return;
	n = read(up.fd, up.h + up.an, sizeof(up.h) - 1 - up.an);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n > 0) {
		char *b, *l;

		up.an += n;
		up.prog = now_us();
		up.h[up.an] = 0;
		b = xstrstr(up.h, "\r\n\r\n");
		l = header("content-length");
		if (up.an < sizeof(up.h) - 1 && !(b && l && up.h + up.an >= b + 4 + xtou(l, 0, 10)))
			return;
	}
	if (!up.an)
		retry(n < 0 ? 0 : "the connection closed with no answer", errno);
	else
		answer();
}

void push_end(int sfd)
{
	static int once;
	u64 end = now_us() + PUSH_LAST * 1000ULL;
	struct pollfd p[2] = { { -1, 0, 0 }, { sfd, POLLIN, 0 } };

	if (!cfg_push || once++)
		return;
	if (nq && !paused)
		msg("push: %d dumps wait: %d s at most for them", nq, PUSH_LAST / 1000);
	while (nq && !paused && now_us() < end) {
		int w = push_fds(p);
		u64 left = (end - now_us()) / 1000 + 1;

		if (poll(p, 2, min_ms(w, left)) > 0 && p[1].revents)
			break;		/* a second signal: no more waiting */
		push_step(p);
	}
	if (nq)
		msg(spool_dir ? "push: %d dumps not sent stay in %s for the next start" :
		    "push: %d dumps not sent are lost (spool=DIR keeps them)", nq, spool_dir);
}

/* The descriptors push may keep at once: a dump each of the spool, the
 * one being made, the upload's connection (the fd check counts them). */
int push_nfd(void)
{
	return cfg_push ? spool_max + 2 : 0;
}
