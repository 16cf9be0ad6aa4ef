/* push.h - dumps into S3-compatible object storage (push=). */
#ifndef PUSH_H
#define PUSH_H

#include <poll.h>
#include "lib.h"

#define PUSH_LAST 5000	/* ms the exit gives what waits */

extern char *cfg_push;	/* push='s URL, or 0 */
/* A config key of push's (push= s3key= region= spool= via= style=): 1 if key is
 * one, and then *why is 0 or what is wrong with val; 0 if not one. */
int push_key(const char *key, char *val, const char **why);
/* After the config: 0, or what is wrong with push= (or via=), and its
 * token in *tok */
const char *push_cfg(char **tok);
void push_init(void);	/* after the config: the key, the spool; dies */
/* A dump for the spool: an fd to write it to (its name, for the dump
 * line, in name), or -1 (said why); then push_add with write's errno
 * (0: the dump is whole, size bytes). Returns 0 or an errno. */
int push_open(char *name, size_t n, const char *why);
int push_add(int fd, int err, u64 size);
/* Before the spool's newest (spool=DIR) grows to size: room.c's free=
 * kept, the oldest going first; 0, or ENOSPC (said) */
int push_room(int fd, u64 size, u64 about, int dump);
/* The loop's part: the one connection's fd (or -1) into p, and the ms
 * until push_step wants a look without it (-1: never, so nothing
 * pending costs no wake-up); push_step after the poll. */
int push_fds(struct pollfd *p);
void push_step(const struct pollfd *p);
/* At exit: at most PUSH_LAST ms for what waits; what is left stays in
 * spool=DIR, or is said lost. */
void push_end(int sfd);
int push_nfd(void);	/* descriptors it may keep at once */

#endif
