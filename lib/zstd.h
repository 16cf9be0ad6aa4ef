/* zstd.h - a small zstd encoder (zstd.c): one frame per call; and a
 * decoder of what it writes, for tracer -p. */
#ifndef ZSTD_H
#define ZSTD_H

#include "lib.h"

#define ZSTD_MAX 65024			/* input per frame */
#define ZSTD_ROOM(n) (3 * (n) + 64)	/* room a frame may need */

void zstd_init(void);
size_t zstd_frame(const u8 *src, size_t n, u8 *dst);
/* The frames in src[0, n) into dst (cap bytes): the size, -1 when
 * damaged, -2 when coded in a way only full zstd reads. */
long zstd_decode(const u8 *src, size_t n, u8 *dst, size_t cap);

#endif
