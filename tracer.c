/* tracer - a static flight recorder for embedded Linux.
 *
 * Opens system-wide perf events on every CPU into one backward,
 * overwritable ring per CPU, then sleeps in one blocking call. SIGUSR2
 * pauses the rings, copies them out, resumes them, and writes the copy as
 * perf.data for host perf. SIGINT or SIGTERM dumps once more and exits.
 *
 * Exit codes: 0 ok, 1 runtime failure, 2 usage or config error.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <termios.h>
#include "perfdata.h"

#define DEFAULT_CONFIG "sched:sched_switch sched:sched_wakeup\n" \
	"  sched:sched_process_exec sched:sched_process_exit\n" \
	"  signal:signal_generate cpu-clock@49"
#define DEFAULT_BUF (128 << 10)
#define DEFAULT_HZ 99
#define TRIP_RING (8 << 10)

struct event *evs;
int nev;
struct ring *rings, *trings;	/* backward per CPU; tripwires' forward */
static int *tfds;		/* tracking rings' fds, -1 if none */
int nring;
char *tracefs;
char **targv;
int targc;

/* ---- messages: one tiny formatter, no stdio ---- */

/* v in decimal at p, no further than e; returns the end. */
static char *fmt_u(char *p, char *e, unsigned long long v)
{
	char t[24];
	int n = 0;

	do
		t[n++] = '0' + v % 10;
	while (v /= 10);
	while (n && p < e)
		*p++ = t[--n];
	return p;
}

/* v in decimal at p, NUL-terminated; returns the NUL. */
char *utoa(char *p, u64 v)
{
	p = fmt_u(p, p + 20, v);
	*p = 0;
	return p;
}

/* The errors tracer can meet, in musl's words; any other is "error N".
 * (libc's strerror table is 2 KiB, a tenth of the smallest build.) */
static const u16 err_no[] = {
	EPERM, ENOENT, EIO, ENXIO, E2BIG, EBADF, EAGAIN, ENOMEM, EACCES,
	EBUSY, EEXIST, ENODEV, ENOTDIR, EISDIR, EINVAL, EMFILE, ENOTTY,
	EFBIG, ENOSPC, EROFS, EPIPE, ENAMETOOLONG, ENOSYS, EOPNOTSUPP,
	ECONNRESET, ENOTCONN, EDQUOT, EINTR, ESRCH,
};
static const char err_str[] =
	"Operation not permitted\0No such file or directory\0I/O error\0"
	"No such device or address\0Argument list too long\0Bad file descriptor\0"
	"Resource temporarily unavailable\0Out of memory\0Permission denied\0"
	"Resource busy\0File exists\0No such device\0Not a directory\0"
	"Is a directory\0Invalid argument\0Too many open files\0Not a tty\0"
	"File too large\0No space left on device\0Read-only file system\0"
	"Broken pipe\0Filename too long\0Function not implemented\0"
	"Not supported\0Connection reset by peer\0Socket not connected\0"
	"Quota exceeded\0Interrupted system call\0No such process";

static char *err_fmt(char *p, char *e, int err)
{
	const char *s = err_str;
	size_t i;

	for (i = 0; i < sizeof(err_no) / sizeof(*err_no) && err_no[i] != err; i++)
		s += strlen(s) + 1;
	if (i == sizeof(err_no) / sizeof(*err_no)) {
		for (s = "error "; *s && p < e; )
			*p++ = *s++;
		return fmt_u(p, e, err);
	}
	while (*s && p < e)
		*p++ = *s++;
	return p;
}

/* %s %c %d %u %L (unsigned long long); a trailing ':' appends strerror.
 * Formats into [p, e) and returns the end. */
static char *vfmt(char *p, char *e, const char *f, va_list ap)
{
	int err = errno;
	const char *s;

	for (; *f && p < e; f++) {
		if (*f != '%') {
			*p++ = *f;
			continue;
		}
		switch (*++f) {
		case 's':
			for (s = va_arg(ap, char *); *s && p < e; )
				*p++ = *s++;
			break;
		case 'c':
			*p++ = va_arg(ap, int);
			break;
		case 'd': {
			int v = va_arg(ap, int);

			if (v < 0)
				*p++ = '-';
			p = fmt_u(p, e, v < 0 ? -(long long)v : v);
			break;
		}
		case 'u':
			p = fmt_u(p, e, va_arg(ap, unsigned));
			break;
		case 'L':
			p = fmt_u(p, e, va_arg(ap, unsigned long long));
			break;
		}
	}
	if (!*f && f[-1] == ':' && p < e) {
		*p++ = ' ';
		p = err_fmt(p, e, err);
	}
	return p;
}

void fmt(char *b, size_t n, const char *f, ...)
{
	va_list ap;

	va_start(ap, f);
	*vfmt(b, b + n - 1, f, ap) = 0;
	va_end(ap);
}

static void vmsg(const char *f, va_list ap)
{
	char b[512], *p;

	memcpy(b, "tracer: ", 8);
	p = vfmt(b + 8, b + sizeof(b) - 1, f, ap);
	*p++ = '\n';
	write(2, b, p - b);
}

void msg(const char *f, ...)
{
	va_list ap;

	va_start(ap, f);
	vmsg(f, ap);
	va_end(ap);
}

static void restore_tty(void);

_Noreturn void die(int code, const char *f, ...)
{
	va_list ap;

	va_start(ap, f);
	vmsg(f, ap);
	va_end(ap);
	restore_tty();
	_exit(code);
}

/* ---- small stand-ins for libc, so the static binary stays small ---- */

/* Memory is only taken at set-up (and by -x) and never given back, so
 * a bump allocator over mmap does; big blocks get their own mapping.
 * Both come zeroed, and untouched pages cost nothing. */
void *xmalloc(size_t n)
{
	static char *cur, *end;
	char *p;

	n = (n + 15) & ~(size_t)15;
	if (n >= 1 << 16 || (size_t)(end - cur) < n) {
		size_t m = n >= 1 << 16 ? n : 1 << 18;

		p = mmap(0, m, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			die(1, "out of memory");
		if (m == n)
			return p;
		cur = p, end = p + m;
	}
	p = cur;
	cur += n;
	return p;
}

void *xrealloc(void *p, size_t old, size_t n)
{
	void *q = xmalloc(n);

	return p ? memcpy(q, p, old < n ? old : n) : q;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	return memcpy(p, s, n);
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

/* strtoull without locale or errno: spaces, then an optional 0x for
 * base 16, then digits. */
u64 xtou(const char *s, char **end, int base)
{
	u64 v = 0;

	while (*s == ' ' || *s == '\t')
		s++;
	if (base == 16 && s[0] == '0' && (s[1] | 32) == 'x')
		s += 2;
	for (;; s++) {
		int d = *s >= '0' && *s <= '9' ? *s - '0' :
			(*s | 32) >= 'a' && (*s | 32) <= 'f' ? (*s | 32) - 'a' + 10 : 99;

		if (d >= base)
			break;
		v = v * base + d;
	}
	if (end)
		*end = (char *)s;
	return v;
}

/* strchr, strrchr, and strspn (in = 1) or strcspn (in = 0): libc's are
 * fast, and together 0.8 KiB; tracer's strings are short. */
char *xstrchr(const char *s, int c)
{
	for (; *s != (char)c; s++)
		if (!*s)
			return 0;
	return (char *)s;
}

char *xstrrchr(const char *s, int c)
{
	const char *r = 0;

	do
		if (*s == (char)c)
			r = s;
	while (*s++);
	return (char *)r;
}

size_t span(const char *s, const char *set, int in)
{
	const char *p = s;

	while (*p && !!xstrchr(set, *p) == in)
		p++;
	return p - s;
}

char *xstrstr(const char *h, const char *n)
{
	size_t k = strlen(n);

	for (; *h; h++)
		if (!strncmp(h, n, k))
			return (char *)h;
	return 0;
}

/* Shell sort: small, in place, and quick enough for the few thousand
 * items tracer ever sorts (names, ids, the process table; never the
 * records of a dump, which are merged). Items are at most 32 bytes. */
void xsort(void *base, size_t n, size_t sz, int (*cmp)(const void *, const void *))
{
	char *b = base, t[32];
	size_t g = n, i, j;

	while (g > 1) {
		g = g < 3 ? 1 : g * 5 / 11;
		for (i = g; i < n; i++) {
			memcpy(t, b + i * sz, sz);
			for (j = i; j >= g && cmp(b + (j - g) * sz, t) > 0; j -= g)
				memcpy(b + j * sz, b + (j - g) * sz, sz);
			memcpy(b + j * sz, t, sz);
		}
	}
}

/* Globs in event names: '*' and '?'. */
static int glob(const char *p, const char *s)
{
	if (*p == '*')
		return glob(p + 1, s) || (*s && glob(p, s + 1));
	if (!*p)
		return !*s;
	return *s && (*p == '?' || *p == *s) && glob(p + 1, s + 1);
}

/* Read a whole (proc, sys or tracefs) file: their st_size is 0. */
long readfile(const char *path, char *buf, long max)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	long n = 0, r;

	if (fd < 0)
		return -1;
	while (n < max && (r = read(fd, buf + n, max - n)) > 0)
		n += r;
	close(fd);
	return n;
}

static u64 now_us(void)
{
	struct { long s, ns; } t;

	/* The syscall, not libc's: its vDSO lookup is 1 KiB, and this is
	 * called a few times per dump. The old clock_gettime's timespec is
	 * two longs on every ABI; a monotonic clock needs no more. */
	syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &t);
	return t.s * 1000000ULL + t.ns / 1000;
}

static int cfg_frame, dumps;
static int sink_fd = -1;	/* a stream: stdout, a tty, a fifo; -1: files */
static const char *sink_name = "stdout";

/* ---- output sink ----
 * Writes wait in poll() for room, so that during the final dump a second
 * SIGINT/SIGTERM (on the signalfd) is seen at once, and so that a slow
 * link can report progress. A failing sink only fails this dump. */

static char obuf[(1 << 16) + 64];	/* + what out_room may add to a record */
static size_t on;
static int ofd, oerr, ofinal, osfd = -1, oframe;
static size_t ochunk;
static u64 ot0, otick, owritten, ohint;
u64 out_pos;
static struct termios tio_saved;
static int tio_fd = -1;

/* Every exit path comes here: put a serial port back as we found it. */
static void restore_tty(void)
{
	if (CFG_SERIAL && tio_fd >= 0)
		tcsetattr(tio_fd, TCSANOW, &tio_saved);
}

void sink_write(const char *p, size_t n)
{
	while (n && !oerr) {
		struct pollfd pf[2] = { { ofd, POLLOUT, 0 }, { osfd, POLLIN, 0 } };
		ssize_t w;
		u64 t;

		if (poll(pf, 1 + (ofinal && osfd >= 0), -1) < 0)
			continue;
		if (pf[1].revents) {
			msg("second signal: exiting before the final dump is written");
			restore_tty();
			_exit(1);
		}
		/* A pipe or tty takes PIPE_BUF without blocking once POLLOUT. */
		w = write(ofd, p, n > ochunk ? ochunk : n);
		if (w < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (w <= 0) {
			oerr = w ? errno : EIO;
			break;
		}
		p += w, n -= w, owritten += w;
		t = now_us();
		if (t - otick >= 3000000) {
			u64 rate = owritten * 1000000 / (t - ot0 + 1) + 1;

			otick = t;
			msg("dump %d: %L of ~%L bytes written, %L s to go", dumps,
			    owritten, ohint, ohint > owritten ? (ohint - owritten) / rate : 0);
		}
	}
}

static void out_flush(const char *p, size_t n)
{
	if (CFG_FRAME && oframe)
		frame_put(p, n);
	else
		sink_write(p, n);
}

/* hint: about how many bytes this dump will be, for progress messages. */
static void out_begin(int fd, u64 hint)
{
	ofd = fd;
	on = oerr = 0;
	/* A pipe, fifo, socket or tty (they can't seek) takes PIPE_BUF
	 * without blocking; files and /dev/null take it all at once. */
	ochunk = lseek(fd, 0, SEEK_CUR) < 0 ? 4096 : sizeof(obuf);
	out_pos = owritten = 0;
	ot0 = otick = now_us();
	ohint = hint;
	oframe = cfg_frame;
	if (CFG_FRAME && oframe)
		frame_begin(dumps);
}

void out_put(const void *p, size_t n)
{
	out_pos += n;
	if (on + n > sizeof(obuf)) {
		out_flush(obuf, on);
		on = 0;
		if (n >= sizeof(obuf)) {
			out_flush(p, n);
			return;
		}
	}
	memcpy(obuf + on, p, n);
	on += n;
}

/* Room for n bytes in the output buffer, to write in place; then
 * out_commit says how many were written. */
void *out_room(size_t n)
{
	if (on + n > sizeof(obuf)) {
		out_flush(obuf, on);
		on = 0;
	}
	return obuf + on;
}

void out_commit(size_t n)
{
	on += n;
	out_pos += n;
}

int out_end(void)
{
	out_flush(obuf, on);
	on = 0;
	if (CFG_FRAME && oframe)
		frame_end();
	oframe = 0;
	return oerr;
}

/* ---- config ---- */

static const char *cfg_text;	/* being parsed: tokens get cut up */
static char *cfg_orig;		/* a copy to quote tokens from */
static unsigned long cfg_buf = DEFAULT_BUF;
static char *cfg_out;
static u64 cfg_cpus[16];		/* bitmap; empty: all online */
static int cfg_stack, cfg_default, cfg_lean = 1;
static u64 lean_type(const struct event *e);
static long cfg_baud;

/* Tripwires: events that dump by themselves when they hit. Their options
 * are -1 until the end of the config, then take the global keys. */
struct trip {
	char *what;		/* "segv", or the event as typed */
	long count, after, holdoff;	/* after, holdoff in us */
	unsigned hits, held;
};
static struct trip trips[16];
static int ntrip, cfg_trip;	/* cfg_trip: the one being parsed, 1-based */
static long cfg_count = 1, cfg_after, cfg_holdoff, cfg_dumps;

/* Presets: what each expands to. */
static const char *const preset[][2] = {
	{ "segv", "signal:signal_generate/sig==11 || sig==7 || sig==4 || sig==6 || sig==8/" },
	{ "oom", "oom:mark_victim" },
	{ "oops", "printk:console/msg ~ \"*Oops*\" || msg ~ \"*BUG:*\" || "
		  "msg ~ \"*WARNING:*\" || msg ~ \"*Kernel panic*\"/" },
	{ "exit", "syscalls:sys_enter_exit_group/error_code != 0/" },
};

/* Named events: a byte 0x4C (hardware) or 0x5C (software), C being
 * the config, then the name; an empty entry ends the list. */
static const char named[] =
	"\x50" "cpu-clock\0" "\x51" "task-clock\0" "\x52" "page-faults\0"
	"\x52" "faults\0" "\x53" "context-switches\0" "\x53" "cs\0"
	"\x54" "cpu-migrations\0" "\x54" "migrations\0" "\x55" "minor-faults\0"
	"\x56" "major-faults\0" "\x57" "alignment-faults\0" "\x58" "emulation-faults\0"
	"\x40" "cycles\0" "\x41" "instructions\0" "\x42" "cache-references\0"
	"\x43" "cache-misses\0" "\x44" "branches\0" "\x44" "branch-instructions\0"
	"\x45" "branch-misses\0" "\x46" "bus-cycles\0" "\x49" "ref-cycles\0";

/* A token ends at a separator outside of a /filter/. */
static size_t tok_len(const char *s)
{
	size_t n;
	int inf = 0;

	for (n = 0; s[n]; n++) {
		if (s[n] == '/')
			inf = !inf;
		else if (!inf && xstrchr(" \t\r\n;", s[n]))
			break;
	}
	return n;
}

/* The token at tok as the user typed it, and where: "'buf=1q' at 5". */
static char *cfg_tok(const char *tok)
{
	int pos = tok - cfg_text;
	size_t n = tok_len(cfg_orig + pos);
	char *t = xmalloc(n + 24), *p;

	t[0] = '\'';
	memcpy(t + 1, cfg_orig + pos, n);
	p = t + n + 1;
	memcpy(p, "' at ", 5);
	*fmt_u(p + 5, p + 20, pos + 1) = 0;
	return t;
}

static _Noreturn void bad(const char *tok, const char *why)
{
	die(2, "config: %s: %s", cfg_tok(tok), why);
}

/* Numbers with an optional k/m/g suffix; 0 on garbage. */
static unsigned long long num(const char *s, int suffix)
{
	char *e;
	unsigned long long v;

	if (*s < '0' || *s > '9')
		return 0;
	v = xtou(s, &e, 10);
	if (suffix && *e && !e[1]) {
		const char *u = xstrchr("kKmMgG", *e);

		if (u) {
			v <<= 10 * (1 + (u - "kKmMgG") / 2);
			e++;
		}
	}
	return *e ? 0 : v;
}

static struct event *ev_add(const char *name, const char *at)
{
	struct event *e;

	if (!(nev & (nev - 1)) && nev >= 16)	/* grown by doubling */
		evs = xrealloc(evs, nev * sizeof(*evs), 2 * nev * sizeof(*evs));
	else if (!nev)
		evs = xmalloc(16 * sizeof(*evs));
	e = memset(evs + nev++, 0, sizeof(*evs));
	e->name = xstrdup(name);
	e->attr.size = ATTR_SIZE;
	e->attr.sample_type = S_IDENTIFIER | S_IP | S_TID | S_TIME | S_CPU | S_PERIOD;
	/* Disabled until its filter is set, so nothing unfiltered slips in. */
	e->attr.flags = ATTR_DISABLED | ATTR_SAMPLE_ID_ALL | ATTR_WRITE_BACKWARD |
			ATTR_EXCLUDE_GUEST;
	e->attr.sample_period = 1;
	e->tok = cfg_tok(at);
	e->trip = cfg_trip;
	if (cfg_trip) {
		/* A tripwire wakes us on each hit, through its own forward ring. */
		e->attr.flags &= ~ATTR_WRITE_BACKWARD;
		e->attr.wakeup_events = 1;
	}
	return e;
}

/* Call fn(name, ctx) for each entry of a directory; no allocation. */
void dir_each(const char *dir, void (*fn)(const char *, void *), void *ctx)
{
	char b[4096];
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	long n, i;

	if (fd < 0)
		return;
	while ((n = syscall(SYS_getdents64, fd, b, sizeof(b))) > 0)
		for (i = 0; i < n; i += *(u16 *)(b + i + 16))
			if (b[i + 19] != '.')
				fn(b + i + 19, ctx);
	close(fd);
}

/* A tracepoint is a directory events/SYS/NAME with an id file. */
static long tp_id(const char *sys, const char *name)
{
	char p[512], b[32];
	long n;

	fmt(p, sizeof(p), "%s/events/%s/%s/id", tracefs, sys, name);
	n = readfile(p, b, sizeof(b) - 1);
	if (n <= 0)
		return -1;
	b[n] = 0;
	return b[0] >= '0' && b[0] <= '9' ? (long)xtou(b, 0, 10) : -1;
}

/* A file of tracepoint "sys:name": TRACEFS/events/sys/name/file. */
void tp_path(char *b, size_t n, const char *name, const char *file)
{
	char *c;

	fmt(b, n, "%s/events/%s/%s", tracefs, name, file);
	if ((c = xstrchr(b + strlen(tracefs), ':')))
		*c = '/';
}

/* Walk the tracepoints whose system and name match two globs, calling
 * fn("sys:name", id, ctx) for each. Returns how many matched. */
struct tpwalk {
	const char *spat, *pat, *sys;
	void (*fn)(const char *, long, void *);
	void *ctx;
	int found;
};

static void tp_name(const char *name, void *ctx)
{
	struct tpwalk *w = ctx;
	char full[256];
	long id;

	if (!glob(w->pat, name) || strlen(w->sys) + strlen(name) > 200 ||
	    (id = tp_id(w->sys, name)) < 0)
		return;
	fmt(full, sizeof(full), "%s:%s", w->sys, name);
	w->fn(full, id, w->ctx);
	w->found++;
}

static void tp_sys(const char *sys, void *ctx)
{
	struct tpwalk *w = ctx;
	char p[512];

	if (!glob(w->spat, sys))
		return;
	fmt(p, sizeof(p), "%s/events/%s", tracefs, sys);
	w->sys = sys;
	dir_each(p, tp_name, w);
}

static int tp_walk(const char *spat, const char *pat,
		   void (*fn)(const char *, long, void *), void *ctx)
{
	struct tpwalk w = { spat, pat, 0, fn, ctx, 0 };
	char p[512];

	fmt(p, sizeof(p), "%s/events", tracefs);
	dir_each(p, tp_sys, &w);
	return w.found;
}

struct tpproto {
	const char *at;
	char *filter;
};

static void tp_add(const char *full, long id, void *ctx)
{
	struct tpproto *t = ctx;
	struct event *e = ev_add(full, t->at);

	e->attr.type = TYPE_TRACEPOINT;
	e->attr.config = id;
	e->attr.sample_type |= S_RAW;
	e->filter = t->filter;
}

/* One event: NAME[/FILTER/][@HZ|%PERIOD]; errors quote the token at. */
static void cfg_event(char *tok, const char *at)
{
	char *f = 0, *m, *c, mode;
	const char *n;
	unsigned long long v = 0;
	struct event *e;

	m = tok + span(tok, "/@%", 0);
	if (*m == '/') {
		f = m + 1;
		m = xstrrchr(f, '/');
		if (m == f - 1 || !m)
			bad(at, "filter has no closing '/'");
		*m++ = 0;
		if (*m && *m != '@' && *m != '%')
			bad(at, "junk after the filter");
		f[-1] = 0;
	}
	mode = *m;
	if (mode) {
		v = num(m + 1, 0);
		if (!v)
			bad(at, "@HZ and %PERIOD take a positive number");
		*m = 0;
	}
	c = xstrchr(tok, ':');
	if (c) {
		struct tpproto t = { at, f };
		int found;

		if (!CFG_TRACEPOINTS)
			bad(at, "tracepoints are not built in (CONFIG_TRACEPOINTS)");
		if (mode)
			bad(at, "tracepoints record every hit; @ and % are for other events");
		if (!tracefs) {
			if (cfg_default)
				return;
			bad(at, access("/sys/kernel/tracing", X_OK) && errno == EACCES ?
				 "tracefs is not readable: needs root" : "no tracefs on this system");
		}
		*c = 0;
		found = tp_walk(tok, c + 1, tp_add, &t);
		*c = ':';
		if (!found) {
			if (cfg_default) {
				msg("%s: not in this kernel, left out", tok);
				return;
			}
			bad(at, "unknown tracepoint; see tracer -l");
		}
		return;
	}
	if (f)
		bad(at, "only tracepoints take a /filter/");
	for (n = named; *n && strcmp(n + 1, tok); n += strlen(n) + 1)
		;
	if (!*n)
		bad(at, "unknown event; see tracer -l");
	e = ev_add(tok, at);
	e->attr.type = *n >> 4 & 1;
	e->attr.config = *n & 15;
	/* Clocks and cycles default to a low rate, counted events to each. */
	if (!mode && (e->attr.type == TYPE_HARDWARE || e->attr.config < 2))
		mode = '@', v = DEFAULT_HZ;
	if (mode == '@')
		e->attr.flags |= ATTR_FREQ;
	if (mode)
		e->attr.sample_period = v;
}

/* "0,2-3" into a bitmap of 1024 CPUs; -1 if it does not parse. */
static int cpulist(const char *s, u64 *set)
{
	int n;

	memset(set, 0, 128);
	while (*s && *s != '\n') {
		char *e;
		unsigned long a = xtou(s, &e, 10), b = a;

		if (e == s)
			return -1;
		if (*e == '-') {
			s = e + 1;
			b = xtou(s, &e, 10);
			if (e == s)
				return -1;
		}
		if (a > b || b >= 1024)
			return -1;
		for (; a <= b; a++)
			set[a / 64] |= 1ULL << a % 64;
		if (*e == ',')
			e++;
		else if (*e && *e != '\n')
			return -1;
		s = e;
	}
	for (n = 0; n < 16; n++)
		if (set[n])
			return 0;
	return -1;	/* empty */
}

static int sysfs_cpus(const char *path, u64 *set)
{
	char b[512];
	long n = readfile(path, b, sizeof(b) - 1);

	if (n <= 0)
		return -1;
	b[n] = 0;
	return cpulist(b, set);
}

static speed_t baud(long b)
{
	static const struct { int b; speed_t s; } t[] = {
		{ 9600, B9600 }, { 19200, B19200 }, { 38400, B38400 }, { 57600, B57600 },
		{ 115200, B115200 }, { 230400, B230400 }, { 460800, B460800 },
		{ 500000, B500000 }, { 576000, B576000 }, { 921600, B921600 },
		{ 1000000, B1000000 }, { 1500000, B1500000 }, { 2000000, B2000000 },
		{ 3000000, B3000000 }, { 4000000, B4000000 },
	};
	unsigned i;

	for (i = 0; i < sizeof(t) / sizeof(*t); i++)
		if (t[i].b == b)
			return t[i].s;
	return 0;
}

/* A serial port: raw, at the speed asked for; restored on every exit. */
static void tty_raw(int fd)
{
	struct termios t;

	if (tcgetattr(fd, &tio_saved))
		die(1, "%s: tcgetattr:", sink_name);
	tio_fd = fd;
	t = tio_saved;
	cfmakeraw(&t);
	if (cfg_baud) {
		cfsetospeed(&t, baud(cfg_baud));
		cfsetispeed(&t, baud(cfg_baud));
	}
	if (tcsetattr(fd, TCSANOW, &t))
		die(1, "%s: tcsetattr:", sink_name);
}

/* "200ms", "2s", "500us" in microseconds; -1 on garbage. */
static long dur(const char *s)
{
	char *e;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return -1;
	v = xtou(s, &e, 10);
	if (!strcmp(e, "us"))
		return v;
	if (!strcmp(e, "ms"))
		return v * 1000;
	if (!strcmp(e, "s"))
		return v * 1000000;
	return -1;
}

/* trip=SPEC[,count=N][,after=T][,holdoff=T]; SPEC is a preset or an
 * event, possibly with a /filter/. */
static void cfg_tripwire(char *tok, char *v)
{
	char *o, *sl = xstrrchr(v, '/'), *spec = v;
	struct trip *t = trips + ntrip;
	unsigned i;

	if (!CFG_TRIPWIRE)
		bad(tok, "tripwires are not built in (CONFIG_TRIPWIRE)");
	if (ntrip == sizeof(trips) / sizeof(*trips))
		bad(tok, "too many tripwires");
	t->count = t->after = t->holdoff = -1;
	o = xstrchr(sl ? sl : v, ',');
	if (o)
		*o++ = 0;
	while (o) {
		char *next = xstrchr(o, ','), *eq = xstrchr(o, '=');
		long *opt = 0, x;

		if (next)
			*next++ = 0;
		if (eq) {
			*eq++ = 0;
			opt = !strcmp(o, "count") ? &t->count : !strcmp(o, "after") ? &t->after :
			      !strcmp(o, "holdoff") ? &t->holdoff : 0;
		}
		if (!opt)
			bad(tok, "tripwire options are count=N, after=TIME, holdoff=TIME");
		x = opt == &t->count ? (long)num(eq, 0) : dur(eq);
		if (x < 0 || (opt == &t->count && !x))
			bad(tok, "count takes a number from 1; after and holdoff a time such as 200ms or 2s");
		*opt = x;
		o = next;
	}
	if (!*v)
		bad(tok, "trip= needs an event or a preset (segv, oom, oops, exit)");
	t->what = xstrdup(v);
	for (i = 0; i < sizeof(preset) / sizeof(*preset); i++) {
		char sys[32], *c;

		if (strcmp(v, preset[i][0]))
			continue;
		spec = xstrdup(preset[i][1]);
		c = xstrchr(spec, ':');
		memcpy(sys, spec, c - spec);
		sys[c - spec] = 0;
		c = xstrndup(c + 1, span(c + 1, "/", 0));
		if (!tracefs || tp_id(sys, c) < 0)
			die(2, "config: %s: preset %s needs the tracepoint %s:%s, which this kernel lacks",
			    cfg_tok(tok), v, sys, c);
	}
	cfg_trip = ++ntrip;
	cfg_event(spec, tok);
	cfg_trip = 0;
}

static void cfg_parse(char *s)
{
	char *p = s;

	cfg_text = s;
	cfg_orig = xstrdup(s);
	while (*p) {
		char *tok, *eq;

		p += span(p, " \t\r\n;", 1);
		if (!*p)
			break;
		tok = p;
		p += tok_len(p);
		if (*p)
			*p++ = 0;
		eq = xstrchr(tok, '=');
		if (!strcmp(tok, "stack")) {
			if (!CFG_CALLCHAIN)
				bad(tok, "callchains are not built in (CONFIG_CALLCHAIN)");
			cfg_stack = 1;
		} else if (!strcmp(tok, "lean") || !strcmp(tok, "full")) {
			cfg_lean = tok[0] == 'l';
		} else if (eq && eq < tok + span(tok, ":/", 0)) {
			*eq = 0;
			if (!strcmp(tok, "buf")) {
				long pg = getpagesize();
				unsigned long long v = num(eq + 1, 1), n = 1;

				*eq = '=';
				if (!v || v > 1ULL << 30)
					bad(tok, "bad size: use a number with k or m, up to 1g");
				while (n * pg < v)
					n <<= 1;
				cfg_buf = n * pg;
			} else if (!strcmp(tok, "cpus")) {
				u64 online[16];
				int i;

				*eq = '=';
				if (cpulist(eq + 1, cfg_cpus))
					bad(tok, "bad CPU list: use 0,2-3");
				if (sysfs_cpus("/sys/devices/system/cpu/online", online))
					die(1, "can't read /sys/devices/system/cpu/online");
				for (i = 0; i < 16; i++)
					if (cfg_cpus[i] & ~online[i])
						bad(tok, "not all of these CPUs are online");
			} else if (!strcmp(tok, "trip")) {
				*eq = '=';
				cfg_tripwire(tok, eq + 1);
			} else if (!strcmp(tok, "after") || !strcmp(tok, "holdoff")) {
				long *g = tok[0] == 'a' ? &cfg_after : &cfg_holdoff;

				*eq = '=';
				if (!CFG_TRIPWIRE)
					bad(tok, "tripwires are not built in (CONFIG_TRIPWIRE)");
				if ((*g = dur(eq + 1)) < 0)
					bad(tok, "a time such as 200ms or 2s");
			} else if (!strcmp(tok, "count") || !strcmp(tok, "dumps")) {
				long *g = tok[0] == 'c' ? &cfg_count : &cfg_dumps;

				*eq = '=';
				if (!CFG_TRIPWIRE && g == &cfg_count)
					bad(tok, "tripwires are not built in (CONFIG_TRIPWIRE)");
				if ((*g = num(eq + 1, 0)) <= 0)
					bad(tok, "a number from 1");
			} else if (!strcmp(tok, "procs")) {
				*eq = '=';
				if (!CFG_TRACK)
					bad(tok, "the tracking ring is not built in (CONFIG_TRACK)");
				if ((cfg_procs = num(eq + 1, 0)) <= 0 && strcmp(eq + 1, "0"))
					bad(tok, "a number of processes; procs=0 turns tracking off");
			} else if (!strcmp(tok, "frame")) {
				*eq = '=';
				if (!CFG_FRAME)
					bad(tok, "framing is not built in (CONFIG_FRAME)");
				if (strcmp(eq + 1, "text"))
					bad(tok, "the one framing is frame=text");
				cfg_frame = 1;
			} else if (!strcmp(tok, "baud")) {
				*eq = '=';
				if (!CFG_SERIAL)
					bad(tok, "serial output is not built in (CONFIG_SERIAL)");
				if (!baud(cfg_baud = num(eq + 1, 0)))
					bad(tok, "not a speed termios knows (9600 ... 4000000)");
			} else if (!strcmp(tok, "out")) {
				*eq = '=';
				if (!eq[1])
					bad(tok, "out= needs a path");
				cfg_out = eq + 1;
			} else {
				*eq = '=';
				bad(tok, "unknown key (buf= cpus= out= trip= after= holdoff= count= dumps= procs= frame= baud=)");
			}
		} else {
			cfg_event(tok, tok);
		}
	}
}

/* ---- tracefs ---- */

static char *tracefs_find(void)
{
	static char *const dir[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char p[64];
	int i, try;

	if (!CFG_TRACEPOINTS)
		return 0;
	for (try = 0; try < 3; try++) {
		for (i = 0; i < 2; i++) {
			fmt(p, sizeof(p), "%s/events/header_page", dir[i]);
			if (!access(p, R_OK))
				return dir[i];
		}
		/* Mounting writes nothing to disk, so a read-only root is fine. */
		if (try == 0)
			mount("nodev", dir[0], "tracefs", 0, 0);
		else if (try == 1)
			mount("nodev", "/sys/kernel/debug", "debugfs", 0, 0);
	}
	return 0;
}

/* ---- listing ---- */

struct names {
	char *b;
	size_t n, cap;
};

static void list_add(struct names *l, const char *s)
{
	size_t n = strlen(s) + 1;

	if (l->n + n > l->cap) {
		l->cap = (l->n + n) * 2;
		l->b = xrealloc(l->b, l->n, l->cap);
	}
	memcpy(l->b + l->n, s, n);
	l->n += n;
}

static void list_tp(const char *full, long id, void *ctx)
{
	list_add(ctx, full);
}

static int cmpstr(const void *a, const void *b)
{
	return strcmp(*(char **)a, *(char **)b);
}

static void list(void)
{
	struct names l = { 0 };
	char **v;
	size_t i, n = 0;
	const char *c;
	int pmu = !access("/sys/bus/event_source/devices/cpu", F_OK) ||
		  !access("/sys/bus/event_source/devices/armv8_pmuv3", F_OK);

	for (c = named; *c; c += strlen(c) + 1) {
		if (*c >> 4 == 4 && !pmu)
			continue;
		write(1, c + 1, strlen(c + 1));
		write(1, *c >> 4 == 4 ? "\t[hardware]\n" : "\t[software]\n", 12);
	}
	if (!pmu)
		msg("no hardware PMU found: hardware events left out");
	if (!(tracefs = tracefs_find()))
		die(1, "no tracefs: only software events");
	tp_walk("*", "*", list_tp, &l);
	for (i = 0; i < l.n; i += strlen(l.b + i) + 1)
		n++;
	v = xmalloc(n * sizeof(*v) + 1);
	for (i = 0, n = 0; i < l.n; i += strlen(l.b + i) + 1)
		v[n++] = l.b + i;
	xsort(v, n, sizeof(*v), cmpstr);
	out_begin(1, 0);
	for (i = 0; i < n; i++) {
		out_put(v[i], strlen(v[i]));
		out_put("\t[tracepoint]\n", 14);
	}
	out_end();
}

/* ---- opening ---- */

static void open_fail(struct event *e, int cpu)
{
	int err = errno;
	char b[16];
	long n;

	if (err == EACCES || err == EPERM) {
		n = readfile("/proc/sys/kernel/perf_event_paranoid", b, sizeof(b) - 1);
		b[n > 0 ? n - 1 : 0] = 0;
		die(1, "%s: needs root or CAP_PERFMON (perf_event_paranoid=%s)", e->name, b);
	}
	if (e->attr.type == TYPE_HARDWARE && (err == ENOENT || err == EOPNOTSUPP))
		die(1, "%s: no hardware PMU here; use cpu-clock", e->name);
	if (err == EINVAL) {
		struct perf_attr a = e->attr;
		int fd;

		a.flags &= ~ATTR_WRITE_BACKWARD;
		if ((fd = ring_event_open(&a, cpu, -1)) >= 0)
			die(1, "this kernel has no backward ring buffers (needs Linux 4.7 or later)");
	}
	errno = err;
	die(1, "%s on cpu %d: perf_event_open:", e->name, cpu);
}

static void open_all(void)
{
	u64 want[16], online[16];
	int cpu, i, cfg_given = 0;

	for (i = 0; i < 16; i++)
		cfg_given |= !!cfg_cpus[i];
	if (sysfs_cpus("/sys/devices/system/cpu/online", online))
		die(1, "can't read /sys/devices/system/cpu/online");
	for (i = 0; i < 16; i++)
		want[i] = online[i] & (cfg_given ? cfg_cpus[i] : ~0ULL);
	for (cpu = 0; cpu < 1024; cpu++)
		nring += want[cpu / 64] >> cpu % 64 & 1;
	rings = xmalloc(nring * sizeof(*rings));
	trings = xmalloc(nring * sizeof(*trings));
	tfds = xmalloc(nring * sizeof(*tfds));
	if (CFG_TRACK)
		track_init(nring);
	for (i = 0; i < nev; i++)
		evs[i].ids = xmalloc(nring * sizeof(u64));
	nring = 0;
	for (cpu = 0; cpu < 1024; cpu++) {
		/* The CPU's first event owns its backward ring, its first
		 * tripwire its forward ring; the others are routed in. */
		struct ring *r = rings + nring, *tr = trings + nring;

		if (!(want[cpu / 64] >> cpu % 64 & 1))
			continue;
		for (i = 0; i < nev; i++) {
			struct event *e = evs + i;
			struct ring *to = e->trip ? tr : r;
			struct perf_attr a = e->attr;
			int fd;

			if (cfg_lean && !e->trip)
				a.sample_type = lean_type(e);
			fd = ring_event_open(&a, cpu, -1);

			if (fd < 0)
				open_fail(e, cpu);
			if (!to->base && ring_map(to, fd, cpu, e->trip ? TRIP_RING : cfg_buf, e->trip))
				die(1, "mmap of a %L byte ring on cpu %d:", (u64)cfg_buf, cpu);
			else if (to->fd != fd && ring_attach(to, fd))
				die(1, "%s on cpu %d: SET_OUTPUT:", e->name, cpu);
			if (e->filter && ioctl(fd, IOC_SET_FILTER, e->filter))
				die(2, "config: %s: the kernel rejects this filter", e->tok);
			if (ioctl(fd, IOC_ID, &e->ids[nring]) || ioctl(fd, IOC_ENABLE, 0))
				die(1, "%s: ioctl:", e->name);
		}
		tfds[nring] = CFG_TRACK ? track_open(nring, cpu) : -1;
		nring++;
	}
}

/* ---- the lean layout (the default; the key full turns it off) ----
 * Every u64 the kernel writes per record costs time on the hot path.
 * So the kernel writes only IDENTIFIER, TID, TIME (+RAW) for
 * tracepoints, and no CPU for any event; the dump puts back what tracer
 * knows anyway: the CPU is the ring's and a tracepoint's period is 1.
 * A tracepoint's IP only tells the function it sits in, which its name
 * mostly does too; it is written as 0. The header
 * declares the full layout, so perf reads the expanded records like any
 * others.
 * When the rings hold tracepoints only, each a different one, the raw
 * data's first field (common_type, the tracepoint's id) already names
 * the event: then the kernel writes no IDENTIFIER either (lean_noid),
 * and the dump puts back the id of that event on that ring. */

/* Kernel id -> event, sorted, for every record that names its event:
 * lean expansion, tripwire hits, big-endian swapping. */
static struct { u64 id; int ev; } *idx;
static int nidx;
/* The kernel hands out ids from one counter, so ours are usually a
 * compact range: then a direct table (event + 1, 0 for none) makes the
 * lookup per dumped record O(1). */
static u16 *idtab;
static u64 idlo, idn;
/* lean_noid: tracepoint id - tplo -> event + 1, for the rings' events */
static int lean_noid, noid_first;
static u16 *tptab;
static u64 tplo, tpn;

/* A direct table's event (entries are event + 1, 0 for none). */
static struct event *tab_ev(const u16 *t, u64 lo, u64 n, u64 key)
{
	return key - lo < n && t[key - lo] ? evs + t[key - lo] - 1 : 0;
}

static int idx_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* Whether the rings can go without IDENTIFIER, and if so the table
 * that names an event by its tracepoint id. Before open_all. */
static void noid_init(void)
{
	u64 hi = 0;
	int i, first = -1;

	tplo = ~0ULL;
	for (i = 0; i < nev; i++) {
		const struct perf_attr *a = &evs[i].attr;

		if (evs[i].trip)
			continue;
		if (a->type != TYPE_TRACEPOINT || a->config > 0xffff)
			return;
		tplo = a->config < tplo ? a->config : tplo;
		hi = a->config > hi ? a->config : hi;
	}
	if (hi < tplo)
		return;
	tpn = hi - tplo + 1;
	tptab = xmalloc(tpn * sizeof(*tptab));
	for (i = 0; i < nev; i++) {
		u16 *t = tptab + evs[i].attr.config - tplo;

		if (evs[i].trip)
			continue;
		if (*t)		/* one tracepoint twice, other filters */
			return;
		*t = i + 1;
		if (first < 0)
			first = i;
	}
	noid_first = first;
	lean_noid = 1;
}

static void ids_init(void)
{
	int i, j;

	idx = xmalloc(nev * nring * sizeof(*idx));
	for (i = 0; i < nev; i++)
		for (j = 0; j < nring; j++) {
			idx[nidx].id = evs[i].ids[j];
			idx[nidx++].ev = i;
		}
	xsort(idx, nidx, sizeof(*idx), idx_cmp);
	idlo = idx[0].id;
	idn = idx[nidx - 1].id - idlo + 1;
	if (idn <= 16 * (u64)nidx + 4096 && nev < 65535) {
		idtab = xmalloc(idn * sizeof(*idtab));
		for (i = 0; i < nidx; i++)
			idtab[idx[i].id - idlo] = idx[i].ev + 1;
	}
}

struct event *ev_by_id(u64 id)
{
	int lo = 0, hi = nidx;

	if (idtab)
		return tab_ev(idtab, idlo, idn, id);
	while (lo < hi) {
		int m = (lo + hi) / 2;

		if (idx[m].id < id)
			lo = m + 1;
		else
			hi = m;
	}
	return lo < nidx && idx[lo].id == id ? evs + idx[lo].ev : 0;
}

/* What the kernel writes for e under lean. */
static u64 lean_type(const struct event *e)
{
	u64 t = e->attr.sample_type & ~(u64)(lean_noid ? S_CPU | S_IDENTIFIER : S_CPU);

	return e->attr.type == TYPE_TRACEPOINT ? t & ~(u64)(S_IP | S_PERIOD) : t;
}

/* The event of a lean sample whose body is [a, end): by its IDENTIFIER,
 * or under lean_noid (TID TIME [CALLCHAIN] RAW) by the common_type its
 * raw data starts with; 0 if it names none. */
static struct event *lean_ev(const u64 *a, const u64 *end)
{
	u16 type;

	if (!lean_noid)
		return ev_by_id(a[0]);
	a += 2;
	if (cfg_stack)
		a += 1 + (a < end ? *a : 0);
	if (a >= end)
		return 0;
	memcpy(&type, (const unsigned char *)a + 4, 2);	/* after RAW's u32 size */
	return tab_ev(tptab, tplo, tpn, type);
}

/* What the kernel wrote for a lean sample: its event's layout, or for
 * one that names none, the first ring event's (under lean_noid the
 * same for all). */
static u64 lean_type_of(const struct event *e)
{
	return lean_type(e ? e : evs + noid_first);
}

static u64 lean_time(const struct rec_hdr *h)
{
	const u64 *a = (const u64 *)(h + 1);
	u64 k;

	/* the trailer: TID TIME [IDENTIFIER] */
	if (h->type != REC_SAMPLE)
		return *(const u64 *)((const unsigned char *)h + h->size - 16 + 8 * lean_noid);
	k = lean_type_of(lean_ev(a, (const u64 *)((const char *)h + h->size)));
	return a[!lean_noid + !!(k & S_IP) + 1];	/* [IDENTIFIER] [IP] TID TIME */
}

/* A lean record from ring ri in the full layout, written at o (which
 * need not be aligned): IDENTIFIER (under lean_noid), IP, CPU and
 * PERIOD in a sample, CPU (and IDENTIFIER) in the trailer (TID TIME CPU
 * IDENTIFIER) of any other record. Returns its size, 0 to drop it. */
#define PUT(v) (memcpy(o, &(u64){ v }, 8), o += 8)
static size_t lean_expand(const struct rec_hdr *h, int ri, unsigned char *o)
{
	const u64 *a = (const u64 *)(h + 1), *end = (const u64 *)((const char *)h + h->size);
	const struct event *e;
	unsigned char *o0 = o;
	struct rec_hdr r = *h;
	u64 c, k;

	memcpy(&c, (u32[2]){ rings[ri].cpu, 0 }, 8);	/* {cpu, res} */
	o += 8;
	if (h->type != REC_SAMPLE) {
		size_t body = h->size - 8 - 24 + 8 * lean_noid;

		memcpy(o, a, body);
		o += body;
		a += body / 8;
		PUT(a[0]);		/* TID */
		PUT(a[1]);		/* TIME */
		PUT(c);
		/* IDENTIFIER: under lean_noid, the ring's first event's (the
		 * trailer's layout is the same for all) */
		PUT(lean_noid ? evs[noid_first].ids[ri] : a[2]);
	} else {
		e = lean_ev(a, end);
		if (lean_noid && !e)
			return 0;	/* no id to put back */
		k = lean_type_of(e);
		PUT(lean_noid ? e->ids[ri] : *a++);	/* IDENTIFIER */
		PUT(k & S_IP ? *a++ : 0);
		PUT(*a++);		/* TID */
		PUT(*a++);		/* TIME */
		PUT(c);
		PUT(k & S_PERIOD ? *a++ : 1);
		memcpy(o, a, (end - a) * 8);	/* CALLCHAIN, RAW */
		o += (end - a) * 8;
	}
	r.size = o - o0;
	memcpy(o0, &r, 8);
	return r.size;
}

/* ---- dumping ----
 * A dump is a merge: each ring's copy is one run, oldest first; the
 * process table and the tripwire hits are sorted into one more run.
 * Equal times go side-band first, then by ring, so a comm or map comes
 * before a sample of the same time. A ring is in time order but for an
 * interrupt that took its time before the record it interrupted; perf
 * sorts that within the round, which ends the dump. */

struct run {
	const unsigned char *p, *end;	/* records; for the side-band, its index */
	u64 t;
	int ring;		/* main ring it came from, or -1: side-band */
};

struct ix {
	u64 t;
	u32 off, seq;
};

static unsigned char *cp;	/* copies of all rings, made while paused */
static struct ix *ix;		/* the side-band run's index */
static size_t ixmax;
static int stream_started, file_seq, rec_off;

static unsigned char tbuf[1 << 16];	/* tripwire hits since the last dump */
static size_t tn;
static u32 hit_id[2];		/* pid, tid of the last hit */
static char hit_comm[20];	/* its comm, read at the hit */

static int ix_cmp(const void *a, const void *b)
{
	const struct ix *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->seq < y->seq ? -1 : 1;
}

/* The sort key: a sample's TIME is its 4th u64 (after IDENTIFIER, IP,
 * TID); any other record carries it in the trailer, 24 bytes from the
 * end (TID TIME CPU IDENTIFIER). */
static u64 rec_time(const struct rec_hdr *h, int lean)
{
	const unsigned char *p = (const void *)h;

	if (lean)
		return lean_time(h);
	if (h->type == REC_SAMPLE)
		return *(const u64 *)(p + 8 + 24);
	return h->size >= 8 + 24 ? *(const u64 *)(p + h->size - 24) : 0;
}

/* Index the side-band records at cp[at, at+len) and sort the index by
 * time (a table slot or a CPU's tripwire ring is in order, the whole is
 * not). Returns how many. */
static size_t side_sort(size_t at, size_t len)
{
	size_t off, n = 0;

	for (off = 0; off < len && n < ixmax; off += ((struct rec_hdr *)(cp + at + off))->size, n++) {
		ix[n].off = at + off;
		ix[n].t = rec_time((void *)(cp + at + off), 0);
		ix[n].seq = n;
	}
	xsort(ix, n, sizeof(*ix), ix_cmp);
	return n;
}

static const struct rec_hdr *run_rec(const struct run *r)
{
	return (const void *)(r->ring < 0 ? cp + ((const struct ix *)r->p)->off : r->p);
}

/* Write the runs out in time order: take the run with the oldest head,
 * and keep taking from it while it stays older than the runner-up. */
static size_t merge_out(struct run *rn, int k)
{
	size_t nrec = 0;

	for (;;) {
		int i, m = -1, s = -1;
		struct run *r;

		for (i = 0; i < k; i++) {
			if (rn[i].p >= rn[i].end)
				continue;
			if (m < 0 || rn[i].t < rn[m].t)
				s = m, m = i;
			else if (s < 0 || rn[i].t < rn[s].t)
				s = i;
		}
		if (m < 0)
			return nrec;
		r = rn + m;
		do {
			const struct rec_hdr *h = run_rec(r);

			if (!cfg_lean || r->ring < 0) {
				pd_record(h);
			} else if (BE) {	/* expanded, then swapped */
				static u64 b[65536 / 8 + 8];

				if (lean_expand(h, r->ring, (void *)b))
					pd_record((void *)b);
			} else {		/* expanded right into the output */
				out_commit(lean_expand(h, r->ring, out_room(h->size + 32)));
			}
			nrec++;
			if ((r->p += r->ring < 0 ? sizeof(struct ix) : h->size) >= r->end)
				break;
			r->t = rec_time(run_rec(r), cfg_lean && r->ring >= 0);
		} while (s < 0 || r->t < rn[s].t || (r->t == rn[s].t && m < s));
	}
}

static int open_dump_file(char *name)
{
	for (;;) {
		int fd;

		fmt(name, 4096, file_seq ? "%s.%u" : "%s", cfg_out, file_seq);
		fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd >= 0 || errno != EEXIST)
			return fd;
		file_seq++;
	}
}

static void dump(const char *why)
{
	u64 t0, t1, t2;
	size_t tot = 0, nrec, i, side;
	struct run rn[nring + 1];
	char name[4096];
	/* Files and framed dumps each stand alone; a binary stream sends
	 * only what is new since the last dump. */
	int fd = sink_fd, err, standalone = sink_fd < 0 || cfg_frame;
	int binfile = CFG_PERF_FILE && sink_fd < 0 && !cfg_frame;

	if (CFG_TRACK)
		track_read();	/* the table up to now; recording goes on */
	/* The blind window: from the first pause to the last resume. */
	t0 = now_us();
	for (i = 0; i < (size_t)nring; i++)
		ring_pause(rings + i, 1);
	for (i = 0; i < (size_t)nring; i++) {
		struct ring *r = rings + i;
		unsigned long head = ring_head(r);

		tot += r->size;
		rn[i + 1].end = cp + tot;
		rn[i + 1].p = ring_walk(r->data, r->size, head,
					(standalone ? 0 : r->prev) - head, cp + tot);
		rn[i + 1].ring = i;
		if (!standalone)
			r->prev = head;
	}
	/* Recording that SIGUSR1 turned off stays off. */
	for (i = 0; i < (size_t)nring && !rec_off; i++)
		ring_pause(rings + i, 0);
	t1 = now_us();
	/* The process table and the tripwire hits (perf script shows what
	 * tripped): one run, sorted. */
	side = CFG_TRACK ? track_copy(cp + tot) : 0;
	memcpy(cp + tot + side, tbuf, tn);
	side += tn;
	tn = 0;
	rn[0].p = (const void *)ix;
	rn[0].end = (const void *)(ix + (CFG_TRACK || CFG_TRIPWIRE ? side_sort(tot, side) : 0));
	rn[0].ring = -1;
	for (i = 0; i <= (size_t)nring; i++)
		if (rn[i].p < rn[i].end)
			rn[i].t = rec_time(run_rec(rn + i), cfg_lean && rn[i].ring >= 0);

	dumps++;
	if (sink_fd < 0) {
		if ((fd = open_dump_file(name)) < 0) {
			msg("dump %d (%s): %s:", dumps, why, name);
			return;
		}
		file_seq++;
	} else {
		fmt(name, sizeof(name), "%s", sink_name);
	}
	for (i = 1, tot = side; i <= (size_t)nring; i++)
		tot += rn[i].end - rn[i].p;
	out_begin(fd, tot + (64 << 10));
	if (binfile)
		pd_file_head();
	else if (standalone || !stream_started)
		pd_stream_head();
	pd_sideband(!standalone && stream_started);
	if (hit_comm[0] && strcmp(hit_comm, "?"))
		pd_comm(hit_id[0], hit_id[1], hit_comm);
	hit_comm[0] = 0;
	nrec = merge_out(rn, nring + 1);
	if (binfile) {
		err = pd_file_end(fd);
	} else {
		pd_stream_round();
		err = out_end();
		if (!err)
			stream_started = 1;
	}
	if (sink_fd < 0) {
		close(fd);
		if (err)
			unlink(name);	/* ours (O_EXCL), and useless half written */
	}
	t2 = now_us();
	if (err) {
		errno = err;
		msg("dump %d (%s): writing %s failed, recording goes on:", dumps, why, name);
	} else {
		unsigned long used = 0, ev = 0, dr = 0;
		char tab[80] = "";

		if (CFG_TRACK && cfg_procs) {
			track_stats(&used, &ev, &dr);
			fmt(tab, sizeof(tab), ", procs %L/%L (%L evicted, %L not kept)",
			    (u64)used, (u64)cfg_procs, (u64)ev, (u64)dr);
		}
		msg("dump %d (%s): %L bytes, %L records, %d CPUs, paused %L us, wrote in %L us, to %s%s",
		    dumps, why, out_pos, (u64)nrec, nring, t1 - t0, t2 - t1, name, tab);
	}
	if (cfg_dumps && dumps >= cfg_dumps) {
		msg("made dumps=%d, exiting", (int)cfg_dumps);
		restore_tty();
		exit(0);
	}
}

/* ---- tripwires ---- */

static u64 deadline, last_trip;	/* of the post-trigger dump, of the last trip */
static char reason[128];

/* Where a tracepoint has a fixed "char comm[16]" field, or -1. */
static int tp_comm_off(const char *name)
{
	static char b[8192];
	char path[300], *p;
	long n;

	tp_path(path, sizeof(path), name, "format");
	n = readfile(path, b, sizeof(b) - 1);
	b[n > 0 ? n : 0] = 0;
#define COMM_FIELD "\tfield:char comm[16];\toffset:"
	p = xstrstr(b, COMM_FIELD);
	return p ? (int)xtou(p + sizeof(COMM_FIELD) - 1, 0, 10) : -1;
}

/* Who hit: /proc now, since a crashing process may be gone by the time
 * we dump; if it is gone already, the tracepoint's own comm field. */
static void trip_who(const struct rec_hdr *h, const struct event *e, const u32 *id)
{
	const u64 *a = (const void *)(h + 1);
	const unsigned char *raw;
	char path[32];
	long n, off;

	memcpy(hit_id, id, sizeof(hit_id));
	fmt(path, sizeof(path), "/proc/%u/comm", id[1]);
	n = readfile(path, hit_comm, sizeof(hit_comm) - 1);
	hit_comm[n > 0 ? n - 1 : 0] = 0;
	if (n > 0)
		return;
	memcpy(hit_comm, "?", 2);
	if ((off = e->comm_off) <= 0)
		return;
	a += 6;					/* IDENTIFIER IP TID TIME CPU PERIOD */
	if (e->attr.sample_type & S_CALLCHAIN)
		a += 1 + *a;
	raw = (const unsigned char *)a + 4;	/* u32 size, then the raw data */
	if ((const unsigned char *)h + h->size >= raw + off + 16)
		memcpy(hit_comm, raw + off, 15), hit_comm[15] = 0;
}

static void trip_hit(struct trip *t, u32 pid)
{
	char *comm = hit_comm;
	u64 now = now_us();

	if (++t->hits < t->count) {
		msg("trip %s: hit %u of %u, by pid %u (%s)", t->what, t->hits, (unsigned)t->count, pid, comm);
		return;
	}
	t->hits = 0;
	if (deadline)
		return;		/* a dump is on its way */
	if (last_trip && now - last_trip < (u64)t->holdoff) {
		msg("trip %s by pid %u (%s): within holdoff, not dumped (%u so far)",
		    t->what, pid, comm, ++t->held);
		return;
	}
	last_trip = now;
	fmt(reason, sizeof(reason), "trip %s by pid %u (%s)", t->what, pid, comm);
	if (t->after) {
		msg("%s: dumping in %L ms", reason, (u64)t->after / 1000);
		deadline = now + t->after;
	} else {
		dump(reason);
	}
}

/* A record from a tripwire ring: keep it for the dump, count the hit. */
static void trip_rec(const struct rec_hdr *h, void *ctx)
{
	const u64 *a = (const void *)(h + 1);
	struct event *e;
	u32 id[2];

	if (h->type != REC_SAMPLE)
		return;
	if (tn + h->size <= sizeof(tbuf)) {
		memcpy(tbuf + tn, h, h->size);
		tn += h->size;
	}
	memcpy(id, a + 2, 8);		/* IDENTIFIER, IP, then {pid, tid} */
	if ((e = ev_by_id(a[0])) && e->trip) {
		trip_who(h, e, id);
		trip_hit(trips + e->trip - 1, id[0]);
	}
}

/* ---- main ---- */

/* Sleep in one poll: the signalfd and the tripwire rings, with a timeout
 * only while a post-trigger dump is pending. */
static int loop(int sfd)
{
	struct pollfd *p = xmalloc((1 + 2 * nring) * sizeof(*p));
	int i, n = 1, nt;

	p[0].fd = sfd;
	p[0].events = POLLIN;
	for (i = 0; ntrip && i < nring; i++, n++) {
		p[n].fd = trings[i].fd;
		p[n].events = POLLIN;
	}
	nt = n;
	for (i = 0; i < nring; i++) {
		if (tfds[i] >= 0) {
			p[n].fd = tfds[i];
			p[n++].events = POLLIN;
		}
	}
	msg("recording %d events on %d CPUs, %L KiB per CPU%s; SIGUSR2 dumps, SIGINT dumps and exits",
	    nev, nring, (u64)cfg_buf >> 10, lean_noid ? " (tracepoints only: no ids)" : "");
	for (;;) {
		struct signalfd_siginfo si;
		int timeout = -1;
		u64 now = now_us();

		if (deadline)
			timeout = now >= deadline ? 0 : (deadline - now + 999) / 1000;
		if (poll(p, n, timeout) < 0)
			continue;
		if (deadline && now_us() >= deadline) {
			deadline = 0;
			dump(reason);
		}
		for (i = 1; i < nt; i++)
			if (p[i].revents)
				ring_read(trings + i - 1, trip_rec, 0);
		for (i = nt; CFG_TRACK && i < n; i++)
			if (p[i].revents) {
				track_read();	/* all of them, in one batch */
				break;
			}
		if (!(p[0].revents & POLLIN) || read(sfd, &si, sizeof(si)) != sizeof(si))
			continue;
		if (si.ssi_signo == SIGUSR2) {
			dump("signal");
		} else if (si.ssi_signo == SIGUSR1) {
			rec_off = !rec_off;
			for (i = 0; i < nring; i++)
				ring_pause(rings + i, rec_off);
			msg(rec_off ? "recording off (SIGUSR1 turns it on)" : "recording on");
		} else {
			/* Final dump; a second SIGINT/SIGTERM ends it at once. */
			ofinal = 1;
			osfd = sfd;
			dump("exit");
			return 0;
		}
	}
}

static _Noreturn void usage(int code)
{
	static const char head[] =
"usage: tracer [-o FILE|DEVICE] [-f CONFIG_FILE] ['CONFIG']    record\n"
"       tracer -x [-n N] [-o FILE] < CAPTURE   extract framed dumps\n"
"       tracer -l | -h                         list events | this help\n";
	static const char full[] =
"Records system-wide perf events into one overwriting ring per CPU and\n"
"sleeps. SIGUSR2 or a tripwire dumps them as perf.data; SIGUSR1 turns\n"
"recording off/on; SIGINT/SIGTERM dumps and exits (0 ok, 1 failure, 2 usage).\n"
"  -o FILE    each dump a new file FILE, FILE.1, ... (never overwritten); a\n"
"             tty/fifo gets one stream (a tty in raw mode). Default: stdout\n"
"CONFIG items, separated by spaces, newlines or ';':\n"
"  SYS:NAME[/FILTER/]  tracepoint, NAME a glob (sched:*), FILTER in ftrace\n"
"                      syntax: signal:signal_generate/sig==11/\n"
"  EVENT[@HZ|%N]       cpu-clock@99 page-faults%100 cycles ... (clocks: @99)\n"
"  buf=SIZE            per-CPU ring, k/m suffix (128k)   cpus=LIST  0,2-3\n"
"  stack               kernel callchains                 out=PATH   as -o\n"
"  trip=EVENT[/FILTER/][,count=N][,after=T][,holdoff=T]  dump when it hits;\n"
"                      presets trip=segv trip=oom trip=oops trip=exit\n"
"  count=N after=T holdoff=T  tripwire defaults (T: 500us 200ms 2s)\n"
"  dumps=N             exit after N dumps\n"
"  procs=N             processes the tracking table keeps (128; 0: off)\n"
"  full                the kernel writes perf's full layout (default: lean,\n"
"                      CPU and tracepoint IP/period are added at dump time)\n"
"  frame=text          checksummed text lines for a shared console\n"
"  baud=N              serial speed for -o /dev/ttyXXX\n"
"Default:\n  " DEFAULT_CONFIG " buf=128k\n";

	write(code ? 2 : 1, head, sizeof(head) - 1);
	if (CFG_LONG_HELP)
		write(code ? 2 : 1, full, sizeof(full) - 1);
	_exit(code);
}

int main(int argc, char **argv)
{
	static char cfgfile[1 << 16];
	char *config = 0;
	sigset_t set;
	struct rlimit rl;
	u64 possible[16];
	int i, c, sfd, ncpu = 0, extract = 0, sel = 0;

	targc = argc;
	targv = argv;
	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		char *a = argv[i] + 1, *arg;

		if (!strcmp(a, "-")) {
			i++;
			break;
		}
		for (; *a; a++) {
			c = *a;
			arg = 0;
			if (xstrchr("ofn", c) && !(arg = a[1] ? a + 1 : argv[++i]))
				usage(2);
			switch (c) {
			case 'o':
				cfg_out = arg;
				break;
			case 'f': {
				long n = readfile(arg, cfgfile, sizeof(cfgfile) - 1);

				if (n < 0)
					die(2, "-f %s:", arg);
				cfgfile[n] = 0;
				config = cfgfile;
				break;
			}
			case 'n':
				if (!(sel = num(arg, 0)))
					die(2, "-n %s: a dump number from 1", arg);
				break;
			case 'l':
				if (!CFG_LIST)
					die(2, "-l is not built in (CONFIG_LIST)");
				list();
				return 0;
			case 'x':
				if (!CFG_FRAME)
					die(2, "-x is not built in (CONFIG_FRAME)");
				extract = 1;
				break;
			case 'h':
				usage(0);
			default:
				usage(2);
			}
			if (arg)
				break;
		}
	}
	if (i < argc) {
		if (config || i + 1 < argc || extract)
			usage(2);
		config = argv[i];
	}
	if (extract)
		return frame_extract(sel, cfg_out);
	if (!config) {
		config = xstrdup(DEFAULT_CONFIG);
		cfg_default = 1;
	}
	tracefs = tracefs_find();
	if (!tracefs && cfg_default)
		msg("no tracefs: recording software events only");
	{
		char *o = cfg_out;

		cfg_parse(config);
		if (o)
			cfg_out = o;	/* -o wins over out= */
	}
	/* A config that names no events (only keys, or tripwires) records
	 * the default ones. */
	for (i = c = 0; i < nev; i++)
		c += !evs[i].trip;
	if (!c && !cfg_default) {
		cfg_default = 1;
		cfg_parse(xstrdup(DEFAULT_CONFIG));
	}
	if (!nev)
		die(2, "config: no events");
	/* Read now, not at a hit: where a tripwire's tracepoint has a comm. */
	for (i = 0; i < nev; i++)
		if (CFG_TRIPWIRE && evs[i].trip && evs[i].attr.type == TYPE_TRACEPOINT)
			evs[i].comm_off = tp_comm_off(evs[i].name);
	for (i = 0; i < ntrip; i++) {
		struct trip *t = trips + i;

		t->count = t->count < 0 ? cfg_count : t->count;
		t->after = t->after < 0 ? cfg_after : t->after;
		t->holdoff = t->holdoff < 0 ? cfg_holdoff : t->holdoff;
	}
	/* Something that exists and is not a regular file (a tty, a fifo,
	 * /dev/null) is a stream, opened once. */
	if (cfg_out && (sink_fd = open(cfg_out, O_WRONLY | O_NOCTTY | O_CLOEXEC)) < 0 &&
	    errno != ENOENT)
		die(1, "-o %s:", cfg_out);
	if (sink_fd >= 0 && S_ISREG(ring_fd_mode(sink_fd))) {
		close(sink_fd);
		sink_fd = -1;
	}
	if (sink_fd >= 0) {
		sink_name = cfg_out;
		if (isatty(sink_fd)) {
			if (!CFG_SERIAL)
				die(2, "-o %s: serial output is not built in (CONFIG_SERIAL)", cfg_out);
			tty_raw(sink_fd);
		}
	} else if (!cfg_out) {
		sink_fd = 1;
		if (isatty(1) && !cfg_frame)
			die(2, "stdout is a terminal: give -o FILE, pipe it (tracer | perf script -i -), or use frame=text");
	} else {
		char dir[4096], *sl;

		if (strlen(cfg_out) > 4000)
			die(2, "%s: path too long", cfg_out);
		/* Find out now, not when the moment that matters is dumped. */
		memcpy(dir, cfg_out, strlen(cfg_out) + 1);
		sl = xstrrchr(dir, '/');
		if (sl)
			sl[sl == dir] = 0;
		if (access(sl ? dir : ".", W_OK | X_OK))
			die(1, "-o %s: can't create files in %s:", cfg_out, sl ? dir : ".");
	}
	for (i = 0; i < nev; i++) {
		if (cfg_stack) {
			evs[i].attr.sample_type |= S_CALLCHAIN;
			evs[i].attr.flags |= ATTR_EXCL_CALLCHAIN_USER;
		}
	}
	/* Many events times many CPUs is many fds. */
	/* prlimit, not setrlimit: musl's applies it to all threads, which
	 * we don't have, and that costs 2 KiB. */
	if (!syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, 0, &rl)) {
		rl.rlim_cur = rl.rlim_max;
		syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, &rl, 0);
	}
	if (CFG_TRACEPOINTS && cfg_lean)
		noid_init();
	open_all();
	if (!sysfs_cpus("/sys/devices/system/cpu/possible", possible))
		for (i = 0; i < 1024; i++)
			if (possible[i / 64] >> i % 64 & 1)
				ncpu = i + 1;
	ids_init();
	pd_tracing_build();
	pd_features_build(ncpu, nring);
	/* Everything a dump needs is allocated now, not in the dump. */
	/* The rings' copies, then the side-band. The rings' part is faulted
	 * in now, not while the rings are paused. */
	i = sizeof(tbuf) + (CFG_TRACK ? track_max() : 0);
	ixmax = i / 32;
	ix = xmalloc(ixmax * sizeof(*ix));
	cp = xmalloc(nring * cfg_buf + i);
	memset(cp, 0, nring * cfg_buf);

	/* Signals arrive in one place: the signalfd, read in the loop. */
	/* SIGPIPE is blocked, not ignored: writes get EPIPE all the same,
	 * and sigaction is 1 KiB of libc. */
	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	sigprocmask(SIG_BLOCK, &set, 0);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, 0);
	sfd = signalfd(-1, &set, SFD_CLOEXEC);
	if (sfd < 0)
		die(1, "signalfd:");
	i = loop(sfd);
	restore_tty();
	return i;
}
