/* sink.h - the output: where dumps go, buffered, with progress. */
#ifndef SINK_H
#define SINK_H

#include <poll.h>
#include <termios.h>
#include "lib.h"

extern int sink_fd;		/* a stream's fd, or -1 */
extern int sink_stream;		/* stdout, a tty, a fifo; 0: new files */
extern const char *sink_name;	/* "stdout", or the stream's path */
extern u64 out_pos;		/* bytes of this dump so far */
extern u64 out_in;		/* of out_begin's hint, how much went out (for progress) */

void sink_open(const char *out, int frame, long speed);
int sink_get(void);		/* a stream's fd for a dump, or -1 */
speed_t sink_baud(long b);	/* termios' speed for b, or 0 */
void sink_restore(void);	/* a tty's settings as we found them */
/* The signalfd, once: during the final dump (sink_final: sig, sent by
 * pid), a second ending signal (SIGINT, not SIGCONT, not sig again from
 * pid) exits. */
void sink_signals(int sfd);
void sink_final(int sig, u32 pid);
/* What comes within this of the first ending signal (us) is the same
 * stop, not a second one (tracer.c's stop_gather, and during a dump). */
#define STOP_GATHER 200000
extern int out_final;		/* the final dump is on */
/* What a pulled dump (OUT_YIELD) gives way to: p[1..n) readable, or
 * the time until (us; 0: none). p[0] is the sink's own. */
void sink_yield(struct pollfd *p, int n, u64 until);
/* Requests on a tty sink ("DUMP\n"). */
int sink_request(void);
extern int sink_tty;		/* the stream is a tty: requests come on it */

/* One dump: begin, put (or room then commit, to write in place), end. */
#define OUT_FRAME 1
#define OUT_YIELD 2
#define OUT_STALL 4	/* a stream's reader that takes nothing for 10 s loses it */
#define OUT_ABOUT 8	/* hint is about the size written (no zstd): lib/room.c */
void out_begin(int fd, u64 hint, int dump, int how, const char *path);
/* Set by each dump before out_begin (ROOM): before each write, the
 * bounds of the file it grows (lib/room.c's, the push spool's) with
 * its size after the write; 0, or an errno that ends the dump. */
extern int (*out_bound)(int fd, u64 size, u64 about, int dump);
void out_put(const void *p, size_t n);
void *out_room(size_t n);
void out_commit(size_t n);
int out_end(void);		/* flush; 0 or the first errno */
void out_zstd(int on);		/* compress what is put from now on, or no more */
extern u64 out_raw_pos;		/* bytes put so far, before compression */
void sink_write(const char *p, size_t n);	/* unbuffered, unframed */

#endif
