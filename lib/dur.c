/* dur.c - tripwires on durations, computed by the kernel (DURATION).
 *
 * trip=wakeup>5ms: hist triggers remember, per key (a task, an irq),
 * when a start event hit; at the end event of the same key, onmatch()
 * emits a synthetic event that carries the time between (lat, in us)
 * and the key. A filter on it (lat >= T) makes it rare. Tracer's own
 * small instance holds the triggers and only that filtered event, and
 * its trace_pipe waits in the loop's poll: nothing wakes us until a
 * duration crosses its threshold, however many start and end events
 * there are. The recording instance records the synthetic event too,
 * so the dump shows the duration beside the events it measured.
 *
 * The names are ours and unique: the synthetic event tr_dur_PID_K (not
 * "trace...": the kernel reads onmatch().traceNAME as its trace keyword), the
 * variables t/l/c_PID_K, the instance tracer.PID.dN (marked as the
 * recording instance is: ftrace.c's sweep removes a killed tracer's).
 * Everything is written with O_APPEND: an O_TRUNC write to a trigger
 * or to synthetic_events would remove everyone's. At the next start
 * a killed tracer's synthetic events go (the kernel refuses, EBUSY,
 * while a trigger of a live tracer uses one). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include "config.h"
#include "dur.h"

#define RMDIR(p) syscall(SYS_unlinkat, (long)AT_FDCWD, p, (long)AT_REMOVEDIR)

/* Each preset: the start event and its key, the end event and its key,
 * the synthetic event's fields after lat and what fills them (fields
 * of the end event), a filter the start always has. */
static const struct preset {
	const char *name, *start, *skey, *end, *ekey, *fields, *args, *sfilt, *ckey;
} presets[] = {
	/* (a task woken while it still runs, then preempted, is no late
	 * wakeup: its switch-out reads the waking's time, ckey). The start
	 * filters leave tracer out: its own poll, long by design, ended by
	 * a dump, would trip syscall>T again at each dump. */
	{ "wakeup", "sched.sched_waking", "pid", "sched.sched_switch", "next_pid",
	  "pid_t pid; char comm[16]", "next_pid,next_comm", "pid != %d", "prev_pid" },
	{ "syscall", "raw_syscalls.sys_enter", "common_pid", "raw_syscalls.sys_exit", "common_pid",
	  "int pid; long id", "common_pid,id", "common_pid != %d", 0 },
	{ "irq", "irq.irq_handler_entry", "irq", "irq.irq_handler_exit", "irq", "int irq", "irq", 0, 0 },
	{ "blocked", "sched.sched_switch", "prev_pid", "sched.sched_waking", "pid",
	  "pid_t pid; char comm[16]", "pid,comm", "prev_state & 2 && prev_pid != %d", 0 },
	/* one softirq at a time on a CPU: keyed by it ("cpu" before 5.15) */
	{ "softirq", "irq.softirq_entry", "common_cpu", "irq.softirq_exit", "common_cpu",
	  "unsigned int vec", "vec", 0, 0 },
	/* from the switch to a task to the switch from it (the idle tasks,
	 * pid 0, left out): found when it ends */
	{ "oncpu", "sched.sched_switch", "next_pid", "sched.sched_switch", "prev_pid",
	  "pid_t pid; char comm[16]", "prev_pid,prev_comm", "next_pid != 0", 0 },
};
#define NPRESET (sizeof(presets) / sizeof(*presets))

static struct dur {
	const struct preset *p;
	const char *what;	/* the tripwire as typed */
	char *sfilt, *efilt;	/* the user's filters on the start and end events */
	long us;		/* the threshold */
	struct preset own;	/* the generic form's (p points here) */
	char name[32], ev[96];	/* tr_dur_PID_K; synthetic:NAME/lat >= US/ */
	int trip, made, trig;	/* trig: triggers written (1 start, 2 end too) */
	int oldcpu;		/* the kernel keys "cpu" (before 5.15) */
} durs[16];
static int ndur, dfd = -1, lfd = -1;	/* lfd: our instance's tracing_on, flock()ed: we live */
static char inst[300], sev[320];	/* our instance; its synthetic event dir */
static const char *tracefs;

static int wr(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC), r;

	if (fd < 0)
		return -1;
	r = write(fd, s, strlen(s)) != (ssize_t)strlen(s);
	close(fd);
	return -r;
}

/* One side of the generic form, "SYS:EV(KEY,...)[/FILTER/]" in [s, e):
 * its event "SYS.EV", its keys and its filter; 0, or -1 if malformed. */
static int side(const char *s, const char *e, const char **ev, const char **keys, char **filt)
{
	const char *o = memchr(s, '(', e - s), *c = o ? memchr(o, ')', e - o) : 0;
	char *v;

	if (!c || c - o < 2 || !(v = memchr(s, ':', o - s)) || v == s || v + 1 == o)
		return -1;
	*ev = v = xstrndup(s, o - s);
	v[span(v, ":", 0)] = '.';
	*keys = xstrndup(o + 1, c - o - 1);
	if (++c == e)
		return 0;
	if (*c != '/' || e[-1] != '/' || e - c < 3)
		return -1;
	*filt = xstrndup(c + 1, e - c - 2);
	return 0;
}

const char *dur_add(int trip, const char *what, char *spec, long us)
{
	struct dur *d = durs + ndur;
	char *f = spec + span(spec, "/", 0);
	size_t i;

	if (ndur == sizeof(durs) / sizeof(*durs))
		return "too many duration tripwires: at most 16";
	memset(d, 0, sizeof(*d));
	for (i = 0; i < NPRESET; i++)
		if (!strncmp(spec, presets[i].name, f - spec) && !presets[i].name[f - spec])
			d->p = presets + i;
	/* the generic form, START(KEYS)[/F/]..END(KEYS)[/F/]: f at the
	 * start's last (its ')', or its filter's '/': one may hold "..") */
	if (!d->p && (f = xstrchr(spec, ')')) && f[1] == '/')
		f = xstrstr(f + 2, "/..");
	if (!d->p && f && f[1] == '.' && f[2] == '.') {
		struct preset *o = &d->own;

		if (side(spec, f + 1, &o->start, &o->skey, &d->sfilt) ||
		    side(f + 3, f + 3 + strlen(f + 3), &o->end, &o->ekey, &d->efilt))
			return "a duration between two events: trip=SYS:START(KEY,...)[/FILTER/]..SYS:END(KEY,...)[/FILTER/]>TIME";
		i = strlen(o->start) + strlen(o->end) + 4;
		f = xmalloc(i);
		fmt(f, i, "%s..%s", o->start + span(o->start, ".", 0) + 1, o->end + span(o->end, ".", 0) + 1);
		o->name = f;
		d->p = o;
		f = "";
	}
	if (!d->p)
		return "a duration is wakeup, syscall, irq, softirq, blocked, oncpu or SYS:START(KEY)..SYS:END(KEY), "
		       "then >TIME (trip=wakeup>5ms)";
	if (*f) {
		char *e = xstrrchr(f + 1, '/');

		if (!e || e[1])
			return "a duration's filter: trip=wakeup/FILTER/>5ms";
		d->sfilt = xstrndup(f + 1, e - f - 1);
	}
	if (!us)
		return "a duration's threshold: >TIME from 1us (trip=wakeup>5ms)";
	d->us = us;
	d->trip = trip;
	d->what = what;
	fmt(d->name, sizeof(d->name), "tr_dur_%d_%d", (int)getpid(), ndur);
	fmt(d->ev, sizeof(d->ev), "synthetic:%s/lat >= %L && lat < 1000000000000/", d->name, (u64)us);
	ndur++;
	return 0;
}

/* A killed tracer's instance, tracer.PID.dN (or its recording one)
 * marked: the kernel keeps an instance with hist triggers (EBUSY), so
 * they go first, those that read another's variables before. */
static char sweep[300];	/* the instance being swept */

/* Its hist triggers on event dir/ev/ go: those that read another's
 * variables ($t_...: the end's onmatch, the consumer) on pass 0, the
 * others (that define them) on pass 1 */
static void unhook(const char *dir, const char *ev, int pass)
{
	static char b[4096];
	char t[400], *l, *nl, *e;
	long n;

	fmt(t, sizeof(t), "%s/%s/trigger", dir, ev);
	n = readfile(t, b + 1, sizeof(b) - 2);
	b[n > 0 ? n + 1 : 1] = 0;
	for (l = b + 1; (nl = xstrchr(l, '\n')); l = nl + 1) {
		*nl = 0;
		if (!strncmp(l, "hist:", 5) && !!xstrstr(l, "$t_") == !pass) {
			if ((e = xstrstr(l, " [")))
				*e = 0;		/* " [active]" */
			l[-1] = '!';
			wr(t, l - 1);
		}
	}
}

static const char *sweep_dir;	/* the system being swept */

static void sweep_ev(const char *name, void *ctx)
{
	unhook(sweep_dir, name, *(int *)ctx);
}

/* A system's events in the instance swept: their triggers (pass *ctx) */
static void sweep_sys(const char *name, void *ctx)
{
	char d[400];

	fmt(d, sizeof(d), "%s/events/%s", sweep, name);
	sweep_dir = d;
	if (path_mode(d) == S_IFDIR)
		dir_each(d, sweep_ev, ctx);
}

static void stale_inst(const char *name, void *ctx)
{
	char d[400];
	int fd, busy, pass;

	fmt(sweep, sizeof(sweep), "%s/instances/%s", tracefs, name);
	if (strncmp(name, "tracer.", 7) || !inst_marked(sweep))
		return;		/* (a recording one too: it may record a stale synthetic event) */
	/* a live tracer's holds a lock on its tracing_on (dur_arm) from
	 * before its first trigger: its triggers are not ours to take */
	fmt(d, sizeof(d), "%s/tracing_on", sweep);
	if ((fd = open(d, O_RDONLY | O_CLOEXEC)) >= 0) {
		busy = flock(fd, LOCK_EX | LOCK_NB) && errno == EWOULDBLOCK;
		close(fd);
		if (busy)
			return;
	}
	/* every event's triggers (the generic form's may be on any): those
	 * that read variables, then the rest */
	for (pass = 0; pass < 2; pass++) {
		fmt(d, sizeof(d), "%s/events", sweep);
		dir_each(d, sweep_sys, &pass);
	}
	fmt(d, sizeof(d), "%s/instances/%s", tracefs, name);
	if (!RMDIR(d))
		msg("removed instances/%s: its tracer was killed", name);
}

/* A killed tracer's synthetic event: tr_dur_PID_K whose PID is gone
 * (the kernel keeps a live one's: its triggers use it) */
static void stale_synth(void)
{
	static char b[16384];
	char path[300], *p, *nl, del[48];
	long n;

	fmt(path, sizeof(path), "%s/synthetic_events", tracefs);
	n = readfile(path, b, sizeof(b) - 1);
	b[n > 0 ? n : 0] = 0;
	for (p = b; *p; p = nl + !!*nl) {
		nl = p + span(p, "\n", 0);
		n = span(p, " \t\n", 0);
		if (n > 40 || strncmp(p, "tr_dur_", 7) || !xstrchr(" \t", p[7 + span(p + 7, "0123456789_", 1)]))
			continue;
		fmt(del, sizeof(del), "/proc/%u", (unsigned)xtou(p + 7, 0, 10));
		if (path_mode(del))
			continue;
		memcpy(del, "!", 1), memcpy(del + 1, p, n), del[n + 1] = 0;
		if (!wr(path, del))
			msg("removed the synthetic event %s: its tracer was killed", del + 1);
	}
}

/* Whether a synthetic event knows type t (the kernel's synth_field_size) */
static int synth_type(const char *t)
{
	static const char k[] = "s64\0u64\0s32\0u32\0s16\0u16\0s8\0u8\0char\0unsigned char\0int\0"
		"unsigned int\0short\0unsigned short\0long\0unsigned long\0bool\0pid_t\0gfp_t\0";
	const char *p;

	for (p = k; *p; p += strlen(p) + 1)
		if (!strcmp(p, t))
			return 1;
	return 0;
}

/* The generic form's synthetic fields: each key of the end event, in
 * the type its format gives (by size: the kernel's synthetic events
 * know no dev_t or sector_t), "common_" left off the name. */
static void gen_fields(struct dur *d)
{
	static char b[8192];
	struct preset *o = &d->own;
	char path[300], evn[96], *fl = xmalloc(512), *k, *l, *e;
	const char *ev = o->end;
	size_t n = span(ev, ".", 0), at = 0;
	long r;

	fmt(evn, sizeof(evn), "%s", ev);
	evn[n] = ':';

	fmt(path, sizeof(path), "%s/events/%s", tracefs, ev);
	path[strlen(tracefs) + 8 + n] = '/';
	memcpy(path + strlen(path), "/format", 8);
	r = readfile(path, b, sizeof(b) - 1);
	b[r > 0 ? r : 0] = 0;
	if (r <= 0)
		die(2, "config: %s: no event %s here", d->what, evn);
	o->fields = fl;
	o->args = o->ekey;
	for (k = xstrdup(o->ekey); *k; k = e + !!*e) {
		const char *nm = 0, *sz, *nl, *sn;
		char ty[24];
		unsigned bytes;

		e = k + span(k, ",", 0);
		*e = 0;
		sn = starts(k, "common_") ? starts(k, "common_") : k;
		/* "\tfield:unsigned int vec;\toffset:8;\tsize:4;\tsigned:0;" */
		for (l = b; (l = xstrstr(l, "\tfield:")); l++) {
			nm = l + span(l, ";\n", 0);
			while (nm > l && nm[-1] != ' ')
				nm--;
			if (!strncmp(nm, k, strlen(k)) && (nm[strlen(k)] == ';' || nm[strlen(k)] == '['))
				break;
		}
		nl = l ? l + 1 + span(l + 1, "\n", 0) : 0;
		sz = l ? xstrstr(l, "size:") : 0;
		if (!sz || sz > nl)
			die(2, "config: %s: %s has no field %s", d->what, evn, k);
		bytes = xtou(sz + 5, 0, 10);
		if (starts(l, "\tfield:__data_loc") || (nm[strlen(k)] == '[' && !starts(l, "\tfield:char ")) ||
		    (nm[strlen(k)] != '[' && bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8))
			die(2, "config: %s: the key %s is no number or string of a fixed size", d->what, k);
		ty[0] = 0;	/* the type: "\tfield:TYPE NAME" */
		if (nm - 1 - (l + 7) < (long)sizeof(ty))
			memcpy(ty, l + 7, nm - 1 - (l + 7)), ty[nm - 1 - (l + 7)] = 0;
		if (nm[strlen(k)] == '[')
			fmt(fl + at, 512 - at, "%schar %s[%u]", at ? "; " : "", sn, bytes);
		else if (synth_type(ty))	/* as the field's (6.1 wants the same) */
			fmt(fl + at, 512 - at, "%s%s %s", at ? "; " : "", ty, sn);
		else	/* by size, signed:1 on its line (newer kernels take it) */
			fmt(fl + at, 512 - at, "%s%c%u %s", at ? "; " : "", (l = xstrstr(sz, "signed:1")) && l < nl ? 's' : 'u',
			    8 * bytes, sn);
		at = strlen(fl);
	}
}

const char *dur_make(int i, const char *tfs)
{
	char path[300], decl[640];
	struct dur *d = durs + i;

	if (i >= ndur)
		return 0;
	tracefs = tfs;
	fmt(path, sizeof(path), "%s/synthetic_events", tracefs ? tracefs : "/nonexistent");
	if (!i && (!tracefs || !path_mode(path)))
		die(2, "config: %s: this kernel has no synthetic events: duration tripwires need "
		    "CONFIG_HIST_TRIGGERS and CONFIG_SYNTH_EVENTS (Linux 4.17 or later)", d->what);
	if (!i) {
		fmt(decl, sizeof(decl), "%s/instances", tracefs);
		dir_each(decl, stale_inst, 0);
		stale_synth();
	}
	if (!d->p->fields)
		gen_fields(d);
	fmt(decl, sizeof(decl), "%s u64 lat; %s", d->name, d->p->fields);
	if (wr(path, decl))
		die(2, "config: %s: the kernel refused the synthetic event '%s':", d->what, decl);
	d->made = 1;
	if (!die_hook)
		die_hook = dur_end;	/* (a later config error: tracer.c's tidy then) */
	return d->ev;
}

/* A trigger's "keys=common_cpu" as "keys=cpu" (Linux 4.17 to 5.14);
 * whether there was one. */
static int cpu_key(char *t)
{
	char *c = xstrstr(t, "keys=common_cpu");

	if (c)
		memmove(c + 5, c + 12, strlen(c + 12) + 1);
	return !!c;
}

/* The start's and the end's trigger of d, or its removal (!) */
static int trig(struct dur *d, int which, int off)
{
	const struct preset *p = d->p;
	char path[400], t[512], f[300] = "", sys[32], *ev = (char *)(which ? p->end : p->start);
	size_t n = span(ev, ".", 0);
	int pid = getpid(), k = d - durs;

	if (which == 2 && !p->ckey)
		return 0;
	memcpy(sys, ev, n), sys[n] = 0;
	fmt(path, sizeof(path), "%s/events/%s/%s/trigger", inst, sys, ev + n + 1);
	if (p->sfilt) {
		char own[64];

		fmt(own, sizeof(own), p->sfilt, pid);
		fmt(f, sizeof(f), d->sfilt ? " if (%s) && %s" : " if %s", d->sfilt ? d->sfilt : own, own);
	} else if (d->sfilt) {
		fmt(f, sizeof(f), " if %s", d->sfilt);
	}
	if (!which)
		fmt(t, sizeof(t), "%shist:keys=%s:t_%d_%d=common_timestamp.usecs%s", off ? "!" : "", p->skey, pid, k, f);
	else if (which == 1)
		fmt(t, sizeof(t), "%shist:keys=%s:l_%d_%d=common_timestamp.usecs-$t_%d_%d:onmatch(%s).%s($l_%d_%d,%s)%s%s",
		    off ? "!" : "", p->ekey, pid, k, pid, k, p->start, d->name, pid, k, p->args,
		    d->efilt ? " if " : "", d->efilt ? d->efilt : "");
	else	/* the start read at the end's other side: none stays */
		fmt(t, sizeof(t), "%shist:keys=%s:c_%d_%d=common_timestamp.usecs-$t_%d_%d", off ? "!" : "", p->ckey,
		    pid, k, pid, k);
	if (d->oldcpu)
		cpu_key(t);
	if (!wr(path, t))
		return 0;
	if (off || d->oldcpu || !cpu_key(t))
		return -1;
	d->oldcpu = !wr(path, t);	/* before 5.15: "cpu" */
	return d->oldcpu - 1;
}

/* The kernel's name of syscall id: our hist of the crossings, keyed
 * id.syscall, says it ("{ id: sys_read   [  0] } hitcount: 1") */
static void sys_name(const struct dur *d, u64 id, char *o, size_t n)
{
	static char b[8192];
	char f[400], *l, *e;
	long r;

	fmt(o, n, "syscall %L", id);
	fmt(f, sizeof(f), "%s/events/synthetic/%s/hist", inst, d->name);
	r = readfile(f, b, sizeof(b) - 1);
	b[r > 0 ? r : 0] = 0;
	for (l = b; (l = xstrstr(l, "{ id: ")); l = e) {
		l += 6;
		e = l + span(l, " [", 0);
		if (*e && xtou(e + span(e, " [", 1), 0, 10) == id && e - l < 40) {
			*e = 0;
			fmt(o, n, "%s", starts(l, "sys_") ? starts(l, "sys_") : l);
			return;
		}
	}
}

/* The hist on d's crossings that names syscalls (for a syscall's) */
static int sys_hist(struct dur *d, int off)
{
	char f[400], t[128];

	if (!xstrstr(d->p->fields, "long id"))
		return 0;
	fmt(f, sizeof(f), "%s/events/synthetic/%s/trigger", inst, d->name);
	fmt(t, sizeof(t), "%shist:keys=id.syscall if lat >= %L && lat < 1000000000000", off ? "!" : "", (u64)d->us);
	return wr(f, t);
}

/* A trigger refused: the kernel's words for it (error_log) */
static _Noreturn void refused(const struct dur *d)
{
	static char b[4096];
	char f[400], *e;
	long n;

	fmt(f, sizeof(f), "%s/error_log", inst);
	n = readfile(f, b, sizeof(b) - 1);
	b[n > 0 ? n : 0] = 0;
	for (e = b + strlen(b); e > b && (e[-1] == '\n' || e[-1] == ' '); )
		*--e = 0;
	e = xstrrchr(b, '\n');
	e = e ? e : b;
	/* "[ 1.23] hist:sched:sched_switch: error: Couldn't find ...", then
	 * the command and a caret: the error line, two before the end */
	for (n = 0; n < 2 && e > b; n++)
		for (*e-- = 0; e > b && *e != '\n'; e--)
			;
	e += *e == '\n';
	die(2, "config: %s: the kernel refused its hist trigger: %s", d->what, *e ? e : "(its error_log says nothing)");
}

int dur_arm(void)
{
	char f[400], flt[64];
	int i, k;

	if (!ndur)
		return -1;
	for (i = 1;; i++) {
		fmt(inst, sizeof(inst), "%s/instances/tracer.%d.d%d", tracefs, (int)getpid(), i);
		if (!syscall(SYS_mkdirat, (long)AT_FDCWD, inst, 0700L))
			break;
		if (errno != EEXIST || i == 64)
			die(1, "duration tripwires: %s:", inst);
	}
	fmt(f, sizeof(f), "%s/trace_pipe", inst);
	if ((dfd = open(f, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0)
		die(1, "duration tripwires: %s:", f);
	fmt(f, sizeof(f), "%s/tracing_on", inst);
	if ((lfd = open(f, O_RDONLY | O_CLOEXEC)) < 0 || flock(lfd, LOCK_EX | LOCK_NB))
		die(1, "duration tripwires: %s:", f);
	inst_mark(inst);	/* (locked first: a sweep of another tracer's leaves it) */
	fmt(f, sizeof(f), "%s/buffer_percent", inst);
	wr(f, "0");	/* (poll wakes at the first) */
	/* one clock for all CPUs: a waking on one and the switch on
	 * another must not subtract to a wrapped u64 (a "local" clock's
	 * skew did, under QEMU) */
	fmt(f, sizeof(f), "%s/trace_clock", inst);
	wr(f, "mono");
	for (i = 0; i < ndur; i++) {
		struct dur *d = durs + i;

		fmt(sev, sizeof(sev), "%s/events/synthetic/%s/", inst, d->name);
		fmt(f, sizeof(f), "%sfilter", sev);
		fmt(flt, sizeof(flt), "lat >= %L && lat < 1000000000000", (u64)d->us);	/* (no wrap) */
		if (wr(f, flt))
			die(1, "duration tripwire %s: %s:", d->what, f);
		for (k = 0; k < 3; k++)	/* the start, the end, the consumer */
			if (trig(d, k, 0) || !++d->trig)
				refused(d);
		if (sys_hist(d, 0) || !++d->trig)
			refused(d);
		fmt(f, sizeof(f), "%senable", sev);
		if (wr(f, "1"))
			die(1, "duration tripwire %s: %s:", d->what, f);
	}
	return dfd;
}

/* Its words: "wakeup 7.3 ms: pid 812 (audiod) on cpu 1", from the
 * kernel's "lat=7300 pid=812 comm=audiod" */
static void words(const struct dur *d, const char *s, unsigned cpu, char *o, size_t n)
{
	const char *v;
	u64 lat = xtou((v = xstrstr(s, "lat=")) ? v + 4 : "0", 0, 10);
	size_t k;

	/* (%c: fmt takes a format that ends in ':' as asking for errno) */
	fmt(o, n, "%s %L.%u ms%c", d->p->name, lat / 1000, (unsigned)(lat / 100 % 10), ':');
	if (d->p == &d->own && (v = xstrstr(s, "lat="))) {	/* its keys as the kernel says them */
		v += 4 + span(v + 4, "0123456789", 1);
		k = strlen(o), fmt(o + k, n - k, "%s on cpu %u", v, cpu);
		return;
	}
	if ((v = xstrstr(s, " pid="))) {
		char c[40], p[32];
		long r;

		fmt(p, sizeof(p), "/proc/%u/comm", (unsigned)xtou(v + 5, 0, 10));
		r = xstrstr(s, " comm=") ? 0 : readfile(p, c, sizeof(c) - 1);	/* (a syscall's has none) */
		c[r > 0 ? r - 1 : 0] = 0;
		k = strlen(o), fmt(o + k, n - k, r > 0 ? " pid %u (%s)" : " pid %u", (unsigned)xtou(v + 5, 0, 10), c);
	}
	if ((v = xstrstr(s, " comm=")))
		k = strlen(o), fmt(o + k, n - k, " (%s)", v + 6);
	if ((v = xstrstr(s, " irq=")))
		k = strlen(o), fmt(o + k, n - k, " irq %u", (unsigned)xtou(v + 5, 0, 10));
	if ((v = xstrstr(s, " vec="))) {	/* the kernel's softirq_to_name */
		static const char vn[] = "HI\0TIMER\0NET_TX\0NET_RX\0BLOCK\0IRQ_POLL\0TASKLET\0SCHED\0HRTIMER\0RCU\0";
		const char *q = vn;
		unsigned x = xtou(v + 5, 0, 10), j;

		for (j = 0; j < x && j < 10; j++)
			q += strlen(q) + 1;
		k = strlen(o);
		if (x < 10)
			fmt(o + k, n - k, " %s", q);
		else
			fmt(o + k, n - k, " vec %u", x);
	}
	if ((v = xstrstr(s, " id="))) {
		char sn[48];

		sys_name(d, xtou(v + 4, 0, 10), sn, sizeof(sn));
		k = strlen(o), fmt(o + k, n - k, ", %s", sn);
	}
	k = strlen(o), fmt(o + k, n - k, " on cpu %u", cpu);
}

int dur_read(int *trip, char *what, size_t n)
{
	static char b[4096];
	static long have;
	char *p, *nl, *s;
	long r;
	int k;

	for (;;) {
		nl = memchr(b, '\n', have);
		if (!nl) {
			if (have == sizeof(b) - 1)
				have = 0;	/* a line too long: not ours */
			r = read(dfd, b + have, sizeof(b) - 1 - have);
			if (r <= 0)
				return 0;
			have += r;
			continue;
		}
		*nl = 0;
		/* "  task-PID  [CPU] flags  TIME: tr_dur_PID_K: lat=..." */
		p = xstrstr(b, ": tr_dur_");
		s = p ? xstrstr(p + 2, ": ") : 0;
		for (k = 0; s && k < ndur; k++)
			if ((size_t)(s - p - 2) == strlen(durs[k].name) && !memcmp(p + 2, durs[k].name, s - p - 2))
				break;
		if (s && k < ndur) {
			const char *c = xstrchr(b, '[');

			*trip = durs[k].trip;
			words(durs + k, s + 1, c ? (unsigned)xtou(c + 1, 0, 10) : 0, what, n);
		}
		r = nl + 1 - b;
		memmove(b, nl + 1, have -= r);
		if (s && k < ndur)
			return 1;
	}
}

void dur_forget(void)
{
	ndur = 0;
	tracefs = 0;
}

void dur_end(void)
{
	char f[400];
	int i, k;

	if (!tracefs)
		return;		/* (none made) */
	for (i = 0; i < ndur; i++) {
		struct dur *d = durs + i;

		if (d->trig > 3)
			sys_hist(d, 1);
		for (k = d->trig < 3 ? d->trig : 3; k--; )
			trig(d, k, 1);	/* (the start last: the others read it) */
		d->trig = 0;
	}
	if (dfd >= 0) {
		close(lfd);
		close(dfd);
		dfd = -1;
		if (RMDIR(inst))
			msg("%s: can't remove it:", inst);
	}
	fmt(f, sizeof(f), "%s/synthetic_events", tracefs);
	for (i = 0; i < ndur; i++) {
		struct dur *d = durs + i;
		char del[40];

		fmt(del, sizeof(del), "!%s", d->name);
		if (d->made && wr(f, del))
			msg("the synthetic event %s: can't remove it:", d->name);
		d->made = 0;
	}
}
