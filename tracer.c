/* tracer - a static flight recorder for embedded Linux.
 *
 * Opens system-wide perf events on every CPU into one backward,
 * overwritable ring per CPU, then sleeps in one blocking call. SIGUSR2
 * pauses the rings, copies them out, resumes them, and writes the copy as
 * perf.data for host perf. SIGINT or SIGTERM dumps once more and exits.
 *
 * This is the top: the command line, the loop that sleeps, and the
 * tripwire policy. The data path runs down the files beneath it:
 * cfg.c (config -> events) -> dump.c (events -> rings -> dumps) ->
 * track.c (processes) -> perfdata.c (perf.data) -> sink.c (where it
 * goes) -> frame.c; ring.c and lib.c at the bottom. Nothing calls up.
 *
 * Exit codes: 0 ok, 1 runtime failure, 2 usage or config error.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include "config.h"
#include "frame.h"
#include "print.h"
#include "convert.h"
#include "sink.h"
#include "pull.h"
#include "push.h"
#include "cfg.h"
#include "perfdata.h"
#include "track.h"
#include "lean.h"
#include "ftrace.h"
#include "boot.h"
#include "hotplug.h"
#include "dump.h"
#include "zstd.h"
#include "dur.h"

static void trip_read(void);
static u32 hit_pid[16];	/* per tripwire: who hit last */
static int sigfd, dfd = -1;	/* dfd: the duration tripwires' (dur.c) */

/* Every way out: the tty as it was, no ftrace instance left behind,
 * push's last try. */
static void tidy(void)
{
	int i, n = 0;

	/* The kernel unregisters a tracepoint's perf events at their close,
	 * a grace period each: '*:* engine=perf' (2304) took 62 s. */
	for (i = 0; CFG_TRACEPOINTS && i < nev; i++)
		n += evs[i].attr.type == TYPE_TRACEPOINT && !evs[i].ft;
	if (n >= 256)
		msg("exiting: the kernel closes %d tracepoints' perf events, a grace period each (2304 took a minute)", n);
	sink_restore();
	if (CFG_PUSH)
		push_end(sigfd);
	if (CFG_FTRACE)
		ft_end();
	if (CFG_DURATION)
		dur_end();	/* (after the instance that records its events) */
}
static int draining;
static u64 deadline;	/* of the post-trigger dump */

/* A dump, and the exit (0) once it is the last written that dumps=
 * asks for. Returns dump()'s answer. The tripwire
 * rings are read first: their hits belong in this dump, in time order,
 * and count without dumping again (a pull is no such dump). */
static int dump_now(const char *why, int pull)
{
	static int made;	/* dumps= counts the sink's, not pulls */
	int r;

	/* Before a pull, a hit dumps to the sink first. */
	draining = pull < 0;
	if (CFG_TRIPWIRE && ntrip)
		trip_read();
	draining = 0;
	r = dump(why, pull);
	/* The same dump for the store: made now, sent from the loop. */
	if (CFG_PUSH && cfg_push && pull < 0)
		dump(why, DUMP_PUSH);
	/* A pull gave way to a hit, whose wake-up its poll took: read now. */
	if (CFG_TRIPWIRE && ntrip && pull >= 0)
		trip_read();

	/* (one that failed is not made: recording goes on) */
	if (cfg_dumps && pull < 0 && !r && ++made >= cfg_dumps) {
		msg("made dumps=%d, exiting", (int)cfg_dumps);
		tidy();
		exit(0);
	}
	return r;
}

/* ---- tripwires ---- */

static char reason[128];

/* Where a tracepoint has a fixed "char comm[16]" field, or -1. */
static int tp_comm_off(const char *name)
{
	static char b[8192];
	char path[300], *p;
	long n;

	tp_path(path, sizeof(path), name, "format");
	n = readfile(path, b, sizeof(b) - 1);
	b[n > 0 ? n : 0] = 0;
#define COMM_FIELD "\tfield:char comm[16];\toffset:"
	p = xstrstr(b, COMM_FIELD);
	return p ? (int)xtou(p + sizeof(COMM_FIELD) - 1, 0, 10) : -1;
}

/* Who hit: /proc now, since a crashing process may be gone by the time
 * we dump; if it is gone already, the tracepoint's own comm field. */
static void trip_who(const struct rec_hdr *h, const struct event *e, const u32 *id)
{
	const u64 *a = (const void *)(h + 1);
	const unsigned char *raw;
	char path[32];
	long n, off;

	memcpy(hit_id, id, sizeof(hit_id));
	fmt(path, sizeof(path), "/proc/%u/comm", id[1]);
	n = readfile(path, hit_comm, sizeof(hit_comm) - 1);
	hit_comm[n > 0 ? n - 1 : 0] = 0;
	if (n > 0)
		return;
	memcpy(hit_comm, "?", 2);
	if ((off = e->comm_off) <= 0)
		return;
	a += 6;					/* IDENTIFIER IP TID TIME CPU PERIOD */
	if (e->attr.sample_type & S_CALLCHAIN)
		a += 1 + *a;
	raw = (const unsigned char *)a + 4;	/* u32 size, then the raw data */
	if ((const unsigned char *)h + h->size >= raw + off + 16)
		memcpy(hit_comm, raw + off, 15), hit_comm[15] = 0;
}

/* n more hits of t; the last by pid, or what a duration says (dw) */
static void trip_hit(struct trip *t, u64 n, u32 pid, const char *dw)
{
	char *comm = hit_comm, by[96];
	u64 now = now_us();

	if (dw)
		fmt(by, sizeof(by), "%s", dw);
	else
		fmt(by, sizeof(by), "by pid %u (%s)", pid, comm);
	if (t->hits + n < (u64)t->count) {
		t->hits += n;
		msg("trip %s: hit %u of %u, %s", t->what, t->hits, (unsigned)t->count, by);
		return;
	}
	t->hits = 0;
	if (deadline || draining)
		return;		/* a dump is on its way */
	if (t->last && now - t->last < (u64)t->holdoff) {
		/* a storm: said at 1, 2, 4, 8, ... */
		t->held++;
		if (!(t->held & (t->held - 1)))
			msg(dw ? "trip %s: %s: within holdoff, not dumped (%u so far)" :
			    "trip %s %s: within holdoff, not dumped (%u so far)", t->what, by, t->held);
		return;
	}
	t->last = now;
	fmt(reason, sizeof(reason), dw ? "trip %s" : "trip %s %s", dw ? by : t->what, by);
	if (t->after) {
		msg("%s: dumping in %L ms", reason, (u64)t->after / 1000);
		deadline = now + t->after;
	} else {
		dump_now(reason, -1);
	}
}

/* A record from a tripwire ring: kept for the dump, and who hit. */
static void trip_rec(const struct rec_hdr *h, void *ctx)
{
	const u64 *a = (const void *)(h + 1);
	struct event *e;
	u32 id[2];

	if (h->type != REC_SAMPLE || h->size < 8 + 48)
		return;
	e = ev_by_id(a[0]);
	if (!e || !e->dup)
		dump_keep(h);
	memcpy(id, a + 2, 8);		/* IDENTIFIER, IP, then {pid, tid} */
	if (e && e->trip) {
		trip_who(h, e, id);
		hit_pid[e->trip - 1] = id[0];
	}
}

/* The tripwire rings, then the hits: counted from each event's own
 * counter (read() of its fd), not from the records. A burst fills the
 * 8 KiB ring and the kernel drops the rest, and says so (LOST) only
 * when a later record fits; the counter has every hit. */
static void trip_read(void)
{
	char what[96];
	int i, k;

	for (i = 0; i < nring; i++)
		if (trings[i].base)
			ring_read(trings + i, trip_rec, 0);
	for (k = 0; k < ntrip; k++) {
		u64 n = 0, v;

		for (i = 0; i < nev; i++) {
			struct event *e = evs + i;
			int r;

			for (r = 0; e->trip == k + 1 && r < nring; r++)
				if (read(e->fds[r], &v, 8) == 8) {
					/* a CPU back online: a new event, from 0 */
					n += v - (v >= e->cnt[r] ? e->cnt[r] : 0);
					e->cnt[r] = v;
				}
		}
		if (n)
			trip_hit(trips + k, n, hit_pid[k], 0);
	}
	for (k = 0; CFG_DURATION && dfd >= 0 && dur_read(&i, what, sizeof(what)); )
		trip_hit(trips + i, 1, 0, what);
}

/* ---- main ---- */

/* The signals we read: USR2 dumps, USR1 and CONT turn recording off and
 * on (the first three), and every other one that would end us by
 * default dumps and exits.
 * (SIGQUIT, SIGXCPU and SIGSYS would also dump core: here they dump.) */
static const unsigned char endsig[] = {
	SIGUSR1, SIGUSR2, SIGCONT, SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGALRM,
	SIGVTALRM, SIGPROF, SIGXCPU, SIGIO, SIGPWR,
};

/* What the loop sleeps on: the signalfd, CPU hotplug, push's upload,
 * listen= and the connections that wait (PULL_PEND), a tty sink's
 * requests, the duration tripwires (P_DUR), the tripwire rings (to
 * *nt), the tracking rings (to the count returned). Again after a CPU came back, whose
 * rings have new fds. */
#define P_PUSH 2
#define P_PULL 3
#define P_TTY (P_PULL + 1 + PULL_PEND)
#define P_DUR (P_TTY + 1)
static int poll_fds(struct pollfd *p, int sfd, int hfd, int *nt)
{
	int i, n = P_DUR + 1;

	p[0].fd = sfd;
	p[1].fd = hfd;
	for (i = P_PUSH; i < P_TTY; i++)
		p[i].fd = -1;
	p[P_TTY].fd = CFG_SERIAL && sink_tty ? sink_fd : -1;
	p[P_DUR].fd = dfd;
	for (i = 0; ntrip && i < nring; i++)
		p[n++].fd = trings[i].base ? trings[i].fd : -1;	/* (none: durations only) */
	*nt = n;
	for (i = 0; i < nring; i++)
		if (tfds[i] >= 0)
			p[n++].fd = tfds[i];
	for (i = 0; CFG_OLDKERNEL && frings && i < nring; i++)
		p[n++].fd = frings[i].base ? frings[i].fd : -1;
	for (i = 0; i < n; i++)
		p[i].events = POLLIN;
	return n;
}

/* A pulled dump gives way at once to what would dump to the sink: a
 * signal, a tty's request, a tripwire's ring, the post-trigger time. */
static void pull_serve(int c, const char *who, const struct pollfd *p, int nt)
{
	static struct pollfd *y;
	char why[80];
	int i, n = 1;

	if (!y)
		y = xmalloc((4 + nmax) * sizeof(*y));
	y[n++] = p[0];
	y[n++] = p[P_TTY];
	for (i = P_DUR; i < nt; i++)
		y[n++] = p[i];
	sink_yield(y, n, deadline);
	fmt(why, sizeof(why), "pulled by %s", who);
	dump_now(why, c);
	pull_hangup(c);
}

/* One stop sends more than one signal: timeout(1) signals us, then our
 * process group, then SIGCONT to both; make(1), killed, signals its
 * child; a terminal's Ctrl-C goes to the whole foreground group, make
 * included. What comes within STOP_GATHER of the first is that same
 * stop, not a second one that would cut the final dump short. (The
 * rings record meanwhile: the dump holds up to then.) */
static void stop_gather(int sfd)
{
	u64 end = now_us() + STOP_GATHER, now;
	struct signalfd_siginfo si;
	struct pollfd p = { sfd, POLLIN, 0 };

	while ((now = now_us()) < end && poll(&p, 1, (end - now) / 1000 + 1) > 0)
		read(sfd, &si, sizeof(si));
}

/* Sleep in one poll, with a timeout only while a post-trigger dump, a
 * connection or a rate-limited request is pending. */
static int loop(int sfd)
{
	struct pollfd *p = xmalloc((P_DUR + 1 + (CFG_OLDKERNEL ? 3 : 2) * nmax) * sizeof(*p));
	int i, nt, asked = 0, hfd = hotplug_fd(), n = poll_fds(p, sfd, hfd, &nt), pwait = -1;
	char where[80] = "", ftw[CFG_OLDKERNEL ? 320 : 192] = "";
	u64 req_rate = 0;

	if (CFG_LISTEN && cfg_listen)
		fmt(where, sizeof(where), "; listening on %s%s", cfg_listen,
		    cfg_key ? ", for clients that send the key" : "");
	if (CFG_FTRACE && ft_n)
		fmt(ftw, sizeof(ftw), " (%d tracepoints in ftrace instance %s, by %s; %d on perf rings)",
		    ft_n, ft_iname, ft_how(0), nev - ft_n);
	if (CFG_OLDKERNEL && frings) {
		i = strlen(ftw);
		fmt(ftw + i, sizeof(ftw) - i, " (before Linux 4.7: perf rings forward; a wake-up per %L KiB a CPU records)",
		    (u64)cfg_buf / 4 * 3 >> 10);
	}
	msg("recording %d events on %d CPUs, %L KiB per CPU%s%s; pid %d: SIGUSR2 dumps, SIGINT dumps and exits%s",
	    nev, nring, (u64)cfg_buf >> 10, CFG_LEAN && lean_noid ? " (tracepoints only: no ids)" : "", ftw, (int)getpid(), where);
	for (;;) {
		struct signalfd_siginfo si;
		int timeout = pwait, w;
		u64 now = now_us();

		/* An ending signal came during a dump: the final one now. */
		if (out_final)
			return dump_now("exit", -1) ? 1 : 0;
		if (CFG_LISTEN && cfg_listen)
			pull_fds(p + P_PULL);
		if (CFG_PUSH && cfg_push)
			timeout = min_ms(timeout, push_fds(p + P_PUSH));
		if (deadline)
			timeout = min_ms(timeout, now >= deadline ? 0 : (deadline - now + 999) / 1000);
		/* A request on the line: at most the pulls' rate; those that
		 * come meanwhile are one dump, when the limit allows. */
		if (asked && !(w = pull_rate(&req_rate, now))) {
			asked = 0;
			dump_now("asked on the line", -1);
			continue;
		}
		if (asked)
			timeout = min_ms(timeout, w);
		if (poll(p, n, timeout) < 0)
			continue;
		/* Signals first: a tripwire storm must not keep them waiting. */
		if (p[0].revents & POLLIN && read(sfd, &si, sizeof(si)) == sizeof(si)) {
			if (si.ssi_signo == SIGUSR2) {
				dump_now("signal", -1);
			} else if (si.ssi_signo == SIGUSR1 || si.ssi_signo == SIGCONT) {
				/* Off and on, not a toggle: signals of one kind
				 * that come together are read as one. */
				if (dump_toggle(si.ssi_signo == SIGUSR1))
					msg(si.ssi_signo == SIGUSR1 ? "recording off (SIGCONT turns it on)" : "recording on");
			} else {
				/* Every other signal that ends us: the final dump;
				 * a second one ends it at once. 1 if it failed. */
				msg("%s: the final dump", sig_name(si.ssi_signo));
				sink_final(si.ssi_signo, si.ssi_pid);
				stop_gather(sfd);
				return dump_now("exit", -1) ? 1 : 0;
			}
		}
		if (deadline && now_us() >= deadline) {
			deadline = 0;
			dump_now(reason, -1);
		}
		if (CFG_SERIAL && p[P_TTY].revents && (i = sink_request())) {
			if (i > 0)
				asked = 1;	/* dumped at the top */
			else
				p[P_TTY].fd = -1;	/* hung up: no more requests */
		}
		for (i = P_DUR; CFG_TRIPWIRE && i < nt; i++)
			if (p[i].revents) {
				trip_read();	/* all of them */
				break;
			}
		/* Pulls last: whatever dumps to the sink has gone first. */
		if (CFG_LISTEN && cfg_listen) {
			char who[48];
			int c = pull_step(p + P_PULL, who, sizeof(who), &pwait);

			if (c >= 0)
				pull_serve(c, who, p, nt);
		}
		for (i = nt; (CFG_TRACK || CFG_OLDKERNEL) && i < n; i++)
			if (p[i].revents) {
				if (CFG_TRACK)
					track_read();	/* all of them, in one batch */
				dump_drain();	/* (before 4.7) */
				break;
			}
		if (CFG_PUSH && cfg_push)
			push_step(p + P_PUSH);
		if (CFG_HOTPLUG && p[1].revents && dump_hotplug(hfd))
			n = poll_fds(p, sfd, hfd, &nt);
	}
}

#define NIB "-%c is not built in (CONFIG_%s)"
#define S_(n) #n
#define S(n) S_(n)
static _Noreturn void usage(int code)
{
	static const char head[] =
"usage: tracer [-o FILE|DEVICE|FIFO] [-f CONFIG_FILE | 'CONFIG']   record\n";
	static const char xp[] =	/* (FRAME, PRINT) */
"       tracer -x [-n N] [-o FILE] < CAPTURE | -p [FILE]   extract | print\n";
	/* -c (CONVERT) on the line of -l and -h: -h stays 24 lines */
	const char *lh = CFG_CONVERT ?
"       tracer -l | -h | -c [-n N] -o FILE [INPUT]  list | help | to files\n" :
"       tracer -l | -h                          list events | this help\n";
	static const char full[] =
"Records system-wide perf events into an overwriting ring per CPU, then sleeps.\n"
"SIGUSR2 or a tripwire dumps them as perf.data; SIGUSR1: off, SIGCONT: on. Any\n"
"other ending signal dumps and exits: 0 if written, 1 if not, 2: usage error.\n"
"  -o FILE  dumps go to FILE, FILE.1, ... (never overwritten; files=N room=\n"
"           SIZE free=SIZE bound them); a tty or fifo: a stream. Default: stdout\n"
"CONFIG: items separated by spaces, newlines or ';'\n"
"  SYS:NAME[/FILTER/]  tracepoint; NAME a glob (sched:*); FILTER in ftrace\n"
"                      syntax: signal:signal_generate/sig==11/\n"
"  EVENT[@HZ|%N]       cpu-clock@99 page-faults%100 cycles ... (clocks @99)\n"
"  trip=EVENT[/F/][,count=N][,after=T][,holdoff=T] dump when it hits; presets\n"
"    segv oom oops exit, wakeup|syscall|irq|blocked[/F/]>T; alone count= after=\n"
"  holdoff= set defaults (1 0 1s)  buf=SIZE ring/CPU (128k)  cpus=LIST  0,2-3\n"
"  stack     kernel callchains      out=PATH   as -o     baud=N  a tty's speed\n"
"  dumps=N   exit after N dumps     procs=N    processes kept (" S(PROCS_DEFAULT) "; 0: off)\n"
"  full|lean perf's layout  engine=perf|ftrace tracepoints'  frame=text  zstd\n"
"  trim  all CPUs from one start    listen=IP:PORT|@NAME  a dump per connection\n"
"  key=FILE  the secret a client sends first (listen= beyond 127.x needs it)\n"
"  persist=NAME  record in a crash-proof instance; tracer -b: the boot before\n"
"Default: " DEFAULT_CONFIG " buf=128k\n";
	static const char push[] =
"  push=http://HOST:PORT/BUCKET/PREFIX s3key=FILE region=R spool=N|SIZE|DIR\n"
"           every dump also into S3-compatible storage (SigV4)\n"
"  via=IP:PORT connect there (stunnel), sign for HOST; style=virtual BUCKET.HOST\n";

	write(code ? 2 : 1, head, sizeof(head) - 1);
	if (CFG_FRAME || CFG_PRINT)
		write(code ? 2 : 1, xp, sizeof(xp) - 1);
	write(code ? 2 : 1, lh, strlen(lh));
	if (CFG_LONG_HELP)
		write(code ? 2 : 1, full, sizeof(full) - 1);
	if (CFG_LONG_HELP && CFG_PUSH)
		write(code ? 2 : 1, push, sizeof(push) - 1);
	_exit(code);
}
/* -f FILE: the whole file, which must be a config: not a directory, no
 * NUL byte, at most 64 KiB, not blank. */
static char *cfg_file(const char *path)
{
	static char b[(1 << 16) + 2];
	long n = readfile(path, b, sizeof(b) - 1), k;

	if (n < 0)
		die(2, "-f %s:", path);
	if (path_mode(path) == S_IFDIR)
		die(2, "-f %s: a directory, not a config file", path);
	b[n > 0 ? n : 0] = 0;
	if ((k = strlen(b)) < n)
		die(2, "-f %s: a NUL byte at %d: not a config file", path, (int)k + 1);
	if (n > 1 << 16)
		die(2, "-f %s: more than 64 KiB", path);
	if (!b[span(b, " \t\r\n", 1)])	/* (the default config is no file's) */
		die(2, "-f %s: %s", path, n ? "blank: no config in it" : "empty");
	return b;
}

/* -c and -x write files: FILE, else the next free FILE.1, ...; a path
 * that is there and no file (/dev/null, a tty) would put them beside it,
 * in /dev. */
static void host_out(const char *path)
{
	unsigned m = path_mode(path);

	if ((m && m != S_IFREG) || starts(path, "/dev/"))
		die(2, "-o %s: not a file (or in /dev): -c and -x write files (FILE, or FILE.1, ... beside it)", path);
}

/* What the command line asks for. */
struct opts {
	char *config, *out;
	int sel, extract, boot, print, conv;
	int shut;	/* descriptors 0-2 that were closed, a bit each */
};

/* Descriptors 0-2 that an init script or a daemon left closed are
 * /dev/null before anything is opened: else the signalfd would
 * take fd 1, and the dumps would go into it. Returns which were. */
static int std_fds(void)
{
	int i, shut = 0;

	for (i = 0; i < 3; i++)
		if (!fd_mode(i)) {
			shut |= 1 << i;
			if (open("/dev/null", O_RDWR) != i)
				die(1, "fd %d is closed, and /dev/null:", i);
		}
	return shut;
}

/* The options into o; returns the index of the first operand. -l
 * lists the events and exits, -h helps. */
static int options(int argc, char **argv, struct opts *o)
{
	unsigned long long v;
	int i, c;

	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		char *a = argv[i] + 1, *arg;

		if (!strcmp(a, "-")) {
			i++;
			break;
		}
		for (; *a; a++) {
			c = *a;
			arg = 0;
			if (xstrchr("ofn", c) && !(arg = a[1] ? a + 1 : argv[++i]))
				usage(2);
			switch (c) {
			case 'o':
				if (!*(o->out = arg))
					die(2, "-o needs a path");
				break;
			case 'f':
				o->config = cfg_file(arg);
				break;
			case 'n':
				if (!(v = num(arg, 0)) || v > 1000000000)
					die(2, "-n %s: a dump number from 1", arg);
				o->sel = v;
				break;
			case 'l':
				if (!CFG_LIST)
					die(2, NIB, c, "LIST");
				cfg_list();
				exit(0);
			case 'b':
				if (!CFG_PERSIST)
					die(2, "-b: %s", "surviving a crash is not built in (CONFIG_PERSIST)");
				o->boot = 1;
				break;
			case 'x':
				if (!CFG_FRAME)
					die(2, NIB, c, "FRAME");
				o->extract = 1;
				break;
			case 'c':
				if (!CFG_CONVERT)
					die(2, NIB, c, "CONVERT");
				o->conv = 1;
				break;
			case 'p':
				if (!CFG_PRINT)
					die(2, NIB, c, "PRINT");
				o->print = 1;
				break;
			case 'h':
				usage(0);
			default:
				usage(2);
			}
			if (arg)
				break;
		}
	}
	return i;
}

/* The kernel's sigset, as musl lays out sigset_t: bit sig - 1 of
 * _NSIG / 8 bytes, in longs. (The raw calls are 200 bytes less than
 * sigaddset, sigprocmask and signalfd.) */
static unsigned long sigs[_NSIG / 8 / sizeof(long)];

static void sig_add(int sig)
{
	sigs[(sig - 1) / (8 * sizeof(long))] |= 1UL << (sig - 1) % (8 * sizeof(long));
}

static int sig_fd(void)
{
	return syscall(SYS_signalfd4, -1, sigs, sizeof(sigs), SFD_CLOEXEC);
}

/* Signals arrive in one place, the signalfd, read in the loop;
 * from now on, before anything can take long or block. Every
 * signal that would end us takes the final dump. SIGPIPE and
 * SIGXFSZ are blocked, not ignored: writes fail with EPIPE or
 * EFBIG all the same, and sigaction is 1 KiB of libc. SIGTTOU too: a
 * background job's writes to its terminal go on, never stopped. */
static int signals_block(void)
{
	int i, sfd;

	/* The ending ones first: a signalfd of their own, for a dump to
	 * hear; then USR1, USR2 and CONT too, for the loop. */
	for (i = SIGRTMIN; i <= SIGRTMAX; i++)
		sig_add(i);
	for (i = sizeof(endsig); i--; ) {
		sig_add(endsig[i]);
		if (i == 3)
			sink_signals(sig_fd());
	}
	sfd = sig_fd();
	sig_add(SIGPIPE);
	sig_add(SIGXFSZ);
	if (CFG_SERIAL || CFG_FRAME)	/* (only they write a tty) */
		sig_add(SIGTTOU);	/* a terminal's background job writes on */
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, sigs, 0, sizeof(sigs));
	if (sfd < 0)
		die(1, "signalfd:");
	return sfd;
}

/* tracer -b: the boot before can be read only once: where it goes is
 * checked first, and the signals wait in the signalfd (an ending one
 * then takes the final path: the dump, at once). Its config is what
 * it holds (and the keys given). */
static char *boot_config(char *config, const char *out)
{
	int c;

	if (!out && is_tty(1) && !(config && xstrstr(config, "frame=text")))
		die(2, "-b: stdout is a terminal: give -o FILE, pipe it, or use frame=text");
	if (out && (c = open(out, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) >= 0)
		close(c), unlink(out);
	else if (out && errno != EEXIST)
		die(1, "-b: -o %s:", out);
	char *n = ft_boot(), *b;
	size_t k = (config ? strlen(config) : 0) + strlen(n) + 2;

	fmt(b = xmalloc(k), k, "%s %s", config ? config : "", n);
	return b;
}

/* The config, the sink, the rings and what the dumps describe. */
static void record_setup(int argc, char **argv, const struct opts *o)
{
	u64 possible[16];
	int i, ncpu = 0;

	cfg_load(o->config, o->out);
	if (CFG_PERSIST && o->boot)
		cfg_procs = 0;		/* no process of this boot's */
	if (o->shut & 2 && !cfg_out)
		die(2, "stdout is closed: give -o FILE");
	/* Read now, not at a hit: where a tripwire's tracepoint has a comm. */
	for (i = 0; i < nev; i++)
		if (CFG_TRIPWIRE && evs[i].trip && evs[i].attr.type == TYPE_TRACEPOINT)
			evs[i].comm_off = tp_comm_off(evs[i].name);
	sink_open(cfg_out, cfg_frame, cfg_baud);
	die_hook = tidy;
	if (CFG_LISTEN && cfg_listen)
		pull_listen(cfg_listen);
	if (CFG_PUSH)
		push_init();
	dump_init();
	if (CFG_DURATION)
		dfd = dur_arm();
	if (CFG_ZSTD && cfg_zstd)
		zstd_init();
	if (!sysfs_cpus("/sys/devices/system/cpu/possible", possible))
		for (i = 0; i < 1024; i++)
			if (possible[i / 64] >> i % 64 & 1)
				ncpu = i + 1;
	pd_tracing_build();
	pd_features_build(argc, argv, ncpu, nring);
}

int main(int argc, char **argv)
{
	struct opts o = { .shut = std_fds() };
	int i = options(argc, argv, &o), sfd;

	/* CFG_ too: o is in memory, where the compiler no longer sees that
	 * a mode not built in stays 0 (and would keep its code) */
	if (CFG_CONVERT && o.conv) {
		if (o.extract || o.print || o.boot || o.config)
			die(2, "-c takes -o FILE, -n N and one input, and no other option");
		if (i + 1 < argc)
			die(2, "-c: '%s' after the input: options go first (tracer -c -o FILE [INPUT])", argv[i + 1]);
		if (!o.out)
			die(2, "-c needs -o FILE");
		host_out(o.out);
		return conv_main(argv[i], o.out, o.sel);
	}
	if (CFG_PRINT && o.print) {
		if (o.extract || o.boot || o.out || o.config || i + 1 < argc)
			die(2, "-p takes one FILE, or reads stdin, and nothing else");
		return print_main(argv[i]);
	}
	if (i < argc) {
		if (o.extract)
			die(2, "-x reads a capture on stdin and takes no CONFIG");
		if (o.config || i + 1 < argc)
			die(2, "'%s': one CONFIG only (-f or an argument); quote it: tracer 'a b'",
			    argv[o.config ? i : i + 1]);
		/* A copy: parsing cuts it up, and ps shows argv. */
		o.config = xstrdup(argv[i]);
	}
	if (o.shut & 2 && !o.out && o.extract)
		die(2, "stdout is closed: give -o FILE");
	if (o.extract && o.boot)
		die(2, "-b and -x: one or the other");
	if (o.extract) {
		if (CFG_FRAME && o.out)
			host_out(o.out);
		return frame_extract(o.sel, o.out, "", 0, 0, 0);
	}

	sigfd = sfd = signals_block();
	if (CFG_PERSIST && o.boot)
		o.config = boot_config(o.config, o.out);
	record_setup(argc, argv, &o);
	i = CFG_PERSIST && o.boot ? !!dump("the boot before", -1) : loop(sfd);
	tidy();
	return i;
}
