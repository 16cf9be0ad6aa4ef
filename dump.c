/* dump.c - the recording and its dumps: open every event on every CPU
 * into its CPU's backward ring (tripwires into forward ones), with the
 * lean layout the kernel writes; then, per dump, pause, copy, resume,
 * and merge the copies, the process table and the tripwire hits into
 * time-ordered perf.data on the sink. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include "config.h"
#include "sink.h"
#include "perfdata.h"
#include "track.h"
#include "dump.h"

#define TRIP_RING (8 << 10)

struct ring *rings, *trings;	/* backward per CPU; tripwires' forward */
int *tfds;			/* tracking rings' fds, -1 if none */
int dumps;

/* ---- the lean layout (the default; the key full turns it off) ----
 * Every u64 the kernel writes per record costs time on the hot path.
 * So the kernel writes only IDENTIFIER, TID, TIME (+RAW) for
 * tracepoints, and no CPU for any event; the dump puts back what tracer
 * knows anyway: the CPU is the ring's and a tracepoint's period is 1.
 * A tracepoint's IP only tells the function it sits in, which its name
 * mostly does too; it is written as 0. The header
 * declares the full layout, so perf reads the expanded records like any
 * others.
 * When the rings hold tracepoints only, each a different one, the raw
 * data's first field (common_type, the tracepoint's id) already names
 * the event: then the kernel writes no IDENTIFIER either (lean_noid),
 * and the dump puts back the id of that event on that ring. */

int lean_noid;
static int noid_first;
/* lean_noid: tracepoint id - tplo -> event + 1, for the rings' events */
static u16 *tptab;
static u64 tplo, tpn;

/* Whether the rings can go without IDENTIFIER, and if so the table
 * that names an event by its tracepoint id. Before open_all. */
static void noid_init(void)
{
	u64 hi = 0;
	int i, first = -1;

	tplo = ~0ULL;
	for (i = 0; i < nev; i++) {
		const struct perf_attr *a = &evs[i].attr;

		if (evs[i].trip)
			continue;
		if (a->type != TYPE_TRACEPOINT || a->config > 0xffff)
			return;
		tplo = a->config < tplo ? a->config : tplo;
		hi = a->config > hi ? a->config : hi;
	}
	if (hi < tplo)
		return;
	tpn = hi - tplo + 1;
	tptab = xmalloc(tpn * sizeof(*tptab));
	for (i = 0; i < nev; i++) {
		u16 *t = tptab + evs[i].attr.config - tplo;

		if (evs[i].trip)
			continue;
		if (*t)		/* one tracepoint twice, other filters */
			return;
		*t = i + 1;
		if (first < 0)
			first = i;
	}
	noid_first = first;
	lean_noid = 1;
}

static u64 lean_type(const struct event *e)
{
	u64 t = e->attr.sample_type & ~(u64)(lean_noid ? S_CPU | S_IDENTIFIER : S_CPU);

	return e->attr.type == TYPE_TRACEPOINT ? t & ~(u64)(S_IP | S_PERIOD) : t;
}

/* The event of a lean sample whose body is [a, end): by its IDENTIFIER,
 * or under lean_noid (TID TIME [CALLCHAIN] RAW) by the common_type its
 * raw data starts with; 0 if it names none. */
static struct event *lean_ev(const u64 *a, const u64 *end)
{
	u16 type;

	if (!lean_noid)
		return ev_by_id(a[0]);
	a += 2;
	if (cfg_stack)
		a += 1 + (a < end ? *a : 0);
	if (a >= end)
		return 0;
	memcpy(&type, (const unsigned char *)a + 4, 2);	/* after RAW's u32 size */
	return tab_ev(tptab, tplo, tpn, type);
}

/* What the kernel wrote for a lean sample: its event's layout, or for
 * one that names none, the first ring event's (under lean_noid the
 * same for all). */
static u64 lean_type_of(const struct event *e)
{
	return lean_type(e ? e : evs + noid_first);
}

static u64 lean_time(const struct rec_hdr *h)
{
	const u64 *a = (const u64 *)(h + 1);
	u64 k;

	/* the trailer: TID TIME [IDENTIFIER] */
	if (h->type != REC_SAMPLE)
		return *(const u64 *)((const unsigned char *)h + h->size - 16 + 8 * lean_noid);
	k = lean_type_of(lean_ev(a, (const u64 *)((const char *)h + h->size)));
	return a[!lean_noid + !!(k & S_IP) + 1];	/* [IDENTIFIER] [IP] TID TIME */
}

/* A lean record from ring ri in the full layout, written at o (which
 * need not be aligned): IDENTIFIER (under lean_noid), IP, CPU and
 * PERIOD in a sample, CPU (and IDENTIFIER) in the trailer (TID TIME CPU
 * IDENTIFIER) of any other record. Returns its size, 0 to drop it. */
#define PUT(v) (memcpy(o, &(u64){ v }, 8), o += 8)
static size_t lean_expand(const struct rec_hdr *h, int ri, unsigned char *o)
{
	const u64 *a = (const u64 *)(h + 1), *end = (const u64 *)((const char *)h + h->size);
	const struct event *e;
	unsigned char *o0 = o;
	struct rec_hdr r = *h;
	u64 c, k;

	memcpy(&c, (u32[2]){ rings[ri].cpu, 0 }, 8);	/* {cpu, res} */
	o += 8;
	if (h->type != REC_SAMPLE) {
		size_t body = h->size - 8 - 24 + 8 * lean_noid;

		memcpy(o, a, body);
		o += body;
		a += body / 8;
		PUT(a[0]);		/* TID */
		PUT(a[1]);		/* TIME */
		PUT(c);
		/* IDENTIFIER: under lean_noid, the ring's first event's (the
		 * trailer's layout is the same for all) */
		PUT(lean_noid ? evs[noid_first].ids[ri] : a[2]);
	} else {
		e = lean_ev(a, end);
		if (lean_noid && !e)
			return 0;	/* no id to put back */
		k = lean_type_of(e);
		PUT(lean_noid ? e->ids[ri] : *a++);	/* IDENTIFIER */
		PUT(k & S_IP ? *a++ : 0);
		PUT(*a++);		/* TID */
		PUT(*a++);		/* TIME */
		PUT(c);
		PUT(k & S_PERIOD ? *a++ : 1);
		memcpy(o, a, (end - a) * 8);	/* CALLCHAIN, RAW */
		o += (end - a) * 8;
	}
	r.size = o - o0;
	memcpy(o0, &r, 8);
	return r.size;
}


/* ---- opening ---- */

static void open_fail(struct event *e, int cpu)
{
	int err = errno;
	char b[16];
	long n;

	if (err == EACCES || err == EPERM) {
		n = readfile("/proc/sys/kernel/perf_event_paranoid", b, sizeof(b) - 1);
		b[n > 0 ? n - 1 : 0] = 0;
		die(1, "%s: needs root or CAP_PERFMON (perf_event_paranoid=%s)", e->name, b);
	}
	if (e->attr.type == TYPE_HARDWARE && (err == ENOENT || err == EOPNOTSUPP))
		die(1, "%s: no hardware PMU here; use cpu-clock", e->name);
	if (err == EINVAL) {
		struct perf_attr a = e->attr;
		int fd;

		a.flags &= ~ATTR_WRITE_BACKWARD;
		if ((fd = ring_event_open(&a, cpu, -1)) >= 0)
			die(1, "this kernel has no backward ring buffers (needs Linux 4.7 or later)");
	}
	errno = err;
	die(1, "%s on cpu %d: perf_event_open:", e->name, cpu);
}

static void open_all(void)
{
	u64 want[16], online[16];
	int cpu, i, cfg_given = 0;

	for (i = 0; i < 16; i++)
		cfg_given |= !!cfg_cpus[i];
	if (sysfs_cpus("/sys/devices/system/cpu/online", online))
		die(1, "can't read /sys/devices/system/cpu/online");
	for (i = 0; i < 16; i++)
		want[i] = online[i] & (cfg_given ? cfg_cpus[i] : ~0ULL);
	for (cpu = 0; cpu < 1024; cpu++)
		nring += want[cpu / 64] >> cpu % 64 & 1;
	rings = xmalloc(nring * sizeof(*rings));
	trings = xmalloc(nring * sizeof(*trings));
	tfds = xmalloc(nring * sizeof(*tfds));
	if (CFG_TRACK)
		track_init(nring);
	for (i = 0; i < nev; i++)
		evs[i].ids = xmalloc(nring * sizeof(u64));
	nring = 0;
	for (cpu = 0; cpu < 1024; cpu++) {
		/* The CPU's first event owns its backward ring, its first
		 * tripwire its forward ring; the others are routed in. */
		struct ring *r = rings + nring, *tr = trings + nring;

		if (!(want[cpu / 64] >> cpu % 64 & 1))
			continue;
		for (i = 0; i < nev; i++) {
			struct event *e = evs + i;
			struct ring *to = e->trip ? tr : r;
			struct perf_attr a = e->attr;
			int fd;

			if (cfg_lean && !e->trip)
				a.sample_type = lean_type(e);
			fd = ring_event_open(&a, cpu, -1);

			if (fd < 0)
				open_fail(e, cpu);
			if (!to->base && ring_map(to, fd, cpu, e->trip ? ring_size(TRIP_RING) : cfg_buf, e->trip))
				die(1, "mmap of a %L byte ring on cpu %d:", (u64)cfg_buf, cpu);
			else if (to->fd != fd && ring_attach(to, fd))
				die(1, "%s on cpu %d: SET_OUTPUT:", e->name, cpu);
			if (e->filter && ioctl(fd, IOC_SET_FILTER, e->filter))
				die(2, "config: %s: the kernel rejects this filter", e->tok);
			if (ioctl(fd, IOC_ID, &e->ids[nring]) || ioctl(fd, IOC_ENABLE, 0))
				die(1, "%s: ioctl:", e->name);
		}
		tfds[nring] = CFG_TRACK ? track_open(nring, cpu) : -1;
		nring++;
	}
}

/* ---- dumping ----
 * A dump is a merge: each ring's copy is one run, oldest first; the
 * process table and the tripwire hits are sorted into one more run.
 * Equal times go side-band first, then by ring, so a comm or map comes
 * before a sample of the same time. A ring is in time order but for an
 * interrupt that took its time before the record it interrupted; perf
 * sorts that within the round, which ends the dump. */

struct run {
	const unsigned char *p, *end;	/* records; for the side-band, its index */
	u64 t;
	int ring;		/* main ring it came from, or -1: side-band */
};

struct ix {
	u64 t;
	u32 off, seq;
};

static unsigned char *cp;	/* copies of all rings, made while paused */
static struct ix *ix;		/* the side-band run's index */
static size_t ixmax;
static int stream_started, file_seq, rec_off;

static unsigned char tbuf[1 << 16];	/* tripwire hits since the last dump */
static size_t tn;
u32 hit_id[2];
char hit_comm[20];

static int ix_cmp(const void *a, const void *b)
{
	const struct ix *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->seq < y->seq ? -1 : 1;
}

/* The sort key: a sample's TIME is its 4th u64 (after IDENTIFIER, IP,
 * TID); any other record carries it in the trailer, 24 bytes from the
 * end (TID TIME CPU IDENTIFIER). */
static u64 rec_time(const struct rec_hdr *h, int lean)
{
	const unsigned char *p = (const void *)h;

	if (lean)
		return lean_time(h);
	if (h->type == REC_SAMPLE)
		return *(const u64 *)(p + 8 + 24);
	return h->size >= 8 + 24 ? *(const u64 *)(p + h->size - 24) : 0;
}

/* Index the side-band records at cp[at, at+len) and sort the index by
 * time (a table slot or a CPU's tripwire ring is in order, the whole is
 * not). Returns how many. */
static size_t side_sort(size_t at, size_t len)
{
	size_t off, n = 0;

	for (off = 0; off < len && n < ixmax; off += ((struct rec_hdr *)(cp + at + off))->size, n++) {
		ix[n].off = at + off;
		ix[n].t = rec_time((void *)(cp + at + off), 0);
		ix[n].seq = n;
	}
	xsort(ix, n, sizeof(*ix), ix_cmp);
	return n;
}

static const struct rec_hdr *run_rec(const struct run *r)
{
	return (const void *)(r->ring < 0 ? cp + ((const struct ix *)r->p)->off : r->p);
}

/* Write the runs out in time order: take the run with the oldest head,
 * and keep taking from it while it stays older than the runner-up. */
static size_t merge_out(struct run *rn, int k)
{
	size_t nrec = 0;

	for (;;) {
		int i, m = -1, s = -1;
		struct run *r;

		for (i = 0; i < k; i++) {
			if (rn[i].p >= rn[i].end)
				continue;
			if (m < 0 || rn[i].t < rn[m].t)
				s = m, m = i;
			else if (s < 0 || rn[i].t < rn[s].t)
				s = i;
		}
		if (m < 0)
			return nrec;
		r = rn + m;
		do {
			const struct rec_hdr *h = run_rec(r);

			if (!cfg_lean || r->ring < 0) {
				pd_record(h);
			} else if (BE) {	/* expanded, then swapped */
				static u64 b[65536 / 8 + 8];

				if (lean_expand(h, r->ring, (void *)b))
					pd_record((void *)b);
			} else {		/* expanded right into the output */
				out_commit(lean_expand(h, r->ring, out_room(h->size + 32)));
			}
			nrec++;
			if ((r->p += r->ring < 0 ? sizeof(struct ix) : h->size) >= r->end)
				break;
			r->t = rec_time(run_rec(r), cfg_lean && r->ring >= 0);
		} while (s < 0 || r->t < rn[s].t || (r->t == rn[s].t && m < s));
	}
}

static int open_dump_file(char *name)
{
	for (;;) {
		int fd;

		fmt(name, 4096, file_seq ? "%s.%u" : "%s", cfg_out, file_seq);
		fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd >= 0 || errno != EEXIST)
			return fd;
		file_seq++;
	}
}

void dump(const char *why)
{
	u64 t0, t1, t2;
	size_t tot = 0, nrec, i, side;
	struct run rn[nring + 1];
	char name[4096];
	/* Files and framed dumps each stand alone; a binary stream sends
	 * only what is new since the last dump. */
	int fd = sink_fd, err, standalone = sink_fd < 0 || cfg_frame;
	int binfile = CFG_PERF_FILE && sink_fd < 0 && !cfg_frame;

	if (CFG_TRACK)
		track_read();	/* the table up to now; recording goes on */
	/* The blind window: from the first pause to the last resume. */
	t0 = now_us();
	for (i = 0; i < (size_t)nring; i++)
		if (ring_pause(rings + i, 1))
			msg("cpu %d: PAUSE_OUTPUT: the copy may hold a torn record:", rings[i].cpu);
	for (i = 0; i < (size_t)nring; i++) {
		struct ring *r = rings + i;
		unsigned long head = ring_head(r);

		tot += r->size;
		rn[i + 1].end = cp + tot;
		rn[i + 1].p = ring_walk(r->data, r->size, head,
					(standalone ? 0 : r->prev) - head, cp + tot);
		rn[i + 1].ring = i;
		if (!standalone)
			r->prev = head;
	}
	/* Recording that SIGUSR1 turned off stays off. */
	for (i = 0; i < (size_t)nring && !rec_off; i++)
		if (ring_pause(rings + i, 0))
			msg("cpu %d: resuming the ring:", rings[i].cpu);
	t1 = now_us();
	/* The process table and the tripwire hits (perf script shows what
	 * tripped): one run, sorted. */
	side = CFG_TRACK ? track_copy(cp + tot) : 0;
	memcpy(cp + tot + side, tbuf, tn);
	side += tn;
	tn = 0;
	rn[0].p = (const void *)ix;
	rn[0].end = (const void *)(ix + (CFG_TRACK || CFG_TRIPWIRE ? side_sort(tot, side) : 0));
	rn[0].ring = -1;
	for (i = 0; i <= (size_t)nring; i++)
		if (rn[i].p < rn[i].end)
			rn[i].t = rec_time(run_rec(rn + i), cfg_lean && rn[i].ring >= 0);

	dumps++;
	if (sink_fd < 0) {
		if ((fd = open_dump_file(name)) < 0) {
			msg("dump %d (%s): %s:", dumps, why, name);
			return;
		}
		file_seq++;
	} else {
		fmt(name, sizeof(name), "%s", sink_name);
	}
	for (i = 1, tot = side; i <= (size_t)nring; i++)
		tot += rn[i].end - rn[i].p;
	out_begin(fd, tot + (64 << 10), dumps, cfg_frame);
	if (binfile)
		pd_file_head();
	else if (standalone || !stream_started)
		pd_stream_head();
	if (standalone || !stream_started)
		pd_kernel_maps();
	if (CFG_PROC)
		track_proc(!standalone && stream_started);
	if (hit_comm[0] && strcmp(hit_comm, "?"))
		pd_comm(hit_id[0], hit_id[1], hit_comm);
	hit_comm[0] = 0;
	nrec = merge_out(rn, nring + 1);
	if (binfile) {
		err = pd_file_end(fd);
	} else {
		pd_stream_round();
		err = out_end();
		if (!err)
			stream_started = 1;
	}
	if (sink_fd < 0) {
		close(fd);
		if (err)
			unlink(name);	/* ours (O_EXCL), and useless half written */
	}
	t2 = now_us();
	if (err) {
		errno = err;
		msg("dump %d (%s): writing %s failed, recording goes on:", dumps, why, name);
	} else {
		unsigned long used = 0, ev = 0, dr = 0;
		char tab[80] = "";

		if (CFG_TRACK && cfg_procs) {
			track_stats(&used, &ev, &dr);
			fmt(tab, sizeof(tab), ", procs %L/%L (%L evicted, %L not kept)",
			    (u64)used, (u64)cfg_procs, (u64)ev, (u64)dr);
		}
		msg("dump %d (%s): %L bytes, %L records, %d CPUs, paused %L us, wrote in %L us, to %s%s",
		    dumps, why, out_pos, (u64)nrec, nring, t1 - t0, t2 - t1, name, tab);
	}
}

/* A tripwire's record, for the next dump (perf script shows what
 * tripped); what does not fit waits for none. */
void dump_keep(const struct rec_hdr *h)
{
	if (tn + h->size <= sizeof(tbuf)) {
		memcpy(tbuf + tn, h, h->size);
		tn += h->size;
	}
}

/* SIGUSR1: recording off, or back on; returns whether it is off now. */
int dump_toggle(void)
{
	int i;

	rec_off = !rec_off;
	for (i = 0; i < nring; i++)
		if (ring_pause(rings + i, rec_off))
			msg("cpu %d: PAUSE_OUTPUT:", rings[i].cpu);
	return rec_off;
}

/* Open everything, and allocate now all that a dump needs. */
void dump_init(void)
{
	struct rlimit rl;
	size_t n;

	/* Many events times many CPUs is many fds. */
	/* prlimit, not setrlimit: musl's applies it to all threads, which
	 * we don't have, and that costs 2 KiB. */
	if (!syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, 0, &rl)) {
		rl.rlim_cur = rl.rlim_max;
		syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, &rl, 0);
	}
	if (CFG_TRACEPOINTS && cfg_lean)
		noid_init();
	open_all();
	ev_ids_init();
	/* The rings' copies, then the side-band. The rings' part is faulted
	 * in now, not while the rings are paused. */
	n = sizeof(tbuf) + (CFG_TRACK ? track_max() : 0);
	ixmax = n / 32;
	ix = xmalloc(ixmax * sizeof(*ix));
	cp = xmalloc(nring * cfg_buf + n);
	memset(cp, 0, nring * cfg_buf);
}
