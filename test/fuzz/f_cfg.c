/* f_cfg.c - the config string: cfg_load() and cfg_parse() on arbitrary
 * text.
 *
 * Input: the config, as a NUL-terminated copy. If its first byte is
 * below 8 it is not part of the text but says how to run it: bit 0 no
 * tracefs, bit 1 an -o that wins over out=, bit 2 cfg_parse() alone.
 *
 * tracefs is a small fake tree made at start (FZ_TRACEFS, else
 * /tmp/tracer-fuzz-tracefs): cfg.c asks for /sys/kernel/tracing, and
 * its readfile, dir_each and access see the fake tree there instead;
 * mount always fails. Every global cfg.c keeps is set back between
 * inputs. */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include "fz.h"

#define REAL "/sys/kernel/tracing"
static char fz_tfs[256];
static int fz_notfs;

/* "/sys/kernel/tracing..." -> the fake tree; anything else as it is. */
static const char *fz_path(const char *p, char *b, size_t n)
{
	size_t k = strlen(REAL);

	if (strncmp(p, REAL, k) || (p[k] && p[k] != '/'))
		return p;
	snprintf(b, n, "%s%s", fz_notfs ? "/nonexistent" : fz_tfs, p + k);
	return b;
}

static long fz_readfile(const char *path, char *buf, long max)
{
	char b[4200];

	return readfile(fz_path(path, b, sizeof(b)), buf, max);
}

static void fz_dir_each(const char *dir, void (*fn)(const char *, void *), void *ctx)
{
	char b[4200];

	dir_each(fz_path(dir, b, sizeof(b)), fn, ctx);
}

static int fz_access(const char *path, int mode)
{
	char b[4200];

	return access(fz_path(path, b, sizeof(b)), mode);
}

static int fz_mount(const char *src, const char *dst, const char *type, unsigned long fl, const void *d)
{
	errno = EPERM;
	return -1;
}

#define readfile fz_readfile
#define dir_each fz_dir_each
#define access fz_access
#define mount fz_mount
#include "cfg.c"
#include "pushcfg.h"
#undef readfile
#undef dir_each
#undef access
#undef mount

static void put(const char *rel, const char *text)
{
	char p[512], *s;
	int fd;

	snprintf(p, sizeof(p), "%s/%s", fz_tfs, rel);
	for (s = p + strlen(fz_tfs) + 1; (s = strchr(s, '/')); s++) {
		*s = 0;
		mkdir(p, 0755);
		*s = '/';
	}
	if (!text)
		return;
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, text, strlen(text)) < 0)
		abort();
	close(fd);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char *const tp[][2] = {
		{ "sched/sched_switch", "316\n" }, { "sched/sched_wakeup", "318\n" },
		{ "sched/sched_process_exec", "311\n" }, { "sched/sched_process_exit", "314\n" },
		{ "sched/sched_stat_runtime", "308\n" }, { "signal/signal_generate", "181\n" },
		{ "oom/mark_victim", "514\n" }, { "printk/console", "5\n" },
		{ "syscalls/sys_enter_exit_group", "601\n" }, { "raw_syscalls/sys_enter", "21\n" },
		{ "raw_syscalls/sys_exit", "20\n" }, { "irq/irq_handler_entry", "129\n" },
		{ "sched/no_id", 0 }, { "sched/bad_id", "x12\n" }, { "sched/big_id", "99999999999\n" },
		{ "ftrace/function", "1\n" },
	};
	const char *e = getenv("FZ_TRACEFS");
	unsigned i;

	snprintf(fz_tfs, sizeof(fz_tfs), "%s", e ? e : "/tmp/tracer-fuzz-tracefs");
	mkdir(fz_tfs, 0755);
	put("events/header_page", "\tfield: u64 timestamp;\n");
	put("events/enable", "0\n");
	for (i = 0; i < sizeof(tp) / sizeof(*tp); i++) {
		char f[256];

		snprintf(f, sizeof(f), "events/%s/%s", tp[i][0], tp[i][1] ? "id" : "enable");
		put(f, tp[i][1] ? tp[i][1] : "0\n");
	}
	return 0;
}

/* cfg.c's globals as they are at start. */
static void reset(void)
{
	evs = 0, nev = 0, nring = nhdr = nmax = 0, tracefs = 0;
	memset(trips, 0, sizeof(trips)), ntrip = 0;
	cfg_buf = 128 << 10, cfg_out = 0, memset(cfg_cpus, 0, sizeof(cfg_cpus));
	cfg_stack = 0, cfg_lean = 1, cfg_frame = 0;
	cfg_baud = 0, cfg_dumps = 0, cfg_procs = 128;
	cfg_default = 0, cfg_trip = 0;
	cfg_count = 1, cfg_after = 0, cfg_holdoff = 0;
	cfg_text = 0, cfg_orig = 0;
	cfg_listen = cfg_key = 0, listen_at = 0, key_seen = 0;
	cfg_persist = persist_tok = 0, cfg_engine = 0;
	ndur_at = 0;	/* and what cfg_load hands on: push='s, the durations' */
	cfg_push = 0, pc_via = 0, pc_keys = 0;
	dur_forget();
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	int fl = n && d[0] < 8 ? d[0] : 0, i;
	char *s;

	fz_persist = 0;
	if (n && d[0] < 8)
		d++, n--;
	s = xmalloc(n + 1);
	memcpy(s, d, n);
	reset();
	fz_notfs = fl & 1;
	FZ_ARM();
	if (!setjmp(fz_jmp)) {
		if (fl & 4) {
			tracefs = fz_notfs ? 0 : REAL;
			cfg_parse(s);
		} else {
			cfg_load(s, fl & 2 ? "fz.data" : 0);
			FZ_CHECK(nev > 0, "cfg_load came back without events");
		}
		/* What a config that parsed must leave. */
		FZ_CHECK(ntrip >= 0 && ntrip <= 16, "ntrip %d", ntrip);
		FZ_CHECK(cfg_buf >= 4096 && !(cfg_buf & (cfg_buf - 1)), "buf %lu", cfg_buf);
		for (i = 0; i < nev; i++) {
			FZ_CHECK(evs[i].name && evs[i].tok, "event %d has no name", i);
			FZ_CHECK(evs[i].attr.size == ATTR_SIZE, "event %d attr size", i);
			FZ_CHECK(evs[i].trip >= 0 && evs[i].trip <= ntrip, "event %d trip %d", i, evs[i].trip);
			FZ_CHECK(evs[i].attr.type != TYPE_TRACEPOINT || tracefs, "tracepoint without tracefs");
		}
		if (!(fl & 4))
			for (i = 0; i < ntrip; i++)
				FZ_CHECK(trips[i].count > 0 && trips[i].after >= 0 && trips[i].holdoff >= 0 &&
					 trips[i].what, "tripwire %d options", i);
	}
	FZ_DISARM();
	fz_free_all();
	return 0;
}
