/* perfdata.h - what the perf.data writer needs from tracer.c, and gives. */
#ifndef PERFDATA_H
#define PERFDATA_H

#include "ring.h"
#include "config.h"

struct event {
	struct perf_attr attr;
	char *name;		/* "sched:sched_switch", "cpu-clock" */
	char *filter;		/* ftrace filter, or 0 */
	u64 *ids;		/* kernel ids, one per ring */
	char *tok;		/* "'its config token' at N", for errors */
	int trip;		/* tripwire number, or 0 */
	int comm_off;		/* a tripwire's "char comm[16]" field, or <= 0 */
};

/* The recording, set up by tracer.c. */
extern struct event *evs;
extern int nev;
extern struct ring *rings;
extern int nring;
extern char *tracefs;		/* mount point, or 0 */
extern char **targv;
extern int targc;

/* Helpers shared by both files (tracer.c). */
_Noreturn void die(int code, const char *fmt, ...);
void msg(const char *fmt, ...);
void fmt(char *b, size_t n, const char *f, ...);
long readfile(const char *path, char *buf, long max);
void *xmalloc(size_t n);
void *xrealloc(void *p, size_t old, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
u64 xtou(const char *s, char **end, int base);
char *xstrstr(const char *h, const char *n);
char *xstrchr(const char *s, int c);
char *xstrrchr(const char *s, int c);
size_t span(const char *s, const char *set, int in);
void xsort(void *base, size_t n, size_t sz, int (*cmp)(const void *, const void *));
char *utoa(char *p, u64 v);
struct event *ev_by_id(u64 id);
void tp_path(char *b, size_t n, const char *name, const char *file);
void dir_each(const char *dir, void (*fn)(const char *, void *), void *ctx);

/* The output: a buffered sink that remembers its first error. */
void sink_write(const char *p, size_t n);
void out_put(const void *p, size_t n);
void *out_room(size_t n);
void out_commit(size_t n);
int out_end(void);		/* flush; 0 or the first errno */
extern u64 out_pos;

/* perf.data. A stream is pipe mode: pd_stream_head() once, then per dump
 * side-band and records. A file is file mode, one per dump. */
void pd_tracing_build(void);
void pd_features_build(int ncpu_avail, int ncpu_online);
void pd_stream_head(void);
void pd_file_head(void);
void pd_sideband(int only_new);
void pd_record(const struct rec_hdr *h);
void pd_comm(u32 pid, u32 tid, const char *comm);
int map_build_id(const char *path, u32 maj, u32 min, u64 ino, u8 *id);
void pd_stream_round(void);
int pd_file_end(int fd);

/* track.c: the tracking ring and process table. */
extern long cfg_procs;
void track_init(int n);
int track_open(int i, int cpu);
void track_read(void);
size_t track_copy(unsigned char *dst);
size_t track_max(void);
void track_stats(unsigned long *used, unsigned long *evicted, unsigned long *dropped);

/* frame.c: text framing for shared consoles, and extract mode. */
void frame_begin(int dump);
void frame_put(const void *p, size_t n);
void frame_end(void);
int frame_extract(int sel, const char *out);

#endif
