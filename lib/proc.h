/* proc.h - the processes alive, from /proc (proc.c). */
#ifndef PROC_H
#define PROC_H

#include "lib.h"

void proc_snap(void);		/* the tasks there at the start */
/* a task's comm from /proc into comm[16] and its process's parent; the
 * comm's length, or <= 0 */
long proc_comm(u32 pid, u32 tid, char *comm, u32 *ppid);
const char *proc_start_comm(u32 tid);	/* its comm in the snapshot, or 0 */
void proc_gone(void);	/* the snapshot's tasks: after track_copy, before proc_all */
void proc_all(void);	/* every process alive, but what was described */
u32 proc_tgid(u32 tid);	/* its pid, from /proc; -1: a dump begins */

#endif
