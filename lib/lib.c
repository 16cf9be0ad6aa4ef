/* lib.c - what every other file may call, calling nothing but libc:
 * messages and the one die helper, small stand-ins for libc (so that
 * the static binary stays small), sort, and file reading. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include "lib.h"

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

void (*die_hook)(void);

_Noreturn void die(int code, const char *f, ...)
{
	va_list ap;

	va_start(ap, f);
	vmsg(f, ap);
	va_end(ap);
	if (die_hook)
		die_hook();
	_exit(code);
}

/* "SIGHUP", or "signal 34". */
const char *sig_name(int sig)
{
	static const char n[] = "HUP\0INT\0QUIT\0TERM\0ALRM\0";
	static const unsigned char v[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGALRM };
	static char b[24];
	const char *p = n;
	unsigned i;

	for (i = 0; i < sizeof(v); i++, p += strlen(p) + 1)
		if (v[i] == sig) {
			fmt(b, sizeof(b), "SIG%s", p);
			return b;
		}
	fmt(b, sizeof(b), "signal %d", sig);
	return b;
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
		/* past 2^64: the largest, never a wrap, so bounds catch it */
		if (__builtin_mul_overflow(v, (unsigned)base, &v) || __builtin_add_overflow(v, (unsigned)d, &v))
			v = ~0ULL;
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

/* s begins with p: its end, or 0 (strncmp's work, in 20 bytes) */
const char *starts(const char *s, const char *p)
{
	while (*p)
		if (*s++ != *p++)
			return 0;
	return s;
}

char *xstrstr(const char *h, const char *n)
{
	for (; *h; h++)
		if (starts(h, n))
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

/* Globs in event names: '*' and '?'. Iterative, and on a mismatch it
 * goes back only to the last '*' (one more character for it to take):
 * O(|p| * |s|) at worst, where trying each '*' afresh is exponential. */
int glob(const char *p, const char *s)
{
	const char *star = 0, *from = 0;

	while (*s) {
		if (*p == '*') {
			star = ++p;
			from = s;
		} else if (*p == '?' || *p == *s) {
			p++, s++;
		} else if (star) {
			p = star;
			s = ++from;
		} else {
			return 0;
		}
	}
	while (*p == '*')
		p++;
	return !*p;
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

/* The number a file (/proc, sysfs) begins with, or -1. */
long long readnum(const char *path)
{
	char b[24] = { 0 };

	return readfile(path, b, sizeof(b) - 1) > 0 && *b >= '0' && *b <= '9' ? (long long)xtou(b, 0, 10) : -1;
}

/* A test hook's value (NAME=VALUE in the environment), or 0; called
 * as "if (CFG_TESTHOOKS && hook(...))", so that no other build has it. */
const char *hook(const char *name)
{
	extern char **environ;
	const char *v;
	char **e;

	for (e = environ; *e; e++)
		if ((v = starts(*e, name)) && *v == '=')
			return (char *)v + 1;
	return 0;
}

u64 now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

u64 clock_ns(int clk)
{
	/* The syscall, not libc's: its vDSO lookup is 1 KiB, and this is
	 * called a few times per dump. A 32-bit ABI with 64-bit time has
	 * clock_gettime64 (Linux 5.1), and its old call may be configured
	 * out of the kernel; before 5.1 there is only the old one, whose
	 * timespec is two longs, as on every 64-bit ABI. */
	struct { long s, ns; } t = { 0, 0 };
#ifdef SYS_clock_gettime64
	struct { long long s, ns; } t64;

	if (!syscall(SYS_clock_gettime64, clk, &t64))
		return t64.s * 1000000000ULL + t64.ns;
	syscall(SYS_clock_gettime32, clk, &t);
#else
	syscall(SYS_clock_gettime, clk, &t);
#endif
	return t.s * 1000000000ULL + t.ns;
}

u64 now_us(void)
{
	return now_ns() / 1000;
}


/* Numbers with an optional k/m/g suffix, up to 2^62; 0 on garbage and
 * on more (nothing tracer counts comes near). */
unsigned long long num(const char *s, int suffix)
{
	unsigned long long v = 0;
	int sh = 0;

	if (*s < '0' || *s > '9')
		return 0;
	for (; *s >= '0' && *s <= '9'; s++)	/* checked before it can wrap */
		if (v > (1ULL << 62) / 10 || (v = v * 10 + (*s - '0')) > 1ULL << 62)
			return 0;
	if (suffix && *s && !s[1]) {
		const char *u = xstrchr("kKmMgG", *s);

		if (u) {
			sh = 10 * (1 + (u - "kKmMgG") / 2);
			s++;
		}
	}
	return *s || v > 1ULL << (62 - sh) ? 0 : v << sh;
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


/* v as 8 hex digits at p; returns their end. */
char *hex8(char *p, u32 v)
{
	int i;

	for (i = 28; i >= 0; i -= 4)
		*p++ = "0123456789abcdef"[v >> i & 15];
	return p;
}

/* Walk ELF notes (namesz, descsz, type, name, desc; 4-aligned) for the
 * GNU build-id (type 3). */
int note_build_id(const unsigned char *p, long len, u8 *id)
{
	long off = 0;

	while (off + 12 <= len) {
		u32 nsz, dsz, type;

		memcpy(&nsz, p + off, 4);
		memcpy(&dsz, p + off + 4, 4);
		memcpy(&type, p + off + 8, 4);
		off += 12;
		if (nsz > 256 || dsz > 256)
			break;
		if (type == 3 && nsz == 4 && dsz >= 20 && off + 4 + 20 <= len &&
		    !memcmp(p + off, "GNU", 4)) {
			memcpy(id, p + off + 4, 20);
			return 20;
		}
		off += ((nsz + 3) & ~3) + ((dsz + 3) & ~3);
	}
	return 0;
}

/* An fd's whole st_mode (type and permissions), by statx; 0 before
 * Linux 4.11. */
unsigned fd_stat(int fd)
{
	u64 sx[32];
	u16 m = 0;

	if (!syscall(SYS_statx, fd, "", AT_EMPTY_PATH, 3 /* STATX_TYPE | STATX_MODE */, sx))
		memcpy(&m, (char *)sx + 28, 2);
	return m;
}

/* We run in a pid namespace other than the first: the kernel numbers
 * that one PROC_PID_INIT_INO. (NSpid can't tell: it starts at the
 * namespace /proc was mounted in.) 0 before Linux 3.8. */
int pid_ns(void)
{
	char b[32];
	long n = readlink("/proc/self/ns/pid", b, sizeof(b) - 1);

	b[n > 0 ? n : 0] = 0;
	return n > 0 && strcmp(b, "pid:[4026531836]");
}

/* A terminal (libc's isatty asks the same, and costs 70 bytes more). */
int is_tty(int fd)
{
	struct winsize w;

	return !ioctl(fd, TIOCGWINSZ, &w);
}

/* The type bits of an fd's st_mode. statx has one layout on every arch
 * (stx_mode at 28), where libc's fstat is 0.8 KiB of per-arch
 * conversions. Before Linux 4.11 there is no statx: then a tty, or what
 * can't seek (a fifo, a socket), is a stream, and anything else counts
 * as a regular file, which is never written over. */
unsigned fd_mode(int fd)
{
	unsigned m = fd_stat(fd);

	if (m)
		return m & S_IFMT;
	if (errno == EBADF || is_tty(fd))
		return errno == EBADF ? 0 : S_IFCHR;
	return lseek(fd, 0, SEEK_CUR) >= 0 ? S_IFREG : errno == EBADF ? 0 : S_IFIFO;
}

/* The same for a path (the last component not followed), or 0 if it
 * can't tell. */
unsigned path_mode(const char *path)
{
	u64 sx[32];
	u16 m;

	if (syscall(SYS_statx, AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, 1 /* STATX_TYPE */, sx))
		return 0;
	memcpy(&m, (char *)sx + 28, 2);
	return m & S_IFMT;
}

/* "0,2-3" into a bitmap of 1024 CPUs; -1 if it does not parse. */
int cpulist(const char *s, u64 *set)
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

int sysfs_cpus(const char *path, u64 *set)
{
	char b[512];
	long n = readfile(path, b, sizeof(b) - 1);

	if (n <= 0)
		return -1;
	b[n] = 0;
	return cpulist(b, set);
}

/* An ftrace instance of tracer's: its directory's mtime is 1970-01-01
 * 00:00:00.747261636 (no one else stamps that), set once it is held
 * open; so one that is marked and can go was left by a killed tracer. */
#define MARK 747261636

int inst_marked(const char *path)
{
	u64 sx[32];	/* struct statx: stx_mtime at 112 (u64 s, u32 ns) */
	u32 ns;

	return !syscall(SYS_statx, (long)AT_FDCWD, path, 0L, 0x40L /* MTIME */, sx) && !sx[14] &&
	       (memcpy(&ns, sx + 15, 4), ns == MARK);
}

void inst_mark(const char *path)
{
	/* atime, mtime: the syscall's timespecs are two longs */
	static const long mark[4] = { 0, MARK, 0, MARK };

	syscall(SYS_utimensat, (long)AT_FDCWD, path, mark, 0L);
}
