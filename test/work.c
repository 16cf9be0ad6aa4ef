/* work.c - a workload the tests look for in dumps.
 * Steps run in order: spin MS, sleep MS, close N, signal, exec PATH, hold.
 *   spin MS    burn CPU in work_hot_loop() for MS ms of its own CPU time,
 *              however busy the machine (the tests count its samples)
 *   wspin MS   the same for MS ms of wall time (for tests of durations)
 *   sys MS     syscalls (close(-1)) for MS milliseconds: time in the kernel
 *   sleep MS   sleep (a voluntary context switch)
 *   close N    close(100000 + i) for i in 0..N-1: numbered syscalls
 *   pclose N   the same with 5 us of spin after each (a rate rings hold)
 *   signal     send ourselves SIGUSR1 (caught): signal_generate sig=10
 *   eat MB     allocate and touch MB megabytes (for the OOM killer)
 *   crash      dereference NULL
 *   exit N     exit with status N
 *   forkexec P fork; the child execs P with "spin 200"; we go on
 *   late MS    a SCHED_FIFO 10 task on cpu 1 woken every 20 ms, 10 times;
 *              at the 5th a SCHED_FIFO 50 hog on cpu 1, woken 1 ms before,
 *              spins MS + 1 ms: the task's switch-in is MS ms after its
 *              waking, however late both timers fire
 *   vforkwait MS vfork(); the child sleeps MS ms and exits: the parent
 *              waits that long in D state (TASK_KILLABLE)
 *   piperead MS read() a pipe that a child writes MS ms later (it
 *              spins meanwhile: no syscall of its own that long)
 *   pingpong N a child and we, both on our CPU, pass a byte back and
 *              forth over two pipes N times (each: two wakeups, two
 *              switches); prints "pingpong N ns per round trip"
 *   forkspin MS fork; the child spins MS ms (wall time: it ends when told,
 *              for the tests that draw lives) in work_hot_loop and exits
 *   storm N    fork N children that exit at once, one after another
 *   wait       wait for our children
 *   hold       wait for SIGTERM, so /proc still knows us at dump time;
 *              first create $WORK_HELD.PID if WORK_HELD is set (the
 *              tests' held PID waits for it)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>

static void on_usr1(int s) { (void)s; }

/* SCHED_FIFO prio on cpu 1 (cpu 0 where there is one CPU) */
static void fifo(int prio)
{
	struct sched_param sp = { .sched_priority = prio };
	cpu_set_t c;

	CPU_ZERO(&c);
	CPU_SET(sysconf(_SC_NPROCESSORS_ONLN) > 1, &c);
	sched_setaffinity(0, sizeof(c), &c);
	syscall(SYS_sched_setscheduler, 0, SCHED_FIFO, &sp);	/* (musl's says ENOSYS) */
}

static struct timespec ms_after(struct timespec t, long ms)
{
	long long ns = t.tv_nsec + ms * 1000000LL;

	t.tv_sec += ns / 1000000000LL - (ns < 0);
	t.tv_nsec = ns % 1000000000LL + (ns < 0) * 1000000000LL;
	return t;
}

static void until(struct timespec t)
{
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, 0) == EINTR)
		;
}

static void spin_until(struct timespec t)
{
	struct timespec b;

	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while (b.tv_sec < t.tv_sec || (b.tv_sec == t.tv_sec && b.tv_nsec < t.tv_nsec));
}

static void late(long ms)
{
	struct timespec d;
	pid_t h;

	clock_gettime(CLOCK_MONOTONIC, &d);
	d = ms_after(d, 100);
	if (!(h = fork())) {
		fifo(50);
		until(ms_after(d, 5 * 20 - 1));
		clock_gettime(CLOCK_MONOTONIC, &d);
		spin_until(ms_after(d, ms + 1));
		_exit(0);
	}
	fifo(10);
	for (int k = 1; k <= 10; k++)
		until(ms_after(d, k * 20));
	waitpid(h, 0, 0);
}

/* The vfork child: sleeps on its own stack, then exits. By libc's
 * nanosleep: a raw SYS_nanosleep takes the old 32-bit timespec on
 * 32-bit arches, where musl's is 64-bit (armhf slept 0 ns, so
 * blocked>T never fired there). */
static int vfork_child(void *p)
{
	nanosleep(p, 0);
	return 0;
}

/* By clone(CLONE_VM | CLONE_VFORK): musl's vfork() is a fork() on the
 * arches where it has no vfork of its own in assembly (aarch64: there
 * the parent never waited, so blocked>T never fired). */
static void vforkwait(long ms)
{
	static char stack[65536] __attribute__((aligned(16)));
	static struct timespec t;

	t = (struct timespec){ ms / 1000, ms % 1000 * 1000000L };
	if (clone(vfork_child, stack + sizeof(stack), CLONE_VM | CLONE_VFORK | SIGCHLD, &t) > 0)
		wait(0);
}

static void pingpong(long n)
{
	int a[2], b[2];
	char c = 0;
	struct timespec t0, t1;
	cpu_set_t s;

	if (sched_getaffinity(0, sizeof(s), &s) || pipe(a) || pipe(b))
		return;
	for (int k = 0; k < CPU_SETSIZE; k++)
		if (CPU_ISSET(k, &s)) {	/* one CPU: every pass a switch */
			CPU_ZERO(&s);
			CPU_SET(k, &s);
			sched_setaffinity(0, sizeof(s), &s);
			break;
		}
	if (!fork()) {
		while (read(a[0], &c, 1) == 1 && c)
			write(b[1], &c, 1);
		_exit(0);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long k = 0; k < n; k++) {
		c = 1;
		write(a[1], &c, 1);
		read(b[0], &c, 1);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	c = 0;
	write(a[1], &c, 1);
	wait(0);
	printf("pingpong %ld ns per round trip\n",
	       n ? ((t1.tv_sec - t0.tv_sec) * 1000000000L + t1.tv_nsec - t0.tv_nsec) / n : 0);
	fflush(stdout);
	close(a[0]), close(a[1]), close(b[0]), close(b[1]);
}

static void piperead(long ms)
{
	int p[2];
	char c;
	struct timespec d;

	if (pipe(p))
		return;
	clock_gettime(CLOCK_MONOTONIC, &d);
	if (!fork()) {
		spin_until(ms_after(d, ms));
		write(p[1], "x", 1);
		_exit(0);
	}
	read(p[0], &c, 1);
	wait(0);
}

__attribute__((noinline)) static unsigned long work_hot_loop(long ms, clockid_t clk)
{
	struct timespec a, b;
	volatile unsigned long x = 0;

	clock_gettime(clk, &a);
	do {
		for (int i = 0; i < 100000; i++)
			x += i * x + 1;
		clock_gettime(clk, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
	return x;
}

int main(int argc, char **argv)
{
	signal(SIGUSR1, on_usr1);
	for (int i = 1; i < argc; i++) {
		long n = i + 1 < argc ? atol(argv[i + 1]) : 0;

		if (!strcmp(argv[i], "spin"))
			work_hot_loop(n, CLOCK_PROCESS_CPUTIME_ID), i++;
		else if (!strcmp(argv[i], "wspin"))
			work_hot_loop(n, CLOCK_MONOTONIC), i++;
		else if (!strcmp(argv[i], "late"))
			late(n), i++;
		else if (!strcmp(argv[i], "piperead"))
			piperead(n), i++;
		else if (!strcmp(argv[i], "pingpong"))
			pingpong(n), i++;
		else if (!strcmp(argv[i], "vforkwait"))
			vforkwait(n), i++;
		else if (!strcmp(argv[i], "sleep"))
			usleep(n * 1000), i++;
		else if (!strcmp(argv[i], "sys")) {
			struct timespec a, b;

			clock_gettime(CLOCK_MONOTONIC, &a);
			do {
				for (int k = 0; k < 1000; k++)
					close(-1);
				clock_gettime(CLOCK_MONOTONIC, &b);
			} while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < n);
		} else if (!strcmp(argv[i], "close")) {
			for (long k = 0; k < n; k++)
				close(100000 + k);
			i++;
		} else if (!strcmp(argv[i], "pclose")) {
			struct timespec a, b;

			for (long k = 0; k < n; k++) {
				close(100000 + k);
				clock_gettime(CLOCK_MONOTONIC, &a);
				do
					clock_gettime(CLOCK_MONOTONIC, &b);
				while ((b.tv_sec - a.tv_sec) * 1000000000L + b.tv_nsec - a.tv_nsec < 5000);
			}
			i++;
		} else if (!strcmp(argv[i], "signal"))
			kill(getpid(), SIGUSR1);
		else if (!strcmp(argv[i], "eat")) {
			for (long k = 0; k < n; k++)
				memset(malloc(1 << 20), 1, 1 << 20);
			i++;
		} else if (!strcmp(argv[i], "crash"))
			return *(volatile int *)(argv[i] - (long)argv[i]);
		else if (!strcmp(argv[i], "exit"))
			return n;
		else if (!strcmp(argv[i], "forkexec")) {
			if (!fork()) {
				execl(argv[i + 1], argv[i + 1], "spin", "200", (char *)0);
				_exit(127);
			}
			i++;
		} else if (!strcmp(argv[i], "forkspin")) {
			if (!fork())
				_exit(work_hot_loop(n, CLOCK_MONOTONIC) == 1);
			i++;
		} else if (!strcmp(argv[i], "storm")) {
			for (long k = 0; k < n; k++)
				if (!fork())
					_exit(0);
				else
					wait(0);
			i++;
		} else if (!strcmp(argv[i], "wait"))
			while (wait(0) > 0)
				;
		else if (!strcmp(argv[i], "hold")) {
			char p[4096];

			if (getenv("WORK_HELD")) {
				snprintf(p, sizeof(p), "%s.%d", getenv("WORK_HELD"), (int)getpid());
				close(open(p, O_WRONLY | O_CREAT, 0644));
			}
			for (;;)
				pause();
		}
	}
	return 0;
}
