/* fttest.c - unit test of the ftrace engine's walk of copied pages
 * (ftrace.c), on pages crafted as the kernel's ring_buffer.c writes
 * them (64-bit kernel: a 16-byte page header, 4 KiB pages):
 * - a discarded event (padding whose delta is not 1) keeps its delta;
 * - a read page's RB_MISSED_EVENTS flag, with the count stored after
 *   the data (RB_MISSED_STORED), is a wrap and a count of lost events;
 * - mapped pages of one stamp come in the ring's order, from its
 *   oldest page (where the stamps go back), not the mapping's;
 * - ft_grab's copy of mapped pages that a writer on another thread
 *   takes anew while they are copied (as the kernel does on another
 *   CPU, recording on): each copied page whole, and the copy the ring
 *   at one moment (no page from before the writer took it anew amid
 *   those it wrote after), on two CPUs and on one (the copy preempted).
 *   A plain copy with pauses between its pages shows that the check
 *   sees what a copy that does not follow the writer holds.
 * - a page the writer takes anew between two of the copy's reads of it
 *   (commit 0, the first event, the stamp, the commit): refused;
 * - a CPU's buffer_size_kb of 0 (no buffer) is no pages, not 2 GiB;
 * - a full mapped ring wrapped only once the kernel counts an overrun.
 * Prints "PASS: ..." or "FAIL: ..." per check.
 *
 * Build: musl-gcc -static -O1 -I. -o fttest test/fttest.c lib.c zstd.c
 *        ring.c frame.c sink.c pull.c cfg.c print.c perfdata.c track.c lean.c */
#define _GNU_SOURCE
#include <stdio.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <string.h>
/* ftrace.c's memcpy, through a hook: a writer that takes a page anew
 * between two of pcopy's reads of it (tornpage) */
static void *tmemcpy(void *d, const void *s, size_t n);
#define memcpy(...) tmemcpy(__VA_ARGS__)
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

/* ---- a writer on another thread, and ft_grab's copy ---- */
#define NP 33		/* the reader's page, then a ring of 32 */
static unsigned char live[NP][4096] __attribute__((aligned(4096))), copyb[NP][4096];
static u32 ordl[NP];
static int wrun;

/* The kernel's writer: the ring's pages in turn, each taken anew (its
 * commit 0, then a new stamp), then events that carry the page's
 * generation, the commit stored after each (release). An event costs
 * the kernel 100 ns or more; this one's 16 bytes take some 50 (a copy
 * is faster still: its bytes are no event's). */
static void *writer(void *x)
{
	volatile u32 spin;
	u32 i = 1, o;
	u64 g;

	for (g = 1; __atomic_load_n(&wrun, __ATOMIC_RELAXED); g++, i = i % (NP - 1) + 1) {
		unsigned char *pg = live[i];

		__atomic_store_n((u64 *)(pg + 8), 0, __ATOMIC_RELEASE);
		__atomic_store_n((u64 *)pg, g * 1000, __ATOMIC_RELEASE);
		for (o = 16; o + 16 <= 4096;) {
			o = ev(pg, o, 3, 1, (u32)g);
			__atomic_store_n((u64 *)(pg + 8), o - 16, __ATOMIC_RELEASE);
			for (spin = 0; spin < 100; spin++)
				;
		}
	}
	return x;
}

/* A copy's faults: a page with an event of another generation than its
 * stamp (torn), and generations that are not one run (a page left from
 * before the writer took it anew, amid newer ones). */
static void judge(unsigned char (*cp)[4096], u32 *torn, u32 *gap)
{
	u64 lo = -1, hi = 0, t;
	u32 i, o, m, c, n = 0, part = 0;

	for (i = 1; i < NP; i++) {
		memcpy(&t, cp[i], 8);
		memcpy(&c, cp[i] + 8, 4);
		if (!c)
			continue;
		for (o = 16; o < 16 + c; o += 16) {
			memcpy(&m, cp[i] + o + 12, 4);
			if (m != (u32)(t / 1000)) {
				++*torn;
				break;
			}
		}
		lo = t < lo ? t : lo, hi = t > hi ? t : hi, n++;
		part += c < 4096 - 16;
	}
	/* one run of generations, every page but the newest full (the
	 * writer fills each) */
	*gap += n && ((hi - lo) / 1000 + 1 != n || part > 1);
}

/* rounds of ft_grab while the writer writes, on cpus CPUs (1: both on
 * the first, so that the copy is preempted); pauses counted from the
 * writes of tracing_on (a pause does not stop this writer: a paused
 * round is not judged) */
static void grabs(int cpus, int rounds)
{
	struct fcpu *f = ft_fc;
	pthread_t th;
	cpu_set_t set;
	char got[160], name[240], w, b[64];
	u32 torn = 0, gap = 0, paused = 0, judged = 0, r;
	int pfd[2];

	memset(live, 0, sizeof(live));
	memset(copyb, 0, sizeof(copyb));
	memset(f, 0, sizeof(*f));
	f->fd = -1, f->pg = live[0], f->cp = copyb[0], f->ord = ordl, f->n = NP;
	how = MAPPED;
	if (pipe(pfd))
		return;
	on_fd = pfd[1];
	fcntl(pfd[0], F_SETFL, O_NONBLOCK);
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (cpus == 1)
		sched_setaffinity(0, sizeof(set), &set);
	wrun = 1;
	pthread_create(&th, 0, writer, 0);
	nanosleep(&(struct timespec){ 0, 2000000 }, 0);
	for (r = 0; r < rounds; r++) {
		int n = 0;

		ft_grab(0, 0, &w);
		while (read(pfd[0], b, sizeof(b)) > 0)
			n = 1;
		if (n) {
			paused++;
			continue;
		}
		judged++;
		judge(copyb, &torn, &gap);
	}
	__atomic_store_n(&wrun, 0, __ATOMIC_RELAXED);
	pthread_join(th, 0);
	CPU_ZERO(&set);
	for (r = 0; r < 64; r++)
		CPU_SET(r, &set);
	sched_setaffinity(0, sizeof(set), &set);
	close(pfd[0]), close(pfd[1]), on_fd = -1;
	snprintf(got, sizeof(got), "%u judged (%u paused), %u torn, %u not of one moment", judged, paused, torn, gap);
	snprintf(name, sizeof(name), "ft_grab beside a writer on %s (%s)", cpus == 1 ? "one CPU" : "another CPU", got);
	check(judged >= rounds / 2 && !torn && !gap, name, "");
}

/* The same writer against a plain copy, page by page with a pause
 * between pages: judge() must see what such a copy holds. */
static void plain(void)
{
	pthread_t th;
	char got[120];
	u32 torn = 0, gap = 0, r, i;

	memset(live, 0, sizeof(live));
	wrun = 1;
	pthread_create(&th, 0, writer, 0);
	nanosleep(&(struct timespec){ 0, 2000000 }, 0);
	for (r = 0; r < 50; r++) {
		for (i = 0; i < NP; i++) {
			pcopy(copyb[i], live[i]);
			nanosleep(&(struct timespec){ 0, 20000 }, 0);
		}
		judge(copyb, &torn, &gap);
	}
	__atomic_store_n(&wrun, 0, __ATOMIC_RELAXED);
	pthread_join(th, 0);
	snprintf(got, sizeof(got), "%u of 50 plain copies not of one moment, %u torn", gap, torn);
	check(gap > 0 && !torn, "judge sees a plain copy's pages of two moments (pcopy's pages whole)", got);
}

/* ---- a page taken anew amid pcopy's reads, step by step ---- */
static unsigned char *hk;	/* the live page */
static int hks;			/* reads of its stamp so far */

static void *tmemcpy(void *d, const void *s, size_t n)
{
	u32 o;

	if (hk && s == hk + 16 && hks == 1) {	/* the data: the writer took the page anew */
		__atomic_store_n((u64 *)(hk + 8), 0, __ATOMIC_RELEASE);
		ev(hk, 16, 3, 1, 6);
	}
	__builtin_memcpy(d, s, n);
	if (hk && s == hk && n == 8 && ++hks == 2) {	/* after the stamp's second read */
		__atomic_store_n((u64 *)hk, 6000, __ATOMIC_RELEASE);
		for (o = 32; o < 16 + 64; )
			o = ev(hk, o, 3, 1, 6);
		__atomic_store_n((u64 *)(hk + 8), 64, __ATOMIC_RELEASE);
	}
	return d;
}

/* The kernel takes a page anew: commit 0, the first event, the stamp,
 * then the commit of its events. A copy between the first event and
 * the stamp holds the new event under the old stamp; its check must
 * refuse it, whichever of stamp and commit it reads first. */
static void tornpage(void)
{
	unsigned char *l = live[1], *c = copyb[1];
	char got[120];
	u32 o, m, cm, bad = 0;
	u64 t;

	memset(live, 0, sizeof(live));
	memset(copyb, 0, sizeof(copyb));
	for (o = 16; o < 16 + 64; )
		o = ev(l, o, 3, 1, 5);
	head(l, 5000, 64);
	hks = 0, hk = l;
	pcopy(c, l);
	hk = 0;
	memcpy(&t, c, 8);
	memcpy(&cm, c + 8, 4);
	for (o = 16; o < 16 + cm; o += 16) {
		memcpy(&m, c + o + 12, 4);
		bad += m != (u32)(t / 1000);
	}
	snprintf(got, sizeof(got), "stamp %llu, commit %u, %u events of another generation",
		 (unsigned long long)t, cm, bad);
	check(!bad && hks >= 2, "a page taken anew between pcopy's reads (commit 0, first event, stamp, commit): the torn copy is refused", got);
}

/* ft_nsub: a CPU's buffer_size_kb as the kernel writes it (a temporary
 * tracefs): 0 (a CPU without a buffer) is no pages, not 2 GiB. */
static void nsub(void)
{
	static char dir[] = "/tmp/fttest.XXXXXX";
	char p[200], got[80];
	static const char *kb[] = { "0", "1408", "99999999" };
	static const u32 want[] = { 3, 1408 * 1024 / 4080 + 3, (2u << 30) / 4080 + 3 };
	u32 i, n;
	FILE *f;

	if (!mkdtemp(dir))
		return check(0, "ft_nsub: a temporary tracefs", "mkdtemp failed");
	tracefs = dir;
	snprintf(ft_iname, sizeof(ft_iname), "x");
	snprintf(p, sizeof(p), "mkdir -p %s/instances/x/per_cpu/cpu0", dir);
	if (system(p))
		return check(0, "ft_nsub: a temporary tracefs", "mkdir failed");
	for (i = 0; i < 3; i++) {
		snprintf(p, sizeof(p), "%s/instances/x/per_cpu/cpu0/buffer_size_kb", dir);
		if ((f = fopen(p, "w")))
			fprintf(f, "%s\n", kb[i]), fclose(f);
		n = ft_nsub(0);
		snprintf(got, sizeof(got), "%u sub-buffers", n);
		snprintf(p, sizeof(p), "ft_nsub: buffer_size_kb %s is %u sub-buffers of 4 KiB", kb[i], want[i]);
		check(n == want[i], p, got);
	}
	/* ft_walk: mapped pages all in use (a full ring) did not wrap
	 * until the kernel counts an event overwritten */
	{
		static const char *ov[] = { "0", "12", "12" };
		struct fcpu *c = ft_fc;

		memset(live, 0, sizeof(live));
		memset(c, 0, sizeof(*c));
		c->fd = -1, c->pg = live[0], c->cp = copyb[0], c->ord = ordl, c->n = NP;
		for (i = 1; i < NP; i++)
			head(copyb[i], 1000 * i, 4080), ordl[i - 1] = i;
		c->ncp = NP - 1;
		for (i = 0; i < 3; i++) {
			snprintf(p, sizeof(p), "%s/instances/x/per_cpu/cpu0/stats", dir);
			if ((f = fopen(p, "w")))
				fprintf(f, "entries: 99\noverrun: %s\ncommit overrun: 0\n", ov[i]), fclose(f);
			n = ft_walk(c, i == 2);
			if (i == 1)
				c->last_ov = c->ov, c->last_t = 500;	/* ft_sent's */
			snprintf(got, sizeof(got), "wrapped %u", n);
			snprintf(p, sizeof(p), "ft_walk: a full mapped ring, overrun %s%s: %s", ov[i],
				 i == 2 ? " as at the stream's last dump" : "", i == 1 ? "wrapped" : "not wrapped");
			check(n == (i == 1), p, got);
		}
		memset(copyb, 0, sizeof(copyb));
	}
	snprintf(p, sizeof(p), "rm -rf %s", dir);
	if (system(p))
		printf("SKIP: ft_nsub: rm -rf %s failed\n", dir);
	ft_hsz = 16, ft_sbs = 4096;
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
	tornpage();
	nsub();

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
	plain();
	if (sysconf(_SC_NPROCESSORS_ONLN) > 1)
		grabs(2, 3000);
	else
		printf("SKIP: ft_grab beside a writer on another CPU: one CPU\n");
	grabs(1, 3000);
	return failed;
}
