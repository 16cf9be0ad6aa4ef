/* fz.h - what every harness shares: die() back into the harness, and an
 * allocator whose blocks go at the end of each input.
 *
 * The harnesses are built by fuzz/run.sh with glibc clang and libFuzzer
 * (ASan + UBSan), over a copy of the sources with every CFG_ symbol on.
 * lib.c is compiled with xmalloc, xrealloc, xstrdup and xstrndup renamed
 * (-Dxmalloc=lib_xmalloc ...), so these below are the ones every layer
 * calls. lib's is a bump allocator that never gives back: in a loop of
 * millions of inputs it would only grow. Here each block is its own
 * malloc, so ASan sees an overrun of any one, and all blocks taken while
 * an input runs are freed when it ends. What is taken at set-up
 * (fz_persist) stays. */
#ifndef FZ_H
#define FZ_H

#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib.h"

static jmp_buf fz_jmp;
static int fz_armed;		/* die() goes back to FZ_TRY, else aborts */
static int fz_persist = 1;	/* blocks taken now live forever */
static void **fz_blk;
static size_t fz_nblk, fz_capblk;
static unsigned long fz_dies;

static void fz_die(void)
{
	if (!fz_armed) {
		fprintf(stderr, "fz: die() outside an input\n");
		abort();
	}
	fz_dies++;
	fz_armed = 0;
	longjmp(fz_jmp, 1);
}

/* Around the code under test:
 *	FZ_ARM();
 *	if (!setjmp(fz_jmp))
 *		call();		(die(): bad input, which tracer reports and
 *	FZ_DISARM();		 exits on, comes back as setjmp's 1)
 */
#define FZ_ARM() (die_hook = fz_die, fz_armed = 1)
#define FZ_DISARM() (fz_armed = 0)

void *xmalloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);

	if (!p)
		abort();
	if (!fz_persist) {
		if (fz_nblk == fz_capblk) {
			fz_capblk = fz_capblk ? 2 * fz_capblk : 1024;
			fz_blk = realloc(fz_blk, fz_capblk * sizeof(*fz_blk));
			if (!fz_blk)
				abort();
		}
		fz_blk[fz_nblk++] = p;
	}
	return p;
}

void *xrealloc(void *p, size_t old, size_t n)
{
	void *q = xmalloc(n);

	return p ? memcpy(q, p, old < n ? old : n) : q;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	return memcpy(p, s, n);
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

/* The end of an input: every block it took goes. */
static void fz_free_all(void)
{
	while (fz_nblk)
		free(fz_blk[--fz_nblk]);
}

/* Reading the input: bytes, or zeros past its end. */
struct fz_in {
	const uint8_t *p;
	size_t n;
};

static uint8_t fz_u8(struct fz_in *in)
{
	uint8_t v = 0;

	if (in->n)
		v = *in->p++, in->n--;
	return v;
}

static uint64_t fz_uN(struct fz_in *in, int bytes)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < bytes; i++)
		v |= (uint64_t)fz_u8(in) << 8 * i;
	return v;
}

/* Up to n bytes into dst, zeros for what the input lacks. */
static void fz_bytes(struct fz_in *in, void *dst, size_t n)
{
	size_t k = in->n < n ? in->n : n;

	memcpy(dst, in->p, k);
	memset((char *)dst + k, 0, n - k);
	in->p += k, in->n -= k;
}

#define FZ_CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "fz: check failed: %s: ", #c); \
	fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); abort(); } } while (0)

#endif
