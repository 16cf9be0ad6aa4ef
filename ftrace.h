/* ftrace.h - tracepoints through the kernel's own ring (ftrace.c): a
 * private ftrace instance, its pages copied at a dump and read back as
 * perf samples. */
#ifndef FTRACE_H
#define FTRACE_H

#include "cfg.h"

extern int ft_n;
extern u64 ft_est;		/* a dump's bytes of the instance's pages, about */
extern const char *const ft_inst;	/* the instance's name */
extern int ft_prev;		/* tracer -b: a dump of the boot before */		/* events the instance records (0: none) */

int ft_init(const u64 *mask);		/* after cfg_load: the instance, or 0 */
int ft_open(int ri, int cpu);	/* a CPU's buffer, ring ri; its events' ids */
void ft_pause(int off);
u64 ft_grab(int rec_off, int cont, char *wrap);	/* all CPUs' pages; the blind ns */
int ft_next(int ri, u64 *t);	/* ring ri's next event; 0: no more */
const void *ft_write(int ri, int cpu);	/* its event at hand, into the dump */
void ft_sent(void);		/* a stream sent it all */
char *ft_boot(void);		/* tracer -b: the boot before read; its config */
void ft_comms(void);		/* tracer -b: the tasks named, into the dump */
const char *ft_how(int line);	/* for the start line; for a dump's */
void ft_end(void);		/* the instance goes */

#endif
