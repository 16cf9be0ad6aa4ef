/* ringtest.c - unit test of ring_walk() on crafted backward ring images
 * (each copied into a buffer, walked in place as a dump walks its copy).
 *
 * A tiny simulator writes records as the kernel does with write_backward
 * and logs what it wrote. Each check derives the expected dump from that
 * log, never from the ring image, and compares bytes, so a walker that
 * reads the wrong place, order or length fails.
 *
 * ring_snap() against a writer on another thread, as the kernel writes
 * on another CPU while a dump copies: what the copy holds whole is the
 * newest records, each as written and none missing between them, on
 * two CPUs and on one (the copy preempted). A copy that takes the whole
 * ring as whole shows that the check sees what the writer spoils.
 *
 * ring_push (OLDKERNEL): records of a simulated forward ring, drained
 * in batches into a ring of our own, walk out as a backward ring's.
 *
 * Build: musl-gcc -static -O1 -I. -o test/ringtest test/ringtest.c ring.c
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include "ring.h"

#define SIZE 4096UL
#define MASK (SIZE - 1)

static u8 buf[SIZE] __attribute__((aligned(8)));	/* as mmap'd */
static int passed, failed;
static const char *cur;	/* the check running, for the timeout */
static int bits32;	/* publish head modulo 2^32, as a 32-bit kernel does */

/* What the simulator wrote, oldest first. */
static struct wrote {
	unsigned long head;
	u32 type;
	u16 len;
	u8 fill;
} wlog[1024];
static int nlog;

static void report(const char *name, const char *why)
{
	if (*why) {
		failed++;
		printf("FAIL: ring: %s: %s\n", name, why);
	} else {
		passed++;
		printf("PASS: ring: %s\n", name);
	}
}

/* A walker that loops on a zero size would hang the test: fail instead,
 * still ending with the count line. snprintf takes no locks or heap. */
static void timeout(int sig)
{
	char s[200];
	int n = snprintf(s, sizeof(s), "FAIL: ring: %s: walker did not return\n"
			 "%d passed, %d failed\n", cur, passed, failed + 1);

	(void)sig;
	if (write(1, s, n) != n)
		_exit(2);
	_exit(1);
}

/* The record as written: header, then bytes that depend on both the
 * record and the position in it, so swapped or shifted halves show. */
static void put_rec(u8 *p, const struct wrote *w)
{
	struct rec_hdr h = { w->type, (u16)(w - wlog), w->len };
	unsigned i;

	memcpy(p, &h, sizeof(h));
	for (i = sizeof(h); i < w->len; i++)
		p[i] = w->fill + i * 3;
}

/* The kernel's write: reserve by moving head down, then write the record
 * at head modulo size; only the body can run past the end. */
static void sim_write(u8 *ring, unsigned long size, unsigned long *head,
		      u32 type, u16 len, u8 fill)
{
	static u8 rec[65536];
	struct wrote *w;
	unsigned long at, i;

	if (nlog == sizeof(wlog) / sizeof(*wlog)) {
		printf("FAIL: ring: setup: write log full\n0 passed, 1 failed\n");
		exit(1);
	}
	*head -= len;
	if (bits32)
		*head = (uint32_t)*head;
	w = wlog + nlog++;
	*w = (struct wrote){ *head, type, len, fill };
	put_rec(rec, w);
	at = *head & (size - 1);
	for (i = 0; i < len; i++)
		ring[(at + i) & (size - 1)] = rec[i];
}

/* Fixed-seed lengths 8..max, multiples of 8: varied, yet reproducible. */
static unsigned seed = 1;

static void sim_many(unsigned long *head, unsigned long bytes, unsigned max)
{
	unsigned long done = 0;
	u16 len;

	while (done < bytes) {
		seed = seed * 1103515245 + 12345;
		len = 8 + (seed >> 16) % (max / 8) * 8;
		sim_write(buf, SIZE, head, 1 + nlog % 11, len, nlog * 29);
		done += len;
	}
}

static void reset(unsigned long *head, unsigned long start)
{
	memset(buf, 0, sizeof(buf));
	nlog = 0;
	*head = start;
}

/* Walk and compare with the newest logged records since log index `from`
 * whose total fits in avail (capped at the ring size). want >= 0 is how
 * many records that must be, to catch a test that tests nothing; want < 0
 * means the ring wrapped, so a dropped oldest record with an intact
 * header (the walker must reject it by its length) and a record whose
 * body wraps past the end must both be involved. */
static void check(const char *name, unsigned long head, unsigned long avail,
		  int from, int want)
{
	static u8 got[3 * SIZE] __attribute__((aligned(8))), exp[SIZE];
	unsigned long cap = avail < SIZE ? avail : SIZE;
	u8 *end = got + 2 * SIZE, *start;
	size_t n, m = 0, i;
	int k, j, wraps = 0;
	char why[200] = "";

	for (k = nlog - 1; k >= from && m + wlog[k].len <= cap; k--) {
		wraps |= (wlog[k].head & MASK) + wlog[k].len > SIZE;
		m += wlog[k].len;
	}
	/* the walker's copy is oldest first: records k+1 .. nlog-1 */
	for (j = k + 1, i = 0; j < nlog; i += wlog[j].len, j++)
		put_rec(exp + i, wlog + j);
	if (want >= 0 && nlog - 1 - k != want)
		snprintf(why, sizeof(why), "setup: log gives %d records, want %d",
			 nlog - 1 - k, want);
	else if (want < 0 && (k < 0 || m + sizeof(struct rec_hdr) > SIZE || !wraps))
		snprintf(why, sizeof(why), "setup: no intact dropped header or no wrapped body");
	if (*why)
		return report(name, why);

	memset(got, 0xee, sizeof(got));
	cur = name;
	fflush(stdout);
	alarm(5);
	memcpy(end - SIZE, buf, SIZE);	/* a dump's copy, walked in place */
	start = ring_walk(end - SIZE, SIZE, head, avail);
	alarm(0);
	n = start <= end ? (size_t)(end - start) : 0;
	for (i = 0; i < m && i < n && start[i] == exp[i]; i++)
		;
	if (start > end || start < got)
		snprintf(why, sizeof(why), "returned a start %td bytes from the end", end - start);
	else if (n != m)
		snprintf(why, sizeof(why), "got %zu bytes, want %zu (%d records), "
			 "first difference at %zu", n, m, nlog - 1 - k, i);
	else if (i < m)
		snprintf(why, sizeof(why), "byte %zu is %#x, want %#x", i, start[i], exp[i]);
	else
		for (i = 0; i < sizeof(got); i++)
			if (got[i] != 0xee && (got + i < end - SIZE || got + i >= end)) {
				snprintf(why, sizeof(why), "wrote outside its ring's copy, at %td",
					 got + i - end);
				break;
			}
	report(name, why);
}

/* Overwrite a logged record's header size in the ring image. */
static void poke_size(const struct wrote *w, u16 size)
{
	memcpy(buf + (w->head & MASK) + offsetof(struct rec_hdr, size),
	       &size, sizeof(size));
}

/* Write through head 0 with older records already in the ring: a 32-bit
 * kernel's head lands just under 2^32, a 64-bit one's near 2^64. The
 * stale records behind prev make a walker that reads past avail fail. */
static void cross_zero(const char *name, const char *wrapname, int b32)
{
	unsigned long head, prev;
	char why[100] = "";
	int mark;

	bits32 = b32;
	reset(&head, 0x400 + 3 * SIZE);
	sim_many(&head, 3 * SIZE, 256);
	prev = head;
	mark = nlog;
	if (prev == 0 || prev > 0x400)
		snprintf(why, sizeof(why), "setup: prev %#lx not just above 0", prev);
	sim_many(&head, 0x600, 64);
	if (!*why && (head < prev || (b32 && head >> 31 >> 1)))
		snprintf(why, sizeof(why), "setup: head %#lx did not cross 0", head);
	if (*why) {
		report(name, why);
	} else {
		/* A 32-bit kernel's difference is only right taken in 32 bits. */
		check(name, head, b32 ? (uint32_t)(prev - head) : prev - head,
		      mark, nlog - mark);
		prev = head;
		mark = nlog;
		sim_many(&head, 2 * SIZE, 512);
		check(wrapname, head, b32 ? (uint32_t)(prev - head) : prev - head,
		      mark, -1);
	}
	bits32 = 0;
}

/* ---- ring_snap beside a writer ---- */
#define SNAP (64UL << 10)
static u8 upage[4096] __attribute__((aligned(4096)));
static u8 sring[SNAP] __attribute__((aligned(4096))), scopy[SNAP] __attribute__((aligned(8)));
static int srun;

/* The user page's data_head, as the kernel's unsigned long. */
static unsigned long *ring_wordp(void)
{
	return (unsigned long *)(upage + PG_DATA_HEAD + (sizeof(long) == 4 && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__) * 4);
}

/* A record of len bytes: header, its number, then bytes of both. */
static void snap_rec(u8 *p, u64 n, u16 len)
{
	struct rec_hdr h = { 9, 0, len };
	unsigned i;

	memcpy(p, &h, 8);
	memcpy(p + 8, &n, 8);
	for (i = 16; i < len; i++)
		p[i] = (u8)(n * 7 + i);
}

/* Record n, as the kernel's writer reserves and writes it below head
 * (the body may run past the ring's end); its new head. */
static unsigned long snap_put(unsigned long head, u64 n)
{
	u16 len = 24 + (n * 40503 >> 7) % 28 * 8;
	unsigned long at, i;
	u8 rec[256];

	snap_rec(rec, n, len);
	head -= len;
	at = head & (SNAP - 1);
	for (i = 0; i < len; i++)
		sring[(at + i) & (SNAP - 1)] = rec[i];
	return head;
}

/* The kernel's writer: reserve below the head, write the record (the
 * body may run past the ring's end), then publish the head (release).
 * An event costs the kernel 100 ns or more; this one some 50. */
static void *snap_writer(void *x)
{
	unsigned long head = 0;
	volatile unsigned spin;
	u64 n;

	for (n = 1; __atomic_load_n(&srun, __ATOMIC_RELAXED); n++) {
		head = snap_put(head, n);
		__atomic_store_n((unsigned long *)(upage + PG_DATA_HEAD + (sizeof(long) == 4 && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__) * 4),
				 head, __ATOMIC_RELEASE);
		for (spin = 0; spin < 60; spin++)
			;
	}
	return x;
}

/* The walked copy's faults: a record not as written (torn), one
 * missing between two (gap); and how many there were. */
static void snap_judge(const u8 *p, const u8 *end, unsigned *torn, unsigned *gap, unsigned long *recs)
{
	u64 n, last = 0;
	u8 want[256];

	for (; p + 16 <= end; p += ((const struct rec_hdr *)p)->size) {
		const struct rec_hdr *h = (const void *)p;

		memcpy(&n, p + 8, 8);
		if (h->size < 24 || h->size > 256 || p + h->size > end) {
			++*torn;
			return;
		}
		snap_rec(want, n, h->size);
		if (memcmp(p, want, h->size))
			++*torn;
		if (last && n != last + 1)
			++*gap;
		last = n, ++*recs;
	}
}

/* rounds of ring_snap (tries 8; whole: the whole ring taken as whole,
 * as a copy that ignored the writer would) on cpus CPUs */
static void snaps(int cpus, int rounds, int whole)
{
	struct ring r = { upage, sring, SNAP, 0, 99, 0 };	/* (fd: a kernel's) */
	unsigned torn = 0, gap = 0, small = 0, i;
	unsigned long recs = 0, head, keep;
	char w;
	char name[300], why[160];
	cpu_set_t set;
	pthread_t th;

	memset(sring, 0, sizeof(sring));
	memset(upage, 0, sizeof(upage));
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (cpus == 1)
		sched_setaffinity(0, sizeof(set), &set);
	srun = 1;
	pthread_create(&th, 0, snap_writer, 0);
	usleep(5000);		/* round the ring a few times */
	for (i = 0; i < rounds; i++) {
		head = ring_snap(&r, 0, scopy, whole ? 0 : 8);
		keep = whole ? SNAP : ring_keep(&r, 0, head, &w);
		small += keep < SNAP / 2;
		snap_judge(ring_walk(scopy, SNAP, head, keep), scopy + SNAP, &torn, &gap, &recs);
	}
	__atomic_store_n(&srun, 0, __ATOMIC_RELAXED);
	pthread_join(th, 0);
	CPU_ZERO(&set);
	for (i = 0; i < 64; i++)
		CPU_SET(i, &set);
	sched_setaffinity(0, sizeof(set), &set);
	snprintf(why, sizeof(why), "%u rounds, %lu records, %u torn, %u gaps, %u kept less than half", rounds, recs, torn, gap, small);
	snprintf(name, sizeof(name), "ring_snap beside a writer on %s%s (%s)", cpus == 1 ? "one CPU" : "another CPU",
		 whole ? ", the copy taken whole: the check sees torn records" : "", why);
	if (whole)
		report(name, torn + gap ? "" : why);
	else
		/* (a copy preempted keeps less: up to a fifth, on a busy
		 * machine; a keep that is always short fails) */
		report(name, !torn && !gap && recs > rounds * 100UL && small < rounds / 4 ? "" : why);
}

/* Nested output: a task's record, and the records of the interrupts
 * that came while it was written, reserved below the head and written
 * over the ring's oldest bytes, but published only when the task's
 * ends (the kernel's perf_output_put_handle): un bytes the copy cannot
 * see in the head. They are published before ring_keep asks, as the
 * kernel does long before the dump's wait ends. */
static void nested(unsigned long un)
{
	struct ring r = { upage, sring, SNAP, 0, 99, 0 };
	unsigned long head = 0, pub, h, keep, recs = 0;
	unsigned torn = 0, gap = 0;
	u64 n = 1;
	char name[100], why[160];
	char w;

	memset(sring, 0, sizeof(sring));
	memset(upage, 0, sizeof(upage));
	/* three rounds of the ring, published; then the nested output */
	for (pub = 0; 0 - pub < 3 * SNAP || pub - head < un; n++)
		if (head = snap_put(head, n), 0 - pub < 3 * SNAP)
			pub = head;
	*ring_wordp() = pub;
	h = ring_snap(&r, 0, scopy, 8);
	*ring_wordp() = head;	/* the outermost output ends */
	keep = ring_keep(&r, 0, h, &w);
	snap_judge(ring_walk(scopy, SNAP, h, keep), scopy + SNAP, &torn, &gap, &recs);
	snprintf(name, sizeof(name), "%lu unpublished bytes of nested output: no torn record", pub - head);
	snprintf(why, sizeof(why), "%lu records, %u torn, %u gaps, wrapped %d, kept %lu", recs, torn, gap, w, keep);
	report(name, !torn && !gap && w && recs > 100 && pub - head >= un ? "" : why);
}

/* A 32-bit head that went round 2^32: the ring is full, yet the head
 * says w bytes were written since the start. A dump since the start
 * (ring_base) must take the whole ring; one under 4 GiB, the records. */
static void round32(void)
{
	struct ring r = { upage, buf, SIZE, 0, 99, 0 };
	unsigned long head, base;

	if (sizeof(long) != 4) {
		printf("SKIP: ring: 32-bit head after 4 GiB written: a 64-bit build (t_build runs a 32-bit one)\n");
		return;
	}
	memset(upage, 0, sizeof(upage));
	bits32 = 1;
	reset(&head, 5 * SIZE - 1000);	/* as if 2^32 and more came before */
	sim_many(&head, 5 * SIZE + 100, 400);
	*ring_wordp() = head;
	base = ring_base(&r, 0);
	if (0 - head >= SIZE)
		report("32-bit head after 4 GiB written: a dump since the start holds the whole ring", "setup: the head says a ring's worth");
	else if (base - head < SIZE)
		report("32-bit head after 4 GiB written: a dump since the start holds the whole ring", "ring_base took the head's word: a ring's tail");
	else
		check("32-bit head after 4 GiB written: a dump since the start holds the whole ring", head, base - head, 0, -1);
	reset(&head, 0);
	sim_many(&head, 1000, 200);
	*ring_wordp() = head;
	base = ring_base(&r, 0);
	check("32-bit head under 4 GiB: a dump since the start holds what was written", head, base - head, 0, nlog);
	bits32 = 0;
}

/* ring_push (before 4.7): records written into a forward ring, as the
 * kernel writes it, read out in batches (ring_read) into a ring of ours
 * (ring_map with fd -1) must lie there as the kernel's backward ring
 * would: check() walks a copy of it against the log. */
static u8 fwd[4096 + SIZE] __attribute__((aligned(4096)));

static void pushes(const char *name, unsigned long bytes, unsigned max, int want)
{
	struct ring f = { fwd, fwd + 4096, SIZE, 0, -1, 0 }, u;
	unsigned long fhead = 0, uhead = 0;
	static u8 rec[65536];
	struct wrote *w;
	u16 len;
	unsigned long i, done = 0;

	memset(fwd, 0, sizeof(fwd));
	nlog = 0;
	if (ring_map(&u, -1, 0, SIZE, 1))
		return report(name, "setup: ring_map of an anonymous ring failed");
	while (done < bytes && nlog < (int)(sizeof(wlog) / sizeof(*wlog))) {
		seed = seed * 1103515245 + 12345;
		len = max ? 8 + (seed >> 16) % (max / 8) * 8 : 8 + nlog % 5 * 16;
		if (fhead + len - f.prev > SIZE / 2) {	/* the watermark's wake-up */
			*(volatile u64 *)(fwd + PG_DATA_HEAD) = fhead;
			ring_read(&f, ring_push, &u);
		}
		uhead -= len;
		w = wlog + nlog++;
		*w = (struct wrote){ uhead, 1 + nlog % 11, len, (u8)(nlog * 29) };
		put_rec(rec, w);
		for (i = 0; i < len; i++)	/* forward: upward from the head */
			f.data[(fhead + i) & MASK] = rec[i];
		fhead += len;
		done += len;
	}
	*(volatile u64 *)(fwd + PG_DATA_HEAD) = fhead;	/* the dump's drain */
	ring_read(&f, ring_push, &u);
	if (*(volatile u64 *)(fwd + PG_DATA_TAIL) != (u64)fhead)
		return report(name, "ring_read did not hand the kernel its space back");
	memcpy(buf, u.data, SIZE);
	check(name, ring_head(&u), bytes >= SIZE ? SIZE : 0 - ring_head(&u), 0, want);
	munmap(u.base, getpagesize() + SIZE);
}

int main(void)
{
	unsigned long head, prev;
	static const u16 lens[] = { 8, 24, 64, 16, 200 };
	int i, mark;

	signal(SIGALRM, timeout);
	reset(&head, 0);
	check("empty", head, 0, 0, 0);
	check("empty, avail = size", head, SIZE, 0, 0);

	for (i = 0; i < 5; i++)
		sim_write(buf, SIZE, &head, REC_SAMPLE, lens[i], 0x40 + i);
	check("no wrap", head, 0 - head, 0, 5);

	/* Fewer bytes written than size: the walk must end at the zeroes. */
	check("zero header", head, SIZE, 0, 5);

	/* Bad sizes can be a torn write or garbage: stop before them. */
	poke_size(wlog + 2, 12);
	check("size not multiple of 8", head, SIZE, 3, 2);
	poke_size(wlog + 2, 4);
	check("size below 8", head, SIZE, 3, 2);

	reset(&head, 0);
	sim_many(&head, 5 * SIZE + 100, 400);
	check("wrap", head, SIZE, 0, -1);
	check("avail > size capped", head, 3 * SIZE, 0, -1);
	check("avail ~0 capped", head, ~0UL, 0, -1);

	reset(&head, 0);
	sim_many(&head, 1000, 128);
	prev = head;
	mark = nlog;
	check("incremental: dump 1", head, 0 - head, 0, mark);
	sim_many(&head, 700, 128);
	check("incremental: dump 2", head, prev - head, mark, nlog - mark);
	check("incremental: nothing new", head, head - head, nlog, 0);
	prev = head;
	mark = nlog;
	sim_many(&head, 3 * SIZE, 300);
	check("incremental: overrun", head, prev - head, mark, -1);

	cross_zero("32-bit head crosses 0", "32-bit head near 2^32: wrap", 1);
	cross_zero("64-bit head below 0", "64-bit head below 0: wrap", 0);

	pushes("ring_push: five records, one drain", 200, 0, 5);
	pushes("ring_push: 5 rings' worth, drained at half: wrap", 5 * SIZE + 100, 400, -1);

	cur = "nested output";
	nested(5104);
	nested(6280);
	nested(12328);
	cur = "32-bit head";
	round32();

	alarm(60);
	cur = "ring_snap";
	if (sysconf(_SC_NPROCESSORS_ONLN) > 1) {
		snaps(2, 3000, 1);
		snaps(2, 3000, 0);
	} else
		printf("SKIP: ring: ring_snap beside a writer on another CPU: one CPU\n");
	snaps(1, 3000, 0);
	alarm(0);

	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
