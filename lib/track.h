/* track.h - processes, as perf needs to name them: the tracking ring and
 * the process table (processes that are gone; proc.c: live ones). */
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

#endif
