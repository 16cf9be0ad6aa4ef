/* fttest.c - unit test of the ftrace engine's walk of copied pages
 * (ftrace.c), on pages crafted as the kernel's ring_buffer.c writes
 * them (64-bit kernel: a 16-byte page header, 4 KiB pages):
 * - a discarded event (padding whose delta is not 1) keeps its delta;
 * - a read page's RB_MISSED_EVENTS flag, with the count stored after
 *   the data (RB_MISSED_STORED), is a wrap and a count of lost events;
 * - mapped pages of one stamp come in the ring's order, from its
 *   oldest page (where the stamps go back), not the mapping's.
 * Prints "PASS: ..." or "FAIL: ..." per check.
 *
 * Build: musl-gcc -static -O1 -I. -o fttest test/fttest.c lib.c zstd.c
 *        ring.c frame.c sink.c pull.c cfg.c print.c perfdata.c track.c lean.c */
#include <stdio.h>
#include "ftrace.c"

#define ID 316
static unsigned char pages[8][4096] __attribute__((aligned(4096)));
static u32 ordv[8];
static int failed;

static void check(int ok, const char *what, const char *got)
{
	printf("%s: %s%s%s\n", ok ? "PASS" : "FAIL", what, ok ? "" : ": got ", ok ? "" : got);
	failed |= !ok;
}

/* An event at page offset o: header (type_len, delta), then data. */
static u32 ev(unsigned char *pg, u32 o, u32 tl, u32 delta, u32 mark)
{
	u32 h = tl | delta << 5, d[3] = { ID, 42, mark };

	memcpy(pg + o, &h, 4);
	if (tl == 29) {		/* a discarded event of 12 bytes: array[0] = 12 */
		d[0] = 12;
		memcpy(pg + o + 4, d, 4);
		return o + 16;
	}
	memcpy(pg + o + 4, d, 12);
	return o + 16;
}

static void head(unsigned char *pg, u64 ts, u64 commit)
{
	memcpy(pg, &ts, 8);
	memcpy(pg + 8, &commit, 8);
}

/* The walk's markers and times, as text. */
static void walk_all(struct fcpu *f, char *out, size_t n)
{
	u64 t;
	u32 m;
	int k = 0;

	ft_walk(f, 0);
	out[0] = 0;
	while (ft_next(0, &t)) {
		memcpy(&m, f->data + 8, 4);
		k += snprintf(out + k, n - k, "%s%u@%llu", k ? " " : "", m, (unsigned long long)t);
	}
}

int main(void)
{
	struct fcpu *f;
	char got[256];
	u32 o;

	nev = 1;
	nmax = nring = 1;
	evs = xmalloc(sizeof(*evs));
	evs[0].name = "ft:test";
	evs[0].attr.type = TYPE_TRACEPOINT;
	evs[0].attr.config = ID;
	evs[0].ids = xmalloc(sizeof(u64));
	evs[0].ft = 1;
	ft_n = 1;
	tp_tab();
	ft_fc = f = xmalloc(sizeof(*ft_fc));
	ft_hsz = 16, ft_sbs = 4096;

	/* read pages: a data event, a discarded one (delta 50), another */
	memset(f, 0, sizeof(*f));
	f->fd = -1, f->cp = pages[0], f->ord = ordv;
	o = ev(pages[0], 16, 3, 10, 1);
	o = ev(pages[0], o, 29, 50, 0);
	o = ev(pages[0], o, 3, 7, 2);
	head(pages[0], 1000, o - 16);
	f->ncp = 1, ordv[0] = 0;
	walk_all(f, got, sizeof(got));
	check(!strcmp(got, "1@1010 2@1067"), "a discarded event's delta counts (1@1010 2@1067)", got);

	/* a read page the kernel flagged: 1234 events lost before it */
	memset(pages[0], 0, sizeof(pages[0]));
	o = ev(pages[0], 16, 3, 5, 1);
	head(pages[0], 2000, (o - 16) | 3ULL << 30);
	memcpy(pages[0] + o, &(u64){ 1234 }, 8);
	f->lost = missed(f, pages[0]);
	snprintf(got, sizeof(got), "wrap %d, lost %llu", ft_walk(f, 0), (unsigned long long)f->lost);
	check(!strcmp(got, "wrap 1, lost 1234"), "RB_MISSED_EVENTS/STORED: a wrap, 1234 lost", got);
	walk_all(f, got, sizeof(got));
	check(!strcmp(got, "1@2005"), "the flagged page's commit is its length (1@2005)", got);

	/* mapped: page 0 the reader's (empty), the ring 1..4 from where
	 * its head was at mmap; the writer wrapped, so its oldest is page
	 * 3: stamps 3:100 4:100 1:100 2:200 */
	memset(pages, 0, sizeof(pages));
	memset(f, 0, sizeof(*f));
	f->fd = -1, f->cp = f->pg = pages[0], f->ord = ordv, f->n = 5;
	head(pages[3], 100, ev(pages[3], 16, 3, 1, 1) - 16);
	head(pages[4], 100, ev(pages[4], 16, 3, 2, 2) - 16);
	head(pages[1], 100, ev(pages[1], 16, 3, 3, 3) - 16);
	head(pages[2], 200, ev(pages[2], 16, 3, 4, 4) - 16);
	order(f);
	walk_all(f, got, sizeof(got));
	check(!strcmp(got, "1@101 2@102 3@103 4@204"), "pages of one stamp in the ring's order", got);
	return failed;
}
