/* seen.c - what a dump, or a stream, has described already, so that
 * nothing is described twice unless it changed; which tasks perf
 * can name at each record, for the dump line's count of those it can't;
 * and what a standalone dump's records need described.
 * Both for one stream and one standalone dump at a time (a pulled
 * dump in the middle of a stream keeps its own). */
#include <string.h>
#include "config.h"
#include "lib.h"
#include "seen.h"

/* What this dump, or this stream, has described already, from the table
 * or from /proc: tid -> hash of its comm, and each executable map
 * (pid, start) -> hash of its place and name. Nothing is described
 * twice unless it changed. A full table just means describing again,
 * which perf takes fine. */
#define SEEN (CFG_TESTHOOKS ? 2048 : 32768)	/* a test's stream fills it */
static u32 seen_tab[2][2][SEEN];	/* a stream's, a standalone dump's */
static u32 *seen_key = seen_tab[0][0], *seen_val = seen_tab[0][1];
static u32 seen_n[2];	/* keys in each */

/* Where key is in the table, or the free place for it (key's entry is
 * 0 then), or -1: the table is full. */
static int seen_at(u32 key)
{
	u32 i = key * 2654435761U, n;

	for (n = 0; n < SEEN; n++, i++) {
		i &= SEEN - 1;
		if (seen_key[i] == key + 1 || !seen_key[i])
			return i;
	}
	return -1;
}

/* Whether key was described as val; it is now. */
int seen(u32 key, u32 val)
{
	int i = seen_at(key);

	if (i < 0 || (seen_key[i] && seen_val[i] == val))
		return i >= 0;
	if (!seen_key[i])
		seen_n[seen_key == seen_tab[1][0]]++;
	seen_key[i] = key + 1;
	seen_val[i] = val;
	return 0;
}

/* Whether key was described (by this dump, or this stream) at all, and
 * how (*val). */
int seen_get(u32 key, u32 *val)
{
	int i = seen_at(key);

	if (i < 0 || !seen_key[i])
		return 0;
	*val = seen_val[i];
	return 1;
}

static u32 hash(const void *p, size_t n, u32 h)
{
	const u8 *s = p;

	while (n--)
		h = (h ^ *s++) * 16777619;
	return h;
}

u32 comm_hash(const char *comm)
{
	return hash(comm, strlen(comm), 2166136261U);
}

int comm_seen(u32 tid, const char *comm)
{
	return seen(tid, comm_hash(comm));
}

/* A map by what the table's records and /proc's lines both tell:
 * pid, start, length, offset, name (not device and inode, which a
 * table record may carry as a build-id). */
int map_seen(u32 pid, const void *slp, const char *name)
{
	u64 start;
	u32 h = hash(slp, 24, hash(&pid, 4, 2166136261U));

	memcpy(&start, slp, 8);
	return seen((pid * 40503U ^ (u32)(start >> 12)) | 1U << 31, hash(name, strlen(name), h));
}

/* What perf knows of a task at each record, in the order it reads
 * them (perf 6.1): named by a COMM, a FORK gives the parent's name (if
 * it has one), an EXIT changes nothing. A stream's set lasts as long as
 * the stream; a standalone dump's, that dump. Bits per tid below
 * pid_max; a third set: the unnamed counted in this dump (not by the
 * table above, which a dump of many new tasks fills). */
static u8 *nmd, *named, *counted;
static int dmode;	/* the dump begun (seen_begin): 0 stands alone, 1 begins a stream, 2 goes on */
static u32 nbits = 32768;

/* pid_max: at most 4194304 (PID_MAX_LIMIT) */
void named_init(void)
{
	u64 v = readnum("/proc/sys/kernel/pid_max");

	if (v - 1 < 4194304)
		nbits = (v + 7) & ~7;
	nmd = xmalloc(3 * nbits / 8);
	counted = nmd + 2 * nbits / 8;
}

int seen_mode(void)
{
	return dmode;
}

void seen_begin(int mode)
{
	dmode = mode;
	/* A standalone dump (a file, a pulled one) keeps its own table, so
	 * that it does not make a stream forget what the stream sent. */
	seen_key = seen_tab[!mode][0];
	seen_val = seen_tab[!mode][1];
	/* A long stream fills its table: then it describes anew (the
	 * named set stays, as perf keeps the names). */
	if (mode < 2 || seen_n[!mode] > SEEN / 2) {
		memset(seen_key, 0, SEEN * sizeof(*seen_key));
		seen_n[!mode] = 0;
	}
	if (!nmd)
		return;
	named = nmd + !mode * (nbits / 8);
	if (mode < 2)
		memset(named, 0, nbits / 8);
	memset(counted, 0, nbits / 8);
}

static int bit(u8 *bits, u32 tid, int set)
{
	u8 *b, m = 1 << tid % 8, was;

	if (!bits || tid >= nbits)
		return 1;
	b = bits + tid / 8;
	was = *b & m;
	*b |= set ? m : 0;
	return was;
}

/* Whether tid is named; set: it is now. */
int name_bit(u32 tid, int set)
{
	return bit(named, tid, set);
}

/* Whether tid was counted unnamed in this dump; it is now. */
int count_bit(u32 tid)
{
	return bit(counted, tid, 1);
}

/* What a standalone dump's records need described: the maps of the
 * processes it has user-mode samples of with an IP (most tracepoints
 * fire in the kernel, a syscall's has the user's registers; a lean
 * tracepoint sample has no IP, an ftrace one neither; callchains stop
 * at the kernel: ATTR_EXCL_CALLCHAIN_USER), and the names of the tasks
 * its records are of (and of their parents). The rest is left out, so that
 * a crash loop's thousands of processes do not fill every dump. A
 * stream's needs all (its later parts may). Sets of id + 1; half full,
 * one stands for all. */
static u32 nmaps[4096], nnames[16384];
static struct set {
	u32 *k, cap, n;
} nset[2] = { { nmaps, 4096, 0 }, { nnames, 16384, 0 } };

static u32 *set_at(struct set *s, u32 v)
{
	u32 i = v * 2654435761U;

	for (;; i++)
		if (!s->k[i &= s->cap - 1] || s->k[i] == v + 1)
			return s->k + i;
}

void need(int what, u32 id)
{
	struct set *s = nset + what;
	u32 *p;

	if (s->n < s->cap / 2 && !*(p = set_at(s, id)))
		*p = id + 1, s->n++;
}

void need_reset(void)
{
	int i;

	for (i = 0; i < 2; i++)
		memset(nset[i].k, 0, nset[i].cap * 4), nset[i].n = 0;
}

int needed(int what, u32 id)
{
	return dmode || nset[what].n >= nset[what].cap / 2 || *set_at(nset + what, id);
}
