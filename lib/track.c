/* track.c - process metadata that survives the wrap.
 *
 * COMM and MMAP records are written when a process starts; by the time
 * something goes wrong the ring has long overwritten them, and a process
 * that already exited is not in /proc either. So each CPU also has a
 * small forward ring for a dummy event that carries comm, exec, mmap2
 * (executable maps) and fork/exit records. It wakes us only at a
 * watermark, and we fold what it holds into a bounded table: per
 * process, its records in time order.
 * At dump time the table's records go into the dump with their own
 * timestamps, sorted among the samples, so perf sees each comm and map
 * as it was when it applied.
 *
 * The table holds procs= processes. When full, an exited process makes
 * room (slot_key); a live process is never evicted. What a task evicted
 * (or never kept: every slot live) leaves is its names, forks and exits,
 * 32 bytes each, in a FIFO of NAMES per slot: the maps are what costs,
 * and perf names a task from its COMMs alone.
 * A fork is folded here by copying the parent's comm and maps to the
 * child. Its FORK record is passed on only for a task whose exit the
 * table holds too, first among its records of that time: perf 6.1 drops
 * a thread's maps when it sees one (it re-clones them from the parent),
 * and a live task's maps come from /proc ahead of every timed record.
 * In a stream, a FORK not sent with the task's first records never is.
 *
 * A dump that stands alone leaves out the processes that exited before
 * its oldest record, the names of tasks none of its records is of (nor
 * their parents), and the maps of processes with no user-mode sample
 * (seen.c's needs). The processes alive at dump time: proc.c. */
#include <poll.h>
#include <string.h>
#include <unistd.h>
#include "config.h"
#include "perfdata.h"
#include "buildid.h"
#include "seen.h"
#include "proc.h"
#include "track.h"

#define SLOT 2048		/* bytes of records per process */
#define TRACK_RING (64 << 10)
#define MISC_COMM_EXEC 0x2000

struct slot {
	u32 pid, used;
	u64 exit;		/* time of the leader's exit; 0 while live */
	unsigned char *b;
};

static struct slot *slots;
static u32 nslots;	/* slots taken, never given back: the first ones */
static unsigned char *pool;
static struct ring *tr;
static unsigned long evicted, dropped, unnamed;
static u64 low;		/* no ring holds a record older (the last dump's first) */
static u32 lowgen;	/* the dump low is from */

/* A COMM (comm), FORK or EXIT (ppid, ptid) of a task the table let go.
 * c[15]: the record type << 2 | exec << 1 | sent. */
#define NAMES 32
struct name {
	u64 t;
	u32 pid, tid;
	char c[16];
};
static struct name *nm;
static u32 nm_max, nm_head, nm_n;
static u32 *gone, ngone;	/* a set of tids (+ 1) for nm_gone */

static int smode;	/* 0: a standalone dump, 1: a stream's first, 2: its next */
static u32 gen;		/* dumps begun */

/* A dump begins: mode 0 stands alone, 1 begins a stream, 2 goes on
 * with one (only what is new or changed since is sent). */
void track_begin(int mode)
{
	smode = mode;
	gen++;
	unnamed = 0;
	seen_begin(mode);
}

/* ---- the tracking ring and the table ---- */

static u64 rtime(const struct rec_hdr *h)
{
	return *(const u64 *)((const unsigned char *)h + h->size - 24);
}

/* Whether a record of the table went out already (a stream's): its
 * trailer's IDENTIFIER is cleared then. */
static int sent(const struct rec_hdr *h)
{
	return !*(const u64 *)((const unsigned char *)h + h->size - 8);
}

/* A COMM, FORK or EXIT into the names; the oldest gives way. */
static void nm_add(const struct rec_hdr *h)
{
	const u32 *f = (const u32 *)(h + 1);
	struct name *n = nm + nm_head;

	if (h->type == REC_MMAP2)	/* (the table holds no other) */
		return;
	nm_head = (nm_head + 1) % nm_max;
	nm_n += nm_n < nm_max;
	n->t = rtime(h);
	n->pid = f[0];
	n->tid = f[h->type == REC_COMM ? 1 : 2];
	if (h->type == REC_COMM)
		memcpy(n->c, f + 2, 15);	/* to its NUL, then anything */
	else
		memcpy(n->c, (u32[2]){ f[1], f[3] }, 8);
	n->c[15] = h->type << 2 | !!(h->misc & MISC_COMM_EXEC) << 1 | sent(h);
}

/* Whether the slot holds the exit of tid. */
static int slot_exited(const struct slot *s, u32 tid)
{
	const struct rec_hdr *h;
	unsigned off;

	for (off = 0; off < s->used; off += h->size) {
		h = (const void *)(s->b + off);
		if (h->type == REC_EXIT && ((const u32 *)(h + 1))[2] == tid)
			return 1;
	}
	return 0;
}

/* A slot given up (evicted, or its pid reused): its names, forks and
 * exits to the names. A FORK goes only where its EXIT does and nothing
 * of the task went out before it (see the top). */
static void slot_free(struct slot *s)
{
	const struct rec_hdr *h;
	unsigned off;
	int out = 0;

	for (off = 0; off < s->used; off += h->size)
		out |= sent(h = (const void *)(s->b + off));
	for (off = 0; off < s->used; off += h->size) {
		h = (const void *)(s->b + off);
		if (h->type != REC_FORK || (!out && slot_exited(s, ((const u32 *)(h + 1))[2])))
			nm_add(h);
	}
	s->used = 0;
	s->exit = 0;
}

/* An exited process's key for eviction, lowest first: one that exited
 * before the oldest record the rings hold needs nothing of the table
 * but its names; among the others, a longer life (from its first
 * record, a FORK most often) counts as a later exit (its samples need
 * its maps: a process that lived 1 ms has few). */
static u64 slot_key(const struct slot *s)
{
	return !s->exit ? (u64)-1 : s->exit + (s->exit < low ? 0 : (s->exit - rtime((void *)s->b)) * 8);
}

/* pid's slot; a new one (made at time t) if there is none and t. */
static struct slot *slot_get(u32 pid, u64 t)
{
	struct slot *s, *old = 0, *fresh = 0;
	u64 k = -1;

	for (s = slots; s < slots + nslots; s++) {
		if (s->pid == pid)
			return s;
		if (slot_key(s) < k)
			k = slot_key(old = s);
	}
	if (!t)
		return 0;
	if (nslots < cfg_procs)
		fresh = slots + nslots++;
	if (!fresh && old) {
		fresh = old;
		slot_free(old);
		evicted++;
	}
	if (!fresh) {
		dropped++;	/* every slot is a live process */
		return 0;
	}
	fresh->pid = pid;
	fresh->used = 0;
	fresh->exit = 0;
	return fresh;
}

/* Where in a full slot a record can go: the oldest map but the first
 * two after an exec (the program and its loader). Its COMMs, FORKs and
 * EXITs stay, and so the task's name: a program that maps forty
 * libraries (perf, python) overflows a slot, and its oldest record is
 * the exec's COMM. Only a slot of nothing else gives up its oldest. */
static unsigned slot_victim(const struct slot *s)
{
	const struct rec_hdr *h;
	unsigned off, keep = 0;

	for (off = 0; off < s->used; off += h->size) {
		h = (const void *)(s->b + off);
		if (h->type == REC_COMM && h->misc & MISC_COMM_EXEC)
			keep = 2;
		else if (h->type != REC_MMAP2)
			;
		else if (keep)
			keep--;
		else
			return off;
	}
	return 0;
}

/* Append in time order; a task with no slot leaves its names. */
static void slot_add(struct slot *s, const struct rec_hdr *h)
{
	if (!s) {
		nm_add(h);
		return;
	}
	if (h->size > SLOT)
		return;
	while (s->used + h->size > SLOT) {
		unsigned off = slot_victim(s);
		struct rec_hdr *v = (void *)(s->b + off);
		u16 n = v->size;

		/* a COMM or EXIT leaves its name (a FORK of a live task
		 * does not go out: see the top) */
		if (v->type != REC_FORK)
			nm_add(v);
		memmove(s->b + off, s->b + off + n, s->used - off - n);
		s->used -= n;
	}
	memcpy(s->b + s->used, h, h->size);
	s->used += h->size;
}

/* A copy of a record under another pid/tid and time (a fork's child). */
static void slot_copy(struct slot *to, const struct rec_hdr *h, u32 pid, u32 tid, u64 t)
{
	u64 b[SLOT / 8];
	unsigned char *p = (void *)b;

	memcpy(b, h, h->size);
	memcpy(p + 8, &pid, 4);
	memcpy(p + 12, &tid, 4);
	memcpy(p + h->size - 32, &pid, 4);	/* the trailer's TID */
	memcpy(p + h->size - 28, &tid, 4);
	memcpy(p + h->size - 24, &t, 8);
	memset(p + h->size - 8, 1, 1);		/* not sent yet */
	slot_add(to, (void *)b);
}

/* The latest COMM of a thread (or of the process, for tid 0). */
static const struct rec_hdr *slot_comm(struct slot *s, u32 tid)
{
	const struct rec_hdr *h, *c = 0;
	unsigned off;

	for (off = 0; s && off < s->used; off += h->size) {
		h = (const void *)(s->b + off);
		if (h->type == REC_COMM && (!tid || *(const u32 *)(s->b + off + 12) == tid))
			c = h;
	}
	return c;
}

/* A creator the table never saw (it predates tracer, so its COMM went
 * by before we looked): its comm from the start's snapshot of /proc
 * (it may be gone now), else from /proc, as a COMM record for the new
 * pid/tid at the time of the fork. */
static void slot_proc_comm(struct slot *to, const u32 *f, u64 t)
{
	u64 b[8] = { 0 };	/* header, pid tid, comm[16], TID TIME CPU IDENTIFIER */
	struct rec_hdr *h = (void *)b;
	char *c = (char *)(b + 2);
	const char *e = proc_start_comm(f[3]);
	u32 v;

	if (e)
		memcpy(c, e, 16);
	else if (proc_comm(f[1], f[3], c, &v) <= 0)
		return;
	h->type = REC_COMM;
	h->size = sizeof(b);
	memcpy(b + 1, (u32[2]){ f[0], f[2] }, 8);
	b[4] = b[1];
	b[5] = t;
	b[7] = 1;		/* IDENTIFIER: not sent yet */
	slot_add(to, h);
}

/* A new task's comm: its creator's as the table has it (the thread's,
 * else the process's), else from /proc. */
static void fork_comm(struct slot *from, struct slot *to, const u32 *f, u64 t)
{
	const struct rec_hdr *c = slot_comm(from, f[3]);

	if (c || (c = slot_comm(from, 0)))
		slot_copy(to, c, f[0], f[2], t);
	else
		slot_proc_comm(to, f, t);
}

static void fold(struct rec_hdr *h)
{
	const u32 *f = (const u32 *)(h + 1);	/* pid, (p)pid/tid, ... */
	struct slot *s, *p;
	const struct rec_hdr *c;
	unsigned off, min = h->type == REC_MMAP2 ? 72 + 8 + 32 : h->type == REC_COMM ? 24 + 32 : 32 + 32;
	const unsigned char *b = (const void *)h;
	u64 t = rtime(h);

	/* The kernel's records are whole, but trust no size: each must hold
	 * its body and the trailer, and a name must end inside it. */
	if (h->size < min || h->size > SLOT || h->size & 7 ||
	    ((h->type == REC_MMAP2 || h->type == REC_COMM) && b[h->size - 33]))
		return;
	switch (h->type) {
	case REC_MMAP2:
		bid_mmap2(h);
		/* fall through */
	case REC_COMM:
		slot_add(slot_get(f[0], t), h);
		break;
	case REC_FORK:		/* pid, ppid, tid, ptid, time */
		p = slot_get(f[1], 0);
		if (f[0] != f[2]) {	/* a new thread: the comm of its creator */
			s = slot_get(f[0], t);
			if (s)
				slot_add(s, h);
			fork_comm(s, s, f, t);
			break;
		}
		s = slot_get(f[0], 0);
		if (s && s->exit)	/* a reused pid: the old process is gone */
			slot_free(s);
		else if (!s)
			s = slot_get(f[0], t);
		if (!s) {		/* not kept: its name all the same */
			fork_comm(p, 0, f, t);
			break;
		}
		slot_add(s, h);		/* first: perf clears the maps at a FORK */
		fork_comm(p, s, f, t);
		if (!p || p == s)	/* pid == ppid: a container's pid 0 */
			break;
		for (off = 0; off < p->used; off += c->size) {
			c = (const void *)(p->b + off);
			if (c->type == REC_MMAP2)
				slot_copy(s, c, f[0], f[0], t);
		}
		break;
	case REC_EXIT:
		s = slot_get(f[0], 0);
		slot_add(s, h);
		if (s && f[0] == f[2])
			s->exit = t | 1;
		break;
	}
}

static int ntr;
static unsigned long trsize;	/* a tracking ring's bytes: TRACK_RING, buf=/64, or a page */
static unsigned char *batch;
static size_t nbatch;
static struct bix {
	u64 t;
	u32 off;
} *bix;

static void batch_add(const struct rec_hdr *h, void *ctx)
{
	if (nbatch + h->size > (size_t)ntr * trsize || h->size < 40)
		return;		/* cannot happen: the rings hold no more, and
				   every record has a 32-byte trailer */
	memcpy(batch + nbatch, h, h->size);
	nbatch += h->size;
}

static int bix_cmp(const void *a, const void *b)
{
	const struct bix *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->off < y->off ? -1 : 1;
}

/* The table, room for n CPUs' tracking rings, and those of the CPUs in
 * want, in order, open: before any event records, so that every task
 * a record names was either started since (the rings have it) or there
 * when /proc is looked at, after them. */
void track_init(int n, const u64 *want)
{
	const char *e;
	int i, cpu;

	if (!cfg_procs)
		return;
	slots = xmalloc(cfg_procs * sizeof(*slots));
	pool = xmalloc(cfg_procs * SLOT);
	for (i = 0; i < cfg_procs; i++)
		slots[i].b = pool + i * SLOT;
	nm_max = cfg_procs * NAMES;
	nm = xmalloc(nm_max * sizeof(*nm));
	for (ngone = 64; ngone < nm_max * 2; ngone *= 2)
		;
	gone = xmalloc(ngone * sizeof(*gone));
	tr = xmalloc(n * sizeof(*tr));
	/* a 64th of buf= at least: a long set-up (buf=1g: 10 s) reads
	 * none, and the tasks started meanwhile must fit */
	trsize = ring_size(cfg_buf / 64 > TRACK_RING ? cfg_buf / 64 : TRACK_RING);
	batch = xmalloc(n * trsize);
	bix = xmalloc(n * trsize / 40 * sizeof(*bix));
	ntr = n;
	for (cpu = i = 0; cpu < 1024; cpu++)
		if (want[cpu / 64] >> cpu % 64 & 1)
			track_open(i++, cpu);
	named_init();
	/* For tests only: TRACER_PRESCAN=FILE waits (30 s at most) for
	 * FILE here, so that a test's exec falls between the two. */
	if (CFG_TESTHOOKS && (e = hook("TRACER_PRESCAN")))
		for (msg("test hook: waiting for %s", e), i = 0; access(e, F_OK) && i < 3000; i++)
			poll(0, 0, 10);
	proc_snap();
}

/* One tracking ring for CPU number i; returns its fd for poll, or -1 if
 * the kernel has no dummy event. Never attr.build_id: see mmap_build_id. */
static int track_event(int cpu)
{
	struct perf_attr a = { 0 };

	a.type = TYPE_SOFTWARE;
	a.config = 9;		/* PERF_COUNT_SW_DUMMY */
	a.size = ATTR_SIZE;
	a.sample_type = S_IDENTIFIER | S_IP | S_TID | S_TIME | S_CPU | S_PERIOD;
	a.flags = ATTR_SAMPLE_ID_ALL | ATTR_EXCLUDE_GUEST | ATTR_WATERMARK |
		  ATTR_BIT(8) /* mmap */ | ATTR_BIT(9) /* comm */ | ATTR_BIT(13) /* task */ |
		  ATTR_BIT(23) /* mmap2 */ | ATTR_BIT(24) /* comm_exec */;
	/* wakeup_watermark: batches, and 3/4 of the ring for the time we
	 * take to wake */
	a.wakeup_events = trsize / 4;
	return ring_event_open(&a, cpu, -1);
}

int track_open(int i, int cpu)
{
	int fd;

	if (!cfg_procs)
		return -1;
	if (tr[i].base)		/* opened by track_init */
		return tr[i].fd;
	fd = track_event(cpu);
	if (fd < 0)
		return -1;
	if (ring_map(tr + i, fd, cpu, trsize, 1))
		die(1, "mmap of the tracking ring on cpu %d:", cpu);
	return fd;
}

int track_reopen(int i, int cpu)
{
	int fd, old = tr[i].fd;

	if (!cfg_procs || !tr[i].base)
		return -1;
	fd = track_event(cpu);
	if (fd < 0 || ring_attach(tr + i, fd)) {
		msg("the tracking ring of cpu %d:", cpu);
		if (fd >= 0)
			close(fd);
		return old;
	}
	tr[i].fd = fd;
	close(old);
	return fd;
}

/* Fold what every tracking ring holds, in time order across CPUs. */
void track_read(void)
{
	size_t off, n = 0, i;

	if (!slots)
		return;
	nbatch = 0;
	for (i = 0; i < (size_t)ntr; i++)
		if (tr[i].base)
			ring_read(tr + i, batch_add, 0);
	for (off = 0; off < nbatch; off += ((struct rec_hdr *)(batch + off))->size, n++) {
		bix[n].off = off;
		bix[n].t = rtime((void *)(batch + off));
	}
	xsort(bix, n, sizeof(*bix), bix_cmp);
	for (i = 0; i < n; i++)
		fold((void *)(batch + bix[i].off));
}

/* A name's record, in the table's layout (trailer's IDENTIFIER 0), at
 * d; its size. */
static size_t nm_rec(unsigned char *d, const struct name *n)
{
	u64 b[10] = { 0 };
	struct rec_hdr *h = (void *)b;
	size_t l = 0;

	h->type = n->c[15] >> 2;
	memcpy(b + 1, (u32[2]){ n->pid, n->tid }, 8);
	if (h->type == REC_COMM) {
		while (l < 15 && n->c[l])
			l++;
		memcpy(b + 2, n->c, l);
		h->misc = n->c[15] & 2 ? MISC_COMM_EXEC : 0;
		l = (l + 8) / 8;	/* u64s of the comm and its NUL */
	} else {		/* pid ppid tid ptid time */
		memcpy(b + 1, (u32[4]){ n->pid, ((const u32 *)n->c)[0], n->tid, ((const u32 *)n->c)[1] }, 16);
		b[3] = n->t;
		l = 2;
	}
	memcpy(b + 2 + l, (u32[2]){ n->pid, n->tid }, 8);
	b[3 + l] = n->t;
	h->size = (6 + l) * 8;
	memcpy(d, b, h->size);
	return h->size;
}

#define NM(i) (nm + (nm_head + nm_max - nm_n + (i)) % nm_max)
#define GONE 0x20	/* c[15]: left out of this dump */

/* Where tid is in the set of tasks gone before the dump's oldest, or
 * the free place for it. */
static u32 *gone_at(u32 tid)
{
	u32 i = tid * 2654435761U;

	for (;; i++)
		if (!gone[i &= ngone - 1] || gone[i] == tid + 1)
			return gone + i;
}

/* For a standalone dump whose oldest record is at lo: mark the names
 * of each task that exited before lo and none of whose records it
 * holds (a crash loop's thousands; a task's last switch, out as a
 * zombie, comes after its exit and may be the oldest record). Newest
 * first: a reused tid's later task comes after the old one's exit, and
 * stays. */
static void nm_gone(u64 lo)
{
	u32 i, *g;

	for (i = nm_n; i--;) {
		struct name *e = NM(i);

		if (e->t >= lo)
			continue;
		g = gone_at(e->tid);
		if ((e->c[15] >> 2) == REC_EXIT && !*g && !needed(NEED_NAME, e->tid))
			*g = e->tid + 1;
		if (*g)
			e->c[15] |= GONE;
	}
	for (i = 0; i < nm_n; i++)	/* the set empty again */
		if (NM(i)->c[15] & GONE)
			*gone_at(NM(i)->tid) = 0;
}

/* The names' records, then the table's, for a dump: copied to dst with
 * the trailer's id cleared (the dummy event is not among the dump's
 * attrs; id 0 means the first one). A stream gets each record once: the
 * table's copy of the id says whether it went out already (0). A FORK
 * goes with the task's exit (see the top). A standalone dump leaves out
 * the processes that exited before lo, its oldest record (0: none).
 * Returns the bytes; at most track_max(). */
size_t track_copy(unsigned char *dst, u64 lo)
{
	size_t n = 0, off, i;
	struct slot *s;

	if (smode || !slots)
		lo = 0;
	if (lo)
		nm_gone(lo);
	/* the parents of the tasks named, and theirs: from the table's
	 * forks, then twice from the names' */
	for (s = slots; !smode && s < slots + nslots; s++)
		for (off = 0; off < s->used; off += ((struct rec_hdr *)(s->b + off))->size) {
			const u32 *f = (const u32 *)(s->b + off + 8);

			if (((struct rec_hdr *)(s->b + off))->type == REC_FORK)
				need(NEED_NAME, f[1]), need(NEED_NAME, f[3]);
		}
	for (off = 0; !smode && off < 2 * nm_n; off++) {
		struct name *e = NM(off % nm_n);
		u32 p[2];

		if ((e->c[15] >> 2 & 7) == REC_FORK && needed(NEED_NAME, e->tid)) {
			memcpy(p, e->c, 8);	/* ppid, ptid */
			need(NEED_NAME, p[0]), need(NEED_NAME, p[1]);
		}
	}
	for (i = 0; i < nm_n; i++) {
		struct name *e = NM(i);

		if (e->c[15] & (1 | GONE) || !needed(NEED_NAME, e->tid)) {
			e->c[15] &= ~GONE;
			continue;
		}
		if (smode)
			e->c[15] |= 1;
		if ((e->c[15] >> 2) == REC_COMM) {	/* sent all the same: a reused
							   tid's later name may be seen */
			char c[16] = { 0 };

			memcpy(c, e->c, 15);
			comm_seen(e->tid, c);
		}
		n += nm_rec(dst + n, e);
	}
	for (s = slots; s < slots + nslots; s++) {
		if (s->exit && s->exit < lo && !needed(NEED_NAME, s->pid))
			continue;	/* (a thread of it with a record there: not asked) */
		for (off = 0; off < s->used; off += ((struct rec_hdr *)(s->b + off))->size) {
			struct rec_hdr *h = (void *)(s->b + off);
			unsigned char *id = s->b + off + h->size - 8;
			const u32 *f = (const u32 *)(h + 1);
			int dup = h->type == REC_COMM ? comm_seen(f[1], (const char *)(f + 2)) :
				  h->type == REC_MMAP2 ? map_seen(f[0], f + 2, (const char *)(f + 16)) :
				  h->type == REC_FORK && !slot_exited(s, f[2]);

			if ((smode == 2 && !memcmp(id, &(u64){ 0 }, 8)) || (h->type == REC_MMAP2 && !needed(NEED_MAPS, s->pid)))
				continue;
			if (smode)
				memset(id, 0, 8);
			if (dup)	/* described so already, from /proc */
				continue;
			memcpy(dst + n, h, h->size);
			memset(dst + n + h->size - 8, 0, 8);
			n += h->size;
		}
	}
	return n;
}

size_t track_max(void)
{
	return cfg_procs * (SLOT + NAMES * 64);
}

/* A record went into the dump (its time order): a COMM or FORK names, a
 * sample with no name is counted (the first time in this dump). */
void track_sample(const struct rec_hdr *h)
{
	u32 f[4];

	if (!slots || h->size < 24)	/* a COMM's pid, tid, comm; a FORK's ids */
		return;
	memcpy(f, h + 1, 16);
	if (h->type == REC_COMM || (h->type == REC_FORK && name_bit(f[3], 0)))
		name_bit(f[h->type == REC_FORK ? 2 : 1], 1);
	if (h->type != REC_SAMPLE || h->size < 40)
		return;
	/* IDENTIFIER IP PID TID TIME: every sample has them */
	memcpy(f, (const u8 *)h + 28, 12);
	if (lowgen != gen) {	/* the dump's first: its oldest */
		u64 t = f[1] | (u64)f[2] << 32;

		lowgen = gen;
		low = t > low ? t : low;
	}
	if (f[0] && f[0] != (u32)-1 && !name_bit(f[0], 0) && !count_bit(f[0]))
		unnamed++;
}

/* For the dump line: how full the table is. */
void track_stats(unsigned long *used, unsigned long *ev, unsigned long *dr, unsigned long *un)
{
	*un = unnamed;
	*used = nslots;
	*ev = evicted;
	*dr = dropped;
}
