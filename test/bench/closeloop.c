/* closeloop.c - the hot-path probe: N close(-1) calls, ns per call.
 * The method of the 2016 perf write_backward series: every call is two
 * raw_syscalls records (sys_enter, sys_exit) when those are traced.
 * Usage: closeloop [N]   (default 3000000); prints "<ns per call>". */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 3000000, i;
	struct timespec a, b;
	double ns;

	for (i = 0; i < 10000; i++)	/* warm up caches and branch predictors */
		close(-1);
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < n; i++)
		close(-1);
	clock_gettime(CLOCK_MONOTONIC, &b);
	ns = (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec);
	printf("%.2f\n", n > 0 ? ns / n : 0.0);
	return 0;
}
