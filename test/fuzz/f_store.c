/* f_store.c - what push= reads from others: the store's answer
 * (s3_whole() as reads bring it, then answer(): the status, the Date,
 * the <Code>, what is done) and a spool file's trailer (trailer_read()
 * on a memfd, as spool=DIR's walk reads a file others may have
 * planted).
 *
 * Input: its first byte says which. Odd: the rest is a spool file; a
 * trailer taken must name a key within the prefix and only
 * x-amz-meta-* headers. Even: bit 1 says a clock correction came just
 * before; the second byte + 1 is the size of each read; the rest is the
 * answer. s3_esc() of it must be printable ASCII. */
#define _GNU_SOURCE
#include <sys/mman.h>
#include "fz.h"
#include "push.c"

static int mfd;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	mfd = memfd_create("fz-spool", 0);
	if (mfd < 0)
		abort();
	q = xmalloc(4 * sizeof(*q));	/* kept: taken once */
	pc_prefix = "pre";
	pc_bucket = "bk";
	fmt(pc_host, sizeof(pc_host), "127.0.0.1:9");
	return 0;
}

static void fz_trailer(const uint8_t *d, size_t n)
{
	struct item it;
	const char *p;

	if (ftruncate(mfd, 0) || (n && pwrite(mfd, d, n, 0) != (ssize_t)n))
		abort();
	it.fd = mfd;
	if (trailer_read(&it))
		return;
	FZ_CHECK(!strncmp(it.t, "pre/", 4), "a key outside the prefix: %.60s", it.t);
	for (p = it.t + span(it.t, "\n", 0) + 66; *p; p += span(p, "\n", 0) + 1)
		FZ_CHECK(!strncmp(p, "x-amz-meta-", 11), "a header not ours: %.60s", p);
}

static void fz_answer(const uint8_t *d, size_t n, int skw)
{
	size_t piece = n ? d[0] + 1 : 1, o = 1, k;
	char e[200];
	int whole = 0;

	memset(q, 0, sizeof(*q));
	q->fd = -1;
	strcpy(q->t, "pre/b/k.data\n");
	q->size = 1;
	nq = 1, qbytes = 1, paused = 0, skewed = skw, backoff = 0;
	up.fd = -1, up.st = RECV, up.an = 0, up.t0 = now_us();
	while (o < n && !whole) {
		k = n - o < piece ? n - o : piece;
		if (k > sizeof(up.h) - 1 - up.an)
			k = sizeof(up.h) - 1 - up.an;
		memcpy(up.h + up.an, d + o, k);
		up.an += k, o += k;
		whole = s3_whole(up.h, &up.an, sizeof(up.h));
		FZ_CHECK(up.an < sizeof(up.h), "%zu bytes in the buffer", up.an);
	}
	answer();
	FZ_CHECK(nq == 0 || nq == 1, "%d in the spool", nq);
	s3_esc(e, sizeof(e), (const char *)d, (const char *)d + (n < 100 ? n : 100));
	for (k = 0; e[k]; k++)
		FZ_CHECK(e[k] > ' ' && e[k] <= '~', "s3_esc gave byte %d", e[k]);
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	fz_persist = 0;
	if (n && d[0] & 1)
		fz_trailer(d + 1, n - 1);
	else if (n)
		fz_answer(d + 1, n - 1, d[0] >> 1 & 1);
	fz_free_all();
	return 0;
}
