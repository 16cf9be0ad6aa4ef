/* f_track.c - the process table: fold() (slot_get, slot_add,
 * slot_copy, fork_comm), track_read() and track_copy() over arbitrary
 * tracking records.
 *
 * Input: a flags byte (bit 0: through two fake tracking rings and
 * track_read(), else straight into fold(); bits 1-3: procs= - 1, so
 * 1 to 8 slots), a u16 tail per ring, then records: a selector byte
 * (bits 0-2 the type: 0-1 COMM, 2-3 EXIT or with bit 3 FORK, 4 MMAP2,
 * else any; bit 3 a long comm; bits 5-7 the size), misc, four u8
 * pid/tid fields, the type's fields, then the trailer's time (u16), CPU
 * and IDENTIFIER.
 * The records have the kernel's shapes (COMM, EXIT, FORK, MMAP2, and
 * any other type) with the sample_id_all trailer TID TIME CPU
 * IDENTIFIER, and the sizes the kernel gives them; their contents are
 * what the input says. pids are one byte, so they meet.
 *
 * map_build_id() would open the file an MMAP2 names: open() fails here,
 * as does every readfile() but the comm of an even pid in /proc, which
 * is "fzcomm". */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include "fz.h"

static long fz_readfile(const char *path, char *buf, long max)
{
	unsigned long pid;

	if (strncmp(path, "/proc/", 6) || !strstr(path, "/comm"))
		return -1;
	pid = strtoul(path + 6, 0, 10);
	if (pid & 1 || max < 7)
		return -1;
	memcpy(buf, "fzcomm\n", 7);
	return 7;
}

static int fz_open(const char *path, int fl, ...)
{
	errno = ENOENT;
	return -1;
}

#define readfile fz_readfile
#define open fz_open
#include "track.c"
#undef readfile
#undef open

#define NTR 2
static unsigned char *ringmem[NTR];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int i;

	cfg_procs = 8;
	track_init(NTR, (u64[16]){ 0 });	/* no CPU: the rings are ours */
	for (i = 0; i < NTR; i++) {
		ringmem[i] = xmalloc(4096 + trsize);
		tr[i] = (struct ring){ .base = ringmem[i], .data = ringmem[i] + 4096,
				       .size = trsize, .fd = -1, .cpu = i };
	}
	return 0;
}

/* One record of the kernel's shape into b (room for 4096); its size. */
static size_t mkrec(struct fz_in *in, unsigned char *b)
{
	uint8_t sel = fz_u8(in);
	struct rec_hdr h = { 0, fz_uN(in, 2), 0 };
	size_t body, i;
	u32 f[4];

	for (i = 0; i < 4; i++)
		f[i] = fz_u8(in);	/* pid, ppid/tid, tid, ptid */
	switch (sel & 7) {
	case 0: case 1:		/* COMM: pid tid comm[8 or 16] */
		h.type = REC_COMM;
		body = 8 + (sel & 8 ? 16 : 8);
		memcpy(b + 8, f, 8);
		fz_bytes(in, b + 16, body - 8);
		b[8 + body - 1] = 0;	/* the kernel's comm ends in a NUL */
		break;
	case 2: case 3:		/* FORK or EXIT: pid ppid tid ptid time */
		h.type = sel & 8 ? REC_FORK : REC_EXIT;
		body = 24;
		memcpy(b + 8, f, 16);
		memcpy(b + 24, &(u64){ fz_uN(in, 2) }, 8);
		break;
	case 4: {		/* MMAP2: pid tid start len pgoff maj min ino gen prot flags name */
		size_t nl = 8 * (1 + (sel >> 5));

		h.type = REC_MMAP2;
		body = 64 + nl;
		memcpy(b + 8, f, 8);
		fz_bytes(in, b + 16, 56);
		fz_bytes(in, b + 72, nl);
		b[72 + nl - 1] = 0;
		break;
	}
	default:		/* anything else: LOST, THROTTLE, a sample ... */
		h.type = fz_u8(in);
		body = 8 * (sel >> 5);
		fz_bytes(in, b + 8, body);
		break;
	}
	/* the trailer: TID (pid, tid) TIME CPU IDENTIFIER */
	memcpy(b + 8 + body, f, 4);
	memcpy(b + 8 + body + 4, f + (h.type == REC_FORK || h.type == REC_EXIT ? 2 : 1), 4);
	memcpy(b + 8 + body + 8, &(u64){ fz_uN(in, 2) }, 8);
	fz_bytes(in, b + 8 + body + 16, 16);
	h.size = 8 + body + 32;
	memcpy(b, &h, 8);
	return h.size;
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	struct fz_in in = { d, n };
	uint8_t fl = fz_u8(&in);
	unsigned long fill[NTR] = { 0 }, tail[NTR];
	unsigned char *dst, rec[4096];
	size_t k, off, got;
	struct slot *s;
	int i;

	fz_persist = 0;
	cfg_procs = 1 + (fl >> 1 & 7);
	for (i = 0; i < 8; i++)
		slots[i].used = slots[i].pid = 0, slots[i].exit = 0;
	nslots = 0;
	evicted = dropped = 0;
	/* the names list as track_init sizes it for this table (its
	 * entries stay within the 8 slots' room it has) */
	nm_max = cfg_procs * NAMES;
	nm_n = nm_head = 0;
	for (i = 0; i < NTR; i++) {
		tail[i] = (fz_uN(&in, 2) & ~7UL) * 8191;	/* anywhere, and wrapping */
		tr[i].prev = tail[i];
	}
	while (in.n) {
		size_t len = mkrec(&in, rec);

		if (!(fl & 1)) {
			fold((void *)rec);
			continue;
		}
		i = rec[2] & (NTR - 1);	/* misc's low bit: which CPU */
		if (fill[i] + len > trsize)
			continue;
		for (k = 0; k < len; k++)
			tr[i].data[(tail[i] + fill[i] + k) & (trsize - 1)] = rec[k];
		fill[i] += len;
	}
	if (fl & 1) {
		for (i = 0; i < NTR; i++)
			memcpy(tr[i].base + PG_DATA_HEAD, &(u64){ tail[i] + fill[i] }, 8);
		track_read();
		for (i = 0; i < NTR; i++)
			FZ_CHECK(tr[i].prev == tail[i] + fill[i], "ring %d not read to its head", i);
	}

	/* Each slot: whole records, each at least header and trailer. */
	for (s = slots; s < slots + cfg_procs; s++) {
		FZ_CHECK(s->used <= SLOT, "slot of pid %u holds %u", s->pid, s->used);
		for (off = 0; s < slots + nslots && off < s->used; off += ((struct rec_hdr *)(s->b + off))->size) {
			struct rec_hdr *h = (void *)(s->b + off);

			FZ_CHECK(h->size >= 40 && !(h->size & 7) && off + h->size <= s->used,
				 "slot of pid %u: record of %u at %zu of %u", s->pid, h->size, off, s->used);
		}
	}
	/* A dump from lo (bits 4-7 of the flags, of the u16 times) leaves
	 * out at most what one from 0 has, and leaves the table as it was:
	 * two dumps from 0 after it are the same. */
	dst = xmalloc(track_max());
	{
		unsigned char *all = xmalloc(track_max());
		size_t part;

		need_reset();
		for (i = 0; i < 256; i += 2)	/* the maps of even pids, the names of odd tids */
			need(NEED_MAPS, i), need(NEED_NAME, i + 1);
		track_begin(0);
		part = track_copy(dst, (u64)(fl >> 4) << 12);
		track_begin(0);
		got = track_copy(all, 0);
		FZ_CHECK(part <= got, "track_copy from a time gave %zu, from 0 %zu", part, got);
		track_begin(0);
		FZ_CHECK(track_copy(dst, 0) == got && !memcmp(dst, all, got), "track_copy from a time changed the table");
	}
	FZ_CHECK(got <= track_max(), "track_copy gave %zu of %zu", got, track_max());
	for (off = 0; off < got; off += ((struct rec_hdr *)(dst + off))->size) {
		struct rec_hdr *h = (void *)(dst + off);
		u64 id;

		FZ_CHECK(h->size >= 40 && off + h->size <= got, "copy: record of %u at %zu", h->size, off);
		memcpy(&id, dst + off + h->size - 8, 8);
		FZ_CHECK(!id, "copy: the trailer's id is not cleared");
	}
	{
		unsigned long u, e, dr, un;

		track_stats(&u, &e, &dr, &un);
		FZ_CHECK(u <= (unsigned long)cfg_procs, "%lu slots used of %ld", u, cfg_procs);
	}
	fz_free_all();
	return 0;
}
