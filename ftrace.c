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
 *   sub-buffer. tracing_on 0 pauses the instance, the pages are copied
 *   as they lie, tracing_on 1 resumes; the copy is ordered by the pages'
 *   timestamps. Nothing is consumed: a standalone dump holds the ring.
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
#include "sink.h"
#include "perfdata.h"
#include "lean.h"
#include "ftrace.h"

enum { MAPPED = 1, SNAP, READ };

/* A CPU's buffer, its copy, and the walk of that copy. */
struct fcpu {
	int fd;
	u32 n, cap, ncp, i;		/* pages mapped (or 0), room, copied; the walk's next */
	unsigned char *map, *pg;	/* MAPPED: the mapping, its pages (past the meta page) */
	size_t len;			/* the mapping's */
	unsigned char *cp;		/* the copy */
	u32 *ord;			/* its pages in time order */
	const unsigned char *ev, *pend, *data;	/* the next event, its page's end; the event's data */
	u32 dlen, k, skip_k, last_k;	/* its length; seen at kt; sent at skip_t; at last_t */
	u64 pt, t, kt, skip_t, last_t;	/* its page's time, its time; the last time; sent up to */
};

int ft_n;
static int made, how, on_fd = -1, snap_fd = -1, hsz;
static u32 sbs;			/* page size */
static struct fcpu *fc;
static const unsigned char *srt;	/* the copy ts_cmp sorts */

/* The header's ids of the instance's events: FT_ID | event << 16 | ring. */
#define FT_ID (1ULL << 60)

/* A tracefs file of the instance (file 0: the instance), written. */
static char *path(const char *file)
{
	static char p[300];

	fmt(p, sizeof(p), "%s/instances/tracer.%d/%s", tracefs, (int)getpid(), file ? file : "");
	return p;
}

static int put(const char *file, const char *s)
{
	int fd = open(path(file), O_WRONLY | O_TRUNC | O_CLOEXEC), r;

	r = fd < 0 || write(fd, s, strlen(s)) != (ssize_t)strlen(s);
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

	if (!made)
		return;
	made = 0;
	for (i = 0; i < nmax; i++) {
		if (fc[i].map)
			UNMAP(fc[i].map, fc[i].len);
		close(fc[i].fd);
	}
	close(on_fd);
	close(snap_fd);
	if (RMDIR(path(0)))
		msg("%s: can't remove it:", path(0));
}

/* An instance tracer.PID whose tracer is gone (SIGKILLed): removed.
 * Only ours by its name, and only when no process has that pid. */
static void stale(const char *name, void *ctx)
{
	char p[300];
	char *e;
	u64 pid;

	if (strncmp(name, "tracer.", 7) || !(pid = xtou(name + 7, &e, 10)) || *e || pid >> 22 ||
	    !syscall(SYS_kill, (long)pid, 0L) || errno != ESRCH)
		return;
	fmt(p, sizeof(p), "../%s", name);
	if (!RMDIR(path(p)))
		msg("removed instances/%s: its tracer was killed", name);
}

/* Why the instance can't be (file refused): it goes, tracepoints stay
 * on perf. */
static int fall(const char *file)
{
	int i;

	msg("ftrace: %s: tracepoints go to perf rings:", path(file));
	ft_end();
	for (i = ft_n = 0; i < nev; i++)
		evs[i].ft = 0;
	return 0;
}

/* The instance's settings: file, then value ("" for the CPUs, then the
 * size). */
static const char set[] = "tracing_on\0" "0\0" "trace_clock\0" "perf\0" "options/overwrite\0" "1\0"
			  "tracing_cpumask\0" "\0" "buffer_size_kb\0" "\0";

/* The tracepoints of the config into a new instance; 0 if they stay
 * on perf (engine=perf, no instances, a kernel that refuses). mask:
 * the CPUs to record, now or when they come online. */
int ft_init(const u64 *mask)
{
	char b[1024], *s;
	const char *k, *v;
	int i, n = 0;
	long r;

	if (!CFG_FTRACE || !CFG_LEAN || cfg_engine || !tracefs)
		return 0;
	for (i = 0; i < nev; i++)
		n += !evs[i].trip && evs[i].attr.type == TYPE_TRACEPOINT;
	if (!n)
		return 0;
	/* what only perf gives: callchains, a tracepoint's IP (full),
	 * one event with two filters */
	if (cfg_stack || !cfg_lean || tp_tab() < 0) {
		msg("%s: tracepoints on perf rings", cfg_stack ? "stack" : !cfg_lean ? "full" : "a tracepoint twice");
		return 0;
	}
	fc = xmalloc(nmax * sizeof(*fc));
	for (i = 0; i < nmax; i++)
		fc[i].fd = -1;
	/* ours by its name: a tracer of our pid left it (SIGKILLed) */
	RMDIR(path(0));
	if (syscall(SYS_mkdirat, (long)AT_FDCWD, path(0), 0700L))
		return fall(0);
	made = 1;
	dir_each(path(".."), stale, 0);
	/* The kernel's long: the page header's commit field. */
	r = readfile(path("../../events/header_page"), b, sizeof(b) - 1);
	b[r > 0 ? r : 0] = 0;
	r = (s = xstrstr(b, "commit;\toffset:8;\tsize:")) ? 8 + xtou(s + 23, 0, 10) : 0;
	if (r != 12 && r != 16)
		return fall("../../events/header_page");
	hsz = r;
	/* tracing_cpumask: 32-bit hex words, the highest first */
	for (i = 31; i > 0 && !(u32)(mask[i / 2] >> 32 * (i % 2)); i--)
		;
	for (s = b; i >= 0; i--) {
		s = hex8(s, mask[i / 2] >> 32 * (i % 2));
		*s++ = ',';
	}
	s[-1] = 0;
	fmt(s, 24, "%L", (u64)(cfg_buf >> 10));
	for (k = set, i = 0; *k; k = v + strlen(v) + 1, i++) {
		v = k + strlen(k) + 1;
		if (put(k, *v ? v : i == 3 ? b : s))
			return fall(k);
	}
	for (i = 0; i < nev; i++) {
		struct event *e = evs + i;

		/* sched_stat_*: perf makes the count they carry the sample's
		 * period (__perf_count), ftrace does not: they stay on perf */
		if (e->trip || e->attr.type != TYPE_TRACEPOINT || !strncmp(e->name, "sched:sched_stat_", 17))
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
		if (put(s, "1"))
			return fall(s);
		e->ft = 1;
		ft_n++;
	}
	on_fd = open(path("tracing_on"), O_WRONLY | O_CLOEXEC);
	snap_fd = open(path("snapshot"), O_WRONLY | O_CLOEXEC);
	return on_fd < 0 ? fall("tracing_on") : ft_n;
}

/* The CPU's buffer, for ring ri, and its events' ids there (the
 * header's: none the kernel gives out, its counter never gets near
 * FT_ID). Mapped where the kernel can (the first CPU sets the mode),
 * else read. -1 if it can't be. */
int ft_open(int ri, int cpu)
{
	struct fcpu *f = fc + ri;
	char p[40];
	u32 *m, mps, n;
	u64 len;
	int i;

	if (!ft_n)
		return 0;
	for (i = 0; i < nev; i++)
		if (evs[i].ft)
			evs[i].ids[ri] = FT_ID | (u64)i << 16 | ri;
	fmt(p, sizeof(p), "per_cpu/cpu%d/%s_raw", cpu, how == SNAP ? "snapshot" : "trace_pipe");
	if ((f->fd = open(path(p), O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0)
		return -1;
	/* the meta page: its size, the page size, the pages; bounded all
	 * the same */
	if (how <= MAPPED && (m = mmap(0, 4096, PROT_READ, MAP_SHARED, f->fd, 0)) != MAP_FAILED) {
		mps = m[0], sbs = m[2], n = m[3];
		UNMAP(m, 4096);
		len = mps + (u64)n * sbs;
		if (!((mps | sbs) >> 20) && mps >= 4096 && sbs >= 4096 && n && len <= 1 << 30 &&
		    (f->map = mmap(0, f->len = len, PROT_READ, MAP_SHARED, f->fd, 0)) != MAP_FAILED)
			f->pg = f->map + mps, f->n = n;
		else
			f->map = 0;
	}
	if (!how) {
		/* The first CPU: mapped, or a snapshot's swap (which makes
		 * the spare), or reads while paused. */
		how = f->map ? MAPPED : snap_fd >= 0 && write(snap_fd, "1", 1) == 1 ? SNAP : READ;
		if (how == SNAP) {
			close(f->fd);
			return ft_open(ri, cpu);
		}
	}
	if (how == MAPPED && !f->map)
		return -1;
	f->cap = f->n;
	if (how != MAPPED) {
		sbs = getpagesize();
		f->cap = cfg_buf / sbs + 4;	/* what buf= asks for, the reader's */
	}
	f->cp = xmalloc((size_t)f->cap * sbs);
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

/* Pages by their timestamps. */
static int ts_cmp(const void *a, const void *b)
{
	u64 x, y;

	memcpy(&x, srt + (size_t)*(const u32 *)a * sbs, 8);
	memcpy(&y, srt + (size_t)*(const u32 *)b * sbs, 8);
	return x < y ? -1 : x > y;
}

static u32 commit(const unsigned char *pg)
{
	u64 c = 0;

	if (hsz == 16)
		memcpy(&c, pg + 8, 8);
	else
		memcpy((u32 *)&c + BE, pg + 8, 4);	/* a u32 into the u64's low half */
	c &= 0x3fffffff;	/* RB_MISSED_* flags on a read page */
	return c > sbs - hsz ? sbs - hsz : c;
}

/* tid -> pid, from /proc/TID/status, asked once per tid and dump; a
 * task gone by then has its tid as its pid. Not the kernel's
 * saved_tgids: options/record-tgid counts its sched_switch probe by
 * walking every instance's events, and two tracers side by side leave
 * that probe behind for good (seen on 6.18). */
#define TGIDS 16384
static u32 tg[TGIDS][2];	/* tid + 1, its pid: the last tid of each slot */

static u32 tgid(u32 tid)
{
	char p[40], b[256], *s;
	u32 *t = tg[tid % TGIDS];
	long n;

	if (t[0] != tid + 1) {
		fmt(p, sizeof(p), "/proc/%u/status", tid);
		n = readfile(p, b, sizeof(b) - 1);
		b[n > 0 ? n : 0] = 0;
		s = xstrstr(b, "\nTgid:");
		t[0] = tid + 1;
		t[1] = s && (n = xtou(s + 6, 0, 10)) ? n : tid;
	}
	return t[1];
}

/* The walk of ring ri's copy from its oldest page; cont: a stream goes
 * on, and sends only what is new. Returns whether the ring overwrote
 * records (since the stream's last dump): every page is in use, and the
 * oldest is newer than what was sent. Read pages can't tell (and are
 * new anyway): 0. */
static int walk(struct fcpu *f, int cont)
{
	u64 t0 = 0;

	f->i = f->k = 0;
	f->ev = f->pend = 0;
	f->kt = f->skip_t = 0;
	if (cont && f->pg)
		f->skip_t = f->last_t, f->skip_k = f->last_k;
	if (f->ncp)
		memcpy(&t0, f->cp + (size_t)f->ord[0] * sbs, 8);
	return f->pg && f->ncp >= f->n - 1 && t0 > f->skip_t;
}

/* Every CPU's pages into its copy, and each copy's walk; wrap[ri]: ring
 * ri overwrote records. Returns the blind window (ns).
 * Mapped: a first copy while recording goes on, then, paused, the pages
 * whose header changed since are copied again (a page's events up to
 * its commit stay as they are until the writer starts the page anew,
 * with a new timestamp); resumed, the copy is put in time order by the
 * pages' timestamps. Snapshot: a swap, then the frozen pages are read.
 * Else: read while paused. Read pages come oldest first, and are gone
 * from the kernel's ring. */
u64 ft_grab(int rec_off, int cont, char *wrap)
{
	struct fcpu *f;
	u64 a, b;
	int ri;
	u32 i, n;

	for (ri = 0; ri < nring; ri++)
		if ((f = fc + ri)->pg)
			memcpy(f->cp, f->pg, (size_t)f->n * sbs);
	a = now_ns();
	if (how == SNAP ? write(snap_fd, "1", 1) != 1 : (ft_pause(1), 0))
		msg("ftrace %s:", "snapshot");
	b = now_ns();
	for (ri = 0; ri < nring; ri++) {
		f = fc + ri;
		for (i = 0; f->pg && i < f->n; i++) {
			unsigned char *c = f->cp + (size_t)i * sbs, *l = f->pg + (size_t)i * sbs;

			if (memcmp(c, l, hsz))
				memcpy(c, l, sbs);
		}
		for (f->ncp = 0; !f->pg && f->fd >= 0 && f->ncp < f->cap &&
		     read(f->fd, f->cp + (size_t)f->ncp * sbs, sbs) >= hsz; f->ncp++)
			f->ord[f->ncp] = f->ncp;
	}
	if (how != SNAP) {
		if (!rec_off)
			ft_pause(0);
		b = now_ns();
	}
	for (ri = 0; ri < nring; ri++) {
		f = fc + ri;
		if (f->pg) {
			for (i = n = 0; i < f->n; i++)
				if (commit(f->cp + (size_t)i * sbs))
					f->ord[n++] = i;
			srt = f->cp;
			xsort(f->ord, f->ncp = n, 4, ts_cmp);
		}
		wrap[ri] = walk(f, cont);
	}
	memset(tg, 0, sizeof(tg));	/* asked anew */
	return b - a;
}

static u32 rd32(const unsigned char *p)
{
	u32 v;

	memcpy(&v, p, 4);
	return v;
}

static const struct event *ev_of(const unsigned char *data)
{
	u16 v;

	memcpy(&v, data, 2);	/* common_type */
	return tp_ev(v);
}

/* Ring ri's next data event, and its time; 0 when there is none.
 * Nothing in a page is trusted beyond its commit, nor an event beyond
 * its page. */
int ft_next(int ri, u64 *t)
{
	struct fcpu *c = fc + ri;

	for (;;) {
		const unsigned char *e = c->ev;
		u32 h, tl, d, len;

		if (c->pend - e < 8) {
			const unsigned char *pg;

			if (c->i >= c->ncp)
				return 0;
			pg = c->cp + (size_t)c->ord[c->i++] * sbs;
			memcpy(&c->pt, pg, 8);
			c->t = c->pt;
			c->ev = pg + hsz;
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
		if (ev_of(c->data)) {
			*t = c->t;
			return 1;
		}
	}
}

/* Ring ri's event at hand as a perf sample of its event, in the layout
 * the header declares (IDENTIFIER IP TID TIME CPU PERIOD RAW), written
 * at o (which need not be aligned); RAW is padded as perf pads it, to
 * end the record on 8 bytes. Returns its size (at most its data + 72). */
#define PUT(v) (memcpy(o, &(u64){ v }, 8), o += 8)
static size_t ft_sample(int ri, int cpu, unsigned char *o)
{
	const struct fcpu *c = fc + ri;
	struct rec_hdr h = { REC_SAMPLE, MISC_KERNEL, 0 };
	u32 raw = ((c->dlen + 4 + 7) & ~7u) - 4, tid;

	memcpy(&tid, c->data + 4, 4);
	h.size = 8 + 6 * 8 + 4 + raw;
	memcpy(o, &h, 8);
	o += 8;
	PUT(ev_of(c->data)->ids[ri]);
	PUT(0);
	memcpy(o, (u32[2]){ tgid(tid), tid }, 8), o += 8;
	PUT(c->t);
	memcpy(o, (u32[2]){ cpu, 0 }, 8), o += 8;
	PUT(1);
	memcpy(o, &raw, 4);
	memcpy(o + 4, c->data, c->dlen);
	memset(o + 4 + c->dlen, 0, raw - c->dlen);
	return h.size;
}

/* Ring ri's event at hand into the dump: written right into the output,
 * or on a big-endian target written, then swapped. */
void ft_write(int ri, int cpu)
{
	static u64 b[65536 / 8 + 8];

	if (BE)
		ft_sample(ri, cpu, (void *)b), pd_record((void *)b);
	else
		out_commit(ft_sample(ri, cpu, out_room(fc[ri].dlen + 72)));
}

/* A stream sent the copies: its next dump starts after each walk's
 * last. */
void ft_sent(void)
{
	int ri;

	for (ri = 0; ri < nring; ri++)
		if (fc[ri].kt)
			fc[ri].last_t = fc[ri].kt, fc[ri].last_k = fc[ri].k;
}

/* How the instance is read, for the start line; what a dump holds of
 * it, where that is not the whole ring, for its line. */
const char *ft_how(int line)
{
	if (!ft_n)
		return "";
	if (line)
		return how == MAPPED ? "" : "; tracepoints since the last dump";
	return how == MAPPED ? "mapped pages" : how == SNAP ? "snapshot swaps" : "consuming reads";
}
