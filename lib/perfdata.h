/* perfdata.h - perf.data as host perf reads it: a pipe-mode stream (the
 * head once, then per dump side-band and records), or a file-mode file
 * per dump. Everything goes out through the sink. */
#ifndef PERFDATA_H
#define PERFDATA_H

#include "cfg.h"

/* Once, at set-up: what does not change while we record. */
void pd_tracing_build(void);
void pd_features_build(int argc, char **argv, int ncpu_avail, int ncpu_online);

void pd_stream_head(void);
void pd_stream_round(void);
void pd_file_head(void);
int pd_file_end(int fd);
/* tracer -c: a file of a stream's attrs and features, not our own.
 * pd_file_begin, the attrs and ids, pd_file_attrs, the data, then
 * pd_file_end; the features are pd_feat's, in the order pd_be says. */
extern int pd_be;
void pd_file_begin(void);
void pd_file_attrs(u64 n, u64 size);
void pd_feat_reset(void);
void pd_feat_room(size_t tracing, size_t bids);
void pd_feat(int id, const void *p, size_t n);

/* Records: the kernel's (swapped on a big-endian target), the kernel's
 * maps, a COMM, or any side-band record by its body's shape. */
void pd_record(const struct rec_hdr *h);
extern u64 pd_ktext, pd_kdelta;	/* the kernel text of the boot the dump is of, or its move since */
void pd_kernel_maps(void);
void pd_comm(u32 pid, u32 tid, const char *comm);
void pd_rec(u32 type, u16 misc, const void *body, size_t len,
	    const char *shape, const char *name);

#endif
