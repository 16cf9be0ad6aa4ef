/* ringtest.c - unit test of ring_walk() on crafted backward ring images.
 *
 * A tiny simulator writes records as the kernel does with write_backward
 * and logs what it wrote. Each check derives the expected dump from that
 * log, never from the ring image, and compares bytes, so a walker that
 * reads the wrong place, order or length fails.
 *
 * Build: musl-gcc -static -O1 -I. -o test/ringtest test/ringtest.c ring.c
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>
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
	static u8 got[3 * SIZE], exp[SIZE];
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
	start = ring_walk(buf, SIZE, head, avail, end);
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
			if (got[i] != 0xee && (got + i < start || got + i >= end)) {
				snprintf(why, sizeof(why), "wrote outside its %zu bytes, at %td",
					 n, got + i - end);
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

	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
