/* room.h - what the -o series may take of its filesystem. */
#ifndef ROOM_H
#define ROOM_H

#include "lib.h"

/* files=N, room=SIZE, free=SIZE: 1 if key is one (why: 0, or what is
 * wrong with val), 0 if not */
int room_key(const char *key, const char *val, const char **why);
/* a file of the series just made (O_EXCL): out.seq (seq 0: out), its fd */
void room_add(const char *out, unsigned seq, int fd);
/* before the next file of the series is made: the oldest go while it
 * would break files=N, so that not even an empty new file does */
void room_next(int dump);
/* before the series' newest file (fd) grows to size: the oldest go
 * while it would break a bound; 0, or ENOSPC when it alone does. With
 * about (the dump's size as its hint has it, an underestimate where
 * records expand; 0: unknown), one that could not fit alone is refused
 * before any goes. */
int room_make(int fd, u64 size, u64 about, int dump);
/* free=: the reserve of fd's filesystem (0: none), and what it has
 * free now in *avail (the push spool keeps it too) */
u64 room_reserve(int fd, u64 *avail);
/* the newest file done: its size, or gone (err: it was removed) */
void room_done(int fd, int err);

#endif
