/* seen.h - what a dump, or a stream, has described (seen.c). */
#ifndef SEEN_H
#define SEEN_H

#include "lib.h"

void seen_begin(int mode);	/* 0: a standalone dump, 1: a stream's first, 2: its next */
int seen_mode(void);	/* the mode of the dump begun */
int seen(u32 key, u32 val);	/* whether key was described as val; it is now */
int seen_get(u32 key, u32 *val);
int comm_seen(u32 tid, const char *comm);
u32 comm_hash(const char *comm);
int map_seen(u32 pid, const void *slp, const char *name);
void named_init(void);
int name_bit(u32 tid, int set);	/* whether perf can name tid; set: it can now */
int count_bit(u32 tid);	/* whether tid was counted unnamed in this dump; it is now */
/* what a dump needs: a process's maps (NEED_MAPS, a pid), a task's name
 * (NEED_NAME, a tid); gathered before seen_begin, asked after it */
#define NEED_MAPS 0
#define NEED_NAME 1
void need(int what, u32 id);
void need_reset(void);
int needed(int what, u32 id);	/* a stream's: all */

#endif
