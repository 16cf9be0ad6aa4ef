/* hotplug.c - a netlink socket that tells when a CPU goes offline or
 * comes back (CPU hotplug: dump.c opens its events again). */
#include <unistd.h>
#include <sys/socket.h>
#include "config.h"
#include "hotplug.h"

/* The kernel's uevents on a netlink socket, filtered in the kernel to
 * "online@" or "offline@" of /devices/system/cpu/: tracer wakes only
 * when a CPU changes state. No headers: the socket address and the
 * classic BPF program are the same on every arch; SO_ATTACH_FILTER is
 * musl's. */
struct bpf { u16 code; u8 jt, jf; u32 k; };

int hotplug_fd(void)
{
	static const char *const pre[2] = { "online@/devices/system/cpu/c",
					     "offline@/devices/system/cpu/" };
	static struct bpf f[2 * 15 + 1];
	struct { unsigned short len; struct bpf *f; } prog = { 2 * 15 + 1, f };
	struct { u16 family, pad; u32 pid, groups; } sa = { AF_NETLINK, 0, 0, 1 };
	int p, w, n = 0, fd;

	if (!CFG_HOTPLUG)
		return -1;
	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 15 /* NETLINK_KOBJECT_UEVENT */);

	for (p = 0; p < 2; p++) {
		for (w = 0; w < 7; w++) {	/* 28 bytes, a word at a time */
			const unsigned char *s = (const void *)(pre[p] + 4 * w);

			f[n++] = (struct bpf){ 0x20, 0, 0, 4 * w };	/* ld [4w] */
			f[n] = (struct bpf){ 0x15, 0, 0, (u32)s[0] << 24 | s[1] << 16 | s[2] << 8 | s[3] };
			f[n].jf = 15 * p + 14 - n;	/* jne: the next prefix */
			n++;
		}
		f[n++] = (struct bpf){ 0x06, 0, 0, 4096 };		/* accept */
	}
	f[n] = (struct bpf){ 0x06, 0, 0, 0 };				/* drop */
	if (fd >= 0 && (bind(fd, (void *)&sa, sizeof(sa)) ||
			setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)))) {
		close(fd);
		fd = -1;
	}
	if (fd < 0)
		msg("no netlink uevents: a CPU that goes offline and comes back is not recorded again");
	return fd;
}
