/* bare.c - the kernel's floor for tracer's sample layout: open
 * raw_syscalls:sys_enter and sys_exit on every online CPU (pid -1) with
 * the attrs tracer uses, one backward PROT_READ ring per CPU (the other
 * event routed in with PERF_EVENT_IOC_SET_OUTPUT), then sleep in pause()
 * until SIGINT/SIGTERM. No reading, no dumping: whatever it costs on the
 * hot path is what the kernel charges for writing the records.
 *
 * Usage: bare [-l] [-t] [-p PAGES]
 *   -l        the lean layout, tracer's default for tracepoints alone
 *             (each once): TID|TIME|PERIOD|RAW, the event named by the raw
 *             data's common_type (without -l: perf's, and tracer's
 *             `full`: IDENTIFIER|IP|TID|TIME|CPU|PERIOD|RAW)
 *   -t        TIME alone: the least a recorder with timestamps can ask
 *             for, so what no layout can go below
 *   -p PAGES  data pages per CPU ring, a power of two (default 256 = 1 MiB)
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>

struct attr {			/* struct perf_event_attr, size 128 (VER7) */
	uint32_t type, size;
	uint64_t config, sample_period, sample_type, read_format, flags;
	uint32_t wakeup_events, bp_type;
	uint64_t config1, config2, branch_sample_type, sample_regs_user;
	uint32_t sample_stack_user;
	int32_t clockid;
	uint64_t sample_regs_intr;
	uint32_t aux_watermark;
	uint16_t sample_max_stack, reserved2;
	uint32_t aux_sample_size, reserved3;
	uint64_t sig_data;
};

#define S_IP		(1ULL << 0)
#define S_TID		(1ULL << 1)
#define S_TIME		(1ULL << 2)
#define S_CPU		(1ULL << 7)
#define S_PERIOD	(1ULL << 8)
#define S_RAW		(1ULL << 10)
#define S_IDENTIFIER	(1ULL << 16)
#define F_SAMPLE_ID_ALL	(1ULL << 18)
#define F_EXCLUDE_GUEST	(1ULL << 20)
#define F_WRITE_BACKWARD (1ULL << 27)
#define IOC_SET_OUTPUT	_IO('$', 5)

static void stop(int sig) { (void)sig; }

static long tp_id(const char *name)
{
	const char *roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char p[256];
	unsigned i;

	for (i = 0; i < 2; i++) {
		FILE *f;
		long id;

		snprintf(p, sizeof(p), "%s/events/raw_syscalls/%s/id", roots[i], name);
		if ((f = fopen(p, "r")) && fscanf(f, "%ld", &id) == 1) {
			fclose(f);
			return id;
		}
		if (f)
			fclose(f);
	}
	fprintf(stderr, "bare: no tracepoint raw_syscalls:%s (tracefs mounted?)\n", name);
	exit(1);
}

int main(int argc, char **argv)
{
	const char *names[2] = { "sys_enter", "sys_exit" };
	long pages = 256, pg = sysconf(_SC_PAGESIZE), ncpu = sysconf(_SC_NPROCESSORS_CONF);
	int lean = 0, tonly = 0, c, cpu, i, nring = 0, nfd = 0;
	struct attr a;
	struct sigaction sa;

	while ((c = getopt(argc, argv, "ltp:")) != -1) {
		if (c == 'l')
			lean = 1;
		else if (c == 't')
			tonly = 1;
		else if (c == 'p')
			pages = atol(optarg);
		else {
			fprintf(stderr, "usage: bare [-l] [-t] [-p PAGES]\n");
			return 2;
		}
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = stop;
	sigaction(SIGINT, &sa, 0);
	sigaction(SIGTERM, &sa, 0);

	for (cpu = 0; cpu < ncpu; cpu++) {
		int first = -1;

		for (i = 0; i < 2; i++) {
			int fd;

			memset(&a, 0, sizeof(a));
			a.type = 2;	/* PERF_TYPE_TRACEPOINT */
			a.size = 128;
			a.config = tp_id(names[i]);
			a.sample_period = 1;
			a.sample_type = tonly ? S_TIME : lean ? S_TID | S_TIME | S_PERIOD | S_RAW :
				S_IDENTIFIER | S_IP | S_TID | S_TIME | S_CPU | S_PERIOD | S_RAW;
			a.flags = F_SAMPLE_ID_ALL | F_WRITE_BACKWARD | F_EXCLUDE_GUEST;
			fd = syscall(SYS_perf_event_open, &a, -1, cpu, -1, 8 /* CLOEXEC */);
			if (fd < 0) {
				if (errno == ENODEV || errno == EINVAL)
					break;	/* offline CPU */
				perror("bare: perf_event_open");
				return 1;
			}
			nfd++;
			if (first < 0) {
				if (mmap(0, (1 + pages) * pg, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED) {
					perror("bare: mmap");
					return 1;
				}
				first = fd;
				nring++;
			} else if (ioctl(fd, IOC_SET_OUTPUT, first)) {
				perror("bare: PERF_EVENT_IOC_SET_OUTPUT");
				return 1;
			}
		}
	}
	fprintf(stderr, "bare: recording %d events on %d CPUs, %ld KiB per CPU (%s layout)\n",
		nfd, nring, pages * pg / 1024, tonly ? "TIME alone" : lean ? "lean" : "default");
	pause();
	return 0;
}
