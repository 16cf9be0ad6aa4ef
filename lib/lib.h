/* lib.h - the bottom layer: messages and the one die helper, the
 * allocator, the string and number helpers, sort, and file reading. It
 * knows nothing of tracer; everything else may call it. */
#ifndef LIB_H
#define LIB_H

#include <stddef.h>
#include <stdint.h>

typedef uint64_t u64;
typedef uint32_t u32;
typedef uint16_t u16;
typedef uint8_t u8;

/* Messages: "tracer: WHAT", and a trailing ':' in the format appends
 * strerror. %s %c %d %u and %L (unsigned long long). */
void fmt(char *b, size_t n, const char *f, ...);
void msg(const char *f, ...);
_Noreturn void die(int code, const char *f, ...);
/* What die does before it exits: put back what must not stay as we
 * left it (a serial port's settings). */
extern void (*die_hook)(void);
char *utoa(char *p, u64 v);
char *hex8(char *p, u32 v);
const char *sig_name(int sig);	/* "SIGHUP", or "signal 34" */

/* Memory, taken at set-up and never given back. */
void *xmalloc(size_t n);
void *xrealloc(void *p, size_t old, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);

/* Strings and numbers. */
u64 xtou(const char *s, char **end, int base);
unsigned long long num(const char *s, int suffix);
/* The sooner of two poll timeouts in ms, -1 being none. */
static inline int min_ms(int a, int b)
{
	return a < 0 || (b >= 0 && b < a) ? b : a;
}
const char *starts(const char *s, const char *p);	/* s's rest after p, or 0 */
char *xstrstr(const char *h, const char *n);
char *xstrchr(const char *s, int c);
char *xstrrchr(const char *s, int c);
size_t span(const char *s, const char *set, int in);
int glob(const char *p, const char *s);
void xsort(void *base, size_t n, size_t sz, int (*cmp)(const void *, const void *));

/* Files, time. */
long readfile(const char *path, char *buf, long max);
long long readnum(const char *path);	/* or -1 */
/* "0,2-3" (or a sysfs file of it) into a bitmap of 1024 CPUs; 0, or -1 */
int cpulist(const char *s, u64 *set);
int sysfs_cpus(const char *path, u64 *set);
void dir_each(const char *dir, void (*fn)(const char *, void *), void *ctx);
int note_build_id(const unsigned char *p, long len, u8 *id);
u64 now_ns(void);
const char *hook(const char *name);	/* TESTHOOKS builds only */
u64 clock_ns(int clk);	/* CLOCK_REALTIME, CLOCK_BOOTTIME, ... */
u64 now_us(void);
unsigned fd_stat(int fd);	/* type and permissions; 0: no statx */
int is_tty(int fd);		/* isatty */
int pid_ns(void);		/* we run in a pid namespace */
unsigned fd_mode(int fd);	/* S_IFREG, S_IFCHR, ...; 0: not open */
unsigned path_mode(const char *path);	/* or 0 */
int inst_marked(const char *path);	/* a tracefs instance of tracer's */
void inst_mark(const char *path);

#endif
