/* room.c - a bound on what the -o series takes: FILE, FILE.1, ... are
 * never written over, so a crash loop under a tripwire would fill the
 * partition, and then the logs, the configuration writes and the
 * newest crash beside them would fail. So the series keeps at most
 * files=N files and room=SIZE bytes, and free=SIZE of the filesystem
 * is never written into: before the newest file grows past a bound,
 * the oldest files go. Only the files this tracer made count and go
 * (a name it holds whose file is no longer the one it made is let be),
 * the newest is kept whole, or not at all if it alone breaks a bound.
 * Defaults: room a quarter of the filesystem (at most 4 GiB), free a
 * tenth (at most 1 GiB); no count. */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include "config.h"
#include "room.h"

static struct sfile {
	u64 dev, ino, size;
	unsigned seq;		/* its name: base, base.1, ... */
} *ser;
static const char *base;
static int nser, cap;
static u64 key[3] = { -1, -1, -1 };	/* files, room, free: -1 the default */
static const char names[3][6] = { "files", "room", "free" };

int room_key(const char *k, const char *val, const char **why)
{
	int i;

	for (i = 0; i < 3 && strcmp(k, names[i]); i++)
		;
	if (i == 3)
		return 0;
	*why = 0;
	if (key[i] != (u64)-1)
		*why = "given twice: each key once";
	else if (!(key[i] = num(val, i)) && strcmp(val, "0"))
		*why = i ? "room=SIZE, free=SIZE: a size (64m, 512k; 0: no bound)" :
			"files=N: a number of files (0: no bound)";
	return 1;
}

void room_add(const char *out, unsigned seq, int fd)
{
	struct stat st;

	if (nser == cap) {
		ser = xrealloc(ser, cap * sizeof(*ser), (cap * 2 + 8) * sizeof(*ser));
		cap = cap * 2 + 8;
	}
	fstat(fd, &st);
	ser[nser++] = (struct sfile){ st.st_dev, st.st_ino, 0, seq };
	base = out;
}

/* Entry i: is its file still the one we made? (Into name.) */
static int ours(int i, char *name)
{
	struct stat st;

	fmt(name, 4096, ser[i].seq ? "%s.%u" : "%s", base, ser[i].seq);
	return !lstat(name, &st) && (u64)st.st_dev == ser[i].dev && (u64)st.st_ino == ser[i].ino;
}

/* Entry i forgotten (and with b >= 0 its file removed: said, with the
 * bound it was for). */
static void drop(int i, int dump, int b, u64 v)
{
	static char name[4096];

	if (b >= 0 && ours(i, name)) {
		unlink(name);
		msg(b ? "dump %d: %s removed, the series' oldest, for %s=%L KiB" :
		    "dump %d: %s removed, the series' oldest, for %s=%L", dump, name, names[b], b ? v >> 10 : v);
	}
	memmove(ser + i, ser + i + 1, (--nser - i) * sizeof(*ser));
}

void room_next(int dump)
{
	static char name[4096];
	int i;

	if (!key[0] || key[0] == (u64)-1)
		return;
	for (i = nser - 1; i >= 0; i--)
		if (!ours(i, name))
			drop(i, dump, -1, 0);
	while (nser && (u64)nser >= key[0])
		drop(0, dump, 0, key[0]);
}

/* Bound i of a filesystem of fs bytes: given, or the default */
static u64 bound(int i, u64 fs)
{
	u64 d = i == 1 ? fs / 4 : fs / 10, m = i == 1 ? 4ULL << 30 : 1ULL << 30;

	return key[i] != (u64)-1 ? key[i] : !i ? 0 : d < m ? d : m;
}

u64 room_reserve(int fd, u64 *avail)
{
	struct statvfs s;

	if (fstatvfs(fd, &s))
		return *avail = 0;
	*avail = (u64)s.f_bavail * s.f_frsize;
	return bound(2, (u64)s.f_blocks * s.f_frsize);
}

int room_make(int fd, u64 size, u64 about, int dump)
{
	static char name[4096];
	struct statvfs s;
	u64 fs = 0, avail = -1, v[3], had, tot, rest;
	int i, b, checked = 0;

	if (!nser)
		return 0;
	if (!fstatvfs(fd, &s))
		fs = (u64)s.f_blocks * s.f_frsize, avail = (u64)s.f_bavail * s.f_frsize;
	for (i = 0; i < 3; i++)		/* (the defaults follow the filesystem) */
		v[i] = bound(i, fs);
	had = ser[nser - 1].size;	/* what the newest holds already */
	ser[nser - 1].size = size;
	rest = about > had ? about - had : size - had;	/* what it will still take */
	for (;;) {
		for (i = tot = 0; i < nser; i++)
			tot += ser[i].size;
		b = v[0] && (u64)nser > v[0] ? 0 : v[1] && tot > v[1] ? 1 :
			v[2] && avail != (u64)-1 && avail < v[2] + (size - had) ? 2 : -1;
		if (b < 0)
			return 0;
		/* once, before any goes: forget those removed or replaced
		 * by others (never the newest, open and ours) */
		for (i = nser - 2; !checked && i >= 0; i--)
			if (!ours(i, name))
				drop(i, dump, -1, 0);
		if (!checked++)
			continue;
		/* none goes for a dump that would not fit alone, by its
		 * size so far or the estimate of its whole */
		tot -= size;	/* (the others: the free space they would leave) */
		i = b;
		b = v[1] && (size > v[1] || about > v[1]) ? 1 :
			v[2] && avail != (u64)-1 && avail + tot < v[2] + rest ? 2 : nser == 1 ? i : -1;
		if (b >= 0) {
			msg("dump %d: does not fit %s=%L%s: %L bytes so far, about %L in all; the series' others are left",
			    dump, names[b], b ? v[b] >> 10 : v[b], b ? " KiB" : "", size, about > size ? about : size);
			return ENOSPC;
		}
		avail += ser->size;	/* about (blocks) */
		drop(0, dump, i, v[i]);
	}
}

void room_done(int fd, int err)
{
	struct stat st;

	if (!nser)
		return;
	if (err) {
		nser--;
		return;
	}
	if (!fstat(fd, &st))
		ser[nser - 1].size = st.st_size;
}
