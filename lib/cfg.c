/* cfg.c - the config string into the event table: tracepoints (globs
 * and filters, found under tracefs), software and hardware events,
 * tripwires and their presets, and the keys; -l lists what there is.
 * Errors name the token the user typed and its position, and exit 2. */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include "config.h"
#include "sink.h"
#include "pull.h"
#include "push.h"
#include "dur.h"
#include "room.h"
#include "cfg.h"

#define DEFAULT_HZ 99

struct event *evs;
int nev;
int nring, nhdr, nmax;
char *tracefs;
struct trip trips[16];
int ntrip;
unsigned long cfg_buf = 128 << 10;
char *cfg_out, *cfg_listen, *cfg_key;
static const char *listen_at;	/* listen='s token */
static unsigned key_seen;	/* the keys given so far, a bit each */
u64 cfg_cpus[16];
char *cfg_persist;
static char *persist_tok;	/* its token, for errors */
int cfg_stack, cfg_lean = CFG_LEAN, cfg_frame, cfg_zstd, cfg_trim, cfg_engine;
long cfg_baud, cfg_dumps, cfg_procs = PROCS_DEFAULT;
static char *dur_at[16];	/* each duration tripwire's token */
static int ndur_at;
static int cfg_default, cfg_trip;	/* cfg_trip: the one being parsed, 1-based */
static long cfg_count = 1, cfg_after, cfg_holdoff = 1000000;
static const char *cfg_text;	/* being parsed: tokens get cut up */
static char *cfg_orig;		/* a copy to quote tokens from */

/* Presets: what each expands to. Signal numbers are the arch's, from
 * musl's <signal.h> (SIGBUS is 7 on x86 and arm, 10 on mips). */
#define S_(n) #n
#define S(n) S_(n)
static const char *const preset[][2] = {
	{ "segv", "signal:signal_generate/sig==" S(SIGSEGV) " || sig==" S(SIGBUS) " || sig=="
		  S(SIGILL) " || sig==" S(SIGABRT) " || sig==" S(SIGFPE) "/" },
	{ "oom", "oom:mark_victim" },
	{ "oops", "printk:console/msg ~ \"*Oops*\" || msg ~ \"*BUG:*\" || "
		  "msg ~ \"*WARNING:*\" || msg ~ \"*Kernel panic*\"/" },
	{ "exit", "syscalls:sys_enter_exit_group/error_code != 0/" },
};

/* Named events: a byte 0x4C (hardware) or 0x5C (software), C being
 * the config, then the name; an empty entry ends the list. */
static const char named[] =
	"\x50" "cpu-clock\0" "\x51" "task-clock\0" "\x52" "page-faults\0"
	"\x52" "faults\0" "\x53" "context-switches\0" "\x53" "cs\0"
	"\x54" "cpu-migrations\0" "\x54" "migrations\0" "\x55" "minor-faults\0"
	"\x56" "major-faults\0" "\x57" "alignment-faults\0" "\x58" "emulation-faults\0"
	"\x40" "cycles\0" "\x41" "instructions\0" "\x42" "cache-references\0"
	"\x43" "cache-misses\0" "\x44" "branches\0" "\x44" "branch-instructions\0"
	"\x45" "branch-misses\0" "\x46" "bus-cycles\0" "\x49" "ref-cycles\0";

/* A hardware (0) or software (1) event's name, or 0. */
const char *cfg_named(u32 type, u64 config)
{
	const char *n;

	for (n = named; *n; n += strlen(n) + 1)
		if ((u64)(*n & 15) == config && *n >> 4 == 4 + (int)type)
			return n + 1;
	return 0;
}

/* A token ends at a separator outside of a /filter/, which only a tracepoint
 * has (bare or trip='s, the one key that starts with 't'): the value of any
 * other key (out=/a:b/c, push=http://h/b) ends at the first separator. */
static size_t tok_len(const char *s)
{
	size_t n;
	int inf = 0, tp = 0, val = 0;

	for (n = 0; s[n]; n++) {
		val |= s[n] == '=' && *s != 't';
		tp |= s[n] == ':' && !val;
		if (s[n] == '/' && tp)
			inf = !inf;
		else if (!inf && xstrchr(" \t\r\n;", s[n]))
			break;
	}
	return n;
}

/* The token as typed (200 bytes: the reason must fit), and where: "'buf=1q' at 5". */
static char *cfg_tok(const char *tok)
{
	int pos = tok - cfg_text;
	size_t n = tok_len(cfg_orig + pos);
	char *t = xmalloc(224), *p;

	t[0] = '\'';
	memcpy(t + 1, cfg_orig + pos, n = n > 200 ? 200 : n);
	for (p = t + 1; p < t + n + 1; p++)	/* no control bytes to the terminal */
		if ((unsigned char)*p < 32 || *p == 127)
			*p = '?';
	memcpy(p, "' at ", 5);
	utoa(p + 5, pos + 1);
	return t;
}

static _Noreturn void bad(const char *tok, const char *why)
{
	die(2, "config: %s: %s", cfg_tok(tok), why);
}

static struct event *ev_add(const char *name, const char *at)
{
	struct event *e;

	if (!(nev & (nev - 1)) && nev >= 16)	/* grown by doubling */
		evs = xrealloc(evs, nev * sizeof(*evs), 2 * nev * sizeof(*evs));
	else if (!nev)
		evs = xmalloc(16 * sizeof(*evs));
	e = memset(evs + nev++, 0, sizeof(*evs));
	e->name = xstrdup(name);
	e->attr.size = ATTR_SIZE;
	e->attr.sample_type = S_IDENTIFIER | S_IP | S_TID | S_TIME | S_CPU | S_PERIOD;
	/* Disabled until its filter is set, so nothing unfiltered slips in. */
	e->attr.flags = ATTR_DISABLED | ATTR_SAMPLE_ID_ALL | ATTR_WRITE_BACKWARD |
			ATTR_EXCLUDE_GUEST;
	e->attr.sample_period = 1;
	e->tok = cfg_tok(at);
	e->trip = cfg_trip;
	if (cfg_trip) {
		/* A tripwire wakes us on each hit, through its own forward ring. */
		e->attr.flags &= ~ATTR_WRITE_BACKWARD;
		e->attr.wakeup_events = 1;
	}
	return e;
}
/* A tracepoint is a directory events/SYS/NAME with an id file. */
static long tp_id(const char *sys, const char *name)
{
	char p[512];

	fmt(p, sizeof(p), "%s/events/%s/%s/id", tracefs, sys, name);
	return readnum(p);
}

/* A file of tracepoint "sys:name": TRACEFS/events/sys/name/file. */
void tp_path(char *b, size_t n, const char *name, const char *file)
{
	char *c;

	fmt(b, n, "%s/events/%s/%s", tracefs, name, file);
	if ((c = xstrchr(b + strlen(tracefs), ':')))
		*c = '/';
}

/* Walk the tracepoints whose system and name match two globs, calling
 * fn("sys:name", id, ctx) for each. Returns how many matched. */
struct tpwalk {
	const char *spat, *pat, *sys;
	void (*fn)(const char *, long, void *);
	void *ctx;
	int found;
};

static void tp_name(const char *name, void *ctx)
{
	struct tpwalk *w = ctx;
	char full[256];
	long id;

	if (!glob(w->pat, name) || strlen(w->sys) + strlen(name) > 200 ||
	    (id = tp_id(w->sys, name)) < 0)
		return;
	fmt(full, sizeof(full), "%s:%s", w->sys, name);
	w->fn(full, id, w->ctx);
	w->found++;
}

static void tp_sys(const char *sys, void *ctx)
{
	struct tpwalk *w = ctx;
	char p[512];

	if (!glob(w->spat, sys))
		return;
	fmt(p, sizeof(p), "%s/events/%s", tracefs, sys);
	w->sys = sys;
	dir_each(p, tp_name, w);
}

static int tp_walk(const char *spat, const char *pat,
		   void (*fn)(const char *, long, void *), void *ctx)
{
	struct tpwalk w = { spat, pat, 0, fn, ctx, 0 };
	char p[512];

	fmt(p, sizeof(p), "%s/events", tracefs);
	dir_each(p, tp_sys, &w);
	return w.found;
}

struct tpproto {
	const char *at;
	char *filter;
	int glob;
};

static void tp_add(const char *full, long id, void *ctx)
{
	struct tpproto *t = ctx;
	struct event *e = ev_add(full, t->at);

	e->attr.type = TYPE_TRACEPOINT;
	e->attr.config = id;
	e->glob = t->glob;
	e->attr.sample_type |= S_RAW;
	e->filter = t->filter;
}

/* A filter ftrace reads as "clear the filter": 0, blanks around it */
static int zero(const char *f)
{
	f += span(f, " \t\r\n", 1);
	return *f == '0' && !f[1 + span(f + 1, " \t\r\n", 1)];
}

/* One event: NAME[/FILTER/][@HZ|%PERIOD]; errors quote the token at. */
static void cfg_event(char *tok, const char *at)
{
	char *f = 0, *m, *c, mode;
	const char *n;
	unsigned long long v = 0;
	struct event *e;

	m = tok + span(tok, "/@%", 0);
	if (*m == '/') {
		f = m + 1;
		m = xstrrchr(f, '/');
		if (m == f - 1 || !m)
			bad(at, "filter has no closing '/'");
		*m++ = 0;
		if (*m && *m != '@' && *m != '%')
			bad(at, "junk after the filter");
		f[-1] = 0;
	}
	mode = *m;
	if (mode) {
		v = num(m + 1, 0);
		if (!v)
			bad(at, "@HZ and %PERIOD take a positive number");
		*m = 0;
	}
	c = xstrchr(tok, ':');
	if (c) {
		struct tpproto t = { at, f, tok[span(tok, "*?", 0)] != 0 };
		int found;

		if (!CFG_TRACEPOINTS)
			bad(at, "tracepoints are not built in (CONFIG_TRACEPOINTS)");
		if (mode)
			bad(at, "tracepoints record every hit; @ and % are for other events");
		/* ftrace reads a filter of 0 as "clear the filter", perf as
		 * an error: neither records "never", so it is refused */
		if (f && zero(f))
			bad(at, "/0/ is no filter: leave it out");
		if (!tracefs) {
			if (cfg_default)
				return;
			bad(at, access("/sys/kernel/tracing", X_OK) && errno == EACCES ?
				 "tracefs is not readable: needs root" : "no tracefs on this system");
		}
		*c = 0;
		found = tp_walk(tok, c + 1, tp_add, &t);
		*c = ':';
		if (!found) {
			if (cfg_default) {
				msg("%s: not in this kernel, left out", tok);
				return;
			}
			bad(at, "unknown tracepoint; see tracer -l");
		}
		return;
	}
	if (f)
		bad(at, "only tracepoints take a /filter/");
	for (n = named; *n && strcmp(n + 1, tok); n += strlen(n) + 1)
		;
	if (!*n)
		bad(at, "unknown event; see tracer -l");
	e = ev_add(tok, at);
	e->attr.type = *n >> 4 & 1;
	e->attr.config = *n & 15;
	/* Clocks and cycles default to a low rate, counted events to each. */
	if (!mode && (e->attr.type == TYPE_HARDWARE || e->attr.config < 2))
		mode = '@', v = DEFAULT_HZ;
	/* No faster than the kernel lets anyone sample: a clock's period
	 * in ns, too, or a small machine does nothing else. */
	if (mode == '@' || (mode == '%' && e->attr.type == TYPE_SOFTWARE && e->attr.config < 2)) {
		char b[24], why[96];
		long r = readfile("/proc/sys/kernel/perf_event_max_sample_rate", b, sizeof(b) - 1);
		u64 max;

		b[r > 0 ? r : 0] = 0;
		max = r > 0 && xtou(b, 0, 10) ? xtou(b, 0, 10) : 100000;
		if (mode == '@' ? v > max : v < 1000000000 / max) {
			fmt(why, sizeof(why), "faster than perf_event_max_sample_rate=%L allows (@%L, %c%L for clocks)",
			    max, max, '%', 1000000000 / max);
			bad(at, why);
		}
	}
	if (mode == '@')
		e->attr.flags |= ATTR_FREQ;
	if (mode)
		e->attr.sample_period = v;
}

/* "200ms", "2s", "500us" in microseconds, up to 1000 s (what a 32-bit
 * long holds); -1 on garbage. */
static long dur(const char *s)
{
	char *e;
	u64 v, m;

	if (*s < '0' || *s > '9')
		return -1;
	v = xtou(s, &e, 10);
	m = !strcmp(e, "us") || (!*e && !v) ? 1 : !strcmp(e, "ms") ? 1000 : !strcmp(e, "s") ? 1000000 : 0;	/* (0: any unit) */
	if (!m || e - s > 10 || v * m > 1000000000)
		return -1;
	return v * m;
}

/* trip=SPEC[,count=N][,after=T][,holdoff=T]; SPEC is a preset or an
 * event, possibly with a /filter/. */
static void cfg_tripwire(char *tok, char *v)
{
	char *o, *sl = xstrrchr(v, '/'), *spec = v, *g;
	struct trip *t = trips + ntrip;
	const char *why;
	unsigned i;

	if (!CFG_TRIPWIRE)
		bad(tok, "tripwires are not built in (CONFIG_TRIPWIRE)");
	if (ntrip == sizeof(trips) / sizeof(*trips))
		bad(tok, "too many tripwires: at most 16");
	t->count = t->after = t->holdoff = -1;
	/* a duration: NAME[/FILTER/]>T, its options after T */
	g = CFG_DURATION ? xstrrchr(sl ? sl : v, '>') : 0;
	o = xstrchr(g ? g : sl ? sl : v, ',');
	if (o)
		*o++ = 0;
	while (o) {
		char *next = xstrchr(o, ','), *eq = xstrchr(o, '=');
		long *opt = 0, x;

		if (next)
			*next++ = 0;
		if (eq) {
			*eq++ = 0;
			opt = !strcmp(o, "count") ? &t->count : !strcmp(o, "after") ? &t->after :
			      !strcmp(o, "holdoff") ? &t->holdoff : 0;
		}
		if (!opt)
			bad(tok, "tripwire options are count=N, after=TIME, holdoff=TIME");
		x = opt == &t->count ? (num(eq, 0) > 1000000000 ? -1 : (long)num(eq, 0)) : dur(eq);
		if (x < 0 || (opt == &t->count && !x))
			bad(tok, "count takes a number from 1; after and holdoff a time up to 1000s, such as 200ms or 2s");
		*opt = x;
		o = next;
	}
	if (!*v)
		bad(tok, "trip= needs an event or a preset (segv, oom, oops, exit)");
	t->what = xstrdup(v);
	if (CFG_DURATION && g) {
		long us = dur(g + 1);

		*g = 0;
		if (us <= 0)
			bad(tok, "a duration's threshold is a time up to 1000s: trip=wakeup>5ms");
		if ((why = dur_add(ntrip, cfg_tok(tok), v, us)))
			bad(tok, why);
		dur_at[ndur_at++] = tok;
		ntrip++;
		return;
	}
	for (i = 0; i < sizeof(preset) / sizeof(*preset); i++) {
		char sys[32], *c;

		if (strcmp(v, preset[i][0]))
			continue;
		spec = xstrdup(preset[i][1]);
		c = xstrchr(spec, ':');
		memcpy(sys, spec, c - spec);
		sys[c - spec] = 0;
		c = xstrndup(c + 1, span(c + 1, "/", 0));
		if (!tracefs || tp_id(sys, c) < 0)
			die(2, "config: %s: preset %s needs the tracepoint %s:%s, which this kernel lacks",
			    cfg_tok(tok), v, sys, c);
	}
	cfg_trip = ++ntrip;
	cfg_event(spec, tok);
	cfg_trip = 0;
}

/* A key's number from lo to hi, or the config error why (one that
 * would wrap, 18446744073709551617, is too big, not 1). */
static long num_in(const char *tok, const char *s, long lo, long hi, const char *why)
{
	unsigned long long v = num(s, 0);

	if ((!v && strcmp(s, "0")) || v < (unsigned long long)lo || v > (unsigned long long)hi)
		bad(tok, why);
	return v;
}

/* The keys, in the unknown-key error (one string: the list is KEYS of
 * it). Each once: a second listen= or buf= is a mistake, not an
 * override (trip= repeats). */
#define UNKNOWN "unknown key (buf= cpus= out= trip= after= holdoff= count= dumps= procs= " \
		"frame= baud= listen= key= engine= persist="
static const char unknown_key[] = UNKNOWN ")";	/* (and with ROOM, PUSH theirs) */
#define ROOMK " files= room= free="
#define PUSHK " push= s3key= region= spool= via= style="
#define KEYS (unknown_key + 13)
static void key_once(const char *key)
{
	const char *k = KEYS;
	size_t n;
	int i;

	for (i = 0; *k; i++, k += span(k, " ", 0), k += span(k, " ", 1)) {
		for (n = 0; key[n] && k[n] == key[n]; n++)
			;
		if (!key[n] && k[n] == '=' && strcmp(key, "trip")) {
			if (key_seen >> i & 1)
				bad(key, "given twice: each key once");
			key_seen |= 1u << i;
		}
	}
}

/* A mode: stack, lean, full, trim, zstd; 0 if tok is none. */
static int cfg_flag(const char *tok)
{
	if (!strcmp(tok, "stack")) {
		if (!CFG_CALLCHAIN)
			bad(tok, "callchains are not built in (CONFIG_CALLCHAIN)");
		cfg_stack = 1;
	} else if (!strcmp(tok, "lean") || !strcmp(tok, "full")) {
		if (!CFG_LEAN && tok[0] == 'l')
			bad(tok, "the lean layout is not built in (CONFIG_LEAN)");
		cfg_lean = tok[0] == 'l';
	} else if (!strcmp(tok, "trim")) {
		if (!CFG_COVER)
			bad(tok, "trim is not built in (CONFIG_COVER)");
		cfg_trim = 1;
	} else if (!strcmp(tok, "zstd")) {
		if (!CFG_ZSTD)
			bad(tok, "compression is not built in (CONFIG_ZSTD)");
		cfg_zstd = 1;
	} else {
		return 0;
	}
	return 1;
}

/* What to record and when to dump: 0 if tok (cut at eq) is no such key. */
static int key_rec(char *tok, char *eq)
{
	if (!strcmp(tok, "buf")) {
		unsigned long long v = num(eq + 1, 1);

		*eq = '=';
		if (!v || v > 1ULL << 30)
			bad(tok, "bad size: use a number with k or m, up to 1g");
		cfg_buf = ring_size(v);
	} else if (!strcmp(tok, "cpus")) {
		u64 online[16];
		int i;

		*eq = '=';
		if (cpulist(eq + 1, cfg_cpus))
			bad(tok, "bad CPU list: use 0,2-3");
		if (sysfs_cpus("/sys/devices/system/cpu/online", online))
			die(1, "can't read /sys/devices/system/cpu/online");
		for (i = 0; i < 16; i++)
			if (cfg_cpus[i] & ~online[i])
				bad(tok, "not all of these CPUs are online");
	} else if (!strcmp(tok, "trip")) {
		*eq = '=';
		cfg_tripwire(tok, eq + 1);
	} else if (!strcmp(tok, "after") || !strcmp(tok, "holdoff")) {
		long *g = tok[0] == 'a' ? &cfg_after : &cfg_holdoff;

		*eq = '=';
		if (!CFG_TRIPWIRE)
			bad(tok, "tripwires are not built in (CONFIG_TRIPWIRE)");
		if ((*g = dur(eq + 1)) < 0)
			bad(tok, "a time up to 1000s, such as 200ms or 2s");
	} else if (!strcmp(tok, "count") || !strcmp(tok, "dumps")) {
		long *g = tok[0] == 'c' ? &cfg_count : &cfg_dumps;

		*eq = '=';
		if (!CFG_TRIPWIRE && g == &cfg_count)
			bad(tok, "tripwires are not built in (CONFIG_TRIPWIRE)");
		*g = num_in(tok, eq + 1, 1, 1000000000, "a number from 1 to 1000000000");
	} else if (!strcmp(tok, "procs")) {
		*eq = '=';
		if (!CFG_TRACK)
			bad(tok, "the tracking ring is not built in (CONFIG_TRACK)");
		cfg_procs = num_in(tok, eq + 1, 0, PROCS_MAX,
				   "a number of processes up to " S(PROCS_MAX) "; procs=0 turns tracking off");
	} else {
		return 0;
	}
	return 1;
}

/* Where the dumps go and how; any other key is unknown. */
static void key_out(char *tok, char *eq)
{
	const char *why;

	if (!strcmp(tok, "frame")) {
		*eq = '=';
		if (!CFG_FRAME)
			bad(tok, "framing is not built in (CONFIG_FRAME)");
		if (strcmp(eq + 1, "text"))
			bad(tok, "the one framing is frame=text");
		cfg_frame = 1;
	} else if (!strcmp(tok, "baud")) {
		*eq = '=';
		if (!CFG_SERIAL)
			bad(tok, "serial output is not built in (CONFIG_SERIAL)");
#define BAUDS "not a speed termios knows (9600 ... 4000000)"
		if (!sink_baud(cfg_baud = num_in(tok, eq + 1, 0, 4000000, BAUDS)))
			bad(tok, BAUDS);
	} else if (!strcmp(tok, "listen")) {
		u64 sa[16];	/* a struct sockaddr_un */
		unsigned len;

		*eq = '=';
		if (!CFG_LISTEN)
			bad(tok, "pulled dumps are not built in (CONFIG_LISTEN)");
		if (pull_addr(eq + 1, sa, &len))
			bad(tok, "listen=IPV4:PORT (127.0.0.1:9000, 0.0.0.0:9000) or listen=@NAME");
		cfg_listen = eq + 1;
		listen_at = tok;
	} else if (!strcmp(tok, "key")) {
		*eq = '=';
		if (!CFG_LISTEN)
			bad(tok, "pulled dumps are not built in (CONFIG_LISTEN)");
		if ((why = pull_key(eq + 1)))
			bad(tok, why);
		cfg_key = eq + 1;
	} else if (CFG_FTRACE && !strcmp(tok, "engine")) {
		*eq = '=';
		if (!(cfg_engine = strcmp(eq + 1, "ftrace") ? !strcmp(eq + 1, "perf") : 2))	/* 1 perf, 2 ftrace */
			bad(tok, "engine=ftrace or engine=perf");
	} else if (!strcmp(tok, "persist")) {
		*eq = '=';
		if (!CFG_PERSIST)
			bad(tok, "surviving a crash is not built in (CONFIG_PERSIST)");
		if (!eq[1] || eq[span(eq, "/", 0)] || !strcmp(eq + 1, "..") || strlen(eq + 1) > 64)
			bad(tok, "persist=INSTANCE: the name trace_instance= gave it on the kernel command line");
		cfg_persist = eq + 1;
		persist_tok = cfg_tok(tok);
	} else if (!strcmp(tok, "out")) {
		*eq = '=';
		if (!eq[1])
			bad(tok, "out= needs a path");
		cfg_out = eq + 1;
	} else if ((CFG_PUSH && push_key(tok, eq + 1, &why)) || (CFG_ROOM && room_key(tok, eq + 1, &why))) {
		*eq = '=';
		if (why)
			bad(tok, why);
	} else {
		*eq = '=';
		bad(tok, CFG_PUSH ? CFG_ROOM ? UNKNOWN ROOMK PUSHK ")" : UNKNOWN PUSHK ")" :
			 CFG_ROOM ? UNKNOWN ROOMK ")" : unknown_key);
	}
}

static void cfg_parse(char *s)
{
	char *p = s;

	cfg_text = s;
	cfg_orig = xstrdup(s);
	while (*p) {
		char *tok, *eq;

		p += span(p, " \t\r\n;", 1);
		if (!*p)
			break;
		tok = p;
		p += tok_len(p);
		if (*p)
			*p++ = 0;
		eq = xstrchr(tok, '=');
		if (eq && eq < tok + span(tok, ":/", 0)) {
			*eq = 0;
			key_once(tok);
			if (!key_rec(tok, eq))
				key_out(tok, eq);
		} else if (!cfg_flag(tok)) {
			cfg_event(tok, tok);
		}
	}
}

/* ---- tracefs ---- */

/* "sys:a sys:b ..." for the tracepoints whose id want(id) takes. */
struct tpnames {
	int (*want)(long);
	char *b;
	size_t n;
};

static void tp_name_add(const char *full, long id, void *ctx)
{
	struct tpnames *t = ctx;
	size_t k = strlen(full);

	if (!t->want(id))
		return;
	t->b = xrealloc(t->b, t->n, t->n + k + 2);
	memcpy(t->b + t->n, full, k);
	t->n += k + 1;
	t->b[t->n - 1] = ' ';
	t->b[t->n] = 0;
}

char *tp_names(int (*want)(long))
{
	struct tpnames t = { want, xstrdup(""), 0 };

	tp_walk("*", "*", tp_name_add, &t);
	return t.b;
}

char *tracefs_find(void)
{
	static char *const dir[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char p[64];
	int i, try;

	if (!CFG_TRACEPOINTS)
		return 0;
	for (try = 0; try < 3; try++) {
		for (i = 0; i < 2; i++) {
			fmt(p, sizeof(p), "%s/events/header_page", dir[i]);
			if (!access(p, R_OK))
				return dir[i];
		}
		/* Mounting writes nothing to disk, so a read-only root is fine. */
		if (try == 0)
			mount("nodev", dir[0], "tracefs", 0, 0);
		else if (try == 1)
			mount("nodev", "/sys/kernel/debug", "debugfs", 0, 0);
	}
	return 0;
}

/* ---- listing ---- */

struct names {
	char *b;
	size_t n, cap;
};

static void list_add(struct names *l, const char *s)
{
	size_t n = strlen(s) + 1;

	if (l->n + n > l->cap) {
		l->cap = (l->n + n) * 2;
		l->b = xrealloc(l->b, l->n, l->cap);
	}
	memcpy(l->b + l->n, s, n);
	l->n += n;
}

static void list_tp(const char *full, long id, void *ctx)
{
	list_add(ctx, full);
}

static int cmpstr(const void *a, const void *b)
{
	return strcmp(*(char **)a, *(char **)b);
}

void cfg_list(void)
{
	struct names l = { 0 };
	char **v;
	size_t i, n = 0;
	const char *c;
	int pmu = 0;

	for (c = named; *c; c += strlen(c) + 1) {
		if (*c >> 4 == 4 && !ring_hw(*c & 15))
			continue;
		pmu |= *c >> 4 == 4;
		write(1, c + 1, strlen(c + 1));
		write(1, *c >> 4 == 4 ? "\t[hardware]\n" : "\t[software]\n", 12);
	}
	if (!pmu)
		msg("no hardware PMU found: hardware events left out");
	if (!(tracefs = tracefs_find()))
		die(1, "no tracefs: only software events");
	tp_walk("*", "*", list_tp, &l);
	for (i = 0; i < l.n; i += strlen(l.b + i) + 1)
		n++;
	v = xmalloc(n * sizeof(*v) + 1);
	for (i = 0, n = 0; i < l.n; i += strlen(l.b + i) + 1)
		v[n++] = l.b + i;
	xsort(v, n, sizeof(*v), cmpstr);
	out_begin(1, 0, 0, 0, 0);
	for (i = 0; i < n; i++) {
		out_put(v[i], strlen(v[i]));
		out_put("\t[tracepoint]\n", 14);
	}
	out_end();
}

/* At start: an event a glob matched that the kernel refuses (tracefs
 * lists some that nobody may open, a filter may not apply to it) goes
 * from the table. */
int ev_dropped;

void ev_drop(int i)
{
	memmove(evs + i, evs + i + 1, (nev - i - 1) * sizeof(*evs));
	nev--;
	ev_dropped = 1;
}

/* A synthetic event that no ftrace instance took: perf can't open one */
void ev_synth_drop(void)
{
	for (int i = 0; i < nev; i++)
		if (evs[i].synth && !evs[i].ft)
			msg("%s: not recorded: perf can't open it, and no ftrace instance took it", evs[i].name), ev_drop(i--);
}

/* ---- kernel ids ---- */

/* Kernel id -> event, sorted, for every record that names its event:
 * lean expansion, tripwire hits, big-endian swapping. */
static struct { u64 id; int ev; } *idx;
static int nidx;
/* The kernel hands out ids from one counter, so ours are usually a
 * compact range: then a direct table (event + 1, 0 for none) makes the
 * lookup per dumped record O(1). */
static u16 *idtab;
static u64 idlo, idn;

static int idx_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* Again whenever ids change: the header's, and each ring's kernel ids
 * now and before (a CPU back online records under new ids, and its ring
 * still holds records under the old ones). */
void ev_ids_init(void)
{
	static size_t tcap;
	int i, j, k;

	if (!idx)
		idx = xmalloc(3 * (size_t)nev * nmax * sizeof(*idx));
	nidx = 0;
	for (i = 0; i < nev; i++)
		for (j = 0; j < nring && !evs[i].ft; j++) {
			u64 v[3] = { evs[i].ids[j], CFG_HOTPLUG ? evs[i].kid[2 * j] : 0,
				     CFG_HOTPLUG ? evs[i].kid[2 * j + 1] : 0 };

			for (k = 0; k < (CFG_HOTPLUG ? 3 : 1); k++)
				if (v[k] && (!k || v[k] != v[0])) {
					idx[nidx].id = v[k];
					idx[nidx++].ev = i;
				}
		}
	xsort(idx, nidx, sizeof(*idx), idx_cmp);
	idtab = 0;
	if (!nidx)
		return;		/* all in the ftrace instance */
	idlo = idx[0].id;
	idn = idx[nidx - 1].id - idlo + 1;
	if (idn <= 16 * (u64)nidx + 4096 && nev < 65535) {
		static u16 *t;

		if (idn > tcap)
			t = xmalloc((tcap = idn) * sizeof(*t));
		idtab = memset(t, 0, idn * sizeof(*t));
		for (i = 0; i < nidx; i++)
			idtab[idx[i].id - idlo] = idx[i].ev + 1;
	}
}

/* (noinline: with one caller, LTO put it into the dump's run_head, 24
 * bytes more in allnoconfig than the call) */
__attribute__((noinline)) struct event *ev_by_id(u64 id)
{
	int lo = 0, hi = nidx;

	if (idtab)
		return tab_ev(idtab, idlo, idn, id);
	while (lo < hi) {
		int m = (lo + hi) / 2;

		if (idx[m].id < id)
			lo = m + 1;
		else
			hi = m;
	}
	return lo < nidx && idx[lo].id == id ? evs + idx[lo].ev : 0;
}

/* The config into the table (the default's when config is 0, or when it
 * names no events but keys or tripwires); -o out wins over out=. */
void cfg_load(char *config, char *out)
{
	int i, c;
	const char *why;
	char *tok;

	if (!config) {
		config = xstrdup(DEFAULT_CONFIG);
		cfg_default = 1;
	}
	tracefs = tracefs_find();
	if (!tracefs && cfg_default)
		msg("no tracefs: recording software events only");
	cfg_parse(config);
	if (CFG_PUSH && (why = push_cfg(&tok)))
		bad(tok, why);
	/* A dump gives away kernel addresses and every process's maps: on
	 * an address that others reach, only to whom knows the key. */
	if (CFG_LISTEN && cfg_listen && !cfg_key && pull_open_addr(cfg_listen))
		bad(listen_at, "others reach this address, and a dump holds kernel addresses and every "
			       "process's maps: give key=FILE (its first line is a secret the client sends "
			       "first), or listen on 127.0.0.1");
	if (out)
		cfg_out = out;
	for (i = c = 0; i < nev; i++)
		c += !evs[i].trip;
	/* each duration tripwire's synthetic event, recorded too, by the
	 * ftrace instance whatever engine= says (perf can't open one) */
	for (i = 0; CFG_DURATION && (why = dur_make(i, tracefs)); i++)
		if (CFG_FTRACE && CFG_LEAN) {
			cfg_event(xstrdup(why), dur_at[i]);
			evs[nev - 1].synth = 1;
		}
	if (!c && !cfg_default) {
		cfg_default = 1;
		cfg_parse(xstrdup(DEFAULT_CONFIG));
	}
	if (!nev)
		die(2, "config: no events");
	for (i = c = 0; i < nev; i++)
		c += !evs[i].trip && evs[i].attr.type == TYPE_TRACEPOINT;
	if (CFG_PERSIST && cfg_persist && !c)
		die(2, "config: %s: persist= records tracepoints, and the config has none", persist_tok);
	for (i = 0; i < ntrip; i++) {
		struct trip *t = trips + i;

		t->count = t->count < 0 ? cfg_count : t->count;
		t->after = t->after < 0 ? cfg_after : t->after;
		t->holdoff = t->holdoff < 0 ? cfg_holdoff : t->holdoff;
	}
	/* A tripwire on an event the rings record too: its hits are in
	 * the dump already, so they are not kept a second time. */
	for (i = 0; i < nev; i++)
		for (c = 0; evs[i].trip && c < nev; c++)
			if (!evs[c].trip && evs[c].attr.type == evs[i].attr.type &&
			    evs[c].attr.config == evs[i].attr.config &&
			    (!evs[c].filter || (evs[i].filter && !strcmp(evs[c].filter, evs[i].filter))))
				evs[i].dup = 1;
	for (i = 0; i < nev; i++) {
		if (cfg_stack) {
			evs[i].attr.sample_type |= S_CALLCHAIN;
			evs[i].attr.flags |= ATTR_EXCL_CALLCHAIN_USER;
		}
	}
}
