/* ftrace.h - tracepoints through the kernel's own ring (ftrace.c): a
 * private ftrace instance, its pages copied at a dump and read back as
 * perf samples. */
#ifndef FTRACE_H
#define FTRACE_H

#include "cfg.h"

/* CPUs whose data caches may alias (MIPS32: 24K, 74K; ARMv5, ARMv6): a
 * user mapping of the kernel's pages may read stale lines, which the
 * kernel flushes only for its own reads (trace_pipe_raw's read, its
 * reader-page ioctl). Their builds do not map the pages (ftrace.c). */
#if (defined(__mips__) && !defined(__mips64)) || (defined(__arm__) && __ARM_ARCH < 7)
#define FT_ALIAS 1
#else
#define FT_ALIAS 0
#endif

extern int ft_n;			/* events the instance records (0: none) */
extern u64 ft_est;		/* a dump's bytes of the instance's pages, about */
extern char ft_iname[72];	/* the instance's name */
extern int ft_prev;		/* tracer -b: a dump of the boot before */

int ft_init(const u64 *mask);		/* after cfg_load: the instance, or 0 */
int ft_open(int ri, int cpu);	/* a CPU's buffer, ring ri; its events' ids */
void ft_pause(int off);
u64 ft_grab(int rec_off, int cont, char *wrap);	/* all CPUs' pages; the blind ns */
int ft_next(int ri, u64 *t);	/* ring ri's next event; 0: no more */
const void *ft_write(int ri, int cpu);	/* its event at hand, into the dump */
void ft_sent(void);		/* a stream sent it all */
const char *ft_how(int line);	/* for the start line; for a dump's */
void ft_end(void);		/* the instance goes */

/* For the boot before (boot.c, above this file): the pages and their
 * walk. ft_boot sets ft_bootwalk, which ft_grab calls instead of
 * copying a live ring. */
/* A CPU's buffer, its copy, and the walk of that copy. */
struct fcpu {
	int fd, cpu;
	u32 n, cap, ncp, i, at;		/* pages mapped (or 0), room, copied; the walk's
					   next; the copy's newest (ft_grab) */
	unsigned char *map, *pg;	/* MAPPED: the mapping, its pages (past the meta page) */
	size_t len;			/* the mapping's */
	unsigned char *cp;		/* the copy */
	u32 *ord;			/* its pages in time order */
	const unsigned char *ev, *pend, *data;	/* the next event, its page's end; the event's data */
	u32 dlen, k, skip_k, last_k;	/* its length; seen at kt; sent at skip_t; at last_t */
	u64 lost;			/* read pages: events the kernel says were overwritten */
	u64 ov, last_ov;		/* mapped: events overwritten, at the walk; at the
					   stream's last dump */
	int unc;			/* some of them not counted (no room on the page) */
	u64 pt, t, kt, skip_t, last_t;	/* its page's time, its time; the last time; sent up to */
};

struct ft_pages { unsigned char *p; u32 *ord, n; };
extern struct ft_pages *ft_bp;	/* per CPU, the boot before's pages */
extern struct fcpu *ft_fc;
extern u32 ft_sbs;
extern int ft_hsz;
extern u64 (*ft_bootwalk)(char *wrap);
#define PREV (CFG_PERSIST && ft_prev)
char *ft_path(const char *file);
int ft_header(void);
u32 ft_nsub(int cpu);
int ft_persistent(void);
int ft_walk(struct fcpu *f, int cont);
int ft_step(struct fcpu *c, int any);
const struct event *ft_ev_of(const unsigned char *data);

#endif
