/* f_conv.c - tracer -c: conv_main() on arbitrary streams and captures.
 *
 * Input: the stream or capture, which conv_main() reads from a memfd
 * (by its /proc/self/fd path). If the first byte is below 16 it is not
 * part of the input but -n (0: every dump). The files go to $TMPDIR
 * and are removed after. Checked: the exit code, the bounds (attrs,
 * build-ids, side-band), -n writing one file at most, and each file no
 * bigger than what it may hold: its dump (up to 64 times the input out
 * of zstd), the head and the side-band carried, each within its bound.
 * The bounded buffers are taken once, here, as conv_main takes them. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include "fz.h"
#include "convert.c"

static int in_fd;
static char iname[64], oname[256];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *t = getenv("TMPDIR");

	in_fd = memfd_create("fz-conv", 0);
	if (in_fd < 0)
		abort();
	snprintf(iname, sizeof(iname), "/proc/self/fd/%d", in_fd);
	snprintf(oname, sizeof(oname), "%s/fz-conv.%d", t ? t : "/tmp", (int)getpid());
	attrs.p = xmalloc(ACAP);
	carry.p = xmalloc(CARRY);
	ctab = xmalloc(CSLOT * 4);
	cbit = xmalloc(CARRY / CMIN / 8 + 1);
	pd_feat_room(TCAP, BCAP);
	zb.p = xmalloc(zb.cap = ZCAP);
	zstd_init();
	fb = xmalloc(FMAX);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	int sel = n && d[0] < 16 ? d[0] : 0, i, nfd;
	volatile int rc = -1;
	struct stat st;
	char b[300];

	fz_persist = 0;
	if (n && d[0] < 16)
		d++, n--;
	if (ftruncate(in_fd, 0) || (n && pwrite(in_fd, d, n, 0) != (ssize_t)n))
		abort();
	/* conv_main's state, as a new process has it */
	cv_fd = -1, cv_seq = cv_dump = cv_rc = cv_bad = cv_tracing = cv_full = 0;
	cv_in = cv_on = cv_bfull = 0, cv_bn = cv_cn = 0;
	attrs.n = carry.n = zb.n = nattr = asz = 0, fn = fover = fskip = 0;
	ilen = ioff = ibase = 0;
	pd_feat_reset();
	nfd = dup(0);		/* the descriptor conv_main's open takes */
	close(nfd);
	FZ_ARM();
	if (!setjmp(fz_jmp))
		rc = conv_main(iname, oname, sel);
	FZ_DISARM();
	close(nfd);
	if (cv_fd >= 0)
		close(cv_fd);
	FZ_CHECK(rc == -1 || rc == 0 || rc == 1, "conv_main returned %d", rc);
	FZ_CHECK(carry.n <= CARRY && attrs.n <= ACAP && cv_bn <= BCAP, "carry %zu attrs %zu build-ids %llu",
		 carry.n, attrs.n, (unsigned long long)cv_bn);
	FZ_CHECK(!sel || cv_dump <= 1, "-n %d wrote %d files", sel, cv_dump);
	for (i = 0; ; i++) {
		if (i)
			snprintf(b, sizeof(b), "%s.%d", oname, i);
		else
			snprintf(b, sizeof(b), "%s", oname);
		if (stat(b, &st))
			break;
		FZ_CHECK((u64)st.st_size <= 64 * (u64)n + 65536 + CARRY + ACAP + TCAP + BCAP + (4 << 20),
			 "%s: %lld bytes of an input of %zu", b, (long long)st.st_size, n);
		unlink(b);
	}
	fz_free_all();
	return 0;
}
