/* cfg.h - the config string and what it becomes: the event table, the
 * tripwires, the keys; tracefs and its tracepoints; -l. */
#ifndef CFG_H
#define CFG_H

#include "ring.h"

#define DEFAULT_CONFIG "sched:sched_switch sched:sched_wakeup\n" \
	"  sched:sched_process_exec sched:sched_process_exit\n" \
	"  signal:signal_generate cpu-clock@49"

struct event {
	struct perf_attr attr;
	char *name;		/* "sched:sched_switch", "cpu-clock" */
	char *filter;		/* ftrace filter, or 0 */
	u64 *ids;		/* the header's ids, one per ring: the first ones */
	u64 *kid;		/* per ring: the kernel's id now, and the one before
				   (a CPU that came back online has new events) */
	int *fds;		/* per ring (hotplug, tripwires) */
	u64 *cnt;		/* a tripwire's: per ring, its counter as last read */
	char *tok;		/* "'its config token' at N", for errors */
	int trip;		/* tripwire number, or 0 */
	int comm_off;		/* a tripwire's "char comm[16]" field, or <= 0 */
	int glob;		/* one of the tracepoints a glob matched */
	int dup;		/* a tripwire whose hits the rings record anyway */
	int ft;			/* recorded by the ftrace instance (ftrace.c) */
	int synth;		/* only there can it be (perf can't open a
				   synthetic event: ENODEV on 6.1) */
};

/* Tripwires: events that dump by themselves when they hit. Their options
 * are -1 until the end of the config, then take the global keys. */
struct trip {
	char *what;		/* "segv", or the event as typed */
	long count, after, holdoff;	/* after, holdoff in us */
	unsigned hits, held;
	u64 last;		/* when it last dumped */
};

extern struct event *evs;
extern int nev;
extern int nring;		/* rings (CPUs) open now */
extern int nhdr;		/* rings the header names: each event has nhdr ids */
extern int nmax;		/* rings there can be (CPUs possible) */
extern struct trip trips[16];
extern int ntrip;
extern char *tracefs;		/* mount point, or 0 */

/* The keys. procs= is bounded so that the table and its copy fit a
 * 32-bit board's address space (2 KiB each). */
#define PROCS_MAX 32768
#define PROCS_DEFAULT 1024
extern unsigned long cfg_buf;
extern char *cfg_out, *cfg_listen, *cfg_key;
extern u64 cfg_cpus[16];	/* bitmap; empty: all online */
extern char *cfg_persist;	/* persist=: a persistent ftrace instance */
extern int cfg_stack, cfg_lean, cfg_frame, cfg_zstd, cfg_trim, cfg_engine;
extern long cfg_baud, cfg_dumps, cfg_procs;

/* The config (0: the default) into the table; -o out wins over out=. */
void cfg_load(char *config, char *out);
void cfg_list(void);
const char *cfg_named(u32 type, u64 config);	/* "cpu-clock", or 0 */
void tp_path(char *b, size_t n, const char *name, const char *file);
char *tracefs_find(void);	/* its mount point (mounted if need be), or 0 */
char *tp_names(int (*want)(long id));	/* "sys:a sys:b " */

extern int ev_dropped;		/* ev_drop() took one out */
void ev_drop(int i);
void ev_synth_drop(void);

/* Once the rings are open and the ids known: kernel id -> event. */
void ev_ids_init(void);
struct event *ev_by_id(u64 id);

/* A direct table's event (entries are event + 1, 0 for none). */
static inline struct event *tab_ev(const u16 *t, u64 lo, u64 n, u64 key)
{
	return key - lo < n && t[key - lo] ? evs + t[key - lo] - 1 : 0;
}

#endif
