/* f_print.c - tracer -p: print_main() on arbitrary input, as stdin.
 *
 * Input: the bytes tracer -p reads (fd 0 is a memfd holding them): a
 * stream, a perf.data file, a framed capture, damaged or not. What it
 * prints goes to /dev/null. It must return 0 or 1 (or die with a word),
 * never crash, overrun, leak or loop. print.c's state is put back as a
 * fresh process has it before each input. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <unistd.h>
#include <sys/mman.h>
#include "fz.h"
#include "print.c"

static int in_fd;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int nul = open("/dev/null", O_WRONLY);

	in_fd = memfd_create("fz-dump", 0);
	if (in_fd < 0 || nul < 0 || dup2(in_fd, 0) < 0 || dup2(nul, 1) < 0)
		abort();
	/* kept (fz_persist): the bounded buffers, taken at their most, each
	 * input would be most of the time */
	z = xmalloc(ZCAP);
	win = xmalloc(WIN + MAXREC), td = xmalloc(TDMAX + 1);
	q = xmalloc(2 * (qmax = QMIN)), ix = (void *)(q + qmax);	/* (as where memory is short) */
	zstd_init();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	volatile int rc = -1;

	fz_persist = 0;
	if (ftruncate(in_fd, 0) || (n && pwrite(in_fd, d, n, 0) != (ssize_t)n) || lseek(0, 0, SEEK_SET))
		abort();
	reset();
	pbe = tbe = was = 0;
	qn = nix = 0;
	zin = 0;
	memset(ct, 0, sizeof(ct));
	FZ_ARM();
	if (!setjmp(fz_jmp))
		rc = print_main(0);
	FZ_DISARM();
	FZ_CHECK(rc == -1 || rc == 0 || rc == 1, "print_main returned %d", rc);
	fz_free_all();
	return 0;
}
