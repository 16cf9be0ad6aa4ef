/* buildid.c - build-ids of the ELF files processes map (BUILDID): read
 * from the file's notes, checked to be the very file mapped, so that
 * perf on the host refuses a binary of another build. */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include "config.h"
#include "buildid.h"

/* The GNU build-id note of an ELF file, from its program headers and
 * notes only; 20 bytes into id, or 0. Files are the target's own, so in
 * its byte order. */
static int elf_build_id(int fd, u8 *id)
{
	unsigned char e[64], ph[56], note[1024];
	int i, n = 0, wide;
	u64 phoff;
	u16 phent, phnum;

	if (pread(fd, e, 64, 0) != 64 || memcmp(e, "\177ELF", 4))
		return 0;
	wide = e[4] == 2;
	if (wide) {
		memcpy(&phoff, e + 32, 8);
		memcpy(&phent, e + 54, 2);
		memcpy(&phnum, e + 56, 2);
	} else {
		u32 o;

		memcpy(&o, e + 28, 4);
		phoff = o;
		memcpy(&phent, e + 42, 2);
		memcpy(&phnum, e + 44, 2);
	}
	for (i = 0; i < phnum && i < 64 && !n; i++) {
		u32 type, off32, sz32;
		u64 off, sz;
		long len;

		if (phent > sizeof(ph) || pread(fd, ph, phent, phoff + i * phent) != phent)
			break;
		memcpy(&type, ph, 4);
		if (type != 4)		/* PT_NOTE */
			continue;
		if (wide) {
			memcpy(&off, ph + 8, 8);
			memcpy(&sz, ph + 32, 8);
		} else {
			memcpy(&off32, ph + 4, 4);
			memcpy(&sz32, ph + 16, 4);
			off = off32, sz = sz32;
		}
		len = pread(fd, note, sz < sizeof(note) ? sz : sizeof(note), off);
		n = note_build_id(note, len, id);
	}
	return n;
}

/* The build-id of the file a mapping shows (path, device, inode), or 0.
 * Anyone may have put another build, a FIFO or a device there since (a
 * name such as "x (deleted)" is anybody's to create), and we run as
 * root: so the path is first opened as a mere reference (O_PATH, which
 * opens nothing and never blocks), not followed if it is a link, and
 * read only if it is a regular file and still that very inode, through
 * /proc/self/fd. statx has one layout on every arch (stx_mode at 28,
 * stx_ino at 32, stx_dev_major and _minor at 136 and 140); on a kernel
 * before 4.11 there is none, and no build-id. Most maps are of the same
 * few files, so the last answers are kept by identity. */
int bid_map(const char *path, u32 maj, u32 min, u64 ino, u8 *id)
{
	static struct { u64 ino; u32 maj, min; int n; u8 id[20]; } c[32];
	u64 sx[32];	/* struct statx */
	u32 dev[2];
	u16 mode = 0;
	char self[32];
	int fd, rfd, k = (ino ^ maj ^ min << 8) & 31, same = 0;

	if (!CFG_BUILDID || !ino)
		return 0;
	if (c[k].ino != ino || c[k].maj != maj || c[k].min != min) {
		if ((fd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC)) < 0)
			return 0;
		if (!syscall(SYS_statx, fd, "", AT_EMPTY_PATH, 0x101 /* STATX_TYPE | STATX_INO */, sx)) {
			memcpy(&mode, (char *)sx + 28, 2);
			memcpy(dev, (char *)sx + 136, 8);
			same = (mode & S_IFMT) == S_IFREG && sx[4] == ino && dev[0] == maj && dev[1] == min;
		}
		fmt(self, sizeof(self), "/proc/self/fd/%d", fd);
		if (same && (rfd = open(self, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)) >= 0) {
			c[k].n = elf_build_id(rfd, c[k].id);
			close(rfd);
		} else {
			same = 0;
		}
		close(fd);
		if (!same)
			return 0;
		c[k].ino = ino, c[k].maj = maj, c[k].min = min;
	}
	memcpy(id, c[k].id, 20);
	return c[k].n;
}

/* An MMAP2 record with the build-id of its file in place of device and
 * inode (the same 24 bytes), so perf refuses a host file of another
 * build. The kernel could write it (attr.build_id, 5.12+), but it leaves
 * the build-id flag in the record it shares with every other session:
 * a perf record started before us then gets device and inode flagged as
 * a build-id, and perf 6.1 aborts. So we read it, while the file is
 * most likely still the one mapped. */
void bid_mmap2(struct rec_hdr *h)
{
	unsigned char *p = (void *)h;
	u32 dev[2];
	u64 ino;
	u8 id[20];

	if (h->misc & MISC_MMAP_BUILD_ID || h->size < 72 + 8 + 32 || p[h->size - 33])
		return;		/* no room for a name and the trailer, or no NUL */
	memcpy(dev, p + 40, 8);
	memcpy(&ino, p + 48, 8);
	if (!bid_map((char *)p + 72, dev[0], dev[1], ino, id))
		return;
	memset(p + 40, 0, 24);
	p[40] = 20;
	memcpy(p + 44, id, 20);
	h->misc |= MISC_MMAP_BUILD_ID;
}
