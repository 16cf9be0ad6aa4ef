/* boot.c - tracer -b: the boot before, from a persistent ftrace instance.
 * reserve_mem=SIZE:ALIGN:LABEL trace_instance=NAME@LABEL on the kernel
 * command line maps instance NAME onto memory that a warm reboot keeps
 * (Linux 6.12), and persist=NAME records there. After a crash and the
 * reboot, the instance holds the boot before's records. They can only be
 * read once (no mmap, no snapshot there): ft_boot reads every CPU's
 * pages at start, then the config is what they hold, and the dump walks
 * those pages like any others. No process table survives: pids are tids,
 * and tasks are named from what the records carry. */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include "config.h"
#include "perfdata.h"
#include "ftrace.h"
#include "boot.h"

static u64 boot_walk(char *wrap);

static struct { u32 tid; char comm[16]; } cm[4096];	/* tid + 1 -> comm */
static u8 seen[65536 / 8];	/* the common_types the pages hold */

static int seen_id(long id)
{
	return id >= 0 && id < 65536 && seen[id >> 3] >> (id & 7) & 1;
}

static void find(const char *name, void *ctx)
{
	if (!*(char *)ctx) {
		fmt(ft_iname, sizeof(ft_iname), "%s", name);
		if (ft_persistent() > 0)
			*(char *)ctx = 1;
	}
}

/* The persistent instance that holds the boot before's records, read;
 * returns the config of the tracepoints they hold. */
char *ft_boot(void)
{
	char b[300], found = 0, *c;
	struct fcpu w;
	u32 cap;
	int cpu, fd;

	if (!(tracefs = tracefs_find()))
		die(1, "-b: no tracefs");
	fmt(b, sizeof(b), "%s/instances", tracefs);
	dir_each(b, find, &found);
	if (!found)
		die(1, "-b: no instance in %s holds the boot before (persist= records one)", b);
	ft_prev = 1;
	ft_bootwalk = boot_walk;
	if (ft_header())
		die(1, "%s: not a page header tracer reads", ft_path("../../events/header_page"));
	ft_bp = xmalloc(1024 * sizeof(*ft_bp));
	for (cpu = 0; cpu < 1024; cpu++) {
		fmt(b, sizeof(b), "per_cpu/cpu%d/trace_pipe_raw", cpu);
		if ((fd = open(ft_path(b), O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0)
			continue;
		cap = ft_nsub(cpu);
		ft_bp[cpu].p = xmalloc((size_t)cap * ft_sbs);
		ft_bp[cpu].ord = xmalloc(cap * 4);
		while (ft_bp[cpu].n < cap &&
		       read(fd, ft_bp[cpu].p + (size_t)ft_bp[cpu].n * ft_sbs, ft_sbs) >= ft_hsz)
			ft_bp[cpu].ord[ft_bp[cpu].n] = ft_bp[cpu].n, ft_bp[cpu].n++;
		close(fd);
		memset(&w, 0, sizeof(w));
		w.cp = ft_bp[cpu].p, w.ord = ft_bp[cpu].ord, w.ncp = ft_bp[cpu].n;
		while (ft_step(&w, 1)) {
			u16 id;

			memcpy(&id, w.data, 2);
			seen[id >> 3] |= 1 << (id & 7);
		}
	}
	if (!*(c = tp_names(seen_id)))
		die(1, "-b: instances/%s: no records", ft_iname);
	msg("-b: instances/%s: the boot before: %s", ft_iname, c);
	return c;
}

/* A field's offset in a tracepoint's records, from its format: decl is
 * its name as declared, up to the ';' ("prev_comm[16]"). -1: none. */
static long field(const struct event *e, const char *decl)
{
	static char b[8192];
	char p[300], *s;
	long n;

	tp_path(p, sizeof(p), e->name, "format");
	n = readfile(p, b, sizeof(b) - 1);
	b[n > 0 ? n : 0] = 0;
	fmt(p, sizeof(p), " %s;\toffset", decl);	/* (a trailing ':' would add strerror) */
	return (s = xstrstr(b, p)) ? (long)xtou(s + strlen(p) + 1, 0, 10) : -1;
}

static void name(const struct fcpu *c, long tid_at, long comm_at, long len)
{
	u32 tid, i, k;
	char *d;

	if (tid_at < 0 || comm_at < 0 || tid_at + 4 > c->dlen || comm_at + len > c->dlen)
		return;
	memcpy(&tid, c->data + tid_at, 4);
	for (i = tid % 4096, k = 0; tid && k < 4096; k++, i = (i + 1) % 4096)
		if (!cm[i].tid || cm[i].tid == tid + 1) {
			cm[i].tid = tid + 1;
			d = cm[i].comm;
			memset(d, 0, 16);
			memcpy(d, c->data + comm_at, len > 15 ? 15 : len);
			return;
		}
}

/* Each CPU's walk, its span said, and the tasks named: sched_switch's
 * comms (a task's as it ran), sched_process_exec's filenames. */
static u64 boot_walk(char *wrap)
{
	long o[6] = { -1, -1, -1, -1, -1, -1 };
	int ri, i;

	for (i = 0; i < nev; i++) {
		if (!strcmp(evs[i].name, "sched:sched_switch")) {
			o[0] = field(evs + i, "prev_pid"), o[1] = field(evs + i, "prev_comm[16]");
			o[2] = field(evs + i, "next_pid"), o[3] = field(evs + i, "next_comm[16]");
		} else if (!strcmp(evs[i].name, "sched:sched_process_exec")) {
			o[4] = field(evs + i, "pid"), o[5] = field(evs + i, "filename");
		}
	}
	for (ri = 0; ri < nring; ri++) {
		struct fcpu *c = ft_fc + ri;
		u64 t0 = 0, n = 0;

		ft_walk(c, 0);
		for (; ft_step(c, 0); n++) {
			const char *e = ft_ev_of(c->data)->name;

			t0 = n ? t0 : c->t;
			if (!strcmp(e, "sched:sched_switch")) {
				name(c, o[0], o[1], 16);
				name(c, o[2], o[3], 16);
			} else if (!strcmp(e, "sched:sched_process_exec") && o[5] >= 0 && o[5] + 4 <= c->dlen) {
				u32 loc, at, len;
				const unsigned char *f;

				memcpy(&loc, c->data + o[5], 4);
				at = loc & 0xffff, len = loc >> 16;
				if (at + len > c->dlen || !len)
					continue;
				f = memchr(c->data + at, 0, len) ? c->data + at : 0;
				for (i = len; f && i > 0 && f[i - 1] != '/'; i--)
					;
				if (f)
					name(c, o[4], at + i, strlen((const char *)f + i));
			}
		}
		msg("-b: cpu %d: %L records, %L.%u s to %L.%u s", c->cpu, n, t0 / 1000000000,
		    (unsigned)(t0 / 100000000 % 10), c->kt / 1000000000, (unsigned)(c->kt / 100000000 % 10));
		ft_walk(c, 0);
		wrap[ri] = 0;
	}
	return 0;
}

/* tracer -b: the tasks named, into the dump (before the samples). */
void ft_comms(void)
{
	int i, n = 0;

	for (i = 0; PREV && i < 4096; i++)
		if (cm[i].tid)
			pd_comm(cm[i].tid - 1, cm[i].tid - 1, cm[i].comm), n++;
	if (PREV)
		msg("-b: %d tasks named from their records; pids are tids", n);
}
