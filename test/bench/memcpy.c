/* bench/memcpy.c SIZE...: the time of one memcpy of SIZE bytes with the
 * libc tracer is built with (musl), into a buffer touched before (as
 * tracer's copy is), from a buffer just written: by this CPU (hot in its
 * caches), and by another CPU (as a ring is, by the kernel on the CPU it
 * records). Median and least of 15, in ns, one line per size:
 * "SIZE hot-median hot-least other-median other-least". */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pthread.h>

static long long ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

static void pin(int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	sched_setaffinity(0, sizeof(s), &s);
}

/* The writer on CPU 1: writes buf when asked (want != done), then says so. */
static char *buf;
static size_t len;
static volatile int want, done;

static void *writer(void *arg)
{
	pin(1);
	for (;;) {
		while (want == done)
			;
		memset(buf, want, len);
		__atomic_store_n(&done, want, __ATOMIC_RELEASE);
	}
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t th;
	int i, k, other = sysconf(_SC_NPROCESSORS_ONLN) > 1;

	pin(0);
	if (other)
		pthread_create(&th, 0, writer, 0);
	for (i = 1; i < argc; i++) {
		size_t n = strtoul(argv[i], 0, 0);
		char *s = malloc(n), *d = malloc(n);
		long long t[2][15];
		int w;

		memset(d, 1, n);
		for (w = 0; w < 2; w++)
			for (k = 0; k < 15; k++) {
				long long t0;

				if (w && other) {	/* written by CPU 1 */
					buf = s, len = n;
					__atomic_store_n(&want, want + 1, __ATOMIC_RELEASE);
					while (__atomic_load_n(&done, __ATOMIC_ACQUIRE) != want)
						;
				} else {
					memset(s, k, n);
				}
				t0 = ns();
				memcpy(d, s, n);
				t[w][k] = ns() - t0;
			}
		qsort(t[0], 15, sizeof(**t), cmp);
		qsort(t[1], 15, sizeof(**t), cmp);
		printf("%zu\t%lld\t%lld\t%lld\t%lld\n", n, t[0][7], t[0][0], t[1][7], t[1][0]);
		free(s);
		free(d);
	}
	return 0;
}
