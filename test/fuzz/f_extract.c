/* f_extract.c - tracer -x: frame_extract() on arbitrary captures.
 *
 * Input: the capture, which frame_extract() reads from fd 0 (a memfd
 * holding the input). If the first byte is below 16 it is not part of
 * the capture but says how to extract: bits 0-2 -n (0: the last
 * complete dump), bit 3 -o (files in $TMPDIR, removed after). The
 * chosen dump goes to fd 1, a second memfd, emptied each time. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/mman.h>
#include "fz.h"
#include "frame.c"

static int in_fd, out_fd;
static char oname[256];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *t = getenv("TMPDIR");

	in_fd = memfd_create("fz-capture", 0);
	out_fd = memfd_create("fz-out", 0);
	if (in_fd < 0 || out_fd < 0 || dup2(in_fd, 0) < 0 || dup2(out_fd, 1) < 0)
		abort();
	x_hb[0] = xmalloc(XMAX), x_hb[1] = xmalloc(XMAX);	/* kept: bounded, taken once */
	snprintf(oname, sizeof(oname), "%s/fz-extract.%d", t ? t : "/tmp", (int)getpid());
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	int fl = n && d[0] < 16 ? d[0] : 0, i;
	volatile int rc = -1;

	fz_persist = 0;
	if (n && d[0] < 16)
		d++, n--;
	if (ftruncate(in_fd, 0) || (n && pwrite(in_fd, d, n, 0) != (ssize_t)n) || lseek(0, 0, SEEK_SET))
		abort();
	if (ftruncate(out_fd, 0) || lseek(1, 0, SEEK_SET))
		abort();
	FZ_ARM();
	if (!setjmp(fz_jmp))
		rc = frame_extract(fl & 7, fl & 8 ? oname : 0, "", 0, 0, 0);
	FZ_DISARM();
	FZ_CHECK(rc == -1 || rc == 0 || rc == 1, "frame_extract returned %d", rc);
	if (fl & 8) {
		char b[300];

		unlink(oname);
		for (i = 1; ; i++) {
			snprintf(b, sizeof(b), "%s.%d", oname, i);
			if (unlink(b))
				break;
		}
	}
	fz_free_all();
	return 0;
}
