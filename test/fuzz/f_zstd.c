/* f_zstd.c - the zstd encoder: any input up to ZSTD_MAX bytes becomes
 * one frame, a multiple of 8 bytes, within ZSTD_ROOM, that libzstd (the
 * library perf decompresses with) turns back into exactly the input, in
 * one ZSTD_decompressStream call as perf makes it.
 *
 * Input: the bytes to compress. Short inputs are also repeated up to a
 * length taken from their first bytes, so that long matches and repeat
 * offsets are reached. */
#include "fz.h"
#include "zstd.c"

/* libzstd's stable API (zstd.h, whose name ours shadows on -I) */
typedef struct ZSTD_DCtx_s ZSTD_DStream;
typedef struct { const void *src; size_t size, pos; } ZSTD_inBuffer;
typedef struct { void *dst; size_t size, pos; } ZSTD_outBuffer;
ZSTD_DStream *ZSTD_createDStream(void);
size_t ZSTD_initDStream(ZSTD_DStream *);
size_t ZSTD_freeDStream(ZSTD_DStream *);
size_t ZSTD_decompressStream(ZSTD_DStream *, ZSTD_outBuffer *, ZSTD_inBuffer *);
unsigned ZSTD_isError(size_t);
const char *ZSTD_getErrorName(size_t);
unsigned long long ZSTD_getFrameContentSize(const void *, size_t);

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	static u8 src[ZSTD_MAX], dst[ZSTD_ROOM(ZSTD_MAX) + 64], back[ZSTD_MAX + 1];
	static int init;
	size_t len = n < ZSTD_MAX ? n : ZSTD_MAX, i, z;
	ZSTD_DStream *ds;
	ZSTD_inBuffer in;
	ZSTD_outBuffer out = { back, sizeof(back), 0 };

	if (!init++)
		zstd_init();
	memcpy(src, d, len);
	if (n >= 3 && n < 512) {	/* repeated up to 3 bytes' worth of length */
		size_t want = (d[0] | d[1] << 8 | d[2] << 16) % ZSTD_MAX + 1;

		for (i = n; i < want; i++)
			src[i] = src[i % n];
		len = want > n ? want : n;
	}
	memset(dst + ZSTD_ROOM(len), 0xa5, 64);
	z = zstd_frame(src, len, dst);
	FZ_CHECK(z <= ZSTD_ROOM(len), "frame of %zu bytes for %zu, room %zu", z, len, (size_t)ZSTD_ROOM(len));
	for (i = 0; i < 64; i++)
		FZ_CHECK(dst[ZSTD_ROOM(len) + i] == 0xa5, "wrote past ZSTD_ROOM(%zu)", len);
	FZ_CHECK(z % 8 == 0, "frame of %zu bytes is not 8-byte aligned", z);
	FZ_CHECK(ZSTD_getFrameContentSize(dst, z) == len, "content size %llu, not %zu",
		 (unsigned long long)ZSTD_getFrameContentSize(dst, z), len);
	ds = ZSTD_createDStream();
	ZSTD_initDStream(ds);
	in = (ZSTD_inBuffer){ dst, z, 0 };
	z = ZSTD_decompressStream(ds, &out, &in);
	FZ_CHECK(!ZSTD_isError(z), "libzstd: %s", ZSTD_getErrorName(z));
	FZ_CHECK(z == 0 && in.pos == in.size, "one call did not take the whole frame (%zu of %zu)", in.pos, in.size);
	FZ_CHECK(out.pos == len && !memcmp(back, src, len), "decompressed %zu bytes, not the %zu put in", out.pos, len);
	ZSTD_freeDStream(ds);
	return 0;
}
