/* dump.c - the recording and its dumps: open every event on every CPU
 * into its CPU's backward ring (tripwires into forward ones), with the
 * lean layout the kernel writes (lean.c); then, per dump, copy, pause,
 * copy what changed, resume, and merge the copies, the process table
 * and the tripwire hits into time-ordered perf.data on the sink. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include "config.h"
#include "room.h"
#include "memcg.h"
#include "sink.h"
#include "pull.h"
#include "push.h"
#include "perfdata.h"
#include "seen.h"
#include "proc.h"
#include "track.h"
#include "lean.h"
#include "ftrace.h"
#include "boot.h"
#include "dump.h"

#define TRIP_RING (8 << 10)

struct ring *rings, *trings;	/* backward per CPU; tripwires' forward */
struct ring *frings;		/* before 4.7 (OLDKERNEL): the kernel's forward
				   rings, drained into rings, ours */
int *tfds;			/* tracking rings' fds, -1 if none */
int dumps;
static char *offline;		/* per ring: its CPU is offline */
static unsigned char *cp;	/* copies of all rings' records, in order */
static size_t cpper;		/* its bytes per ring: buf=, or 0 (no perf ring
				   holds an event: all are in ftrace's) */
static int regen;		/* a CPU came back: records carry new ids */

/* ---- opening ---- */

/* An event refused (err) with write_backward and taken without: a
 * kernel before 4.7, said before anything else (a glob's member is not
 * left out for it). Only OLDKERNEL goes on, and needs the fd no more. */
static inline int backless(struct event *e, int cpu, int err)
{
	struct perf_attr a = e->attr;
	int fd;

	a.flags &= ~ATTR_WRITE_BACKWARD;
	if (err != EINVAL || (fd = ring_event_open(&a, cpu, -1)) < 0)
		return 0;
	if (CFG_OLDKERNEL)
		close(fd);
	return 1;
}

static void open_fail(struct event *e, int cpu)
{
	int err = errno;
	char b[16];
	long n;

	if ((err == EACCES || err == EPERM) && !geteuid())
		die(1, "%s: the kernel refuses it, even to root", e->name);
	if (err == EACCES || err == EPERM) {
		n = readfile("/proc/sys/kernel/perf_event_paranoid", b, sizeof(b) - 1);
		b[n > 0 ? n - 1 : 0] = 0;
		die(1, "%s: needs root or CAP_PERFMON (perf_event_paranoid=%s)", e->name, b);
	}
	if (e->attr.type == TYPE_HARDWARE && (err == ENOENT || err == EOPNOTSUPP))
		die(1, ring_hw(0) ? "%s: this CPU's PMU lacks it; see tracer -l"
			: "%s: no hardware PMU here; use cpu-clock", e->name);
	errno = err;
	die(1, "%s on cpu %d: perf_event_open:", e->name, cpu);
}


/* Every event on cpu into ring ri. At start a failure is fatal. When a
 * CPU comes back online (its events record no more once it went away),
 * new events are routed into the same rings, which keep what they hold:
 * the first new one into the old owner, which then gives way. The
 * header's ids stay; the dump writes them for the new events' records. */
static int open_cpu(int ri, int cpu, int again)
{
	struct ring *r = rings + ri, *tr = trings + ri;
	int i, fd = -1, fatal = !again && ri < nhdr;
	const char *what = "";

	r->cpu = cpu;		/* a ring of no perf event has no base */
	for (i = 0; i < nev; i++) {
		struct event *e = evs + i;
		struct ring *to = e->trip ? tr : r;
		struct perf_attr a = e->attr;
		u64 id = 0;

		if (e->ft)
			continue;
		what = "perf_event_open";
		if (CFG_LEAN && cfg_lean && !e->trip)
			a.sample_type = lean_type(e);
		if (CFG_OLDKERNEL && frings && !e->trip) {
			/* before 4.7: forward, a wake-up each 3/4 of it */
			a.flags = (a.flags & ~ATTR_WRITE_BACKWARD) | ATTR_WATERMARK;
			a.wakeup_events = cfg_buf / 4 * 3;
			to = frings + ri;
		}
		fd = ring_event_open(&a, cpu, -1);
		/* (at start: no backward ring was mapped to drain into) */
		if (fd < 0 && fatal && !ri && !r->base && !frings && backless(e, cpu, errno)) {
			if (!CFG_OLDKERNEL)
				die(1, "this kernel has no backward ring buffers: a build without OLDKERNEL needs Linux 4.7");
			frings = xmalloc(nmax * sizeof(*frings)), i--;	/* forward from now on */
			continue;
		}
		if (fd < 0 && fatal && e->glob && !ri) {	/* one of many a glob matched: the others go on */
			msg("%s: left out, the kernel refuses it: perf_event_open:", e->name);
			ev_drop(i--);
			continue;
		}
		if (fd < 0 && fatal)
			open_fail(e, cpu);
		if (fd < 0)
			goto fail;
		/* The filter first: an event left out here must not be the
		 * one that owns the ring, or that the ring was routed to. */
		if (e->filter && ioctl(fd, IOC_SET_FILTER, e->filter)) {
			if (fatal && e->glob && !ri) {
				msg("%s: left out, the filter does not apply to it", e->name);
				close(fd);
				ev_drop(i--);
				continue;
			}
			if (fatal)
				die(2, "config: %s: the kernel rejects this filter", e->tok);
			what = "its filter";
			goto fail;
		}
		what = "mmap of its ring";
		if ((!to->base && ring_map(to, fd, cpu, e->trip ? ring_size(TRIP_RING) : cfg_buf, to != r)) ||
		    (CFG_OLDKERNEL && frings && to != tr && !r->base && ring_map(r, -1, cpu, cfg_buf, 1))) {
			if (fatal)
				die(1, "mmap of a %L byte ring on cpu %d:", (u64)cfg_buf, cpu);
			goto fail;
		}
		what = "SET_OUTPUT";
		if (to->fd != fd && ring_attach(to, fd))
			goto fail;
		what = "ioctl";
		if (ioctl(fd, IOC_ID, &id) || ioctl(fd, IOC_ENABLE, 0))
			goto fail;
		if (again) {
			if (to->fd == e->fds[ri])
				to->fd = fd;
			close(e->fds[ri]);
			e->kid[2 * ri + 1] = e->kid[2 * ri];
		} else {
			e->ids[ri] = id;
		}
		if (CFG_HOTPLUG)
			e->kid[2 * ri] = id;
		if (CFG_HOTPLUG || (CFG_TRIPWIRE && e->trip))
			e->fds[ri] = fd;
		if (CFG_TRIPWIRE && e->trip)	/* a new event counts from 0 */
			e->cnt[ri] = 0;
	}
	/* The ftrace instance's buffer stays when its CPU goes offline. */
	if (CFG_FTRACE && !again && ft_open(ri, cpu)) {
		if (fatal)
			die(1, "the ftrace instance's buffer of cpu %d:", cpu);
		msg("the ftrace instance's buffer of cpu %d:", cpu);
	}
	if (CFG_TRACK)
		tfds[ri] = again ? track_reopen(ri, cpu) : track_open(ri, cpu);
	return 0;
fail:
	if (fatal)
		die(1, "%s on cpu %d: %s:", evs[i].name, cpu, what);
	msg("%s on cpu %d: %s:", evs[i].name, cpu, what);
	if (fd >= 0)
		close(fd);
	return -1;
}

static u64 late[16];	/* CPUs to record when they come online */

/* Many events times many CPUs is many fds: as many as the hard limit
 * allows, or a clear word now rather than unnamed samples later. prlimit,
 * not setrlimit: musl's applies it to all threads, which we don't have,
 * and that costs 2 KiB. */
static void fds_check(int ncpu)
{
	struct rlimit rl;
	/* an fd per event and CPU, a tracking ring per CPU, the ftrace
	 * instance's buffer per CPU and two of its files, and a dozen
	 * more: the signalfd, the sink, hotplug, /proc and tracefs; the
	 * listening socket, the connections that wait and the one served;
	 * push's spool and upload */
	int f = CFG_FTRACE && ft_n;
	u64 need = (u64)(nev - (CFG_FTRACE ? ft_n : 0) + CFG_TRACK + f) * ncpu + 16 + 2 * f +
		   (CFG_LISTEN && cfg_listen ? PULL_PEND + 2 : 0) + (CFG_PUSH ? push_nfd() : 0);

	if (syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, 0, &rl))
		return;
	rl.rlim_cur = rl.rlim_max;
	syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, &rl, 0);
	if (rl.rlim_cur < need)
		die(1, "%d events on %d CPUs need %L file descriptors; ulimit -n allows %L",
		    nev, ncpu, need, (u64)rl.rlim_cur);
}

/* ftrace's own events (ftrace:print; not function), which perf takes
 * and never records, on perf rings: an error, or a glob's left out. */
static void ftrace_own(void)
{
	int i;

	for (i = 0; CFG_TRACEPOINTS && i < nev; i++) {
		struct event *e = evs + i;

		if (e->ft || e->attr.type != TYPE_TRACEPOINT || !starts(e->name, "ftrace:") ||
		    !strcmp(e->name, "ftrace:function"))
			continue;
		if (!e->glob)
			die(2, "%s: ftrace writes it to its own buffer only, never to perf rings", e->tok);
		msg("%s: left out, ftrace writes it to its own buffer only", e->name);
		ev_drop(i--);
	}
}

static void open_all(void)
{
	u64 want[16], online[16], possible[16];
	int cpu, i, cfg_given = 0;

	for (i = 0; i < 16; i++)
		cfg_given |= !!cfg_cpus[i];
	if (sysfs_cpus("/sys/devices/system/cpu/online", online))
		die(1, "can't read /sys/devices/system/cpu/online");
	if (!CFG_HOTPLUG || sysfs_cpus("/sys/devices/system/cpu/possible", possible))
		memcpy(possible, online, sizeof(online));
	for (i = 0; i < 16; i++) {
		want[i] = online[i] & (cfg_given ? cfg_cpus[i] : ~0ULL);
		late[i] = possible[i] & ~online[i] & (cfg_given ? cfg_cpus[i] : ~0ULL);
	}
	for (cpu = 0; cpu < 1024; cpu++) {
		nhdr += want[cpu / 64] >> cpu % 64 & 1;
		nmax += (want[cpu / 64] | late[cpu / 64]) >> cpu % 64 & 1;
	}
	/* Tracepoints to the ftrace instance (where it can be), then the
	 * lean layout of what the perf rings hold. */
	for (i = 0; i < 16; i++)
		possible[i] = want[i] | late[i];
	/* The tracking rings first: they see every task the events see. */
	if (CFG_TRACK)
		track_init(nmax, want);
	if (CFG_FTRACE)
		ft_init(possible);
	if (CFG_DURATION)
		ev_synth_drop();
	ftrace_own();
	if (CFG_TRACEPOINTS && CFG_LEAN && cfg_lean && !(CFG_FTRACE && ft_n))
		noid_init();
	fds_check(nmax);
	/* Room for every CPU that may come: its ring is opened then. */
	rings = xmalloc(nmax * sizeof(*rings));
	trings = xmalloc(nmax * sizeof(*trings));
	tfds = xmalloc(nmax * sizeof(*tfds));
	offline = CFG_HOTPLUG ? xmalloc(nmax) : 0;
	for (i = 0; i < nev; i++) {
		evs[i].ids = xmalloc(nmax * sizeof(u64));
		if (CFG_HOTPLUG)
			evs[i].kid = xmalloc(2 * nmax * sizeof(u64));
		if (CFG_HOTPLUG || (CFG_TRIPWIRE && evs[i].trip))
			evs[i].fds = xmalloc(nmax * sizeof(int));
		if (CFG_TRIPWIRE && evs[i].trip)
			evs[i].cnt = xmalloc(nmax * sizeof(u64));
	}
	/* forward rings on any kernel, for the tests of every arch */
	if (CFG_OLDKERNEL && CFG_TESTHOOKS && hook("TRACER_FORWARD"))
		frings = xmalloc(nmax * sizeof(*frings));
	for (cpu = 0; cpu < 1024; cpu++)
		if (want[cpu / 64] >> cpu % 64 & 1)
			open_cpu(nring++, cpu, 0);
	if (!ev_dropped)
		return;
	for (i = cpu = 0; i < nev; i++)
		cpu += !evs[i].trip;
	if (!cpu)
		die(1, "the kernel refuses every event the config names");
	if ((CFG_LEAN && lean_noid) || (CFG_FTRACE && ft_n))
		tp_tab();	/* the events moved: their tracepoint table too */
}

/* ---- CPU hotplug: hotplug.c's socket says ---- */

/* What the socket says: a recorded CPU that went offline, or came back
 * (its events then are opened again). Returns 1 if fds changed. */
int dump_hotplug(int fd)
{
	char b[4096];
	ssize_t n;
	int changed = 0, k;

	while ((n = recv(fd, b, sizeof(b) - 1, 0)) > 0) {
		int on = b[1] == 'n', i;
		char *c;
		unsigned long cpu;

		b[n] = 0;
		if (!(c = xstrstr(b, "/cpu/cpu")))
			continue;
		cpu = xtou(c + 8, &c, 10);
		if (*c)
			continue;	/* a CPU's subdevice */
		for (i = 0; i < nring && (unsigned long)rings[i].cpu != cpu; i++)
			;
		if (i == nring && on && cpu < 1024 && late[cpu / 64] >> cpu % 64 & 1 && nring < nmax) {
			/* First time online: a ring of its own, under the
			 * header's ids of the first CPU's. */
			late[cpu / 64] &= ~(1ULL << cpu % 64);
			memset(cp + (size_t)nring * cpper, 0, cpper);
			if (open_cpu(nring, cpu, 0))
				continue;
			for (k = 0; k < nev; k++)
				evs[k].ids[nring] = evs[k].ids[0];
			nring++;
			msg("cpu %d came online: recording it", (int)cpu);
			regen = changed = 1;
			continue;
		}
		if (i == nring || offline[i] == !on)
			continue;
		offline[i] = !on;
		/* Said once its events and tracking ring are open again, so
		 * that what runs there after the line is recorded. */
		if (!on)
			msg("cpu %d went offline", (int)cpu);
		else if (!open_cpu(i, cpu, 1))
			msg("cpu %d is back online: recording it again", (int)cpu), regen = changed = 1;
		else
			msg("cpu %d is back online, but is not recorded (above)", (int)cpu);
	}
	if (changed)
		ev_ids_init();
	return changed;
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
	int ft;			/* the ftrace instance's pages of that ring */
};

struct ix {
	u64 t;
	u32 off, seq;
};

static struct ix *ix;		/* the side-band run's index: offsets from side_at */
static size_t ixmax, side_at;
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

/* Index the side-band records at cp[at, at+len) and sort the index by
 * time (a table slot or a CPU's tripwire ring is in order, the whole is
 * not). Returns how many. */
static size_t side_sort(size_t at, size_t len)
{
	size_t off, n = 0;

	side_at = at;
	for (off = 0; off < len && n < ixmax; off += ((struct rec_hdr *)(cp + at + off))->size, n++) {
		ix[n].off = off;
		ix[n].t = rec_time((void *)(cp + at + off), 0);
		ix[n].seq = n;
	}
	xsort(ix, n, sizeof(*ix), ix_cmp);
	return n;
}

static const struct rec_hdr *run_rec(const struct run *r)
{
	return (const void *)(r->ring < 0 ? cp + side_at + ((const struct ix *)r->p)->off : r->p);
}

/* A run's head: past any record of a ring that does not hold what its
 * layout says (see rec_ok), and its time. */
static void run_head(struct run *r)
{
	if (CFG_FTRACE && r->ft) {
		if (!ft_next(r->ring, &r->t))
			r->p = r->end;
		return;
	}
	while (r->ring >= 0 && r->p < r->end && !rec_ok((const void *)r->p))
		r->p += ((const struct rec_hdr *)r->p)->size;
	if (r->p < r->end)
		r->t = rec_time(run_rec(r), CFG_LEAN && cfg_lean && r->ring >= 0);
}

/* Past the run's head record. */
static void run_next(struct run *r)
{
	if (!CFG_FTRACE || !r->ft)
		r->p += r->ring < 0 ? sizeof(struct ix) : ((const struct rec_hdr *)run_rec(r))->size;
	run_head(r);
}

/* A record as the kernel wrote it (the full layout, or a tripwire's),
 * with the header's id for its event: a CPU that came back online has
 * new events, whose ids the header does not know. */
static const struct rec_hdr *id_fix(const struct rec_hdr *h, int ri)
{
	static u64 b[65536 / 8];
	const struct event *e;
	u64 *id;

	if (!CFG_HOTPLUG || !regen || h->size < 16)
		return h;
	memcpy(b, h, h->size);
	id = h->type == REC_SAMPLE ? b + 1 : h->size >= 8 + 32 ? b + h->size / 8 - 1 : 0;
	if (id && (e = ev_by_id(*id)))
		*id = e->ids[ri < 0 ? 0 : ri];
	return (const void *)b;
}

static u64 newest;	/* the newest ring record merge_out wrote */

/* ns as "2.41 s" */
static char *secs(char *b, u64 ns)
{
	u64 cs = ns / 10000000;

	fmt(b, 24, "%L.%u%u s", cs / 100, (unsigned)(cs / 10 % 10), (unsigned)(cs % 10));
	return b;
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
			const struct rec_hdr *h = run_rec(r), *w = 0;	/* w: as written */

			if (CFG_FTRACE && r->ft) {
				w = ft_write(r->ring, rings[r->ring].cpu);
			} else if (!CFG_LEAN || !cfg_lean || r->ring < 0) {
				pd_record(w = id_fix(h, r->ring));
			} else if (BE) {	/* expanded, then swapped */
				static u64 b[65536 / 8 + 8];

				if (lean_expand(h, r->ring, rings[r->ring].cpu, (void *)b))
					pd_record(w = (void *)b);
			} else {		/* expanded right into the output */
				w = out_room(h->size + 32);
				out_commit(lean_expand(h, r->ring, rings[r->ring].cpu, (void *)w));
			}
			if (CFG_LEAN)	/* (FTRACE needs LEAN; ft_est is its output) */
				out_in += CFG_FTRACE && r->ft ? (w ? w->size : 0) : h->size;
			if (CFG_TRACK && w)
				track_sample(w);	/* the dump line's unnamed tasks */
			nrec++;
			if (CFG_COVER && r->ring >= 0 && r->t > newest)
				newest = r->t;
			run_next(r);
			if (r->p >= r->end)
				break;
		} while (s < 0 || r->t < rn[s].t || (r->t == rn[s].t && m < s));
	}
}

static int open_dump_file(char *name)
{
	int fd;

	for (;; file_seq++) {
		fmt(name, 4096, file_seq ? "%s.%u" : "%s", cfg_out, file_seq);
		if ((fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) >= 0 || errno != EEXIST)
			return fd;
	}
}

/* One dump's state, from the copies to the dump line. */
struct dst {
	struct run *rn;		/* side-band, perf rings, ftrace's */
	char *wrap;		/* per ring (then ftrace's per CPU): it wrapped */
	u64 t0, lim, low, blind;
	size_t tot, side, nrec;
	int nrun, nwrap, nlive, first, fd, standalone, cont;
	char name[4096];
};

/* Each ring is copied while recording goes on (ring_snap): no pause,
 * no blind window. What the kernel wrote over during the copy (its
 * oldest bytes) is left out, as if the ring had wrapped there (all of
 * the ring, if the writer went round it during the copy's last part:
 * a pause would lose the newest instead), and so is what it had
 * reserved over them but not yet published: ring_keep asks the head
 * again 1 ms after the copy, when that output has ended. The walk reads
 * the copy in place afterwards. So each CPU is cut at its own moment,
 * a copy's time and 1 ms after the one before it. */
static void copy_rings(struct dst *d)
{
	struct run *rn = d->rn;
	size_t i;

	dump_drain();
	for (i = 0; i < (size_t)nring; i++) {
		struct ring *r = rings + i;
		unsigned long base, head;
		unsigned char *slot = cp + d->tot;	/* its copy, walked where it lies */

		rn[i + 1].ring = i;
		rn[i + 1].ft = 0;
		d->wrap[i] = 0;
		if (CFG_FTRACE && !r->base) {	/* no perf event of its own: all in ftrace's */
			rn[i + 1].p = rn[i + 1].end = cp + d->tot;
			continue;
		}
		base = ring_base(r, d->standalone || !stream_started ? 0 : r->prev);
		head = ring_snap(r, base, slot, 8);
		if (!(CFG_OLDKERNEL && frings))	/* (ours have no writer) */
			poll(0, 0, 1);
		d->tot += r->size;
		rn[i + 1].end = slot + r->size;
		/* wrap: more was written (since the stream's last dump) than
		 * the copy holds whole */
		rn[i + 1].p = ring_walk(slot, r->size, head, ring_keep(r, base, head, d->wrap + i));
		if (!d->standalone)
			r->prev = head;
	}
	/* The ftrace instance's pages: a run per CPU too. */
	if (CFG_FTRACE && ft_n) {
		d->blind = ft_grab(rec_off, d->cont, d->wrap + nring);
		for (i = 0; i < (size_t)nring; i++)
			d->rn[d->nrun++] = (struct run){ 0, (const void *)1, 0, i, 1 };
	}
}

/* The sink's dump, or push's after it: the last that the tripwire hits
 * since the last dump go into. */
static int last_pass(int pull)
{
	return pull == (CFG_PUSH && cfg_push ? DUMP_PUSH : -1);
}

/* The process table, read after the copies, so that it names every
 * task they hold (a task's COMM comes before its records), and the
 * tripwire hits (perf script shows what tripped): one run, sorted. */
static void side_run(struct dst *d, int pull)
{
	struct run *rn = d->rn;
	size_t i, side;
	u64 lo = -1;	/* the oldest record of the rings and the hits */

	if (CFG_TRACK || CFG_PROC)
		need_reset();
	for (i = 1; i < (size_t)d->nrun; i++) {	/* (an ftrace run's once) */
		run_head(rn + i);
		if (rn[i].p >= rn[i].end)
			continue;
		if (rn[i].t < lo)
			lo = rn[i].t;
		if (CFG_FTRACE && (CFG_TRACK || CFG_PROC) && rn[i].ft) {
			struct fcpu c = ft_fc[rn[i].ring];	/* a copy of the walk: its head stays */
			u32 tid;

			do	/* common_pid */
				memcpy(&tid, c.data + 4, 4), need(NEED_NAME, tid);
			while (ft_step(&c, 0));
		} else if (CFG_TRACK || CFG_PROC) {
			rec_needs(rn[i].p, rn[i].end, CFG_LEAN && cfg_lean);
		}
	}
	if (CFG_TRACK || CFG_PROC)
		rec_needs(tbuf, tbuf + tn, 0);
	for (i = 0; CFG_TRACK && i < tn; i += ((struct rec_hdr *)(tbuf + i))->size)
		if (rec_time((void *)(tbuf + i), 0) < lo)
			lo = rec_time((void *)(tbuf + i), 0);
	if (CFG_TRACK)
		track_read();
	if (CFG_TRACK || CFG_PROC)
		track_begin(d->standalone ? 0 : stream_started ? 2 : 1);
	side = CFG_TRACK ? track_copy(cp + d->tot, lo + 1 && !PREV ? lo : 0) : 0;
	memcpy(cp + d->tot + side, tbuf, tn);
	side += tn;
	if (last_pass(pull))
		tn = 0;		/* the sink's next dump has them otherwise */
	rn[0].p = (const void *)ix;
	rn[0].end = (const void *)(ix + (CFG_TRACK || CFG_TRIPWIRE ? side_sort(d->tot, side) : 0));
	rn[0].ring = -1;
	rn[0].ft = 0;
	run_head(rn);
	d->side = side;
}

/* What each ring covers: one that wrapped, from its oldest record;
 * one that did not, all since the start (or the stream's last dump). */
static void cover_trim(struct dst *d)
{
	struct run *rn = d->rn;
	size_t i;

	for (i = 1; CFG_COVER && i < (size_t)d->nrun; i++) {
		/* runs of a ring that exists (one of no perf event has none) */
		d->nlive += rn[i].ft || rings[rn[i].ring].base;
		if (d->wrap[i - 1] && rn[i].p < rn[i].end) {
			d->nwrap++;
			if (rn[i].t > d->lim)
				d->lim = rn[i].t, d->first = rings[rn[i].ring].cpu;
			if (rn[i].t < d->low)
				d->low = rn[i].t;
		}
	}
	/* trim: every CPU from the same time, the latest oldest record of a
	 * ring that wrapped; the side-band stays (what they need) */
	for (i = 1; cfg_trim && d->nwrap && i < (size_t)d->nrun; i++)
		while (rn[i].p < rn[i].end && rn[i].t < d->lim)
			run_next(rn + i);
	newest = 0;
}

/* Where this dump goes: the connection that pulled it, a new file, or
 * the sink; its fd, or -1 (said why). */
static int dump_sink(struct dst *d, const char *why, int pull)
{
	int fd;

	if (CFG_LISTEN && pull >= 0) {
		fd = pull;
		fmt(d->name, sizeof(d->name), "the connection");	/* why names it */
	} else if (CFG_PUSH && pull == DUMP_PUSH) {
		fd = push_open(d->name, sizeof(d->name), why);
	} else if (!sink_stream) {
		if (CFG_ROOM)
			room_next(dumps);
		if ((fd = open_dump_file(d->name)) < 0) {
			msg(out_final ? "dump %d (%s): %s: the history is lost:" : "dump %d (%s): %s:", dumps, why, d->name);
			return -1;
		}
		if (CFG_ROOM)
			room_add(cfg_out, file_seq, fd);
		file_seq++;
	} else if ((fd = sink_get()) < 0) {
		msg("dump %d (%s): %s: %s", dumps, why, sink_name,
		    errno != ENXIO ? "can't open:" : out_final ? "nobody reads it; the history is lost" :
		    "nobody reads it; recording goes on");
		stream_started = 0;
		return -1;
	} else {
		fmt(d->name, sizeof(d->name), "%s", sink_name);
	}
	return fd;
}

/* The headers, the maps and names, the merged records; 0 or an errno. */
static int dump_write(struct dst *d, int pull)
{
	struct run *rn = d->rn;
	int fd = d->fd, err, binfile = CFG_PERF_FILE &&
		((!sink_stream && !cfg_frame && pull == -1) || (CFG_PUSH && pull == DUMP_PUSH));
	size_t i, tot;

	for (i = 1, tot = d->side; i <= (size_t)nring; i++)
		tot += rn[i].end - rn[i].p;
	if (CFG_FTRACE && ft_n)
		tot += ft_est;	/* ftrace's, about */
	if (CFG_ROOM)
		out_bound = pull == -1 && !sink_stream ? room_make : CFG_PUSH && pull == DUMP_PUSH ? push_room : 0;
	out_begin(fd, tot + 1, dumps, (cfg_frame && pull == -1) | (pull >= 0) * OUT_YIELD |
		  (pull == -1 && ((CFG_LISTEN && cfg_listen) || (CFG_PUSH && cfg_push))) * OUT_STALL | !cfg_zstd * OUT_ABOUT,
		  sink_stream || pull != -1 ? 0 : d->name);
	if (binfile)
		pd_file_head();
	else if (d->standalone || !stream_started)
		pd_stream_head();
	/* From here on, records: compressed with the zstd key. */
	out_zstd(cfg_zstd);
	if (d->standalone || !stream_started)
		pd_kernel_maps();
	if (CFG_PERSIST)
		ft_comms();
	if (CFG_TRACK)
		proc_gone();
	if (CFG_PROC && !(CFG_PERSIST && ft_prev))	/* (this boot's processes) */
		proc_all();
	if (hit_comm[0] && strcmp(hit_comm, "?"))
		pd_comm(hit_id[0], hit_id[1], hit_comm), name_bit(hit_id[1], 1);
	if (last_pass(pull))
		hit_comm[0] = 0;
	d->nrec = merge_out(rn, d->nrun);
	if (CFG_FTRACE && !d->standalone && ft_n)
		ft_sent();
	out_zstd(0);
	if (binfile) {
		err = pd_file_end(fd);
	} else {
		pd_stream_round();
		err = out_end();
		/* A stream cut short (a fifo's reader left) begins again. */
		if (pull < 0)
			stream_started = !err;
	}
	if (!sink_stream && pull == -1) {
		if (CFG_ROOM)
			room_done(fd, err);
		close(fd);
		if (err)
			unlink(d->name);	/* ours (O_EXCL), and useless half written */
	}
	return err;
}

/* The dump line, or why the dump failed. */
static int dump_report(struct dst *d, const char *why, int pull, int err)
{
	u64 t2 = now_us();

	if (err) {
		errno = err;
		if ((CFG_LISTEN || CFG_PUSH) && (err == ETIMEDOUT || (pull >= 0 && err == EINTR)))
			msg("dump %d (%s): given up%s", dumps, why, err == EINTR ? " for a signal, a tripwire or a request" :
			    pull >= 0 ? ": nothing read for 5 s" : ": nothing read for 10 s, recording goes on");
		else
			msg(out_final ? "dump %d (%s): writing %s failed: the history is lost:" :
			    "dump %d (%s): writing %s failed, recording goes on:", dumps, why, d->name);
		return -1;
	} else {
		unsigned long used = 0, ev = 0, dr = 0, un = 0;
		char tab[100] = "";

		if (CFG_TRACK && cfg_procs) {
			track_stats(&used, &ev, &dr, &un);
			fmt(tab, sizeof(tab), ", procs %L/%L (%L evicted, %L not kept), %L tasks unnamed",
			    (u64)used, (u64)cfg_procs, (u64)ev, (u64)dr, (u64)un);
		}
		char off[24] = "", z[40] = "", cov[104], a[24], b[24];
		int i, noff = 0;

		for (i = 0; CFG_HOTPLUG && i < nring; i++)
			noff += offline[i];
		if (noff)
			fmt(off, sizeof(off), " (%d offline)", noff);
		if (CFG_ZSTD && cfg_zstd)
			fmt(z, sizeof(z), " (zstd, from %L)", out_raw_pos);
		/* The time it covers: on every CPU, from the latest oldest
		 * record of a ring that wrapped; on some, from the earliest. */
		if (!CFG_COVER)
			cov[0] = 0;
		else if (!d->nwrap)
			fmt(cov, sizeof(cov), ", covers all since %s", d->cont ? "the last dump" : "the start");
		else if (cfg_trim)
			fmt(cov, sizeof(cov), ", covers %s on all CPUs (trimmed to cpu %d's oldest)",
			    secs(a, newest - d->lim), d->first);
		else
			fmt(cov, sizeof(cov), ", covers %s on all CPUs (cpu %d least), %s on some",
			    secs(a, newest - d->lim), d->first, d->nwrap < d->nlive ?
			    (d->cont ? "all since the last dump" : "all since the start") : secs(b, newest - d->low));
		msg("dump %d (%s): %L bytes%s, %L records, %d CPUs%s, paused %L.%u us, wrote in %L us, to %s%s%s%s",
		    dumps, why, out_pos, z, (u64)d->nrec, nring, off, d->blind / 1000, (unsigned)(d->blind / 100 % 10),
		    t2 - d->t0, d->name, cov, tab, CFG_FTRACE ? ft_how(1) : "");
	}
	return 0;
}

/* Returns 0, or -1 if the dump could not be written. pull: a connection
 * that asked for a dump (listen=), which gets a standalone stream and
 * gives way to a signal; -1: the sink's; DUMP_PUSH: push's, a
 * standalone file into the spool. */
int dump(const char *why, int pull)
{
	struct run rn[2 * nring + 1];	/* side-band, perf rings, ftrace's */
	char wrap[2 * nring];
	/* Files and framed dumps each stand alone; a binary stream sends
	 * only what is new since the last dump. */
	int standalone = !sink_stream || cfg_frame || pull != -1, err;
	struct dst d = { .rn = rn, .wrap = wrap, .low = -1, .first = -1, .nrun = nring + 1,
			 .standalone = standalone, .cont = !standalone && stream_started };

	d.t0 = now_us();
	copy_rings(&d);
	side_run(&d, pull);
	cover_trim(&d);
	dumps += pull != DUMP_PUSH;	/* push's: the same dump as the sink's */
	if ((d.fd = dump_sink(&d, why, pull)) < 0)
		return -1;
	err = dump_write(&d, pull);
	if (CFG_PUSH && pull == DUMP_PUSH)
		err = push_add(d.fd, err, out_pos);
	return dump_report(&d, why, pull, err);
}

/* A tripwire's record, for the next dump (perf script shows what
 * tripped); what does not fit waits for none. */
void dump_keep(const struct rec_hdr *h)
{
	if (h->size >= 8 + 32 && tn + h->size <= sizeof(tbuf)) {
		memcpy(tbuf + tn, h, h->size);
		tn += h->size;
	}
}

static void drop(const struct rec_hdr *h, void *u)
{
}

/* Before 4.7: what the kernel's forward rings hold, moved into ours
 * (ring_push), or dropped while recording is off. On each ring's
 * wake-up, before each dump, and at each toggle. */
void dump_drain(void)
{
	int i;

	for (i = 0; CFG_OLDKERNEL && frings && i < nring; i++)
		if (frings[i].base)
			ring_read(frings + i, rec_off ? drop : ring_push, rings + i);
}

/* Recording off (SIGUSR1) or back on (SIGCONT); returns whether that
 * changed anything. */
int dump_toggle(int off)
{
	int i;

	if (rec_off == off)
		return 0;
	dump_drain();		/* before 4.7: what came until now, or not */
	rec_off = off;
	for (i = 0; i < nring; i++)
		if (rings[i].base && !(CFG_OLDKERNEL && frings) && ring_pause(rings + i, rec_off))
			msg("cpu %d: PAUSE_OUTPUT:", rings[i].cpu);
	if (CFG_FTRACE)
		ft_pause(rec_off);
	return 1;
}

/* Open everything, and allocate now all that a dump needs. */
void dump_init(void)
{
	size_t n;
	int i;

	if (cfg_buf >= 64 << 20)
		msg("setting up %L MiB rings per CPU and their copies: this takes a while", (u64)cfg_buf >> 20);
	open_all();
	ev_ids_init();
	/* the rings' copies (none if ftrace has every event), faulted in now; the side-band */
	for (i = 0; i < nring; i++)
		cpper = rings[i].base ? cfg_buf : cpper;
	n = sizeof(tbuf) + (CFG_TRACK ? track_max() : 0);
	ixmax = n / 40;		/* a side-band record is at least 40 bytes */
	ix = xmalloc(ixmax * sizeof(*ix));
	if (cfg_buf > ((size_t)-1 / 2 - n) / (nmax + 1))
		die(2, "config: buf=%L on %d CPUs is more than this machine can address", (u64)cfg_buf, nmax);
	memcg_check((u64)nring * cpper + n, "the rings' copies");
	cp = xmalloc(nmax * cpper + n);
	memset(cp, 0, nring * cpper);
}
