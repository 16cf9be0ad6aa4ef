/* sink.h - the output: where dumps go, buffered, with progress. */
#ifndef SINK_H
#define SINK_H

#include <termios.h>
#include "lib.h"

extern int sink_fd;		/* a stream's fd, or -1 */
extern int sink_stream;		/* stdout, a tty, a fifo; 0: new files */
extern const char *sink_name;	/* "stdout", or the stream's path */
extern u64 out_pos;		/* bytes of this dump so far */

void sink_open(const char *out, int frame, long speed);
int sink_get(void);		/* a stream's fd for a dump, or -1 */
speed_t sink_baud(long b);	/* termios' speed for b, or 0 */
void sink_restore(void);	/* a tty's settings as we found them */
/* During the final dump: a signal on sfd (a second SIGINT) exits. */
void sink_final(int sfd);

/* One dump: begin, put (or room then commit, to write in place), end. */
void out_begin(int fd, u64 hint, int dump, int frame, const char *path);
void out_put(const void *p, size_t n);
void *out_room(size_t n);
void out_commit(size_t n);
int out_end(void);		/* flush; 0 or the first errno */
void out_zstd(int on);		/* compress what is put from now on, or no more */
extern u64 out_raw_pos;		/* bytes put so far, before compression */
void sink_write(const char *p, size_t n);	/* unbuffered, unframed */

#endif
