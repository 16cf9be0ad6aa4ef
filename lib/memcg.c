/* memcg.c - what the memory cgroup we run in still allows. The rings'
 * copies are faulted in at start; in a cgroup too small for them the
 * kernel's OOM killer would end us with SIGKILL, without a word, with
 * no final dump and the ftrace instance left behind. So each large
 * allocation asks first, and a config that needs more is refused with
 * the numbers. Cgroup v2 (memory.max, memory.current) and v1's memory
 * controller (memory.limit_in_bytes, memory.usage_in_bytes), found in
 * /proc/mounts and /proc/self/cgroup; every cgroup above ours limits
 * too. Kernel memory (the perf and ftrace rings) is not charged. */
#include <string.h>
#include "config.h"
#include "memcg.h"

/* "N" in file dir/name, or -1 ("max", or not there) */
static u64 num_at(char *dir, size_t k, const char *name)
{
	char b[32];
	long n;

	fmt(dir + k, 4096 - k, "/%s", name);
	n = readfile(dir, b, sizeof(b) - 1);
	dir[k] = 0;
	if (n <= 0 || b[0] < '0' || b[0] > '9')
		return -1;
	b[n] = 0;
	return xtou(b, 0, 10);
}

/* Where the memory controller's hierarchy is mounted (v1 if it has its
 * own, else v2), into dir; our cgroup's path in it into path; 1 for v1,
 * 2 for v2, 0 if none. */
static int where(char *dir, char *path)
{
	static char b[8192];
	char *p, *l, *f[4];
	int v = 0, i;
	long n = readfile("/proc/mounts", b, sizeof(b) - 1);

	b[n > 0 ? n : 0] = 0;
	for (l = b; *l && v != 1; l = p) {
		p = l + span(l, "\n", 0);
		if (*p)
			*p++ = 0;
		for (i = 0; i < 4; i++) {	/* device, mount point, type, options */
			f[i] = l;
			l += span(l, " ", 0);
			if (*l)
				*l++ = 0;
		}
		if (!strcmp(f[2], "cgroup2") ? !v : !strcmp(f[2], "cgroup") &&
		    (xstrstr(f[3], ",memory") || starts(f[3], "memory"))) {
			v = f[2][6] ? 2 : 1;
			fmt(dir, 4096, "%s", f[1]);
		}
	}
	n = readfile("/proc/self/cgroup", b, sizeof(b) - 1);
	b[n > 0 ? n : 0] = 0;
	/* "0::/path" (v2), or "4:memory:/path" (v1, the controllers may be
	 * a list: "4:cpu,memory:/path") */
	for (l = b; v && *l; l = p) {
		p = l + span(l, "\n", 0);
		if (*p)
			*p++ = 0;
		char *c = l + span(l, ":", 0), *e = *c ? xstrchr(c + 1, ':') : 0;

		if (!e || strlen(e) > 2000)
			continue;
		/* v2: "0::", checked first; v1: ",cpu,memory," */
		if (v == 2 ? starts(l, "0::") != 0 : (*c = *e = ',', xstrstr(c, ",memory,") != 0)) {
			fmt(path, 2048, "%s", e + 1);
			return v;
		}
	}
	return 0;
}

/* What may still be faulted in: the least room of our cgroup and those
 * above it; its cgroup's path into cg. -1: no limit known. */
static u64 room(char *cg)
{
	char dir[4096], path[2048];
	u64 r = -1, max, cur;
	int v = where(dir, path);
	size_t k = strlen(dir);

	for (; v; ) {
		fmt(dir + k, sizeof(dir) - k, "%s", path);
		max = num_at(dir, strlen(dir), v == 2 ? "memory.max" : "memory.limit_in_bytes");
		cur = num_at(dir, strlen(dir), v == 2 ? "memory.current" : "memory.usage_in_bytes");
		if (max != (u64)-1 && cur != (u64)-1 && (max > cur ? max - cur : 0) < r) {
			r = max > cur ? max - cur : 0;
			fmt(cg, 2048, "%s", *path ? path : "/");
		}
		dir[k] = 0;
		if (!*path || !strcmp(path, "/"))
			break;
		*xstrrchr(path, '/') = 0;	/* the one above */
	}
	return r;
}

void memcg_check(u64 need, const char *what)
{
	char cg[2048];
	u64 r;

	if (!CFG_MEMCG || need < (1 << 20) || (r = room(cg)) >= need)
		return;
	die(1, "%s: %L MiB more needed, and memory cgroup %s allows %L MiB more: a smaller buf= or fewer cpus=, or raise its limit",
	    what, (need >> 20) + 1, cg, r >> 20);
}
