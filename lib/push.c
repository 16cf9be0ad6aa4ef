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
#include "pushcfg.h"
#include "room.h"

#ifndef VERSION
#define VERSION "unknown"
#endif
#define TRAIL 1024		/* a trailer's most */
#define STALL 30000000		/* us without progress: cut, sent again */
#define BACKOFF_MAX 32		/* s between tries while the store is away */
/* One try's most: TRY_S s and a s per TRY_RATE bytes of body, and the
 * answer within ANSWER_S s of its start (a store that drips bytes
 * makes progress, and would hold the upload for ever). */
#define TRY_S 60
#define TRY_RATE 512
#define ANSWER_S 30

static char board[65], bkey[65], boot[40], krel[65], mach[65];	/* bkey: the board in keys */

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
	u64 at, t0, prog, lim;	/* request bytes sent; started; progress; its end */
	size_t hn, an;		/* the head's length; the answer's */
	char h[4096];		/* the request's head, then the answer */
} up;
static u64 next_try;		/* us, while the store is away */
static unsigned backoff;	/* s */
static int paused, skewed;	/* refused; clock corrections in a row */
static long long skew;		/* s: the store's clock less ours */
static long long off;		/* s: a test's wrong clock (TRACER_CLOCK) */

/* Our wall clock, in s */
static long long wall(void)
{
	return clock_ns(CLOCK_REALTIME) / 1000000000 + off;
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

/* The spool's oldest dropped, said with why */
static void drop_oldest(const char *why)
{
	char k[TRAIL];

	if (up.st) {		/* the oldest is the one on its way */
		close(up.fd);
		up.fd = -1, up.st = IDLE;
	}
	dropped++;
	fmt(k, sizeof(k), "%s", q->t);
	k[span(k, "\n", 0)] = 0;
	msg("push: %s: dropped %s, the oldest (%L so far)", why, k, dropped);
	item_free(q);
}

/* Within the bounds with more (0 or 1) of size bytes: the oldest go
 * (at start, with none to come, the newest stays whatever its size). */
static void make_room(u64 size, int more)
{
	char w[64];

	while (nq > !more && (nq + more > pc_spool_max || qbytes + size > pc_spool_bytes)) {
		fmt(w, sizeof(w), "the spool is full (%d dumps, %L bytes)", nq, qbytes);
		drop_oldest(w);
	}
}

int push_room(int fd, u64 size, u64 about, int dump)
{
	struct stat st;
	u64 avail, res, had, rest;

	if (!pc_spool_dir || fstat(fd, &st))
		return 0;
	had = (u64)st.st_size < size ? (u64)st.st_size : size;
	rest = about > had ? about - had : size - had;	/* what it will still take */
	/* free=, as the -o series keeps it: the oldest go, but none for a
	 * dump that would not fit with all of them gone */
	while ((res = room_reserve(fd, &avail)) && avail < res + (size - had)) {
		if (!nq || avail + qbytes < res + rest) {
			msg("dump %d: does not fit the push spool's free=%L KiB: %L bytes so far, about %L in all; "
			    "the spool's others are left", dump, res >> 10, size, about > size ? about : size);
			return ENOSPC;
		}
		drop_oldest("for free= on spool=DIR's filesystem");
	}
	return 0;
}

/* A trailer t of n bytes as push_add makes it: the key, within the
 * prefix; a SHA-256 in hex; x-amz-meta-NAME:value lines; each line
 * ended. 0, or why not. Checked once here, so that start() takes it
 * apart without a check, and never sends another key or header. */
static const char *trailer_ok(const char *t, size_t n)
{
	const char *p = t + span(t, "\n", 0), *e = t + n, *c;
	size_t pn = strlen(pc_prefix);
	int k;

	if (strlen(t) != n || p == t || p + 66 > e || p[65] != '\n' || span(p + 1, "0123456789abcdef", 1) != 64 ||
	    e[-1] != '\n')
		return "not a dump of the spool";
	for (p += 66, k = 0; p < e; p += span(p, "\n", 0) + 1, k++)
		if (k == 7 || strncmp(p, "x-amz-meta-", 11) || span(p, "abcdefghijklmnopqrstuvwxyz-", 1) != span(p, ":\n", 0) ||
		    p[span(p, ":\n", 0)] != ':')
			return "not a dump of the spool";
	/* nor a segment a proxy may normalise out of the prefix ("..") */
	for (c = t; *c != '\n'; c++)
		if (*c == '/' && (c[1] == '/' || c[1] == '.' || c[1] == '\n'))
			break;
	if (*c != '\n' || *t == '/' || *t == '.' || (pn && (strncmp(t, pc_prefix, pn) || t[pn] != '/')))
		return "its key is not one of push='s prefix";
	return 0;
}

/* A spool file's trailer into it: 0, or why it is not one of ours. */
static const char *trailer_read(struct item *it)
{
	char l[10];
	u64 n, sz = lseek(it->fd, 0, SEEK_END);

	if (sz < 9 || pread(it->fd, l, 9, sz - 9) != 9 || l[8] != '\n')
		return "not a dump of the spool";
	l[8] = 0;
	n = xtou(l, 0, 16);
	if (n >= TRAIL || n + 9 > sz || pread(it->fd, it->t, n, sz - 9 - n) != (long)n)
		return "not a dump of the spool";
	it->t[n] = 0;
	it->size = sz - 9 - n;
	return trailer_ok(it->t, n);
}

/* A file of spool=DIR. Others may write there (a sticky directory):
 * what is not a regular file of tracer's own user, with one name and
 * mode 600, is left alone. Opened without following a link, and
 * without waiting (a FIFO). */
static void spool_one(const char *name, void *ctx)
{
	struct item it;
	struct stat st;
	size_t n = strlen(name);
	const char *why = "not tracer's own file (a regular file of its user, mode 600)";
	long pid;

	fmt(it.file, sizeof(it.file), "%s/%s", pc_spool_dir, name);
	if (n > 4 && !strcmp(name + n - 4, ".tmp")) {
		/* a dump cut short by a kill: its tracer is gone */
		pid = xtou(name, 0, 10);
		if (pid > 0 && kill(pid, 0) && errno == ESRCH)
			unlink(it.file);
		return;
	}
	if (n < 6 || strcmp(name + n - 5, ".push") || n > 40)
		return;
	it.fd = open(it.file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (it.fd >= 0 && !fstat(it.fd, &st) && S_ISREG(st.st_mode) && st.st_uid == geteuid() && st.st_nlink == 1 &&
	    !(st.st_mode & 077))
		why = trailer_read(&it);
	if (why) {
		msg("push: %s: %s, left alone", it.file, why);
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

/* printable ASCII, one space at most in a row, trimmed: a header value
 * as SigV4 canonicalises it, so that the store's hash is ours */
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

/* spool=DIR: tracer's or root's, and others may write it only where
 * the sticky bit keeps them from tracer's files (as /tmp) */
static void spool_check(void)
{
	struct stat st;

	if (lstat(pc_spool_dir, &st) || !S_ISDIR(st.st_mode) || access(pc_spool_dir, W_OK))
		die(2, "config: spool=%s: not a directory tracer may write", pc_spool_dir);
	if (st.st_uid && st.st_uid != geteuid())
		die(2, "config: spool=%s: another user's directory (uid %u): one of root's or tracer's own", pc_spool_dir,
		    (unsigned)st.st_uid);
	if (st.st_mode & 022 && !(st.st_mode & S_ISVTX))
		die(2, "config: spool=%s: others may write it, and no sticky bit keeps them from tracer's files (chmod 700 it)",
		    pc_spool_dir);
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
		if (pc_keys)
			die(2, "config: s3key=, region=, spool=, via= and style= go with push=");
		return;
	}
	if (!pc_s3key)
		die(2, "config: push= needs s3key=FILE (the AWS credentials file format, mode 600)");
	why = push_cred(id, sec);
	s3_wipe(sec, sizeof(sec));
	if (why)
		die(2, "config: %s: %s", pc_s3key, why);
	uname(&u);
	/* The node name as a header's value: as SigV4 trims it; in the key
	 * only what needs no encoding, never a '/' nor a leading '.' (no
	 * other object) */
	clean(board, sizeof(board), u.nodename), clean(krel, sizeof(krel), u.release), clean(mach, sizeof(mach), u.machine);
	for (n = 0; u.nodename[n] && n < 64; n++)
		bkey[n] = (unsigned)((u.nodename[n] | 32) - 'a') < 26 || (unsigned)(u.nodename[n] - '0') < 10 ||
			  (n && u.nodename[n] == '.') || u.nodename[n] == '_' ? u.nodename[n] : '-';
	if (!n)
		bkey[n++] = '-';
	bkey[n] = 0;
	n = readfile("/proc/sys/kernel/random/boot_id", boot, 37);
	boot[n == 37 ? 36 : 0] = 0;
	if (!*boot)
		memcpy(boot, "no-boot-id", 11);
	q = xmalloc((pc_spool_max + 1) * sizeof(*q));
	if (pc_spool_dir) {
		spool_check();
		dir_each(pc_spool_dir, spool_one, 0);
		if (nq)
			msg("push: %d dumps of %L bytes in %s wait to be sent", nq, qbytes, pc_spool_dir);
	}
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
	fmt(it->t, TRAIL, "%s%s%s/%s/%s-%s.data\n%s\n", pc_prefix, *pc_prefix ? "/" : "", bkey, boot,
	    pad(ms, seqms, 12), slug, r);
	*it->file = 0;
	if (pc_spool_dir) {
		/* a new file, never one another user planted under the name
		 * (a link to a file of root's, a file others may read); a
		 * name our pid left in another boot goes first. No leading
		 * dot: the next start's walk sees, and removes, a dump cut
		 * short by a kill. */
		fmt(it->file, sizeof(it->file), "%s/%u.tmp", pc_spool_dir, (unsigned)getpid());
		unlink(it->file);
		fd = open(it->file, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	} else {
		fd = memfd_create("tracer-push", MFD_CLOEXEC);
	}
	if (fd < 0) {
		msg(pc_spool_dir ? "push: %s:" : "push: no memfd (Linux 3.17+; spool=DIR works without):", it->file);
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
	if (!err && trailer_ok(t, n))
		err = EINVAL;	/* (a reason cut short in its last line) */
	*hex8(l, n) = '\n';	/* the trailer's length */
	if (!err && (pwrite(fd, t, n, size) != (long)n || pwrite(fd, l, 9, size + n) != 9))
		err = errno ? errno : EIO;
	/* whole now: under its name, the next of the spool's, never over
	 * another (link, not rename) */
	while (!err && pc_spool_dir) {
		char tmp[256];

		fmt(tmp, sizeof(tmp), "%s", it->file);
		fmt(it->file, sizeof(it->file), "%s/%s.push", pc_spool_dir, pad(f, fseq++, 12));
		if (!link(tmp, it->file)) {
			unlink(tmp);
			break;
		}
		if (errno != EEXIST || fseq % 1000 == 0)
			err = errno;
		memcpy(it->file, tmp, sizeof(tmp));
	}
	if (err) {
		if (pc_spool_dir)
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
		msg("push: %s: %s; %d dumps wait, again in %u s (try %d)", pc_who, why, nq, backoff, up.tries);
	else
		msg("push: %s: %d dumps wait, again in %u s (try %d):", pc_who, nq, backoff, up.tries);
}

static void start(void)
{
	char id[128], sec[128], date[20], sha[65], path[512], auth[768], t[TRAIL];
	const char *hd[8], *why;
	char *p, *key;
	int i;
	struct s3req r;

	if ((why = push_cred(id, sec))) {
		s3_wipe(sec, sizeof(sec));
		msg("push: %s: %s; %d dumps kept, sent after the next dump", pc_s3key, why, nq);
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
	s3_amzdate(date, wall() + skew);
	fmt(path, sizeof(path), pc_bucket ? "/%s/" : "/", pc_bucket);
	if (!s3_uri(path + strlen(path), sizeof(path) - strlen(path), key))
		path[0] = 0;
	r = (struct s3req){ "PUT", pc_host, path, "", date, pc_region, "s3", id, sec, sha, hd, 0 };
	i = path[0] && s3_auth(&r, auth, sizeof(auth));
	s3_wipe(sec, sizeof(sec));
	if (!i) {
		msg("push: %s: the key is too long to sign; dropped", key);
		item_free(q);
		return;
	}
	fmt(up.h, sizeof(up.h), "PUT %s HTTP/1.1\r\nHost: %s\r\nContent-Length: %L\r\nx-amz-content-sha256: %s\r\n"
	    "x-amz-date: %s\r\n", path, pc_host, q->size, sha, date);
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
	up.lim = up.t0 + (TRY_S + q->size / TRY_RATE) * 1000000ULL;
	up.tries++;
	up.fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (up.fd < 0 || (connect(up.fd, (void *)pc_sa, pc_salen) && errno != EINPROGRESS)) {
		retry(0, errno);
		return;
	}
	up.st = CONN;
}

/* This object refused for good (EntityTooLarge, ...): it goes, said and
 * counted, and the next is sent (it must not hold the later ones). */
static void refused_one(int st, const char *code)
{
	char k[TRAIL];

	fmt(k, sizeof(k), "%s", q->t);
	k[span(k, "\n", 0)] = 0;
	msg("push: %s refused %s for good: HTTP %d %s; dropped (%L so far), the next goes on", pc_who, k, st, code, ++dropped);
	up_close();
	item_free(q);
	backoff = up.tries = 0;
	next_try = 0;
}

/* What the store said: 2xx arrived. RequestTimeTooSkewed sets our
 * clock's offset from its Date: every time (a forged one is undone by
 * the next honest one), at once only the first time in a row. A refusal
 * of this object (413, EntityTooLarge, KeyTooLongError,
 * MetadataTooLarge) drops it; another 4xx, or a 3xx (tracer follows no
 * redirect), holds until the next dump; the rest, or no answer, tries
 * again later. */
static void answer(void)
{
	char code[64] = "", *c, *e;
	int st = s3_status(up.h, up.an);
	u64 t = now_us() - up.t0, d;

	up.h[up.an] = 0;
	if ((c = xstrstr(up.h, "<Code>")) && (e = xstrstr(c, "</Code>")))
		s3_esc(code, sizeof(code), c + 6, e);
	if (st / 100 == 2) {
		char k[TRAIL];

		fmt(k, sizeof(k), "%s", q->t);
		k[span(k, "\n", 0)] = 0;
		msg("push: %s arrived: %L bytes in %L.%u s%s", k, q->size, t / 1000000, (unsigned)(t / 100000 % 10),
		    up.tries > 1 ? " (after tries that failed)" : "");
		up_close();
		item_free(q);
		backoff = up.tries = skewed = 0;
		next_try = 0;
	} else if (!strcmp(code, "RequestTimeTooSkewed") && (c = s3_header(up.h, "date")) && (d = s3_httpdate(c))) {
		skew = (long long)d - wall();
		msg("push: our clock is %L s %s the store's (RequestTimeTooSkewed): signing with its time",
		    (u64)(skew < 0 ? -skew : skew), skew < 0 ? "ahead of" : "behind");
		if (skewed++) {
			retry("RequestTimeTooSkewed again", 0);
		} else {
			up_close();
			next_try = 0;
		}
	} else if (st == 413 || !strcmp(code, "EntityTooLarge") || !strcmp(code, "KeyTooLongError") ||
		   !strcmp(code, "MetadataTooLarge")) {
		refused_one(st, *code ? code : "(no S3 error code)");
	} else if (st / 100 == 3 || (st / 100 == 4 && st != 408 && strcmp(code, "RequestTimeout"))) {
		msg("push: %s refused it: HTTP %d %s; %d dumps kept, tried again after the next dump",
		    pc_who, st, *code ? code : st / 100 == 3 ? "(a redirect: push= names the store itself)" : "(no S3 error code)", nq);
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
	if (up.st) {
		u64 w = up.prog + STALL < up.lim ? up.prog + STALL : up.lim;

		return w > now ? (w - now) / 1000 + 1 : 0;
	}
	if (!nq || paused)
		return -1;
	return next_try > now ? (next_try - now) / 1000 + 1 : 0;
}

/* Sent, or the store spoke first: its answer, ANSWER_S s at most */
static void recv_start(void)
{
	u64 l = now_us() + ANSWER_S * 1000000ULL;

	up.st = RECV;
	up.an = 0;
	if (l < up.lim)
		up.lim = l;
}

/* The body from its spool fd, in pieces: what the socket takes. */
static void send_some(void)
{
	static char b[1 << 14];
	int i;

	for (i = 0; i < 64 && up.at < up.hn + q->size; i++) {
		const char *p = up.h + (up.at < up.hn ? up.at : 0);	/* (no pointer past up.h) */
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
				recv_start();	/* its answer may say why */
			return;
		}
		up.at += w;
		up.prog = now_us();
	}
	if (up.at >= up.hn + q->size)
		recv_start();
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
	if (now_us() >= up.lim) {
		retry(up.st == RECV ? "no whole answer within 30 s" : "slower than 512 bytes/s", 0);
		return;
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
		recv_start();
	if (up.st == SEND) {
		send_some();
		return;
	}
	/* the answer: up to what answer_whole() needs, or the close */
	if (!(p->revents & (POLLIN | POLLHUP | POLLERR)))
		return;
	n = read(up.fd, up.h + up.an, sizeof(up.h) - 1 - up.an);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n > 0) {
		up.an += n;
		up.prog = now_us();
		if (!s3_whole(up.h, &up.an, sizeof(up.h)))
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
		msg(pc_spool_dir ? "push: %d dumps not sent stay in %s for the next start" :
		    "push: %d dumps not sent are lost (spool=DIR keeps them)", nq, pc_spool_dir);
}

/* The descriptors push may keep at once: a dump each of the spool, the
 * one being made, the upload's connection (the fd check counts them). */
int push_nfd(void)
{
	return cfg_push ? pc_spool_max + 2 : 0;
}
