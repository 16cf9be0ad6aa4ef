/* ftrace.c - tracepoints through the kernel's own ring, at ftrace's cost.
 *
 * perf's tracepoint path (perf_tp_event, the sample output) costs three
 * times what ftrace's ring buffer does for the same event. So the
 * config's tracepoints are recorded in a private ftrace instance,
 * tracefs/instances/tracer.PID: overwrite mode, trace_clock perf (the
 * clock of perf's sample times, so both merge in time order), the
 * per-CPU size of buf=, the CPUs of cpus=, each event with its filter
 * (the grammar perf's IOC_SET_FILTER takes is ftrace's). Sampled,
 * software and hardware events, the tracking ring and tripwires stay on
 * perf.
 *
 * The ring, per CPU, is pages ("sub-buffers"): a u64 timestamp, a
 * commit count (a long of the kernel's: 4 or 8 bytes, from
 * events/header_page), then events, each a u32 of a 5-bit type_len and
 * a 27-bit time delta (bitfields: the low bits first on little-endian
 * kernels, the high bits on big-endian ones), in the kernel's byte
 * order, which is ours:
 *   type_len 1..28: data of type_len * 4 bytes follows;
 *   0: a u32 array[0] = 4 + the data's length, then the data;
 *   29: padding of 4 + array[0] bytes (time_delta 0: the page ends);
 *   30: a time extend, delta += array[0] << 27;
 *   31: an absolute time (the low 59 bits of it).
 * The data is byte for byte a perf sample's RAW: common_type (the
 * tracepoint's id, as perf's attr.config), flags, preempt count,
 * common_pid (the tid), then the event's fields.
 *
 * How a dump reads the ring, by what the kernel offers:
 * - mmap of per_cpu/cpuN/trace_pipe_raw (6.10+): a meta page, then every
 *   sub-buffer, copied as they lie while recording goes on (ft_grab),
 *   ordered by their timestamps. Nothing is consumed. Not on CPUs whose
 *   data caches may alias (FT_ALIAS): the kernel flushes only for its
 *   own reads, the two below.
 * - snapshot (CONFIG_TRACER_SNAPSHOT): writing 1 swaps the ring with a
 *   spare at once, recording never stops, and per_cpu/cpuN/snapshot_raw
 *   reads the frozen pages. Consumed: a dump holds what came since the
 *   one before.
 * - else a consuming read of trace_pipe_raw while paused; the same.
 * The instance goes on every exit; one whose tracer was SIGKILLed goes
 * at the next tracer's start. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include "config.h"
#include "memcg.h"
#include "sink.h"
#include "perfdata.h"
#include "proc.h"
#include "track.h"
#include "lean.h"
#include "ftrace.h"

enum { MAPPED = 1, SNAP, READ };

int ft_n;
int ft_prev;		/* tracer -b: the boot before's pages */
static int made, how, on_fd = -1, snap_fd = -1, ft_only;	/* ft_only: of synth events alone */
int ft_hsz;			/* a page's header */
char ft_iname[72];		/* the instance: tracer.PID, or persist='s */
u32 ft_sbs;			/* page size */
struct fcpu *ft_fc;
static const unsigned char *srt;	/* the copy ts_cmp sorts */
static u32 rs, rn;		/* its ring's oldest page, the ring's pages */
static u64 lost;		/* read pages: overwritten, all CPUs */
static int unc;			/* at least that many */
u64 ft_est;			/* the dump's size of the copies, about */
static int force;		/* TRACER_FTPATH: the way tests take */

struct ft_pages *ft_bp;		/* tracer -b: per CPU, its pages */
u64 (*ft_bootwalk)(char *wrap);	/* boot.c's, set by ft_boot */

/* persist= (where built in) */
#define PERSIST (CFG_PERSIST ? cfg_persist : 0)

/* The header's ids of the instance's events: FT_ID | event << 16 | ring. */
#define FT_ID (1ULL << 60)

/* A tracefs file of the instance (file 0: the instance), written. */
char *ft_path(const char *file)
{
	static char p[300];

	fmt(p, sizeof(p), "%s/instances/%s/%s", tracefs, ft_iname, file ? file : "");
	return p;
}

/* -1 with errno of the open or the write (a close of -1 would say
 * EBADF) */
static int put(const char *file, const char *s)
{
	int fd = open(ft_path(file), O_WRONLY | O_TRUNC | O_CLOEXEC), r;

	if (fd < 0)
		return -1;
	r = write(fd, s, strlen(s)) != (ssize_t)strlen(s);
	close(fd);
	return -r;
}

/* The syscalls, not libc's wrappers (a few dozen bytes each); the *at
 * ones, which every arch has. syscall() takes each argument as a long:
 * a u64 on a 32-bit arch would take two registers, or two from an
 * aligned pair (mipsel's kill then removed our own instance). */
#define RMDIR(p) syscall(SYS_unlinkat, (long)AT_FDCWD, p, (long)AT_REMOVEDIR)
#define UNMAP(a, n) syscall(SYS_munmap, a, (long)(n))

/* The instance goes: closed and unmapped first, which it needs. */
void ft_end(void)
{
	int i;

	if (PERSIST && on_fd >= 0) {
		/* paused, and read empty: the next persist= starts on it */
		ft_pause(1);
		for (i = 0; i < nmax; i++)
			while (ft_fc[i].cp && ft_fc[i].fd >= 0 && read(ft_fc[i].fd, ft_fc[i].cp, ft_sbs) > 0)
				;
		on_fd = -1;
	}
	if (!made)
		return;
	made = 0;
	for (i = 0; i < nmax; i++) {
		if (ft_fc[i].map)
			UNMAP(ft_fc[i].map, ft_fc[i].len);
		close(ft_fc[i].fd);
	}
	close(on_fd);
	close(snap_fd);
	if (RMDIR(ft_path(0)))
		msg("%s: can't remove it:", ft_path(0));
}

/* Ours: an instance named tracer.* whose directory bears our mark
 * (inst_marked), set once we hold the instance open. While a tracer
 * holds it, the kernel refuses its rmdir (EBUSY); so one of ours that
 * goes was left by a tracer that was killed, whatever its pid is now,
 * in any pid namespace. Another's instance, marked or not, is never
 * touched. (A duration tripwires' instance, tracer.PID.dN, is dur.c's.) */
static void stale(const char *name, void *ctx)
{
	char p[300];

	fmt(p, sizeof(p), "%s/instances/%s", tracefs, name);
	if (!strncmp(name, "tracer.", 7) && inst_marked(p) && !RMDIR(p))
		msg("removed instances/%s: its tracer was killed", name);
}

/* A new instance: tracer.PID, or tracer.PID.2, .3, ... where that name
 * is taken (a tracer of the same pid in another pid namespace); held
 * open (on_fd), then marked ours. */
static int make(void)
{
	char p[300];
	int i;

	fmt(p, sizeof(p), "%s/instances", tracefs);
	dir_each(p, stale, 0);
	for (i = 1;; i++) {
		fmt(ft_iname, sizeof(ft_iname), i > 1 ? "tracer.%d.%d" : "tracer.%d", (int)getpid(), i);
		if (!syscall(SYS_mkdirat, (long)AT_FDCWD, ft_path(0), 0700L))
			break;
		if (errno != EEXIST || i == 64)
			return -1;
	}
	made = 1;
	if ((on_fd = open(ft_path("tracing_on"), O_WRONLY | O_CLOEXEC)) < 0)
		return -1;
	/* unmarked, it still records; only a SIGKILL would leave it */
	inst_mark(ft_path(0));
	return 0;
}

/* Why the instance can't be (file refused): it goes, tracepoints stay
 * on perf. */
static int fall(const char *file)
{
	int i;

	if (PERSIST)
		die(1, "persist=%s: %s:", ft_iname, ft_path(file));
	msg("ftrace: %s: tracepoints go to perf rings:", ft_path(file));
	ft_end();
	for (i = ft_n = 0; i < nev; i++)
		evs[i].ft = 0;
	return 0;
}

/* The kernel's long: the page header's commit field (ft_hsz: 8 + it). */
int ft_header(void)
{
	char b[1024], *s;
	long r = readfile(ft_path("../../events/header_page"), b, sizeof(b) - 1);

	b[r > 0 ? r : 0] = 0;
	r = (s = xstrstr(b, "commit;\toffset:8;\tsize:")) ? 8 + xtou(s + 23, 0, 10) : 0;
	ft_hsz = r;
	return r != 12 && r != 16;
}

/* A number of the instance's file (0: none). */
static u64 fnum(const char *file)
{
	char b[24];
	long n = readfile(ft_path(file), b, sizeof(b) - 1);

	b[n > 0 ? n : 0] = 0;
	return xtou(b, 0, 10);
}

/* The sub-buffers a CPU's ring may hand a reader, from what the kernel
 * says, not from buf=: its size (per_cpu/cpuN/buffer_size_kb, the
 * sub-buffers' data, rounded down to KiB; bounded: 2 GiB; 0 for a CPU
 * that has no buffer, as one outside tracing_cpumask on 6.1) over what
 * one holds (4080 bytes of a 4 KiB page), plus the reader's own and one
 * for the rounding. ft_sbs: the sub-buffer's size, buffer_subbuf_size_kb
 * (6.8+), else a page. */
u32 ft_nsub(int cpu)
{
	char p[40];
	u64 kb = fnum("buffer_subbuf_size_kb");

	ft_sbs = kb >= 4 && kb <= 1024 ? kb << 10 : (u64)getpagesize();
	fmt(p, sizeof(p), "per_cpu/cpu%d/buffer_size_kb", cpu);
	kb = fnum(p);
	kb = kb < 2 << 20 ? kb : 2 << 20;
	return (kb << 10) / (ft_sbs - ft_hsz) + 3;
}

/* A count of CPU cpu's per_cpu/cpuN/stats ("entries: ", "overrun: "),
 * 0 if it has none. */
static u64 ft_stat(int cpu, const char *key)
{
	char p[40], b[512], *s;
	long r;

	fmt(p, sizeof(p), "per_cpu/cpu%d/stats", cpu);
	r = readfile(ft_path(p), b, sizeof(b) - 1);
	b[r > 0 ? r : 0] = 0;
	return (s = xstrstr(b, key)) ? xtou(s + strlen(key), 0, 10) : 0;
}

/* A persistent instance (Linux 6.12: reserve_mem= and trace_instance=
 * on the command line) and what it holds: -1 if the instance is none
 * (no last_boot_info), 1 if any CPU's buffer holds records not read yet
 * (per_cpu/cpuN/stats, "entries: N"), else 0. Which boot they are of
 * the kernel does not say for sure (6.12's last_boot_info gives the
 * text's move since the boot before, 0 without KASLR; later ones an
 * address or "# Current"), so what was not read counts as the boot
 * before's: persist= starts only on an instance read empty, and tracer
 * -b reads what is there. pd_kdelta, pd_ktext: that boot's kernel text. */
int ft_persistent(void)
{
	char b[512], *s;
	int cpu, n = 0, neg;
	long r = readfile(ft_path("last_boot_info"), b, sizeof(b) - 1);

	if (r < 0)
		return -1;
	b[r] = 0;
	if ((s = xstrstr(b, "text delta:"))) {
		s += 11 + span(s + 11, " \t", 1);
		neg = *s == '-';
		pd_kdelta = xtou(s + neg, 0, 10) * (neg ? -1 : 1);
	} else if (*b != '#') {
		pd_ktext = xtou(b, 0, 16);
	}
	for (cpu = 0; cpu < 1024 && !n; cpu++)
		n = ft_stat(cpu, "entries: ") != 0;
	return n;
}

/* The instance's settings: file, then value ("" for the CPUs, then the
 * size). */
static const char set[] = "tracing_on\0" "0\0" "trace_clock\0" "perf\0" "trace_options\0" "overwrite\0"
			  "tracing_cpumask\0" "\0" "buffer_size_kb\0" "\0";

/* set into the instance, with mask's CPUs and buf='s size; 0 if it
 * refused one (then it goes). */
static int ft_settings(const u64 *mask)
{
	char b[1024], *s;
	const char *k, *v;
	int i;

	/* tracing_cpumask: 32-bit hex words, the highest first */
	for (i = 31; i > 0 && !(u32)(mask[i / 2] >> 32 * (i % 2)); i--)
		;
	for (s = b; i >= 0; i--) {
		s = hex8(s, mask[i / 2] >> 32 * (i % 2));
		*s++ = ',';
	}
	s[-1] = 0;
	fmt(s, 24, "%L", (u64)(cfg_buf >> 10));
	/* A persistent instance: its size is the memory the kernel keeps
	 * (buffer_size_kb says EBUSY), and options/overwrite stays as it
	 * is, 1 (on 6.12 writing 0 there oopses, and 1 is no change). */
	for (k = set, i = 0; *k && !(PERSIST && i == 4); k = v + strlen(v) + 1, i++) {
		v = k + strlen(k) + 1;
		if (PERSIST && i == 2)
			continue;
		if (put(k, *v ? v : i == 3 ? b : s))
			return fall(k);
	}
	return 1;
}

/* Each tracepoint's filter, then enable, in the instance: one it
 * refuses is an error, or left out if a glob named it. */
static void ft_enable(void)
{
	char b[1024], *s;
	int i;

	for (i = 0; i < nev; i++) {
		struct event *e = evs + i;

		/* sched_stat_*: perf makes the count they carry the sample's
		 * period (__perf_count), ftrace does not: they stay on perf */
		if (e->trip || e->attr.type != TYPE_TRACEPOINT || !strncmp(e->name, "sched:sched_stat_", 17) ||
		    (ft_only && !e->synth))
			continue;
		tp_path(b, sizeof(b), e->name, "filter");
		s = b + strlen(tracefs) + 1;	/* events/SYS/NAME/filter */
		if (e->filter && put(s, e->filter)) {
			if (!e->glob)	/* (die's tidy removes the instance) */
				die(2, "config: %s: the kernel rejects this filter", e->tok);
			msg("%s: left out, the filter does not apply to it", e->name);
			ev_drop(i--);
			continue;
		}
		memcpy(b + strlen(b) - 6, "enable", 7);
		/* ftrace's own events (ftrace:print) have no enable, and
		 * perf takes them but never records them: a glob's go, a
		 * named one is an error; the others stay in the instance */
		if (put(s, "1")) {
			if (!e->glob)
				die(1, "%s: the ftrace instance refuses it: %s:", e->tok, ft_path(s));
			msg("%s: left out, the ftrace instance refuses it: %s:", e->name, ft_path(s));
			ev_drop(i--);
			continue;
		}
		e->ft = 1;
		ft_n++;
	}
}

/* The tracepoints of the config into a new instance; 0 if they stay
 * on perf (engine=perf, no instances, a kernel that refuses). mask:
 * the CPUs to record, now or when they come online. */
int ft_init(const u64 *mask)
{
	const char *k;
	int i, n = 0, only = 0;
	long r;

	if (!CFG_FTRACE || !CFG_LEAN || !tracefs)
		return 0;
	for (i = 0; i < nev; i++)
		n += !evs[i].trip && evs[i].attr.type == TYPE_TRACEPOINT, only += evs[i].synth;
	if (!n || (cfg_engine == 1 && !PERSIST && !only))
		return 0;
	/* what only perf gives: callchains, a tracepoint's IP (full), one
	 * event with two filters, our namespace's pids (but engine=ftrace);
	 * the walk's id table built whichever */
	i = tp_tab() < 0;
	k = cfg_stack ? "stack" : !cfg_lean ? "full" : cfg_engine == 1 ? "engine=perf" : i ? "a tracepoint twice" :
	    pid_ns() && cfg_engine != 2 ? "a pid namespace (ftrace's pids are the host's; engine=ftrace keeps them there)" : 0;
	if (k) {
		if (PERSIST)
			die(2, "config: persist= takes the ftrace engine; %s needs perf rings", k);
		if (!only || cfg_stack || !cfg_lean)	/* (with synth: layouts that differ, not tried) */
			return msg("%s: tracepoints on perf rings", k), 0;
		msg("%s: tracepoints on perf rings, synthetic events in an ftrace instance", k);
		ft_only = 1;
	}
	ft_fc = xmalloc(nmax * sizeof(*ft_fc));
	for (i = 0; i < nmax; i++)
		ft_fc[i].fd = -1;
	if (PREV) {
		if (ft_header())
			die(1, "%s: not a page header tracer reads", ft_path("../../events/header_page"));
		for (i = 0; i < nev; i++)
			ft_n += evs[i].ft = !evs[i].trip && evs[i].attr.type == TYPE_TRACEPOINT;
		return ft_n;
	}
	if (PERSIST) {
		fmt(ft_iname, sizeof(ft_iname), "%s", PERSIST);
		if ((r = ft_persistent()) < 0)
			die(1, "persist=%s: no persistent instance; boot Linux 6.12+ with "
			    "reserve_mem=4M:4096:trace trace_instance=%s@trace", ft_iname, ft_iname);
		/* Read, never mapped: the kernel refuses to map it, and on
		 * 6.12 the attempt left the CPU's buffer invalid for the
		 * next boot ("buffer invalid commit"). */
		how = READ;
		if (r)
			die(1, "persist=%s holds records not read (the boot before's?): tracer -b -o FILE "
			    "writes them out (echo > %s drops them)", ft_iname, ft_path("trace"));
	} else {
		if (make())
			return fall(made ? "tracing_on" : 0);
	}
	if (ft_header())
		return fall("../../events/header_page");
	if (!ft_settings(mask))
		return 0;
	ft_enable();
	if (on_fd < 0)
		on_fd = open(ft_path("tracing_on"), O_WRONLY | O_CLOEXEC);
	snap_fd = open(ft_path("snapshot"), O_WRONLY | O_CLOEXEC);
	return on_fd < 0 ? fall("tracing_on") : ft_n;
}

/* The CPU's buffer, for ring ri, and its events' ids there (the
 * header's: none the kernel gives out, its counter never gets near
 * FT_ID). Mapped where the kernel can (the first CPU sets the mode),
 * else read. -1 if it can't be. */
int ft_open(int ri, int cpu)
{
	struct fcpu *f;
	char p[40], *e;
	u32 *m, mps, n;
	u64 len;
	int i;

	if (!ft_n)	/* (and no ft_fc) */
		return 0;
	f = ft_fc + ri;
	f->cpu = cpu;
	for (i = 0; i < nev; i++)
		if (evs[i].ft)
			evs[i].ids[ri] = FT_ID | (u64)i << 16 | ri;
	if (PREV) {	/* the pages ft_boot read */
		f->cp = ft_bp[cpu].p, f->ord = ft_bp[cpu].ord, f->ncp = ft_bp[cpu].n;
		return 0;
	}
	/* For tests only: TRACER_FTPATH=map|snap|read[:KB] takes that way,
	 * or none, where the kernel has others (with sub-buffers of KB). */
	if (CFG_TESTHOOKS && !how && (e = (char *)hook("TRACER_FTPATH"))) {
		force = *e == 'm' ? MAPPED : *e == 's' ? SNAP : READ;
		if ((e = strchr(e, ':')) && put("buffer_subbuf_size_kb", e + 1))
			return -1;
	}
	fmt(p, sizeof(p), "per_cpu/cpu%d/%s_raw", cpu, how == SNAP ? "snapshot" : "trace_pipe");
	if ((f->fd = open(ft_path(p), O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0)
		return -1;
	/* the meta page: its size, the page size, the pages; bounded */
	if (how <= MAPPED && force <= MAPPED && !FT_ALIAS && (m = mmap(0, 4096, PROT_READ, MAP_SHARED, f->fd, 0)) != MAP_FAILED) {
		mps = m[0], ft_sbs = m[2], n = m[3];
		UNMAP(m, 4096);
		len = mps + (u64)n * ft_sbs;
		/* up to 1 MiB sub-buffers (6.8+), as many as buf=1g takes */
		if (mps <= 1 << 20 && ft_sbs <= 1 << 20 && mps >= 4096 && ft_sbs >= 4096 && n &&
		    n <= (1u << 30) / (ft_sbs - ft_hsz) + 4 &&
		    (f->map = mmap(0, f->len = len, PROT_READ, MAP_SHARED, f->fd, 0)) != MAP_FAILED)
			f->pg = f->map + mps, f->n = n;
		else
			f->map = 0;
	}
	if (!how) {
		/* The first CPU: mapped, or a snapshot's swap (which makes
		 * the spare), or reads while paused. */
		how = f->map ? MAPPED : force != READ && snap_fd >= 0 && write(snap_fd, "1", 1) == 1 ? SNAP : READ;
		if (force && how != force)
			return errno = ENOTSUP, -1;
		if (how == SNAP) {
			close(f->fd);
			return ft_open(ri, cpu);
		}
	}
	if (how == MAPPED && !f->map)
		return -1;
	f->cap = how == MAPPED ? f->n : ft_nsub(cpu);
	/* faulted in now, not at the first dump (seconds at buf=1g) */
	memcg_check((u64)f->cap * ft_sbs, "ftrace's copies");
	f->cp = memset(xmalloc((size_t)f->cap * ft_sbs), 0, (size_t)f->cap * ft_sbs);
	f->ord = xmalloc(f->cap * sizeof(*f->ord));
	if (!ri)	/* the first CPU, at start: all is set */
		ft_pause(0);
	return 0;
}

void ft_pause(int off)
{
	if (ft_n && write(on_fd, off ? "0" : "1", 1) != 1)
		msg("ftrace %s:", "tracing_on");
}

/* A mapped page's place: the reader's (0) first, then the ring's from
 * its oldest. */
static u32 place(u32 i)
{
	return i ? (i + rn - rs) % rn + 1 : 0;
}

/* Pages by their timestamps, and those of one stamp (a coarse clock)
 * as the ring has them. */
static int ts_cmp(const void *a, const void *b)
{
	u32 i = *(const u32 *)a, j = *(const u32 *)b;
	u64 x, y;

	memcpy(&x, srt + (size_t)i * ft_sbs, 8);
	memcpy(&y, srt + (size_t)j * ft_sbs, 8);
	return x < y ? -1 : x > y ? 1 : place(i) < place(j) ? -1 : place(i) > place(j);
}

/* The low u32 of a page's commit (a long): the length, and on a read
 * page the RB_MISSED_* flags (bits 31, 30). */
#define CW(pg) ((pg) + 8 + (ft_hsz == 16 && BE) * 4)

static u32 commit(const unsigned char *pg)
{
	u64 c = 0;

	if (ft_hsz == 16)
		memcpy(&c, pg + 8, 8);
	else
		memcpy((u32 *)&c + BE, pg + 8, 4);	/* a u32 into the u64's low half */
	c &= 0x3fffffff;	/* RB_MISSED_* flags on a read page */
	return c > ft_sbs - ft_hsz ? ft_sbs - ft_hsz : c;
}

/* The walk of ring ri's copy from its oldest page; cont: a stream goes
 * on, and sends only what is new. Returns whether the ring overwrote
 * records (since the stream's last dump). Mapped: the kernel counts
 * events overwritten (stats' overrun, asked after the copy: it may
 * count some the copy still has, never miss one it lacks), more than
 * at the stream's last dump, and the oldest page is newer than what
 * was sent; a ring full but not yet overwritten did not wrap. Read
 * pages (new since the last dump anyway): the kernel flagged events
 * lost before one. */
int ft_walk(struct fcpu *f, int cont)
{
	u64 t0 = 0;

	if (f->pg)
		f->ov = ft_stat(f->cpu, "overrun: ");

	f->i = f->k = 0;
	f->ev = f->pend = 0;
	f->kt = f->skip_t = 0;
	if (cont && f->pg)
		f->skip_t = f->last_t, f->skip_k = f->last_k;
	if (f->ncp)
		memcpy(&t0, f->cp + (size_t)f->ord[0] * ft_sbs, 8);
	return f->pg ? f->ov > (cont ? f->last_ov : 0) && t0 > f->skip_t : f->lost != 0;
}

/* A mapped page into its copy. The commit is loaded with acquire (the
 * writer stores it after the data, behind smp_wmb), then the data up to
 * it, then, behind a read barrier, the header again: a page the writer
 * started anew meanwhile (its stamp changed, its commit went back) is
 * copied again, and after 4 tries left out (commit 0). The writer that
 * takes a page anew stores commit 0, then the first event, then the
 * stamp, then the commit: so the commit is checked first, and the stamp
 * after it (acquire), or a page whose first event lies over the old
 * data could pass with its old stamp and a commit grown back. Weakly
 * ordered CPUs (ARM, RISC-V, ...) need both. The copy's commit: the one
 * loaded. */
static void pcopy(unsigned char *c, const unsigned char *l)
{
	u32 w, k, n = 0;
	u64 t, t2;

	for (k = 0; k < 4; k++) {
		w = __atomic_load_n((const u32 *)CW(l), __ATOMIC_ACQUIRE);
		memcpy(&t, l, 8);
		n = w & 0x3fffffff;
		n = n > ft_sbs - ft_hsz ? ft_sbs - ft_hsz : n;
		memcpy(c + ft_hsz, l + ft_hsz, n);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		w = __atomic_load_n((const u32 *)CW(l), __ATOMIC_ACQUIRE) & 0x3fffffff;
		memcpy(&t2, l, 8);
		if (t2 == t && w >= n)
			break;
		n = 0;
	}
	memset(c, 0, ft_hsz);
	memcpy(c, &t, 8);
	memcpy(CW(c), &n, 4);
}

/* A read page's events lost before it (RB_MISSED_EVENTS): the count the
 * kernel stored after the data (RB_MISSED_STORED, where there was room),
 * else at least 1. */
static u64 missed(struct fcpu *f, const unsigned char *pg)
{
	u32 w, c = commit(pg);
	u64 n = 0;

	memcpy(&w, CW(pg), 4);
	if (!(w >> 31))
		return 0;
	if (w >> 30 & 1 && ft_hsz + c + (ft_hsz - 8) <= ft_sbs)
		memcpy((u32 *)&n + (BE && ft_hsz == 12), pg + ft_hsz + c, ft_hsz - 8);
	f->unc |= !n;
	return n ? n : 1;
}

/* A mapped copy's pages in time order, the empty ones left out. Page 0
 * is the reader's (out of the ring: not written since); pages 1..n-1
 * are the ring in its order from where its head was at mmap, so its
 * oldest is where the stamps go back (or the first, if they don't). */
static void order(struct fcpu *f)
{
	u64 t, prev = 0;
	u32 i, n = 0, d = 0;

	rs = 1, rn = f->n > 1 ? f->n - 1 : 1;
	for (i = 0; i < f->n; i++) {
		const unsigned char *pg = f->cp + (size_t)i * ft_sbs;

		if (!commit(pg))
			continue;
		f->ord[n++] = i;
		memcpy(&t, pg, 8);
		if (i) {
			if (!d || (d == 1 && t < prev))
				rs = i, d++;
			prev = t;
		}
	}
	srt = f->cp;
	xsort(f->ord, f->ncp = n, 4, ts_cmp);
}

/* What ring f's copy becomes in the dump, about: its bytes, scaled by
 * what the events of up to 16 of its pages become as samples. */
static u64 estimate(const struct fcpu *f)
{
	struct fcpu w;
	u64 all = 0, in = 0, out = 0;
	u32 i, c, st = f->ncp / 16 + 1;

	for (i = 0; i < f->ncp; i++) {
		all += c = commit(f->cp + (size_t)f->ord[i] * ft_sbs);
		if (i % st)
			continue;
		memset(&w, 0, sizeof(w));
		w.cp = f->cp, w.ord = f->ord + i, w.ncp = 1;
		for (in += c; ft_step(&w, 1);)
			out += 56 + ((w.dlen + 11) & ~7u);
	}
	return in ? all * out / in : 0;
}

/* Ring f's copy against its pages, for ft_grab. ALL: each page whose
 * header changed is copied again; f->at: the copy's newest (of pages
 * 1..n-1, the latest stamp; of one, the later in the mapping). NEXT:
 * from there on in the ring's order, the pages the writer took anew
 * since, up to the first it did not, again, and after each the one
 * before it where that grew (the writer left it meanwhile): all whole
 * but the last (f->at), the ring as it was when that was copied.
 * CHECK: how many pages changed past the run after f->at (the writer's
 * since): each was copied before the writer took it anew, amid newer
 * ones (a copy preempted between them). */
enum { CHECK, NEXT, ALL };

static int resync(unsigned char *c, const unsigned char *l)	/* (if changed) */
{
	int ch = memcmp(c, l, ft_hsz);

	if (ch)
		pcopy(c, l);
	return ch;
}

static u32 follow(struct fcpu *f, int mode)
{
	u32 i = mode == ALL ? 0 : f->at, k, n = 0, run = 1, ch;
	size_t j = f->pg ? ((i + f->n - 3) % (f->n - 1) + 1) * (size_t)ft_sbs : 0;	/* (n >= 3) */
	unsigned char *c, *l, *pc = f->cp + j, *pl = f->pg + j;	/* the page before */
	u64 t, m = 0;

	for (k = 0; f->pg && k < f->n - (mode != ALL); k++, i = mode == ALL ? k : i % (f->n - 1) + 1) {
		c = f->cp + (size_t)i * ft_sbs, l = f->pg + (size_t)i * ft_sbs;
		ch = mode == CHECK ? memcmp(c, l, ft_hsz) : resync(c, l);
		if (mode == NEXT) {
			if (k && !ch)
				break;
			resync(pc, pl);
			f->at = i, pc = c, pl = l;
		} else if (mode == ALL) {
			memcpy(&t, c, 8);
			if (i && *(u32 *)CW(c) && t >= m)	/* (a copy's commit: pcopy's) */
				m = t, f->at = i;
		} else if (k) {
			run &= !!ch;
			n += ch && !run;
		}
	}
	return n;
}

/* Every CPU's pages into its copy, and each copy's walk; wrap[ri]: ring
 * ri overwrote records. Returns the blind window (ns). Mapped: follow,
 * 8 rounds that do not settle (a copy preempted long), then one with
 * the instance paused; the copy put in time order. Snapshot: a swap,
 * then the frozen pages are read. Else: read while paused. Read pages
 * come oldest first, as many as the ring holds (nsub), gone from it. */
u64 ft_grab(int rec_off, int cont, char *wrap)
{
	struct fcpu *f;
	u64 a = 0, b = 0;
	int ri, k = how == MAPPED ? 0 : 8, more = 1, pz = 0;

	if (PREV)
		return ft_bootwalk(wrap);
	/* (snapshot swaps and read pages: the last round alone) */
	for (; more && k < 9; k++) {
		if (k == 8 && (how == SNAP ? write(snap_fd, "1", 1) != 1 : (pz = 1, a = now_ns(), ft_pause(1), 0)))
			msg("ftrace %s:", "snapshot");
		for (more = ri = 0; ri < nring; ri++)
			follow(f = ft_fc + ri, ALL), follow(f, NEXT), more |= follow(f, CHECK);
	}
	for (ri = 0; ri < nring; ri++)
		for (f = ft_fc + ri, f->ncp = f->unc = 0, f->lost = 0; !f->pg && f->fd >= 0 && f->ncp < f->cap &&
		     read(f->fd, f->cp + (size_t)f->ncp * ft_sbs, ft_sbs) >= ft_hsz; f->ncp++)
			f->ord[f->ncp] = f->ncp, f->lost += missed(f, f->cp + (size_t)f->ncp * ft_sbs);
	if (pz) {
		if (!rec_off)
			ft_pause(0);
		b = now_ns();
	}
	for (ri = unc = 0, lost = ft_est = 0; ri < nring; ri++) {
		f = ft_fc + ri;
		if (f->pg)
			order(f);
		wrap[ri] = ft_walk(f, cont);
		lost += f->lost;
		unc |= f->unc;
		ft_est += estimate(f);
	}
	proc_tgid(-1);	/* asked anew */
	return b - a;
}

static u32 rd32(const unsigned char *p)
{
	u32 v;

	memcpy(&v, p, 4);
	return v;
}

const struct event *ft_ev_of(const unsigned char *data)
{
	u16 v;

	memcpy(&v, data, 2);	/* common_type */
	return tp_ev(v);
}

/* The walk's next data event (of our events, or any: any); 0 when
 * there is none. Nothing in a page is trusted beyond its commit, nor an
 * event beyond its page. */
int ft_step(struct fcpu *c, int any)
{
	for (;;) {
		const unsigned char *e = c->ev;
		u32 h, tl, d, len;

		if (c->pend - e < 8) {
			const unsigned char *pg;

			if (c->i >= c->ncp)
				return 0;
			pg = c->cp + (size_t)c->ord[c->i++] * ft_sbs;
			memcpy(&c->pt, pg, 8);
			c->t = c->pt;
			c->ev = pg + ft_hsz;
			c->pend = c->ev + commit(pg);
			continue;
		}
		h = rd32(e);
		tl = BE ? h >> 27 : h & 31;
		d = BE ? h & 0x7ffffff : h >> 5;
		if (tl == 29) {		/* padding */
			len = d ? 4 + rd32(e + 4) : ~0u;
		} else if (tl == 30) {	/* time extend */
			c->t += (u64)rd32(e + 4) << 27 | d;
			len = 8;
		} else if (tl == 31) {	/* absolute: its low 59 bits */
			c->t = ((u64)rd32(e + 4) << 27 | d) | (c->pt & ~0ULL << 59);
			len = 8;
		} else {
			len = tl ? 4 + 4 * tl : 4 + rd32(e + 4);
			c->data = e + (tl ? 4 : 8);
			c->dlen = tl ? 4 * tl : rd32(e + 4) - 4;
		}
		if (len > (u64)(c->pend - e) || len < 4) {
			c->ev = c->pend;	/* the rest of the page is no event */
			continue;
		}
		c->ev = e + len;
		/* a discarded event (padding, delta not 1) keeps its delta:
		 * the next one's counts from it (as the kernel's validator
		 * and libtraceevent count) */
		if (tl == 29 && d > 1)
			c->t += d;
		if (tl >= 29)
			continue;
		c->t += d;
		if (c->dlen < 8 || c->dlen > 65536 - 72)
			continue;
		c->k = c->t == c->kt ? c->k + 1 : 1;
		c->kt = c->t;
		/* a stream sent these already */
		if (c->t < c->skip_t || (c->t == c->skip_t && c->k <= c->skip_k))
			continue;
		if (any || ft_ev_of(c->data))
			return 1;
	}
}

/* Ring ri's next event, and its time; 0 when there is none. */
int ft_next(int ri, u64 *t)
{
	if (!ft_step(ft_fc + ri, 0))
		return 0;
	*t = ft_fc[ri].t;
	return 1;
}

/* Ring ri's event at hand as a perf sample of its event, in the layout
 * the header declares (IDENTIFIER IP TID TIME CPU PERIOD RAW), written
 * at o (which need not be aligned); RAW is padded as perf pads it, to
 * end the record on 8 bytes. Returns its size (at most its data + 72). */
#define PUT(v) (memcpy(o, &(u64){ v }, 8), o += 8)
static size_t ft_sample(int ri, int cpu, unsigned char *o)
{
	const struct fcpu *c = ft_fc + ri;
	struct rec_hdr h = { REC_SAMPLE, MISC_KERNEL, 0 };
	u32 raw = ((c->dlen + 4 + 7) & ~7u) - 4, tid;

	memcpy(&tid, c->data + 4, 4);
	h.size = 8 + 6 * 8 + 4 + raw;
	memcpy(o, &h, 8);
	o += 8;
	PUT(ft_ev_of(c->data)->ids[ri]);
	PUT(0);
	/* (another boot's tids: /proc knows none of them) */
	memcpy(o, (u32[2]){ PREV ? tid : proc_tgid(tid), tid }, 8), o += 8;
	PUT(c->t);
	memcpy(o, (u32[2]){ cpu, 0 }, 8), o += 8;
	PUT(1);
	memcpy(o, &raw, 4);
	memcpy(o + 4, c->data, c->dlen);
	memset(o + 4 + c->dlen, 0, raw - c->dlen);
	return h.size;
}

/* Ring ri's event at hand into the dump: written right into the output,
 * or on a big-endian target written, then swapped. Returns the sample
 * as written, in our byte order. */
const void *ft_write(int ri, int cpu)
{
	static u64 b[65536 / 8 + 8];
	unsigned char *o;

	if (BE) {
		ft_sample(ri, cpu, (void *)b), pd_record((void *)b);
		return b;
	}
	o = out_room(ft_fc[ri].dlen + 72);
	out_commit(ft_sample(ri, cpu, o));
	return o;
}

/* A stream sent the copies: its next dump starts after each walk's
 * last. */
void ft_sent(void)
{
	int ri;

	for (ri = 0; ri < nring; ri++)
		if (ft_fc[ri].last_ov = ft_fc[ri].ov, ft_fc[ri].kt)
			ft_fc[ri].last_t = ft_fc[ri].kt, ft_fc[ri].last_k = ft_fc[ri].k;
}

/* How the instance is read, for the start line; what a dump holds of
 * it, where that is not the whole ring, for its line. */
const char *ft_how(int line)
{
	if (!ft_n)
		return "";
	static char s[80];

	if (line) {
		fmt(s, sizeof(s), "; tracepoints since the last dump (%s%L before them overwritten)",
		    unc ? "at least " : "", lost);
		return how == MAPPED || PREV ? "" : lost ? s : "; tracepoints since the last dump";
	}
	return how == MAPPED ? "mapped pages" : how == SNAP ? "snapshot swaps" : "consuming reads";
}
