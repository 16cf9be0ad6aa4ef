/* pull.h - pulled dumps (listen=): who may have one, and when. */
#ifndef PULL_H
#define PULL_H

#include <poll.h>
#include "lib.h"

/* Connections that may wait at once (for their key or their turn);
 * pulls go a burst of PULL_BURST, then one each PULL_EVERY us. */
#define PULL_PEND 8
#define PULL_BURST 4
#define PULL_EVERY 1000000

int pull_addr(const char *spec, void *sa, unsigned *len);	/* 0, or -1: not one */
int pull_open_addr(const char *spec);	/* TCP beyond loopback: needs a key */
const char *pull_key(const char *path);	/* 0, or why the key file won't do */
void pull_listen(const char *spec);	/* dies if it can't */
/* The loop's part: pull_fds fills 1 + PULL_PEND pollfds (the listening
 * socket, the connections that wait); after the poll, pull_step takes
 * what came and returns a connection to serve now (who it is in who[])
 * or -1, and in *wait the ms until it needs a look again (-1: never). */
int pull_fds(struct pollfd *p);
int pull_step(const struct pollfd *p, char *who, size_t n, int *wait);
void pull_hangup(int fd);
/* The same limit for other requests: 0 if one may go now, else ms. */
int pull_rate(u64 *t, u64 now);

#endif
