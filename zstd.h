/* zstd.h - a small zstd encoder (zstd.c): one frame per call. */
#ifndef ZSTD_H
#define ZSTD_H

#include "lib.h"

#define ZSTD_MAX 65024			/* input per frame */
#define ZSTD_ROOM(n) (3 * (n) + 64)	/* room a frame may need */

void zstd_init(void);
size_t zstd_frame(const u8 *src, size_t n, u8 *dst);

#endif
