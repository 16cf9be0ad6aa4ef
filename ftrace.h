/* ftrace.h - tracepoints through the kernel's own ring (ftrace.c): a
 * private ftrace instance, its pages copied at a dump and read back as
 * perf samples. */
#ifndef FTRACE_H
#define FTRACE_H

#include "cfg.h"

/* A walk over one CPU's copied pages, oldest first. */
struct ftcur {
	const unsigned char *base;	/* the copy's pages */
	const u32 *ord;			/* their order */
	u32 i, n;			/* the next page, how many */
	const unsigned char *ev, *pend;	/* the next event, its page's end */
	const unsigned char *data;	/* the event at hand: its data */
	u32 len;
	u64 pt, t;			/* its page's time, its time */
	u64 skip_t, kt;			/* a stream sent up to skip_t; the last time */
	u32 skip_k, k;			/* that many at skip_t; seen at kt */
};

extern int ft_n;		/* events the instance records (0: none) */

int ft_init(const u64 *mask);		/* after cfg_load: the instance, or 0 */
int ft_open(int ri, int cpu);	/* a CPU's buffer, ring ri */
void ft_ids(void);		/* the header's ids of its events */
void ft_pause(int off);
u64 ft_grab(int rec_off);	/* all CPUs' pages; the blind ns */
int ft_cur(int ri, struct ftcur *c, int cont);	/* 1: it wrapped */
int ft_next(struct ftcur *c);	/* 0: no more */
size_t ft_sample(const struct ftcur *c, int ri, int cpu, unsigned char *o);
void ft_sent(int ri, const struct ftcur *c);	/* a stream sent it all */
const char *ft_how(int line);	/* for the start line; for a dump's */
void ft_end(void);		/* the instance goes */

#endif
