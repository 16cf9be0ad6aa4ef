/* f_dump.c - a dump's merge and the lean expansion: merge_out(), with
 * lean_expand(), lean_time(), lean_ev(), rec_time(), id_fix() and
 * side_sort(), over arbitrary copied records.
 *
 * What ring_walk() hands a dump has plausible sizes (at least a header,
 * 8-byte multiples, within the copy) but may hold anything: a writer
 * that was still busy when the ring paused leaves a torn record. So
 * each ring's run is the input's bytes walked as ring_walk() walks
 * them, each run in a block of its own (ASan sees a read past it). The
 * side-band run (the process table and tripwire hits, records tracer
 * made or the kernel wrote whole) gets records of the kernel's shapes
 * with times from the input. Output goes to /dev/null, or through
 * frame=text.
 *
 * Input: flags (bit 0 stack, bit 1 tracepoints only, bit 2 lean, bit 3
 * a CPU came back (other kernel ids, regen), bit 4 frame=text, bits 5-6
 * rings - 1), then for each ring a u16 length and that many bytes, then
 * side-band records: a selector byte, a u16 time, a u8 pid and a size
 * in u64s. */
#include <fcntl.h>
#include <unistd.h>
#include "fz.h"
#include "sink.h"

/* out_room(n) then out_commit(m): m must not be more than n. */
static size_t fz_room;

static void *fz_out_room(size_t n)
{
	fz_room = n;
	return out_room(n);
}

static void fz_out_commit(size_t n)
{
	FZ_CHECK(n <= fz_room, "out_commit(%zu) after out_room(%zu)", n, fz_room);
	fz_room = 0;
	out_commit(n);
}

#define out_room fz_out_room
#define out_commit fz_out_commit
#include "lean.c"
#include "dump.c"
#undef out_room
#undef out_commit

#define NMAX 4
#define IDLO 1000		/* every id is in [IDLO, IDLO + 64) */
static int devnull;

/* The events: a tracepoint, cpu-clock, a tripwire, task-clock; or
 * tracepoints only (each once) and a tripwire. */
static void events(int tponly, int stack, int moved)
{
	static const struct { int type; u64 config; } mix[2][4] = {
		{ { TYPE_TRACEPOINT, 316 }, { TYPE_SOFTWARE, 0 }, { TYPE_TRACEPOINT, 181 }, { TYPE_SOFTWARE, 1 } },
		{ { TYPE_TRACEPOINT, 316 }, { TYPE_TRACEPOINT, 318 }, { TYPE_TRACEPOINT, 181 }, { TYPE_TRACEPOINT, 20 } },
	};
	int i, j;

	nev = NMAX;
	for (i = 0; i < nev; i++) {
		struct event *e = evs + i;

		e->attr.type = mix[tponly][i].type;
		e->attr.config = mix[tponly][i].config;
		e->attr.sample_type = S_IDENTIFIER | S_IP | S_TID | S_TIME | S_CPU | S_PERIOD |
				      (e->attr.type == TYPE_TRACEPOINT ? S_RAW : 0) | (stack ? S_CALLCHAIN : 0);
		e->trip = i == 2;
		for (j = 0; j < NMAX; j++) {
			e->ids[j] = IDLO + 4 * i + j;
			/* the kernel's ids now and before: a CPU back online has new ones */
			e->kid[2 * j] = moved && j ? IDLO + 32 + 4 * i + j : e->ids[j];
			e->kid[2 * j + 1] = e->ids[j];
		}
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int i;

	devnull = open("/dev/null", O_WRONLY);
	nmax = nring = nhdr = NMAX;
	evs = xmalloc(NMAX * sizeof(*evs));
	for (i = 0; i < NMAX; i++) {
		evs[i].name = "fz";
		evs[i].ids = xmalloc(NMAX * sizeof(u64));
		evs[i].kid = xmalloc(2 * NMAX * sizeof(u64));
		evs[i].fds = xmalloc(NMAX * sizeof(int));
	}
	rings = xmalloc(NMAX * sizeof(*rings));
	for (i = 0; i < NMAX; i++)
		rings[i].cpu = 3 * i + (i > 1);
	/* cfg.c's id index and table are made at the first call, for the
	 * most events and rings and the widest range of ids there will be */
	events(0, 0, 1);
	ev_ids_init();
	return 0;
}

/* A side-band record of the kernel's shape (full layout) at b: a
 * tripwire's sample (IDENTIFIER IP TID TIME CPU PERIOD RAW) or a
 * table's record (body, then TID TIME CPU IDENTIFIER). */
static size_t side_rec(struct fz_in *in, unsigned char *b)
{
	uint8_t sel = fz_u8(in);
	u64 t = fz_uN(in, 2), pid = fz_u8(in);
	size_t words = fz_u8(in) % 16;
	struct rec_hdr h = { 0, 0, 0 };
	u64 *w = (u64 *)b;

	memset(b, 0, 8 * (8 + words));
	if (sel & 1) {
		h.type = REC_SAMPLE;
		h.size = 8 * (7 + words);
		w[1] = IDLO + 8 + (sel >> 1) % 4;	/* the tripwire's, any ring */
		w[3] = pid | pid << 32;
		w[4] = t;
		w[6] = 1;
		fz_bytes(in, w + 7, 8 * words);
	} else {
		static const u32 type[] = { REC_COMM, REC_MMAP2, REC_EXIT, REC_FORK, REC_LOST, REC_MMAP };

		h.type = type[(sel >> 1) % 6];
		h.size = 8 * (5 + words);
		fz_bytes(in, w + 1, 8 * words);
		w[1 + words] = pid | pid << 32;
		w[2 + words] = t;
		w[4 + words] = sel & 64 ? IDLO + (sel >> 1) % 32 : 0;
	}
	memcpy(b, &h, 8);
	return h.size;
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	struct fz_in in = { d, n };
	uint8_t fl = fz_u8(&in);
	struct run rn[NMAX + 1];
	size_t nrec, want = 0, side = 0, nside, i;
	int ri;

	fz_persist = 0;
	cfg_stack = fl & 1;
	cfg_lean = !!(fl & 4);
	regen = !!(fl & 8);
	nring = 1 + (fl >> 5 & 3);
	events(!!(fl & 2), cfg_stack, regen);
	lean_noid = 0, tptab = 0, tplo = tpn = 0, noid_first = 0;
	if (cfg_lean)
		noid_init();
	ev_ids_init();

	/* Each ring's copy: the bytes as ring_walk() takes them, after a
	 * LOST record of time 0 that is whole in every layout (so the run's
	 * head is a sound record, whatever dump() does with the first one). */
	for (ri = 0; ri < nring; ri++) {
		size_t len = 56 + fz_uN(&in, 2) % 16384, off = 56;
		unsigned char *b = xmalloc(len);
		u64 lost[7] = { REC_LOST | (u64)56 << 48, IDLO + ri, 1, 0, 0, 0, IDLO + ri };

		memcpy(b, lost, 56);
		fz_bytes(&in, b + 56, len - 56);
		want++;
		while (off + 8 <= len) {
			u16 sz;

			memcpy(&sz, b + off + 6, 2);
			if (sz < 8 || (sz & 7) || off + sz > len)
				break;
			off += sz;
			want++;
		}
		/* exactly the records, in a block of their own */
		rn[ri + 1].p = memcpy(xmalloc(off), b, off);
		rn[ri + 1].end = rn[ri + 1].p + off;
		rn[ri + 1].ring = ri;
		rn[ri + 1].ft = 0;	/* perf rings: the ftrace engine's runs are f_ftrace's */
	}
	/* The side-band: records into cp, indexed and sorted by side_sort(). */
	cp = xmalloc(16384);
	while (in.n && side + 8 * 24 <= 16384)
		side += side_rec(&in, cp + side);
	ixmax = side / 40 + 1;
	ix = xmalloc(ixmax * sizeof(*ix));
	rn[0].p = (const void *)ix;
	rn[0].end = (const void *)(ix + side_sort(0, side));
	rn[0].ring = -1;
	rn[0].ft = 0;
	nside = (rn[0].end - rn[0].p) / sizeof(*ix);
	want += nside;

	FZ_ARM();
	if (!setjmp(fz_jmp)) {
		for (i = 0; i <= (size_t)nring; i++)
			if (rn[i].p < rn[i].end)
				rn[i].t = rec_time(run_rec(rn + i), cfg_lean && rn[i].ring >= 0);
		out_begin(devnull, 0, 1, !!(fl & 16), 0);
		nrec = merge_out(rn, nring + 1);
		FZ_CHECK(!out_end(), "writing to /dev/null failed");
		/* every record, or all but some torn ones of the rings */
		FZ_CHECK(nrec <= want && nrec >= nside + nring, "merge_out wrote %zu records of %zu",
			 nrec, want);
	}
	FZ_DISARM();
	fz_free_all();
	return 0;
}
