/* print.c - tracer -p: a dump as text on the board itself, where there
 * is no perf. It reads what tracer writes (a pipe-mode stream, a
 * file-mode perf.data, a frame=text capture through frame.c, zstd
 * records through zstd.c) and perf record's files, of either byte order,
 * and prints a line per record in perf script's shape, oldest first:
 *
 *   comm  tid [cpu] sec.usec: sys:name: field=value ...
 *   comm  tid [cpu] sec.usec: cpu-clock: ip
 *
 * Tracepoint fields come from the dump's own format files (its tracing
 * data), printed as the kernel's options/fields does, whatever the print
 * format says: integers by their size and sign, char arrays and
 * __data_loc and __rel_loc strings as text, other arrays as hex bytes.
 * Processes are named from the dump's COMM records, taken in time
 * order, and FORK gives a child its parent's name, as perf does. The
 * side-band records that happened while recording (a time in their
 * trailer) print as PERF_RECORD_COMM, EXIT, FORK and MMAP2 lines; the
 * snapshot of /proc (time 0) names processes and is not printed.
 *
 * A stream prints at each round (each dump ends with one), so
 * `tracer | tracer -p` prints the dumps as they come. No size read is
 * trusted: a record that does not fit where it is ends the input, with
 * its offset, after what came before it is printed.
 */
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>
#include "config.h"
#include "sink.h"
#include "frame.h"
#include "zstd.h"
#include "cfg.h"
#include "print.h"

#define MAXEV 8192		/* `*:*` on 6.18: 2400 */
#define MAXID 65536		/* their ids, one per CPU: in a hash of twice as many */
#define MAXTP 4096
#define NCOMM 8192
#define MAXREC (1 << 16)
#define WIN (2 * MAXREC)		/* input not yet whole records */
/* Records waiting for their round: a round of 8 MiB rings on two CPUs
 * takes 40 MB (a host's perf holds a round whole), where memory lets
 * (a mapping: untouched pages cost nothing), else QMIN; a timed
 * record has 16 bytes at least. */
#define QMAX ((size_t)256 << 20)
#define QMIN (16 << 20)
static size_t qmax;
#define TDMAX (16 << 20)	/* the tracing data (all of a kernel's formats: 2 MiB) */
#define ZCAP (MAXREC + (2 << 20))	/* a frame's content is up to 64 KiB here */

static int pbe, tbe, bad;	/* big-endian perf fields, tracing data; an error */
static int cut;			/* events past MAXEV: not printed (exit 1) */
static struct { u32 type; u64 cfg, st; } ev[MAXEV];
static struct { u64 id; int ev; } idt[2 * MAXID];	/* ev + 1; 0: free */
static u32 idu[MAXID];		/* the slots in use, for the next reset */
static struct { long id; const u8 *sys, *f, *e; } tp[MAXTP];
static int nevs, nid, ntp;
/* Memory is bounded whatever the input: each buffer is taken once, at
 * its most, when first needed (untouched pages cost nothing). */
static u8 *q;			/* the records of this round */
static size_t qn, nix;
static struct ent { u64 t, off; } *ix;
static u8 *win, *td;		/* the input window; the tracing data */
static size_t wn;
static u64 at, tdn, tdlen;	/* win[0]'s input offset; tracing data read, its size */
static int hdr;			/* a stream's header still to come */
static struct { u32 tid; char c[16]; } ct[NCOMM];	/* tid + 1, 0: free */

static u64 val(const u8 *p, int n, int be)
{
	u64 v = 0;
	int i;

	for (i = 0; i < n; i++)
		v |= (u64)p[i] << 8 * (be ? n - 1 - i : i);
	return v;
}
#define G16(p) (u32)val(p, 2, pbe)
#define G32(p) (u32)val(p, 4, pbe)
#define G64(p) val(p, 8, pbe)

static void put(const char *s)
{
	out_put(s, strlen(s));
}

/* v in decimal, zero-padded to w digits */
static void pnum(u64 v, int w)
{
	char b[32], *e = utoa(b + 4, v);

	*e = 0;
	while (e - b - 4 < w--)
		put("0");
	put(b + 4);
}

static char *itoa(char *b, u32 v)	/* a pid or tid: -1 is one */
{
	if ((int)v < 0)
		*b++ = '-', v = -v;
	return utoa(b, v);
}

static void pnum_s(u64 v, int n)	/* signed, n bytes */
{
	if (n && n < 8 && v >> (8 * n - 1))
		v |= ~0ULL << 8 * n;
	if ((long long)v < 0)
		put("-"), v = -v;
	pnum(v, 0);
}

static void phex(u64 v)
{
	char b[24], *p = b + 23;

	*p = 0;
	do
		*--p = "0123456789abcdef"[v & 15];
	while (v >>= 4);
	put(p);
}

static void oops(const char *what, u64 at)
{
	out_end();
	msg("%s at offset %L", what, at);
	bad = 1;
}

/* A tid's name, or a place for it. */
static char *comm(u32 tid, int add)
{
	u32 h = tid * 2654435761U % NCOMM, i;

	for (i = 0; i < 64; i++, h = (h + 1) % NCOMM)
		if (ct[h].tid == tid + 1 || (add && !ct[h].tid)) {
			ct[h].tid = tid + 1;
			return ct[h].c;
		}
	return 0;
}

/* The sample fields tracer -p uses, in their order in a sample and in
 * the sample_id_all trailer (bit numbers of sample_type). */
struct smp {
	u64 id, ip, t;
	u32 pid, tid, cpu, rawn;
	const u8 *raw;
};

static int sfields(const u8 *b, const u8 *e, u64 st, struct smp *s, int trailer)
{
	static const u8 so[] = { 16, 0, 1, 2, 3, 6, 9, 7, 8, 99 }, to[] = { 1, 2, 6, 9, 7, 16, 99 };
	const u8 *o = trailer ? to : so;
	u64 v;

	for (; *o != 99; o++) {
		if (!(st >> *o & 1))
			continue;
		if (b + 8 > e)
			return -1;
		v = G64(b);
		if (*o == 16 || *o == 6)
			s->id = v;
		if (*o == 0)
			s->ip = v;
		if (*o == 1)
			s->pid = G32(b), s->tid = G32(b + 4);
		if (*o == 2)
			s->t = v;
		if (*o == 7)
			s->cpu = G32(b);
		b += 8;
	}
	if (trailer || st & 16)	/* READ: not read here */
		return 0;
	if (st & S_CALLCHAIN) {
		if (b + 8 > e || (v = G64(b)) > (u64)(e - b) / 8 - 1)
			return -1;
		b += 8 + 8 * v;
	}
	if (st & S_RAW) {
		if (b + 4 > e || (s->rawn = G32(b)) > (u64)(e - b) - 4)
			return -1;
		s->raw = b + 4;
	}
	return 0;
}

/* The sample_id_all trailer of a side-band record of size n. */
static int trailer(const u8 *p, u32 n, struct smp *s)
{
	u64 st = ev[0].st & (1 << 1 | 1 << 2 | 1 << 6 | 1 << 7 | 1 << 9 | 1 << 16), b;
	u32 k = 0;

	for (b = st; b; b &= b - 1)
		k += 8;

	return !nevs || k + 8 > n ? -1 : sfields(p + n - k, p + n, st, s, 1);
}

/* id's slot in idt: its own, or the free one where it would go */
static u32 id_slot(u64 id)
{
	u32 h = (u32)(id * 0x9e3779b97f4a7c15ULL >> 40) % (2 * MAXID);

	while (idt[h].ev && idt[h].id != id)
		h = (h + 1) % (2 * MAXID);
	return h;
}

static int ev_of(u64 id)
{
	u32 h = id_slot(id);

	return idt[h].ev ? idt[h].ev - 1 : nevs == 1 ? 0 : -1;
}

/* A sample, parsed by its event's sample_type (the id comes before
 * anything that differs); its event, or -1. */
static int sample(const u8 *p, u32 n, struct smp *s)
{
	int e;

	memset(s, 0, sizeof(*s));
	if (!nevs)
		return -1;
	sfields(p + 8, p + n, ev[0].st, s, 0);
	if ((e = ev_of(s->id)) < 0)
		return -1;
	memset(s, 0, sizeof(*s));
	return sfields(p + 8, p + n, ev[e].st, s, 0) < 0 ? -1 : e;
}

/* ---- the tracing data: the format of each tracepoint ---- */

/* A number of the tracing data; past its end, the end and a huge one. */
static u64 tv(const u8 **p, const u8 *e, int n)
{
	u64 v = ~0ULL >> 1;

	if (n <= e - *p)
		v = val(*p, n, tbe), *p += n;
	else
		*p = e;
	return v;
}

/* key in [l, e): just past it, or 0 */
static const u8 *find(const u8 *l, const u8 *e, const char *key)
{
	size_t k = strlen(key);

	for (; l + k <= e; l++)
		if (!memcmp(l, key, k))
			return l + k;
	return 0;
}

/* "key:N" in [l, e), or 0 */
static long fnum(const u8 *l, const u8 *e, const char *key)
{
	return (l = find(l, e, key)) ? (long)xtou((char *)l, 0, 10) : 0;
}

static const u8 *eol(const u8 *l, const u8 *e)
{
	while (l < e && *l != '\n')
		l++;
	return l;
}

/* The tracing data, in td[0, n): the formats point into it. */
static void tracing(size_t n)
{
	const u8 *b = td, *p = b + 10, *e = b + n, *sys;
	u64 i, k, ns, sz;

	td[n] = 0;	/* a system's name ends */
	ntp = 0;
	if (n < 20 || memcmp(b + 3, "tracing", 7))
		return oops("no tracing data", 0);
	while (p < e && *p++)
		;
	if (p + 6 > e)
		return;
	tbe = *p, p += 6;
	for (i = 0; i < 2; i++) {	/* header_page, header_event */
		while (p < e && *p++)
			;
		sz = tv(&p, e, 8);
		p += sz < (u64)(e - p) ? sz : (u64)(e - p);
	}
	for (k = tv(&p, e, 4); k-- && p < e;) {	/* ftrace's own */
		sz = tv(&p, e, 8);
		p += sz < (u64)(e - p) ? sz : (u64)(e - p);
	}
	for (ns = tv(&p, e, 4); ns-- && p < e;) {
		sys = p;
		while (p < e && *p++)
			;
		for (k = tv(&p, e, 4); k-- && p < e;) {
			sz = tv(&p, e, 8);
			if (sz > (u64)(e - p))
				return oops("a format past the tracing data", p - b);
			if (ntp < MAXTP)
				tp[ntp++] = (typeof(tp[0])){ fnum(p, p + sz, "ID: "), sys, p, p + sz };
			p += sz;
		}
	}
}

static int tp_of(u64 id)
{
	int i;

	for (i = 0; i < ntp; i++)
		if ((u64)tp[i].id == id)
			return i;
	return -1;
}

/* The fields of tracepoint t from its raw data, name=value. A format
 * line: "\tfield:TYPE NAME[N];\toffset:O;\tsize:S;\tsigned:G;". */
static void tfields(int t, const u8 *r, u32 n)
{
	const u8 *l = tp[t].f, *e = tp[t].e, *le, *d, *s, *x, *nm;
	u32 off, sz, len, i, loc;
	u64 v;

	for (; l < e; l = le + 1) {
		le = eol(l, e);
		if (!(d = find(l, le, "field:")))
			continue;
		for (x = d; x < le && *x != ';'; x++)
			;
		off = fnum(x, le, "offset:"), sz = fnum(x, le, "size:");
		if (x > d && x[-1] == ']')
			while (x > d && *x != '[')
				x--;
		for (nm = x; nm > d && nm[-1] != ' '; nm--)
			;
		if (find(nm, x, "common_") == nm + 7)
			continue;
		put(" ");
		out_put(nm, x - nm);
		put("=");
		loc = find(d, nm, "__data_loc") ? 1 : find(d, nm, "__rel_loc") ? 2 : 0;
		if (off > n || sz > n - off)
			continue;
		len = sz;
		if (loc && sz == 4) {
			v = val(r + off, 4, tbe);
			len = v >> 16, off = (v & 0xffff) + (loc == 2 ? off + 4 : 0);
			if (off > n || len > n - off)
				continue;
		} else if (*x != '[') {
			v = val(r + off, sz > 8 ? 8 : sz, tbe);
			if (fnum(x, le, "signed:"))
				pnum_s(v, sz);
			else
				pnum(v, 0);
			continue;
		}
		s = r + off;
		if (find(d, nm, "char"))
			for (i = 0; i < len && s[i]; i++)
				out_put(s[i] < ' ' || s[i] > '~' ? "." : (char *)s + i, 1);
		else
			for (i = 0; i < len; i++) {
				char h[2] = { "0123456789abcdef"[s[i] >> 4], "0123456789abcdef"[s[i] & 15] };

				out_put(h, 2);
			}
	}
}

/* ---- records ---- */

/* The name perf gives an event: sys:name (t, its format), cpu-clock,
 * or type:config. */
static void evname(int e, int t)
{
	const u8 *n, *ne;

	if (t >= 0 && (n = find(tp[t].f, tp[t].e, "name: "))) {
		put((char *)tp[t].sys);
		put(":");
		ne = eol(n, tp[t].e);
		out_put(n, ne - n);
	} else if (ev[e].type < 2 && (n = (u8 *)cfg_named(ev[e].type, ev[e].cfg))) {
		put((char *)n);
	} else {
		pnum(ev[e].type, 0);
		put(":");
		pnum(ev[e].cfg, 0);
	}
}

/* One record of the round, in time order: its line. */
static void show(const u8 *p)
{
	u32 type = G32(p), n = G16(p + 6), k;
	struct smp s;
	char *c, nb[24];
	int e = -1, t;

	if (type == REC_SAMPLE) {
		if ((e = sample(p, n, &s)) < 0)
			return;
	} else {
		memset(&s, 0, sizeof(s));
		if (trailer(p, n, &s) < 0 || !s.t)
			goto track;
	}
	c = comm(s.tid, 0);
	if (!c || !*c)	/* perf's names for a task of no COMM */
		*itoa(nb + 1, s.tid) = 0, nb[0] = ':', c = s.tid ? nb : "swapper";
	for (k = strnlen(c, 16); k < 16; k++)
		put(" ");
	out_put(c, strnlen(c, 16));
	put(" ");
	*itoa(nb, s.tid) = 0;
	put(nb);
	put(" [");
	pnum(s.cpu, 3);
	put("] ");
	pnum(s.t / 1000000000, 0);
	put(".");
	pnum(s.t / 1000 % 1000000, 6);
	put(": ");
	if (e >= 0) {
		t = ev[e].type == 2 ? tp_of(ev[e].cfg) : -1;
		evname(e, t);
		put(":");
		if (t >= 0 && s.raw)
			tfields(t, s.raw, s.rawn);
		else {
			put(" ");
			phex(s.ip);
		}
		put("\n");
		return;
	}
	put(type == REC_COMM ? "PERF_RECORD_COMM: " : type == REC_EXIT ? "PERF_RECORD_EXIT: " :
	    type == REC_FORK ? "PERF_RECORD_FORK: " : "PERF_RECORD_MMAP2: ");
track:
	if (n < 24)	/* the least of COMM, FORK and EXIT */
		return;
	{
		int f = type == REC_FORK || type == REC_EXIT;	/* pid ppid tid ptid time */
		u32 pid = G32(p + 8), tid = G32(p + (f ? 16 : 12)), ppid = G32(p + 12), ptid = G32(p + 20);

		if (type == REC_COMM) {
			if ((c = comm(tid, 1)))
				memcpy(c, p + 16, n - 16 < 16 ? n - 16 : 16), c[15] = 0;
			if (s.t)
				put(c ? c : "?"), put(":"), pnum(pid, 0), put("/"), pnum(tid, 0);
		} else if (type == REC_FORK || type == REC_EXIT) {
			if (type == REC_FORK && (c = comm(ptid, 0)) && *c) {
				char b[16];

				memcpy(b, c, 16);
				if ((c = comm(tid, 1)))
					memcpy(c, b, 16);
			} else if (type == REC_FORK && (c = comm(tid, 0)))
				*c = 0;
			if (s.t)
				pnum(pid, 0), put("/"), pnum(tid, 0), put(" parent "), pnum(ppid, 0), put("/"), pnum(ptid, 0);
		} else if (s.t && type == REC_MMAP2 && n >= 80) {
			pnum(pid, 0), put("/"), pnum(tid, 0), put(" "), phex(G64(p + 16)), put(" "), phex(G64(p + 24));
			put(" "), out_put(p + 72, strnlen((char *)p + 72, n - 72));
		}
		if (s.t)
			put("\n");
	}
}

static int cmp(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;

	return x->t != y->t ? (x->t > y->t ? 1 : -1) : x->off > y->off ? 1 : -1;
}

/* At a round, perf shows the records up to the newest time of the
 * round before, and keeps the rest for the next round, where an older
 * record that came late can still go before them; at the end, all.
 * So does tracer -p on a file. A pipe or a tty (tracer | tracer -p) is
 * shown whole at each round, as it comes. */
static u64 lim, tmax;
static int live;

static int cmp_off(const void *a, const void *b)
{
	return ((const struct ent *)a)->off > ((const struct ent *)b)->off ? 1 : -1;
}

static void flush(u64 upto)
{
	size_t i, k, n;

	xsort(ix, nix, sizeof(*ix), cmp);
	for (i = 0; i < nix && ix[i].t <= upto; i++)
		show(q + ix[i].off);
	for (k = 0; i < nix;)	/* what waits, to the front, in its order */
		ix[k++] = ix[i++];
	xsort(ix, nix = k, sizeof(*ix), cmp_off);
	for (qn = i = 0; i < nix; i++) {
		n = G16(q + ix[i].off + 6);
		memmove(q + qn, q + ix[i].off, n);
		ix[i].off = qn;
		qn += n;
	}
	out_end();
	out_begin(1, 0, 0, 0, 0);
}

static void end_round(void)
{
	flush(live ? ~0ULL : lim);
	lim = tmax;
}

/* A record with no time goes at once, as in perf (the snapshot of
 * /proc that names the processes); the others wait for their round.
 * When more wait than the queue holds, the older half goes now, as
 * perf does at its queue's limit. */
static void queue(const u8 *p, u32 n, u64 t)
{
	if (!t)
		return show(p);
	if (!q) {	/* the records, then their index */
		q = mmap(0, 2 * (qmax = QMAX), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (q == MAP_FAILED)
			q = xmalloc(2 * (qmax = QMIN));
		ix = (void *)(q + qmax);
	}
	while (qn + n > qmax || nix == qmax / 16) {
		xsort(ix, nix, sizeof(*ix), cmp);
		flush(ix[nix / 2].t);
	}
	memcpy(q + qn, p, n);
	ix[nix++] = (struct ent){ t, qn };
	qn += n;
	if (t > tmax)
		tmax = t;
}

/* An event and its ids. A stream's next dump repeats them, with the
 * ids of a CPU that came online since: its known first id names the
 * event, and only new ids are added. Past MAXEV events or MAXID ids,
 * theirs are not printed, and that is said once. */
static void attr(const u8 *a, u32 n, const u8 *ids, u32 nids)
{
	u32 h;
	int k = nids ? idt[id_slot(G64(ids))].ev : 0;

	if (n < 48)
		return;
	if (!k && nevs < MAXEV)
		ev[nevs] = (typeof(ev[0])){ G32(a), G64(a + 8), G64(a + 24) }, k = ++nevs;
	for (; nids--; ids += 8)
		if (!k || (!idt[h = id_slot(G64(ids))].ev && nid == MAXID)) {
			if (!cut)
				msg("more than %d events or %d ids: the records of the rest are not printed", MAXEV, MAXID);
			cut = 1;
			return;
		} else if (!idt[h].ev) {
			idt[h] = (typeof(idt[0])){ G64(ids), k }, idu[nid++] = h;
		}
}

static size_t records(const u8 *p, size_t n, u64 at);
static u8 *z;		/* decompressed, a record cut at the end kept */
static size_t zn;
static int zin;

/* One record, at offset at of the input. */
static void rec(const u8 *p, u64 at)
{
	u32 type = G32(p), n = G16(p + 6);
	struct smp s;
	long k;

	switch (type) {
	case REC_SAMPLE:
		if (sample(p, n, &s) >= 0)
			queue(p, n, s.t);
		break;
	case REC_COMM: case REC_EXIT: case REC_FORK: case REC_MMAP2:
		memset(&s, 0, sizeof(s));
		trailer(p, n, &s);
		queue(p, n, s.t);
		break;
	case REC_HEADER_ATTR:
		if (n >= 16 && G32(p + 12) <= n - 8)
			attr(p + 8, G32(p + 12), p + 8 + G32(p + 12), (n - 8 - G32(p + 12)) / 8);
		break;
	case REC_FINISHED_ROUND:
		end_round();
		break;
	case REC_COMPRESSED:
		if (!CFG_ZSTD || zin)
			return oops(zin ? "zstd in zstd" : "zstd records (not built in)", at);
		if (!z)
			z = xmalloc(ZCAP), zstd_init();
		k = zstd_decode(p + 8, n - 8, z + zn, ZCAP - zn);
		if (k < 0)
			return oops(k == -2 ? "zstd that only full zstd reads (perf record -z)" : "damaged zstd", at);
		zn += k;
		zin = 1;
		k = records(z, zn, at);
		zin = 0;
		memmove(z, z + k, zn -= k);
		break;
	}
}

/* The records in [p, p + n), at offset at of the input: how many bytes
 * were whole records (the rest waits for more input). */
static size_t records(const u8 *p, size_t n, u64 at)
{
	size_t o = 0;
	u32 sz;
	u64 t;

	while (n - o >= 8 && !bad) {
		sz = G16(p + o + 6);
		if (sz < 8) {
			oops("a record of size 0", at + o);
			break;
		}
		t = G32(p + o) == REC_HEADER_TRACING_DATA && sz >= 12 && n - o >= 12 ?
			(G32(p + o + 8) + 7ULL) & ~7ULL : 0;
		if (t > TDMAX) {
			oops("tracing data of over 16 MiB", at + o);
			break;
		}
		if (t && !td)
			td = xmalloc(TDMAX + 1);
		if (sz + t > n - o) {
			if (!t || zin || sz > n - o)
				break;
			/* the rest comes straight into td (feed) */
			memcpy(td, p + o + sz, tdn = n - o - sz);
			tdlen = t;
			return n;
		}
		if (t) {
			memcpy(td, p + o + sz, t);
			tracing(t);
		} else {
			rec(p + o, at + o);
		}
		o += sz + t;
	}
	return o;
}

static void reset(void)
{
	while (nid)
		idt[idu[--nid]].ev = 0;
	nevs = ntp = 0;
	lim = tmax = 0;
	bad = 0, zn = 0, wn = 0, tdn = tdlen = 0, hdr = 1, at = 0;
}

/* Input, in any pieces, into the records: a stream's header first
 * (hdr), then whole records out of the window, and the tracing data
 * straight into its own buffer. */
static void feed(const u8 *p, size_t n)
{
	size_t k;

	while (n && !bad) {
		if (tdlen) {
			k = n < tdlen - tdn ? n : tdlen - tdn;
			memcpy(td + tdn, p, k);
			tdn += k, at += k, p += k, n -= k;
			if (tdn == tdlen)
				tracing(tdlen), tdlen = 0;
			continue;
		}
		k = n < WIN - wn ? n : WIN - wn;
		memcpy(win + wn, p, k);
		wn += k, p += k, n -= k;
		k = 0;
		if (hdr) {
			if (wn < 16)
				continue;
			pbe = *win == '2';
			if ((memcmp(win, "PERFILE2", 8) && memcmp(win, "2ELIFREP", 8)) || G64(win + 8) != 16)
				return oops("not a perf.data stream", at);
			hdr = 0, k = 16;
		}
		k += records(win + k, wn - k, at + k);
		memmove(win, win + k, wn -= k);
		at += k;
	}
}

/* The input ended: what is left was cut short. */
static void feed_end(const char *what)
{
	if (!bad && (hdr || wn || tdlen))
		oops(hdr ? "not a perf.data stream" : what, at);
	flush(~0ULL);
}

/* tracer -p on a capture: each framed dump, a standalone stream, as
 * frame.c recovers it: its bytes up to any damage, then p = 0 and n =
 * 1 (whole) or 2 (damaged, which frame.c has said); n = 0 begins it. */
static int was;		/* a damaged dump before this one: this one still prints */

static void framed(const u8 *p, size_t n)
{
	if (p)
		return feed(p, n);
	if (!n) {
		was |= bad;
		return reset();
	}
	feed_end("a record cut short");
}

/* A file-mode perf.data, by its sections (pread), each checked against
 * the file's size. A file cut short prints its records up to the cut. */
static void file(int fd)
{
	u8 h[104], a[4096];
	u64 fs = lseek(fd, 0, SEEK_END), as, ao, an, dof, dn, o, io, in, end;
	const char *err = 0;
	u64 eat = 0;
	ssize_t k;

	if (fd_mode(fd) != S_IFREG)
		return oops("a perf.data file: give it as FILE, not through a pipe", 0);
	if (pread(fd, h, 104, 0) != 104)
		return oops("a perf.data header cut short", 0);
	as = G64(h + 16), ao = G64(h + 24), an = G64(h + 32), dof = G64(h + 40), dn = G64(h + 48);
	if (as < 64 || as > 4096 || ao > fs || an > fs - ao || dof > fs)
		return oops("a perf.data header that does not fit the file", 0);
	for (o = 0; o + as <= an; o += as) {
		if (pread(fd, a, as, ao + o) != (ssize_t)as)
			return oops("attrs past the end", ao + o);
		io = G64(a + as - 16), in = G64(a + as - 8) / 8;
		if (in > WIN / 8)	/* (more than attr keeps) */
			in = WIN / 8;
		if (io > fs || in > (fs - io) / 8 || pread(fd, win, in * 8, io) != (ssize_t)(in * 8))
			return oops("attr ids past the end", ao + o);
		attr(a, as - 16, win, in);
	}
	end = dof + dn;
	if (dn > fs - dof) {
		err = "the file is cut short (tracepoints show as 2:ID): its data stops",
		eat = end = fs;
	} else if (G64(h + 72) & 2) {	/* the tracing data: the first section */
		if (pread(fd, a, 16, end) != 16 || (io = G64(a)) > fs || (in = G64(a + 8)) > fs - io)
			err = "the file is cut short: the tracing data is missing", eat = end;
		else if (in > TDMAX)
			err = "tracing data of over 16 MiB", eat = io;
		else if (pread(fd, td = td ? td : xmalloc(TDMAX + 1), in, io) == (ssize_t)in)
			tracing(in);
	}
	hdr = 0, at = dof;
	for (o = dof; o < end && !bad; o += k) {
		if ((k = pread(fd, win + WIN, end - o < MAXREC ? end - o : MAXREC, o)) <= 0)
			break;
		feed(win + WIN, k);
	}
	if (!bad && err)
		oops(err, eat);
	feed_end("a record past the data");
}

/* tracer -p [FILE]: exit 0, or 1 when anything could not be read. */
int print_main(const char *path)
{
	int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : 0;
	size_t n = 0;
	ssize_t r = 0;
	u8 h[16];

	if (fd < 0)
		die(1, "%s:", path);
	if (!win)
		win = xmalloc(WIN + MAXREC);	/* the window, then what read() reads */
	live = fd_mode(fd) != S_IFREG;
	while (n < 16 && (r = read(fd, h + n, 16 - n)) > 0)
		n += r;
	if (!n)
		die(1, r < 0 ? "%s:" : "%s: empty, no dump in it", path ? path : "stdin");
	out_begin(1, 0, 0, 0, 0);
	reset();
	if (n < 16 || (memcmp(h, "PERFILE2", 8) && memcmp(h, "2ELIFREP", 8))) {
		if (!CFG_FRAME)
			return oops("not perf.data", 0), 1;
		return frame_extract(-1, 0, h, n, fd, framed) | bad | was | cut;
	}
	pbe = *h == '2';
	if (G64(h + 8) != 16) {
		file(fd);
	} else {
		feed(h, 16);
		while (!bad && (r = read(fd, win + WIN, MAXREC)) > 0)
			feed(win + WIN, r);
		if (r < 0)
			msg("read:");
		feed_end("the input ends inside a record");
	}
	out_end();
	return bad || cut || r < 0;
}
