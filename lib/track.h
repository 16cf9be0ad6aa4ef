/* track.h - processes, as perf needs to name them: the tracking ring and
 * the process table (processes that are gone), and /proc (live ones). */
#ifndef TRACK_H
#define TRACK_H

#include "ring.h"

void track_init(int n, const u64 *want);
int track_open(int i, int cpu);
int track_reopen(int i, int cpu);
void track_read(void);
void track_begin(int mode);
size_t track_copy(unsigned char *dst, u64 lo);
size_t track_max(void);
void track_stats(unsigned long *used, unsigned long *evicted, unsigned long *dropped, unsigned long *unnamed);
void track_sample(const struct rec_hdr *h);	/* one went into the dump */
void track_proc(void);
void track_user(u32 pid);	/* its maps are needed; -1: a dump begins */
void track_gone(void);	/* after track_copy, before track_proc */
u32 track_tgid(u32 tid);	/* its pid, from /proc; -1: a dump begins */

#endif
