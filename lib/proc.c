/* proc.c - what /proc says of the processes alive: at a dump, a COMM
 * per thread and an MMAP2 per executable map (PROC), each with the
 * build-id of its file (buildid.c), and the FORK that gives perf each
 * task's parent; the snapshot of the tasks there at the start, which
 * names those that exit before a dump; a thread's process. */
#include <string.h>
#include "config.h"
#include "perfdata.h"
#include "buildid.h"
#include "seen.h"
#include "proc.h"

/* Call fn for every numeric entry of a /proc directory. */
struct num_walk {
	void (*fn)(unsigned long, void *);
	void *ctx;
};

static void num_one(const char *name, void *ctx)
{
	struct num_walk *w = ctx;
	char *e;
	unsigned long v = xtou(name, &e, 10);

	if (*name >= '0' && *name <= '9' && !*e)
		w->fn(v, w->ctx);
}

static void each_num(const char *dir, void (*fn)(unsigned long, void *), void *ctx)
{
	struct num_walk w = { fn, ctx };

	dir_each(dir, num_one, &w);
}

/* A task's comm from /proc into comm[16], and its process's parent
 * (*ppid); the comm's length, or <= 0. "pid (comm) S ppid ...": a comm
 * may hold any byte, the last ')' ends it. A kernel thread's may be
 * longer than the kernel's 15 bytes ("kworker/0:1H-kblockd", a 6.x
 * kthread's full name): cut as the kernel's. */
long proc_comm(u32 pid, u32 tid, char *comm, u32 *ppid)
{
	char b[160], *p, *q;
	long n;

	fmt(b, 64, "/proc/%u/task/%u/stat", pid, tid);
	n = readfile(b, b, sizeof(b) - 1);
	if (n <= 0)
		return -1;
	b[n] = 0;
	q = xstrchr(b, '(');
	p = xstrrchr(b, ')');
	if (!q || !p || p < q)
		return -1;
	n = p - q - 1 < 15 ? p - q - 1 : 15;
	memcpy(comm, q + 1, n);
	comm[n] = 0;
	*ppid = xtou(p + 3, 0, 10);
	return n;
}

/* A task's parent, as perf record gives it (a FORK ahead of its COMMs
 * and maps, once): a process's from its stat, a thread's is its
 * process. Without one, perf sched timehist shows parent -1. perf names
 * the task anew from its parent then: the caller sends its COMM after
 * (1 returned) even if it did before. */
static int proc_fork(u32 pid, u32 tid, u32 ppid)
{
	struct { u32 pid, ppid, tid, ptid; u64 t; } f = { pid, ppid, tid, ppid, 0 };

	if (tid != pid)
		f.ppid = f.ptid = pid;
	if (seen(tid | 1 << 30, 1))
		return 0;
	pd_rec(REC_FORK, 0, &f, sizeof(f), "44448", 0);
	return 1;
}

static void comm_one(unsigned long tid, void *ctx)
{
	struct { u32 pid, tid; } c = { *(u32 *)ctx, tid };
	char comm[16];
	u32 pp;

	if (proc_comm(c.pid, tid, comm, &pp) <= 0)
		return;
	name_bit(tid, 1);	/* now, or by what went before */
	if (proc_fork(c.pid, tid, pp) | !comm_seen(tid, comm))
		pd_rec(REC_COMM, 0, &c, sizeof(c), "44", comm);
}

/* The tasks that were there when we started. One that exits before a
 * dump is in neither the table (its COMM went by before we looked) nor
 * /proc: the dump names it from here. */
#define NPRE 4096
static struct pre { u32 pid, tid, ppid; char comm[16]; } *pre;
static size_t npre;

static void pre_task(unsigned long tid, void *ctx)
{
	struct pre *e = pre + npre;

	if (npre < NPRE && proc_comm(*(u32 *)ctx, tid, e->comm, &e->ppid) > 0) {
		e->pid = *(u32 *)ctx;
		e->tid = tid;
		npre++;
	}
}

static void pre_proc(unsigned long pid, void *ctx)
{
	char path[32];
	u32 p = pid;

	fmt(path, sizeof(path), "/proc/%u/task", p);
	each_num(path, pre_task, &p);
}

const char *proc_start_comm(u32 tid)
{
	size_t i;

	for (i = 0; i < npre; i++)
		if (pre[i].tid == tid)
			return pre[i].comm;
	return 0;
}

/* The snapshot of the tasks there at the start */
void proc_snap(void)
{
	pre = xmalloc(NPRE * sizeof(*pre));
	each_num("/proc", pre_proc, 0);
}

/* For a dump, after the table and before /proc: for each task of the
 * start, its FORK (its parent then) and its COMM, the name before any
 * the table describes (an exec, a rename: not marked then, the table's
 * is the latest). /proc's, after, wins for a task that is still there
 * under another name. */
void proc_gone(void)
{
	size_t i;
	u32 v;

	for (i = 0; i < npre; i++) {
		const char *c = pre[i].comm;

		/* Once a stream's: again only when its table of what it sent
		 * started anew (then /proc's COMM, after, is the latest). */
		if (!proc_fork(pre[i].pid, pre[i].tid, pre[i].ppid))
			continue;
		if (!seen_get(pre[i].tid, &v) || seen_mode() == 2)
			comm_seen(pre[i].tid, c);
		else if (v == comm_hash(c))	/* the table's already: an exec */
			c = 0;	/* between its rings' start and the look */
		if (c)
			pd_comm(pre[i].pid, pre[i].tid, c);
		name_bit(pre[i].tid, 1);
	}
}

/* An MMAP2 for each executable map of /proc/PID/maps in b that this
 * dump or stream has not described yet. */
static void maps_emit(u32 pid, char *b)
{
	char *p, *nl;

	for (p = b; (nl = xstrchr(p, '\n')); p = nl + 1) {
		struct {
			u32 pid, tid;
			u64 start, len, pgoff;
			u32 maj, min;
			u64 ino, gen;
			u32 prot, flags;
		} m = { .pid = pid, .tid = pid };
		char *q, *path;

		*nl = 0;
		path = xstrchr(p, '/');
		if (!path)
			path = xstrstr(p, "[vdso]");
		q = xstrchr(p, ' ');
		if (!path || !q || q[3] != 'x')
			continue;
		m.start = xtou(p, &q, 16);
		m.len = xtou(q + 1, &q, 16) - m.start;
		m.prot = (q[1] == 'r') | (q[2] == 'w') << 1 | 4;
		m.flags = q[4] == 'p' ? 2 : 1;
		m.pgoff = xtou(q + 6, &q, 16);
		m.maj = xtou(q + 1, &q, 16);
		m.min = xtou(q + 1, &q, 16);
		m.ino = xtou(q + 1, &q, 10);
		if (map_seen(pid, &m.start, path))
			continue;
		/* With its build-id, perf refuses a host file that differs. */
		if (*path == '/' && bid_map(path, m.maj, m.min, m.ino, (u8 *)&m.maj + 4)) {
			memset(&m.maj, 0, 4);
			*(u8 *)&m.maj = 20;
			pd_rec(REC_MMAP2, MISC_USER | MISC_MMAP_BUILD_ID, &m, sizeof(m),
			    "44888" "xxxxxxxxxxxxxxxxxxxxxxxx" "44", path);
		} else {
			pd_rec(REC_MMAP2, MISC_USER, &m, sizeof(m), "44888448844", path);
		}
	}
}

static void proc_one(unsigned long pid, void *ctx)
{
	static char b[1 << 17];
	char path[64], *p;
	u32 tgid = pid;
	long n;

	memcpy(path, "/proc/", 6);
	p = utoa(path + 6, pid);
	memcpy(p, "/task", 6);
	each_num(path, comm_one, &tgid);
	memcpy(p, "/maps", 6);
	n = needed(NEED_MAPS, pid) ? readfile(path, b, sizeof(b) - 1) : 0;
	if (n <= 0)
		return;
	b[n] = 0;
	maps_emit(pid, b);
}

/* Every process from /proc, but what this dump or stream described. */
void proc_all(void)
{
	each_num("/proc", proc_one, 0);
}

/* tid -> pid, from /proc/TID/status, asked once per tid and dump
 * (proc_tgid(-1): a dump begins, all asked anew); a task gone by then
 * has its tid as its pid. For the ftrace engine's samples. Not the
 * kernel's saved_tgids: options/record-tgid counts its sched_switch
 * probe by walking every instance's events, and two tracers side by
 * side leave that probe behind for good (seen on 6.18). */
#define TGIDS 16384
static u32 tg[TGIDS][2];	/* tid + 1, its pid: the last tid of each slot */

u32 proc_tgid(u32 tid)
{
	char p[40], b[256], *s;
	u32 *t = tg[tid % TGIDS];
	long n;

	if (tid == (u32)-1)
		return memset(tg, 0, sizeof(tg)), 0;
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
