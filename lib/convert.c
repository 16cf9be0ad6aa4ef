/* convert.c - tracer -c: what came over a wire (a stream, a frame=text
 * capture, zstd records) as file-mode perf.data, a file per dump
 * (FILE, FILE.1, ...), for the perf tools that read no stream: perf
 * sched timehist, perf timechart, perf trace, perf inject, perf
 * buildid-list, hotspot; and perf 6.1's sched latency, --to-json and
 * report --stats.
 *
 * Records are copied as they came, in the input's byte order (perf
 * reads a file of either order); zstd records are decompressed. The
 * stream's head (attrs and their ids, features, the tracing data, the
 * build-ids) becomes the file's attr and feature sections, which
 * perfdata.c writes as it does for -o. A dump ends with a
 * FINISHED_ROUND. After the first, a dump of a stream holds only what
 * is new: what the stream said of a process before is not said again.
 * So each file begins with what the dumps before it said of the tasks
 * still alive: the latest COMM and FORK of each task, the latest MMAP
 * or MMAP2 at each address of each process; not a task's after its
 * EXIT (but a process's that a live task was forked from, whose maps
 * perf copies at the fork). So a file is about the size of its dump,
 * however many dumps came before it. That table is at most CARRY; past
 * it, a record is dropped and the dump says so. Another head in the
 * input (streams one after another) begins afresh. -n N writes dump N
 * only (the Nth of the input), reading the ones before for their
 * side-band.
 *
 * Memory is bounded whatever the input, about 180 MiB (doc/convert.md):
 * ICAP of input, ZCAP of zstd, the attrs (ACAP), the tracing data
 * (TCAP), the other features (NFEAT of 64 KiB), the build-ids (BCAP),
 * the side-band (CARRY, and its table), and a framed dump (FMAX). Each
 * is taken once; what it does not use costs nothing. An input that
 * needs more is cut there (attrs, tracing data, a framed dump: the
 * dump is named, and has no file) or loses what is over (build-ids,
 * side-band: said once). No size read is trusted: at damage, the
 * dump's file keeps the records that came whole before it, and says
 * so.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include "config.h"
#include "sink.h"
#include "frame.h"
#include "zstd.h"
#include "perfdata.h"
#include "convert.h"

#define ICAP (1 << 18)		/* input held at once: a record is at most 64 KiB */
#define ZCAP ((1 << 16) + (2 << 20))
#define ACAP (4 << 20)		/* attrs and their ids */
#define TCAP (64 << 20)		/* tracing data */
#define BCAP (16 << 20)		/* build-ids */
#define CARRY (16 << 20)	/* the side-band later files carry */
#define CMIN 24			/* its smallest record */
#define CSLOT (1 << 21)		/* its table: 2 slots a record, a power of 2 */

struct cbuf {
	u8 *p;
	size_t n, cap;
};

static const char *cv_out;
static char cv_name[4096];
static int cv_fd = -1, cv_seq, cv_dump, cv_rc, cv_bad, cv_tracing, cv_full;
static int cv_in, cv_on, cv_sel, cv_bfull;	/* dumps of the input done; in one; -n */
static u64 cv_bn, cv_cn;		/* build-id bytes; carry at its last compaction */
static int ibe;			/* the input's perf fields are big-endian */
static struct cbuf attrs, carry, zb;	/* attrs: u32 size, u32 ids, the attr, its ids */
static u32 nattr, asz;
static u64 nrec;

/* The input: ib[ioff, ilen) is what is read and not yet used; ibase
 * is ib's offset in the input. ifd -1: all of it is in ib. */
static u8 *ib;
static size_t ilen, ioff;
static u64 ibase;
static int ifd;

static u64 val(const u8 *p, int n)
{
	u64 v = 0;
	int i;

	for (i = 0; i < n; i++)
		v |= (u64)p[i] << 8 * (ibe ? n - 1 - i : i);
	return v;
}

static void sval(u8 *p, u64 v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		p[i] = v >> 8 * (ibe ? n - 1 - i : i);
}

/* (the caller has checked there is room) */
static void cput(struct cbuf *b, const void *p, size_t n)
{
	memcpy(b->p + b->n, p, n);
	b->n += n;
}

/* n bytes of input at ib + ioff (n <= ICAP), or 0 where it ends first */
static const u8 *need(size_t n)
{
	ssize_t r = 1;

	if (ilen - ioff < n && ifd >= 0) {
		memmove(ib, ib + ioff, ilen -= ioff);
		ibase += ioff;
		ioff = 0;
		while (ilen < n && (r = read(ifd, ib + ilen, ICAP - ilen)) > 0)
			ilen += r;
		if (r < 0)
			die(1, "read:");
	}
	return ilen - ioff >= n ? ib + ioff : 0;
}

/* ---- the side-band later files carry ----
 * A record's key: COMM, FORK and EXIT of a task (its tid), a map of a
 * process at an address. The table maps a key to its latest record's
 * offset + 1 in carry (bit 31: a process kept past its EXIT). */
#define COFF 0x7fffffff
static u32 *ctab, cmask;
static u8 *cbit;		/* which records are kept, one bit each */

static int ckey(const u8 *p, u64 *k1, u64 *k2)
{
	u32 t = val(p, 4);

	*k1 = 0;
	*k2 = val(p + (t == REC_FORK || t == REC_EXIT ? 16 : 12), 4);
	if (t == REC_MMAP || t == REC_MMAP2)
		*k1 = val(p + 8, 4), *k2 = val(p + 16, 8);
	return t == REC_COMM ? 1 : t == REC_FORK ? 2 : t == REC_EXIT ? 3 : 4;
}

static u32 *cslot(int c, u64 k1, u64 k2)
{
	u64 h = (k2 * 0x9E3779B97F4A7C15ULL ^ k1 * 0xC2B2AE3D27D4EB4FULL) + c, j1, j2;
	u32 i = (h ^ h >> 29) & cmask;

	for (;; i = (i + 1) & cmask)
		if (!ctab[i] || (ckey(carry.p + (ctab[i] & COFF) - 1, &j1, &j2) == c && j1 == k1 && j2 == k2))
			return ctab + i;
}

/* Whether the record at o (of task or process t) came after t's EXIT */
static int calive(u64 t, u32 o)
{
	u32 e = *cslot(3, 0, t);

	return !e || (e & COFF) <= o || e >> 31;
}

/* Only what is the latest of its key and of a task still alive. A
 * process a kept FORK names as parent is kept (and its parent...):
 * perf copies the parent's maps at the fork. */
static void carry_compact(void)
{
	u8 *p, *e = carry.p + carry.n;
	u32 i, o, nr = 0, *s, *f;
	u64 k1, k2, pp;
	size_t w = 0, n;
	int c, pass;

	for (p = carry.p; p < e; p += val(p + 6, 2))
		nr++;
	for (cmask = 1; cmask < 2 * nr; cmask <<= 1)
		;
	memset(ctab, 0, cmask * 4);
	cmask--;
	for (pass = 0; pass < 3; pass++)
		for (i = 0, p = carry.p; p < e; p += n, i++) {
			n = val(p + 6, 2);
			o = p - carry.p;
			c = ckey(p, &k1, &k2);
			s = cslot(c, k1, k2);
			if (!pass) {
				*s = o + 1;
				continue;
			}
			if ((*s & COFF) != o + 1 || !calive(c == 4 ? k1 : k2, o))
				c = 3;	/* not kept */
			if (pass == 2 && c != 3)
				cbit[i / 8] |= 1 << i % 8;
			else if (pass == 2)
				cbit[i / 8] &= ~(1 << i % 8);
			for (pp = val(p + 12, 4); pass == 1 && c == 2; pp = val(carry.p + (*f & COFF) - 1 + 12, 4)) {
				s = cslot(3, 0, pp);
				if (!*s || *s >> 31)
					break;
				*s |= 1u << 31;
				if (!*(f = cslot(2, 0, pp)))
					break;
			}
		}
	for (i = 0, p = carry.p; p < e; p += n, i++)
		if (n = val(p + 6, 2), cbit[i / 8] >> i % 8 & 1)
			memmove(carry.p + w, p, n), w += n;
	cv_cn = carry.n = w;
}

/* A side-band record, for the files after this dump's. */
static void carry_put(const u8 *p, u32 n)
{
	if (n < CMIN)
		return;
	if (carry.n + n > CARRY)
		carry_compact();
	if (carry.n + n <= CARRY)
		return cput(&carry, p, n);
	cv_rc = 1;
	if (!cv_full++)
		msg("dump %d: the side-band of live tasks is over %u MiB: later files may name fewer tasks",
		    cv_in + 1, CARRY >> 20);
}

/* The file of the next dump: the header's place, the attrs, their ids,
 * then what the dumps before it said of the processes. */
static void file_open(void)
{
	u8 a[512 + 16], *p;
	u32 al, ni;
	u64 idoff;

	for (;;) {
		fmt(cv_name, sizeof(cv_name), cv_seq ? "%s.%u" : "%s", cv_out, cv_seq);
		cv_fd = open(cv_name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (cv_fd >= 0 || errno != EEXIST)
			break;
		cv_seq++;
	}
	if (cv_fd < 0)
		die(1, "%s:", cv_name);
	cv_seq++;
	nrec = 0;
	out_begin(cv_fd, 0, cv_dump, 0, 0);
	pd_be = ibe;
	pd_file_begin();
	idoff = out_pos + nattr * (asz + 16);
	for (p = attrs.p; p < attrs.p + attrs.n; p += 8 + al + 8 * ni) {
		memcpy(&al, p, 4);
		memcpy(&ni, p + 4, 4);
		memset(a, 0, sizeof(a));
		memcpy(a, p + 8, al);
		sval(a + 4, asz, 4);		/* all of one size: perf_file_attr's */
		sval(a + asz, idoff, 8);
		sval(a + asz + 8, 8 * ni, 8);
		out_put(a, asz + 16);
		idoff += 8 * ni;
	}
	for (p = attrs.p; p < attrs.p + attrs.n; p += 8 + al + 8 * ni) {
		memcpy(&al, p, 4);
		memcpy(&ni, p + 4, 4);
		out_put(p + 8 + al, 8 * ni);
	}
	pd_file_attrs(nattr, asz + 16);
	out_put(carry.p, carry.n);
}

/* The dump's file ends: its features and header. why: what cut it
 * short, or 0. */
static void dump_end(const char *why, u64 at)
{
	int err;

	if (why) {
		msg("dump %d: %s at offset %L", cv_in + 1, why, at);
		cv_rc = cv_bad = 1;
	}
	if (carry.n > cv_cn)	/* what the next file carries */
		carry_compact();
	if (cv_fd < 0) {
		if (why && (!cv_sel || cv_sel == cv_in + 1))
			msg("dump %d: no records before that: no file for it", cv_in + 1);
		cv_in += cv_on;
		cv_on = 0;
		return;
	}
	cv_dump++;
	cv_in++;
	cv_on = 0;
	err = pd_file_end(cv_fd);
	close(cv_fd);
	cv_fd = -1;
	if (err) {
		errno = err;
		unlink(cv_name);
		die(1, "write %s:", cv_name);
	}
	msg("%s: dump %d, %L records, %L bytes%s", cv_name, cv_in, nrec, out_pos,
	    why ? ", cut short: what came whole" : "");
}

static void rec(const u8 *p, u32 n, u64 at, int inner);

/* Its records, out of a PERF_RECORD_COMPRESSED's zstd frames; one cut
 * at a frame's end waits for the next frame. */
static void unzstd(const u8 *p, u32 n, u64 at)
{
	size_t o = 0, k;
	long r;

	if (!CFG_ZSTD)
		return dump_end("zstd (not built in)", at);
	if (!zb.p)
		zb.p = xmalloc(zb.cap = ZCAP), zstd_init();
	r = zstd_decode(p + 8, n - 8, zb.p + zb.n, zb.cap - zb.n);
	if (r < 0)
		return dump_end(r == -2 ? "zstd that only full zstd reads" :
				"damaged zstd", at);
	zb.n += r;
	while (!cv_bad && zb.n - o >= 8 && (k = val(zb.p + o + 6, 2)) <= zb.n - o) {
		if (k < 8)
			dump_end("a record of size 0", at);
		else
			rec(zb.p + o, k, at, 1);
		o += k;
	}
	memmove(zb.p, zb.p + o, zb.n -= o);
}

/* The tracing data that follows its record: into the file's section,
 * a piece at a time. */
static void tracing(u64 n, u64 at)
{
	const u8 *p;
	u64 k;

	if (((n + 7) & ~7ULL) > TCAP)
		return dump_end("tracing data of over 64 MiB", at);
	for (n = (n + 7) & ~7ULL; n && !cv_bad; n -= k, ioff += k) {
		k = n < ICAP ? n : ICAP;
		if (!(p = need(k)))
			return dump_end("the input ends inside a record", at);
		if (!cv_tracing)	/* perf reads one, the first */
			pd_feat(1, p, k);
	}
	cv_tracing = 1;
}

static void attr(const u8 *p, u32 n, u64 at)
{
	u32 al = val(p + 12, 4), ni;

	if (n < 16 || al < 64 || al > 512 || al > n - 8)
		return dump_end("an attr of a bad size", at);
	if (cv_on)
		return dump_end("an attr after the records", at);
	ni = (n - 8 - al) / 8;
	if (attrs.n + 8 + al + 8 * ni > ACAP)
		return dump_end("attrs of over 4 MiB", at);
	cput(&attrs, &al, 4);
	cput(&attrs, &ni, 4);
	cput(&attrs, p + 8, al + 8 * ni);
	nattr++;
	asz = al > asz ? al : asz;
}

/* One record, whole, at offset at of the input (inner: out of zstd). */
static void rec(const u8 *p, u32 n, u64 at, int inner)
{
	u32 type = val(p, 4);

	switch (type) {
	case REC_HEADER_ATTR:
		return attr(p, n, at);
	case REC_HEADER_FEATURE:	/* not zstd's: its records are plain here */
		if (n > 16 && val(p + 8, 8) > 2 && val(p + 8, 8) != 27)
			pd_feat(val(p + 8, 8), p + 16, n - 16);
		return;
	case REC_HEADER_BUILD_ID:
		if (cv_bn + n <= BCAP)
			return pd_feat(2, p, n), (void)(cv_bn += n);
		cv_rc = 1;
		if (!cv_bfull++)
			msg("dump %d: build-ids over %u MiB at offset %L: the rest dropped (perf finds those by path)",
			    cv_in + 1, BCAP >> 20, at);
		return;
	case 65:	/* HEADER_EVENT_TYPE, which no perf since 2.6.38 reads */
		return;
	case REC_COMPRESSED:
		return inner ? dump_end("zstd in zstd", at) : unzstd(p, n, at);
	case REC_HEADER_TRACING_DATA:
		return dump_end("tracing data in zstd", at);
	}
	if (type - 1 > 126)
		return dump_end("not a record", at);
	if (!nattr)
		return dump_end("a record before any attr", at);
	if (type == REC_FINISHED_ROUND && zb.n && !inner) {
		msg("a record cut at the end of zstd at offset %L", at);
		cv_rc = 1;
		zb.n = 0;
	}
	if (type == REC_FINISHED_ROUND && !cv_on)
		return;		/* a round with nothing new: no dump */
	cv_on = 1;
	if (cv_fd < 0 && (!cv_sel || cv_sel == cv_in + 1))
		file_open();
	if (cv_fd >= 0)
		out_put(p, n), nrec++;
	if (type == REC_FINISHED_ROUND)
		return dump_end(0, 0);
	/* what perf knows of the processes, for the dumps after this one */
	if (type == REC_MMAP || type == REC_COMM || type == REC_EXIT || type == REC_FORK ||
	    type == REC_MMAP2)
		carry_put(p, n);
}

/* A stream's head: a new stream begins. */
static void head(const u8 *p, u64 at)
{
	if (cv_on)
		dump_end("a new stream before the dump's end", at);
	cv_bad = 0;
	ibe = *p == '2';
	if (val(p + 8, 8) != 16)
		return dump_end("a perf.data header of another size", at);
	ioff += 16;
	pd_feat_reset();
	attrs.n = carry.n = zb.n = nattr = asz = cv_tracing = cv_full = cv_bfull = 0;
	cv_bn = cv_cn = 0;
}

/* The records of the input, until its end or damage. */
static void walk(void)
{
	const u8 *p;
	u64 at;
	u32 n;

	while (!cv_bad && !(cv_sel && cv_in >= cv_sel) && (p = need(8))) {
		at = ibase + ioff;
		if (!memcmp(p, "PERFILE2", 8) || !memcmp(p, "2ELIFREP", 8)) {
			if (!(p = need(16)))
				break;
			head(p, at);
			continue;
		}
		if (!nattr && !at)
			return dump_end("not a perf.data stream", 0);
		n = val(p + 6, 2);
		if (n < 8)
			return dump_end("a record of size 0", at);
		if (!(p = need(n)))
			break;
		ioff += n;
		if (val(p, 4) == REC_HEADER_TRACING_DATA && n >= 12)
			tracing(val(p + 8, 4), at);
		else
			rec(p, n, at, 0);
	}
	if (cv_sel && cv_in >= cv_sel)
		return;		/* -n's dump is written: the rest unread */
	if (!cv_bad && ilen > ioff)
		dump_end("the input ends inside a record", ibase + ioff);
	else if (!cv_bad && cv_on)
		dump_end("the input ends inside a dump", ibase + ioff);
}

/* A framed dump, as frame_extract recovers it: its bytes until any
 * damage (p), then its begin (0, 0) or end (0, 1 whole; 0, 2 damaged).
 * Held whole (up to FMAX), then read as a stream of its own. */
#define FMAX (64 << 20)
static u8 *fb;
static size_t fn;
static int fover, fskip;

static void conv_mem(const u8 *p, size_t n)
{
	int k = cv_in;

	if (p) {
		if (fskip)
			return;
		if (!fb)
			fb = xmalloc(FMAX);
		if (fn + n > FMAX)
			fover = 1;
		else
			memcpy(fb + fn, p, n), fn += n;
		return;
	}
	if (!n) {
		fn = fover = 0;
		fskip = cv_sel && cv_sel != cv_in + 1;
		return;
	}
	cv_in++;
	if (fskip)
		return;
	if (n == 2 || fover) {
		msg("dump %d: %s: no file for it", cv_in, fover ? "over 64 MiB" : "damaged in the capture");
		cv_rc = 1;
		return;
	}
	ib = fb, ilen = fn, ioff = ibase = 0, ifd = -1;
	cv_bad = nattr = zb.n = 0;
	cv_in = k;
	walk();
	cv_in = k + 1;	/* a framed dump is one, whatever rounds it holds */
}

int conv_main(const char *path, const char *out, int sel)
{
	const char *name = path ? path : "stdin";
	const u8 *p;
	int rc;

	ifd = path ? open(path, O_RDONLY | O_CLOEXEC) : 0;
	if (ifd < 0)
		die(1, "%s:", path);
	if (strlen(out) > 4000)
		die(2, "-o %s: too long", out);
	cv_out = out;
	cv_sel = sel;
	ib = xmalloc(ICAP);
	if (!carry.p) {		/* (the fuzz harness takes them once) */
		attrs.p = xmalloc(ACAP);
		carry.p = xmalloc(CARRY);
		ctab = xmalloc(CSLOT * 4);
		cbit = xmalloc(CARRY / CMIN / 8 + 1);
		pd_feat_room(TCAP, BCAP);
	}
	if (!(p = need(16)) && !ilen)
		die(1, "%s: empty", name);
	if (p && (!memcmp(p, "PERFILE2", 8) || !memcmp(p, "2ELIFREP", 8))) {
		ibe = *p == '2';
		if (val(p + 8, 8) != 16)
			die(1, "%s: already a perf.data file", name);
		walk();
	} else {
		if (!CFG_FRAME)
			die(1, "%s: not a perf.data stream", name);
		rc = frame_extract(-1, 0, ib, ilen, ifd, conv_mem);
		cv_rc |= rc;
	}
	if (!cv_dump && sel)
		die(1, "%s: dump %d not converted (%d in the input)", name, sel, cv_in);
	if (!cv_dump)
		die(1, "%s: no dump converted", name);
	return cv_rc;
}
