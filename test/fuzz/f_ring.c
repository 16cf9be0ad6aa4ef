/* f_ring.c - ring_walk() and ring_read() over arbitrary ring images.
 *
 * Input: a mode byte, then
 * - walk (backward ring): size shift, head, avail, flags, the ring's
 *   bytes. head is 8-aligned (the kernel reserves in records of 8-byte
 *   multiples from 0), anything else is as it comes: a backward ring
 *   holds whole records at head and garbage (a record the newest ones
 *   overwrote part of, or a torn one) further on. An independent walk
 *   here says what must come out; the copy must be exactly that.
 * - read (forward ring, tripwires and tracking): size shift, tail, the
 *   ring's garbage, then records laid out from tail as the kernel writes
 *   them (8-byte multiples, at least a header, head - tail <= size), then
 *   optionally head cut short. Each record handed out must be the one
 *   laid out, whole; data_tail must be stored where reading stopped. */
#include "fz.h"
#include "ring.c"

static unsigned char *fz_ring_bytes(struct fz_in *in, size_t n)
{
	unsigned char *p = xmalloc(n);

	fz_bytes(in, p, n);
	return p;
}

static void t_walk(struct fz_in *in)
{
	unsigned long size = 4096UL << (fz_u8(in) & 3), mask = size - 1;
	unsigned long head = fz_uN(in, 8) & ~7UL, avail = fz_uN(in, 8), lim, off = 0;
	uint8_t fl = fz_u8(in);
	unsigned char *data, *out, *start;

	if (fl & 1)		/* mostly less than the ring: a stream's later dump */
		avail %= size + 16;
	if (fl & 2)		/* head near the top of the address space: wraps */
		head = -head & ~7UL;
	data = fz_ring_bytes(in, size);
	out = xmalloc(size);
	memcpy(out, data, size);	/* a dump's copy, walked in place */
	start = ring_walk(out, size, head, avail);

	/* What must come out: the records from head on, newest first, each
	 * whole, 8-aligned, at least a header, within avail and the ring. */
	lim = avail < size ? avail : size;
	while (off + 8 <= lim) {
		unsigned long at = (head + off) & mask, len, k;
		struct rec_hdr h;

		memcpy(&h, data + at, 8);
		len = h.size;
		if (len < 8 || (len & 7) || off + len > lim)
			break;
		off += len;
		for (k = 0; k < len; k++)
			FZ_CHECK(out[size - off + k] == data[(at + k) & mask],
				 "byte %lu of the record at ring offset %lu", k, at);
	}
	FZ_CHECK(start == out + size - off, "walk gave %ld bytes, %lu expected",
		 (long)(out + size - start), off);
	/* and so every record in the copy is whole */
	for (off = start - out; off < size; ) {
		struct rec_hdr h;

		memcpy(&h, out + off, 8);
		FZ_CHECK(h.size >= 8 && !(h.size & 7) && off + h.size <= size, "record of %u at %lu",
			 h.size, off);
		off += h.size;
	}
}

struct rctx {
	const unsigned char *want;	/* the records as laid out, one after another */
	unsigned long nwant, at, n;	/* bytes of them; handed out so far */
	const unsigned char *data;
	unsigned long size;
};

static void r_rec(const struct rec_hdr *h, void *v)
{
	struct rctx *c = v;
	const unsigned char *p = (const void *)h;

	FZ_CHECK(h->size >= 8, "record of %u bytes", h->size);
	FZ_CHECK(c->at + h->size <= c->nwant, "record past what was written (%lu + %u > %lu)",
		 c->at, h->size, c->nwant);
	if (p >= c->data && p < c->data + c->size)
		FZ_CHECK(p + h->size <= c->data + c->size, "record handed out in place but wraps");
	FZ_CHECK(!memcmp(p, c->want + c->at, h->size), "record %lu differs from the one written", c->n);
	c->at += h->size;
	c->n++;
}

static void t_read(struct fz_in *in)
{
	unsigned long size = 4096UL << (fz_u8(in) & 3), mask = size - 1;
	unsigned long tail = fz_uN(in, 8) & ~7UL, total = 0, whole, head, k;
	uint8_t fl = fz_u8(in);
	unsigned char *base = xmalloc(4096 + size), *data = base + 4096, *want = xmalloc(size);
	struct ring r = { .base = base, .data = data, .size = size, .fd = -1 };
	struct rctx c = { want, 0, 0, 0, data, size };
	int nrec = fz_u8(in) % 64;
	unsigned long old = fz_u8(in) * 64UL;
	u64 stored;

	if (fl & 1)
		tail = -tail & ~7UL;
	r.prev = tail;
	fz_bytes(in, data, old < size ? old : size);	/* what the ring held before */
	while (nrec-- > 0) {
		struct rec_hdr h;
		unsigned long len;

		h.type = fz_uN(in, 4);
		h.misc = fz_uN(in, 2);
		len = fz_uN(in, 2) & ~7UL;
		if (len < 8)
			len = 8;
		if (total + len > size)
			break;
		h.size = len;
		memcpy(want + total, &h, 8);
		fz_bytes(in, want + total + 8, len - 8);
		for (k = 0; k < len; k++)
			data[(tail + total + k) & mask] = want[total + k];
		total += len;
	}
	whole = total;
	if (fl & 2) {		/* head short of the last record: never from the kernel, but safe */
		unsigned long cut = fz_uN(in, 2) & ~7UL;

		total = cut < total ? cut : total;
	}
	head = tail + total;
	memcpy(base + PG_DATA_HEAD, &(u64){ head }, 8);
	c.nwant = total;
	ring_read(&r, r_rec, &c);
	/* Each record that lies whole in [tail, head) was handed out. */
	for (k = 0; k < whole; ) {
		unsigned len = ((struct rec_hdr *)(want + k))->size;

		if (k + len > total)
			break;
		k += len;
	}
	FZ_CHECK(c.at == k, "%lu bytes handed out, %lu expected", c.at, k);
	FZ_CHECK(r.prev == tail + k, "prev %lu, tail + %lu expected", r.prev - tail, k);
	memcpy(&stored, base + PG_DATA_TAIL, 8);
	FZ_CHECK(stored == (u64)(tail + k), "data_tail not stored");
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	struct fz_in in = { d, n };

	fz_persist = 0;
	if (fz_u8(&in) & 1)
		t_read(&in);
	else
		t_walk(&in);
	fz_free_all();
	return 0;
}
