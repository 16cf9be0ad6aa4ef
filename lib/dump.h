/* dump.h - the recording (events opened into per-CPU rings) and dumps. */
#ifndef DUMP_H
#define DUMP_H

#include "ring.h"

extern struct ring *rings, *trings;	/* backward per CPU; tripwires' forward */
extern struct ring *frings;	/* before 4.7 (OLDKERNEL): the kernel's forward ones */
extern int *tfds;		/* tracking rings' fds, -1 if none */
extern int dumps;		/* made so far */
extern u32 hit_id[2];		/* pid, tid of the last tripwire hit */
extern char hit_comm[20];	/* its comm, read at the hit */

void dump_init(void);
#define DUMP_PUSH -2
int dump(const char *why, int pull);	/* 0, or -1: not written */
void dump_keep(const struct rec_hdr *h);
int dump_toggle(int off);
void dump_drain(void);
int dump_hotplug(int fd);

#endif
