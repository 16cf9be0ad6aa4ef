/* perfdata.c - write what host perf reads: a pipe-mode stream, or a
 * seekable file-mode perf.data, from the records copied out of the rings.
 *
 * Everything that does not change while we record (attrs, features, the
 * tracing data) is built once at set-up, so a dump only copies bytes;
 * track.c describes the processes, through pd_rec.
 * The rules host perf 6.1 imposes are in ../shared/perfdata-notes.md;
 * the ones that bit us are repeated where they apply.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include "config.h"
#include "sink.h"
#include "perfdata.h"

#define MAGIC 0x32454c4946524550ULL	/* "PERFILE2" as a native u64 */

/* Output order. Host perf 6.1 cannot swap a foreign-endian pipe stream
 * (it never sets needs_swap for attrs read from one, and has no swap for
 * FEATURE records), so a big-endian target writes the perf-level fields
 * little-endian, the order of the hosts that read it. Tracepoint raw data
 * and the tracing data blob stay big-endian: the blob says so (endian=1)
 * and libtraceevent converts the fields by it. On little-endian targets
 * all of this compiles away. */
static u32 o32(u32 v) { return BE ? __builtin_bswap32(v) : v; }
static u64 o64(u64 v) { return BE ? __builtin_bswap64(v) : v; }

/* Swap in place a run of fields: '2', '4', '8' bytes each, 'F' the attr
 * bitfield (its bits count from the other end of each byte), '*' the
 * rest as u64s. */
static unsigned char *oswap(unsigned char *p, unsigned char *end, const char *shape)
{
	for (; BE && *shape && p < end; shape++) {
		int k, n = *shape == '*' ? 8 : *shape == 'F' ? 8 : *shape == 'x' ? 1 : *shape - '0';

		if (p + n > end)
			break;
		if (*shape == 'F') {
			for (k = 0; k < 8; k++) {
				u8 b = p[k], r = 0;
				int j;

				for (j = 0; j < 8; j++)
					r |= (b >> j & 1) << (7 - j);
				p[k] = r;
			}
		} else {
			for (k = 0; k < n / 2; k++) {
				u8 t = p[k];

				p[k] = p[n - 1 - k];
				p[n - 1 - k] = t;
			}
		}
		p += n;
		if (*shape == '*')
			shape--;
	}
	return p;
}

/* struct perf_attr, field by field (see ring.h). */
#define ATTR_SHAPE "448888F44888844842244"

static void attr_out(const struct perf_attr *a, unsigned char *o)
{
	memcpy(o, a, ATTR_SIZE);
	oswap(o, o + ATTR_SIZE, ATTR_SHAPE "8");
}
#define ALIGN8(n) (((n) + 7) & ~(size_t)7)
/* Side-band records end with the sample_id_all trailer for our
 * sample_type: TID, TIME, CPU, IDENTIFIER. Zero means "first event,
 * deliver at once", which is what perf record writes too. */
#define TRAILER 32

enum { F_TRACING = 1, F_BUILD_ID, F_HOSTNAME, F_OSRELEASE, F_VERSION, F_ARCH,
       F_NRCPUS, F_CPUDESC, F_CMDLINE = 11, F_EVENT_DESC, F_COMPRESSED = 27 };

struct buf {
	char *p;
	size_t n, cap;
};

static void bput(struct buf *b, const void *p, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2 + 4096;
		b->p = xrealloc(b->p, b->n, b->cap);
	}
	memcpy(b->p + b->n, p, n);
	b->n += n;
}

/* Native order, for the tracing data blob. */
static void bput32(struct buf *b, u32 v) { bput(b, &v, 4); }
static void bput64(struct buf *b, u64 v) { bput(b, &v, 8); }
/* Output order, for features. */
static void fput32(struct buf *b, u32 v) { bput32(b, o32(v)); }
static void fput64(struct buf *b, u64 v) { bput64(b, o64(v)); }

/* perf_header_string: u32 len, then the string, NUL-padded to len. */
static void bstr(struct buf *b, const char *s)
{
	static const char zero[8];
	size_t n = strlen(s), len = ALIGN8(n + 1);

	fput32(b, len);
	bput(b, s, n);
	bput(b, zero, len - n);
}

/* A tracefs or proc file, whole, with its u64 or u32 length in front. */
static int bfile(struct buf *b, const char *path, int lensize)
{
	static char tmp[1 << 16];
	long n = readfile(path, tmp, sizeof(tmp));

	if (n < 0)
		n = 0;
	if (lensize == 8)
		bput64(b, n);
	else
		bput32(b, n);
	bput(b, tmp, n);
	return n;
}

#define NFEAT 40
static struct buf tracing, feats, kbid;
static struct { int id; size_t off, len; } feat[NFEAT];
static int nfeat;
static u64 ktext;
u64 pd_ktext, pd_kdelta;	/* the kernel's text, or its move since, where it is another boot's */

/* The tracing data blob (trace-event-info.c's layout): the header pages,
 * then each tracepoint's format file grouped by system. kallsyms must
 * be empty: perf lseek()s over it, which fails on a pipe. */
void pd_tracing_build(void)
{
	char path[512];
	int i, j;

	if (!CFG_TRACEPOINTS || !tracefs)
		return;
	for (i = 0; i < nev && evs[i].attr.type != TYPE_TRACEPOINT; i++)
		;
	if (i == nev)
		return;
	bput(&tracing, "\x17\x08\x44tracing" "0.6", 14);
	{
		u8 v[2] = { __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__, sizeof(long) };
		bput(&tracing, v, 2);
	}
	bput32(&tracing, getpagesize());
	bput(&tracing, "header_page", 12);
	fmt(path, sizeof(path), "%s/events/header_page", tracefs);
	if (bfile(&tracing, path, 8) <= 0)
		die(1, "%s: can't read", path);
	bput(&tracing, "header_event", 13);
	fmt(path, sizeof(path), "%s/events/header_event", tracefs);
	bfile(&tracing, path, 8);
	bput32(&tracing, 0);			/* ftrace formats */

	/* Systems in first-seen order, each event once. */
	{
		size_t nsys_at = tracing.n;
		u32 nsys = 0;

		bput32(&tracing, 0);
		for (i = 0; i < nev; i++) {
			char *c = xstrchr(evs[i].name, ':');
			size_t sl = c ? c - evs[i].name : 0;
			size_t nat;
			u32 cnt = 0;

			if (evs[i].attr.type != TYPE_TRACEPOINT)
				continue;
			for (j = 0; j < i; j++)
				if (evs[j].attr.type == TYPE_TRACEPOINT &&
				    !strncmp(evs[j].name, evs[i].name, sl + 1))
					break;
			if (j < i)
				continue;
			bput(&tracing, evs[i].name, sl);
			bput(&tracing, "", 1);
			nat = tracing.n;
			bput32(&tracing, 0);
			for (j = i; j < nev; j++) {
				int k;

				if (evs[j].attr.type != TYPE_TRACEPOINT ||
				    strncmp(evs[j].name, evs[i].name, sl + 1))
					continue;
				for (k = i; k < j; k++)
					if (!strcmp(evs[k].name, evs[j].name))
						break;
				if (k < j)
					continue;
				tp_path(path, sizeof(path), evs[j].name, "format");
				if (bfile(&tracing, path, 8) <= 0)
					die(1, "%s: can't read", path);
				cnt++;
			}
			memcpy(tracing.p + nat, &cnt, 4);
			nsys++;
		}
		memcpy(tracing.p + nsys_at, &nsys, 4);
	}
	bput32(&tracing, 0);			/* kallsyms: must be 0 */
	bput32(&tracing, 0);			/* printk formats */
	bput64(&tracing, 0);			/* saved cmdlines */
	while (tracing.n & 7)
		bput(&tracing, "", 1);
}

static void feat_begin(int id)
{
	feat[nfeat].id = id;
	feat[nfeat].off = feats.n;
}

static void feat_end(void)
{
	feat[nfeat].len = feats.n - feat[nfeat].off;
	nfeat++;
}

/* tracer -c: the features of a stream's head, in its byte order; the
 * tracing data (1) and build-id records (2) have their own sections.
 * The file's sections go in feature order: kept sorted, each id once. */
void pd_feat_reset(void)
{
	tracing.n = feats.n = kbid.n = nfeat = 0;
}

/* Room for them, taken once (untouched, it costs nothing): the tracing
 * data, the build-ids; NFEAT features of up to 64 KiB (a record's). So
 * -c's memory is what its bounds say, not what growing would leave. */
void pd_feat_room(size_t tr, size_t bids)
{
	tracing.p = xmalloc(tracing.cap = tr);
	kbid.p = xmalloc(kbid.cap = bids);
	feats.p = xmalloc(feats.cap = NFEAT << 16);
}

void pd_feat(int id, const void *p, size_t n)
{
	int i, k;

	if (id == F_TRACING || id == F_BUILD_ID)
		return bput(id == F_TRACING ? &tracing : &kbid, p, n);
	for (i = 0; i < nfeat && feat[i].id < id; i++)
		;
	if (id < 3 || id > 63 || (i < nfeat && feat[i].id == id) || nfeat == NFEAT)
		return;
	for (k = nfeat++; k > i; k--)
		feat[k] = feat[k - 1];
	feat[i].id = id;
	feat[i].off = feats.n;
	feat[i].len = n;
	bput(&feats, p, n);
}

/* _text, the reference symbol perf relocates kallsyms by (KASLR). */
static const char *ktext_name = "[kernel.kallsyms]_text";
static u64 kernel_text(void)
{
	static char b[1 << 16];
	int fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);
	long n, keep = 0;
	u64 a = 0, st = 0;

	if (fd < 0)
		return 0;
	while (!a && (n = read(fd, b + keep, sizeof(b) - 1 - keep)) > 0) {
		char *p = b, *e, *nl;

		n += keep;
		b[n] = 0;
		for (; (nl = xstrchr(p, '\n')); p = nl + 1) {
			if (nl - p > 10 && starts(nl - 8, " T _text")) {
				a = xtou(p, &e, 16);
				break;
			}
			if (!st && nl - p > 10 && starts(nl - 9, " T _stext"))
				st = xtou(p, &e, 16);
		}
		keep = b + n - p;
		memmove(b, p, keep);
	}
	close(fd);
	if (!a && st) {
		ktext_name = "[kernel.kallsyms]_stext";
		return st;
	}
	return a;
}

/* HEADER_BUILD_ID for the kernel, from /sys/kernel/notes: perf then
 * refuses a kallsyms or vmlinux of another build instead of silently
 * using the host's. Kept in kbid, in output order. 64 bytes: perf 7.2
 * and later refuse a record whose size is not a multiple of 8. */
static void kernel_build_id(void)
{
	unsigned char notes[4096];
	long n = readfile("/sys/kernel/notes", (char *)notes, sizeof(notes));
	struct {
		u32 type;
		u16 misc, size;
		int32_t pid;
		u8 id[20], len, r1;
		u16 r2;
		char name[28];
	} r;

	_Static_assert(sizeof(r) % 8 == 0, "a record's size is a multiple of 8");
	memset(&r, 0, sizeof(r));
	if (n <= 0 || !note_build_id(notes, n, r.id))
		return;
	r.type = REC_HEADER_BUILD_ID;
	r.misc = MISC_KERNEL | 0x8000;		/* BUILD_ID_SIZE: len is valid */
	r.size = sizeof(r);
	r.pid = -1;
	r.len = 20;
	memcpy(r.name, "[kernel.kallsyms]", 18);
	oswap((void *)&r, (unsigned char *)&r + 12, "4224");
	bput(&kbid, &r, sizeof(r));
}

/* HEADER_CPUDESC, as perf writes it: the CPU's name from /proc/cpuinfo,
 * whose key differs by arch (x86 and arm "model name", mips "cpu model",
 * powerpc "cpu", s390 "vendor_id"), else the machine. perf 6.1's data
 * convert --to-json crashes on a file without it (and reads no stream). */
static void cpu_desc(const char *machine)
{
	static const char *key[] = { "model name", "cpu model", "cpu", "vendor_id" };
	char t[4096], *p, *q;
	long n = readfile("/proc/cpuinfo", t, sizeof(t) - 1);
	size_t k, l;

	t[n > 0 ? n : 0] = 0;
	for (k = 0; k < sizeof(key) / sizeof(*key); k++) {
		l = strlen(key[k]);
		for (p = t; p; p = (q = xstrchr(p, '\n')) ? q + 1 : 0) {
			if (!starts(p, key[k]) || p[l + span(p + l, " \t", 1)] != ':')
				continue;
			p += l + span(p + l, " \t:", 1);
			p[span(p, "\n", 0)] = 0;
			if (*p) {
				bstr(&feats, p);
				return;
			}
		}
	}
	bstr(&feats, machine);
}

/* The features, once: they say where and what was recorded. */
void pd_features_build(int argc, char **argv, int ncpu_avail, int ncpu_online)
{
	struct utsname u;
	int i, j;

	uname(&u);
	feat_begin(F_HOSTNAME);
	bstr(&feats, u.nodename);
	feat_end();
	feat_begin(F_OSRELEASE);
	bstr(&feats, u.release);
	feat_end();
	feat_begin(F_VERSION);
	bstr(&feats, "tracer");
	feat_end();
	feat_begin(F_ARCH);
	bstr(&feats, u.machine);
	feat_end();
	feat_begin(F_NRCPUS);
	fput32(&feats, ncpu_avail);
	fput32(&feats, ncpu_online);
	feat_end();
	if (CFG_PERF_FILE) {
		feat_begin(F_CPUDESC);
		cpu_desc(u.machine);
		feat_end();
	}
	feat_begin(F_CMDLINE);
	fput32(&feats, argc);
	for (i = 0; i < argc; i++)
		bstr(&feats, argv[i]);
	feat_end();
	feat_begin(F_EVENT_DESC);
	fput32(&feats, nev);
	fput32(&feats, ATTR_SIZE);
	for (i = 0; i < nev; i++) {
		unsigned char a[ATTR_SIZE];

		attr_out(&evs[i].attr, a);
		bput(&feats, a, ATTR_SIZE);
		fput32(&feats, nhdr);
		bstr(&feats, evs[i].name);
		for (j = 0; j < nhdr; j++)
			fput64(&feats, evs[i].ids[j]);
	}
	feat_end();
	if (CFG_ZSTD && cfg_zstd) {
		/* version, type (zstd), level, ratio (unknown), and the most
		 * one record decompresses to (perf's buffer for it) */
		static const u32 c[5] = { 0, 1, 1, 0, 1 << 16 };	/* as perf writes it */

		feat_begin(F_COMPRESSED);
		for (i = 0; i < 5; i++)
			fput32(&feats, c[i]);
		feat_end();
	}
	ktext = !CFG_PERSIST ? kernel_text() : pd_ktext ? pd_ktext : kernel_text() - pd_kdelta;
	if (CFG_BUILDID)
		kernel_build_id();
}

/* ---- records ---- */

/* A record header in output order. */
static void out_hdr(u32 type, u16 misc, u16 size)
{
	struct rec_hdr h = { type, misc, size };

	oswap((void *)&h, (unsigned char *)&h + 8, "422");
	out_put(&h, 8);
}

/* A synthesized side-band record: body fields by shape, then the name,
 * then a zero trailer. */
void pd_rec(u32 type, u16 misc, const void *body, size_t len,
		const char *shape, const char *name)
{
	static const char zero[TRAILER + 8];
	unsigned char b[128];
	size_t nl = name ? ALIGN8(strlen(name) + 1) : 0;

	out_hdr(type, misc, sizeof(struct rec_hdr) + len + nl + TRAILER);
	memcpy(b, body, len);
	oswap(b, b + len, shape);
	out_put(b, len);
	if (name) {
		size_t sl = strlen(name);

		out_put(name, sl);
		out_put(zero, nl - sl);
	}
	out_put(zero, TRAILER);
}

/* The kernel map: without it every kernel IP is [unknown]. It runs from
 * _text to the top so module addresses fold into it too, and pgoff is
 * _text's address, which lets perf relocate kallsyms across KASLR. */
void pd_kernel_maps(void)
{
	static char b[1 << 15];
	struct { u32 pid, tid; u64 start, len, pgoff; } m = { -1, 0, ktext, -ktext - 1, ktext };
	long n = readfile("/proc/modules", b, sizeof(b) - 1);
	char *p, *nl;

	pd_rec(REC_MMAP, MISC_KERNEL, &m, sizeof(m), "44888", ktext_name);
	if (n <= 0)
		return;
	b[n] = 0;
	/* name size refcount deps state 0xaddr */
	for (p = b; (nl = xstrchr(p, '\n')); p = nl + 1) {
		char name[72], *f[6], *q = p;
		int i;

		*nl = 0;
		for (i = 0; i < 6 && *q; i++) {
			f[i] = q;
			q += span(q, " ", 0);
			if (*q)
				*q++ = 0;
		}
		if (i < 6 || strlen(f[0]) > 64)
			continue;
		m.start = xtou(f[5], 0, 16);
		m.len = xtou(f[1], 0, 10);
		m.pgoff = 0;
		if (!m.start)
			continue;
		fmt(name, sizeof(name), "[%s]", f[0]);
		pd_rec(REC_MMAP, MISC_KERNEL, &m, sizeof(m), "44888", name);
	}
}

/* A thread /proc may no longer know, such as one that tripped a wire. */
void pd_comm(u32 pid, u32 tid, const char *comm)
{
	u32 c[2] = { pid, tid };

	pd_rec(REC_COMM, 0, c, sizeof(c), "44", comm);
}

/* A record from the kernel, byte for byte, or on a big-endian target
 * swapped field by field: a sample by its event's sample_type (its raw
 * tracepoint data stays as it is), anything else as u64s before the
 * sample_id_all trailer. */
void pd_record(const struct rec_hdr *h)
{
	static u64 b[65536 / 8];
	unsigned char *p = (void *)b, *end = p + h->size;
	const struct event *e;
	u64 st;

	if (!BE) {
		out_put(h, h->size);
		return;
	}
	memcpy(b, h, h->size);
	p = oswap(p, end, "422");
	if (h->type == REC_SAMPLE) {
		/* an id of no perf ring's: the ftrace instance's, a tracepoint's
		 * RAW (dump.c writes no other sample whose id is unknown) */
		st = (e = ev_by_id(b[1])) ? e->attr.sample_type : S_RAW;
		p = oswap(p, end, "88448448");	/* IDENTIFIER IP TID TIME CPU PERIOD */
		if (st & S_CALLCHAIN) {
			u64 nr = *(u64 *)p;

			p = oswap(p, end, "8");
			while (nr-- && p < end)
				p = oswap(p, end, "8");
		}
		if (st & S_RAW)
			oswap(p, end, "4");
	} else if (h->size >= 8 + TRAILER) {
		unsigned char *t = end - TRAILER;

		switch (h->type) {
		case REC_COMM:		/* pid tid comm[] */
			oswap(p, t, "44");
			break;
		case REC_MMAP:		/* pid tid start len pgoff filename[] */
			oswap(p, t, "44888");
			break;
		case REC_MMAP2:		/* ... maj min ino ino_gen | build id, prot flags filename[] */
			p = oswap(p, t, "44888");
			p = h->misc & MISC_MMAP_BUILD_ID ? p + 24 : oswap(p, t, "4488");
			oswap(p, t, "44");
			break;
		case REC_EXIT: case REC_FORK:	/* pid ppid tid ptid time */
			oswap(p, t, "44448");
			break;
		default:
			oswap(p, t, "*");
		}
		oswap(t, end, "448448");
	}
	out_put(b, h->size);
}

/* ---- pipe mode ---- */

static void out_attr_ids(int i)
{
	unsigned char a[ATTR_SIZE];
	int j;

	attr_out(&evs[i].attr, a);
	out_put(a, ATTR_SIZE);
	for (j = 0; j < nhdr; j++) {
		u64 id = o64(evs[i].ids[j]);

		out_put(&id, 8);
	}
}

void pd_stream_head(void)
{
	u64 h[2] = { o64(MAGIC), o64(16) };
	int i;

	out_put(h, sizeof(h));
	/* ATTRs first: perf attaches tracepoint formats only to events
	 * that exist when the tracing data arrives. */
	for (i = 0; i < nev; i++) {
		out_hdr(REC_HEADER_ATTR, 0, 8 + ATTR_SIZE + 8 * nhdr);
		out_attr_ids(i);
	}
	for (i = 0; i < nfeat; i++) {
		u64 id = o64(feat[i].id);

		if (16 + feat[i].len > 65535)
			continue;	/* a huge EVENT_DESC; tracing data names them */
		out_hdr(REC_HEADER_FEATURE, 0, 16 + feat[i].len);
		out_put(&id, 8);
		out_put(feats.p + feat[i].off, feat[i].len);
	}
	/* Exactly once per stream: perf's reader counts it in a static. */
	if (tracing.n) {
		u32 sz[2] = { o32(tracing.n), 0 };

		out_hdr(REC_HEADER_TRACING_DATA, 0, 16);
		out_put(sz, 8);
		out_put(tracing.p, tracing.n);
	}
	out_put(kbid.p, kbid.n);
}

/* A round ends each dump of a stream. perf flushes, at a round, only
 * what is older than the previous round's newest record, so the tail of
 * this dump waits, sorted, for the next one. That is on purpose: a writer
 * that was inside perf_output_begin when we paused (a vCPU descheduled
 * there, say) finishes after our copy, and its older record arrives with
 * the next dump; perf still puts it in order. */
void pd_stream_round(void)
{
	out_hdr(REC_FINISHED_ROUND, 0, 8);
}

/* ---- file mode (tools/perf/Documentation/perf.data-file-format.txt) ---- */

struct section {
	u64 off, size;
};

static struct {
	u64 magic, size, attr_size;
	struct section attrs, data, types;
	u64 features[4];
} fh;

int pd_be;	/* the file's byte order: big-endian (tracer -c of such a stream) */

void pd_file_begin(void)
{
	memset(&fh, 0, sizeof(fh));
	out_put(&fh, sizeof(fh));
}

/* n attrs of size each (the attr, then where its ids are) after the
 * header, then their ids; the data begins here. */
void pd_file_attrs(u64 n, u64 size)
{
	fh.attrs.off = sizeof(fh);
	fh.attrs.size = n * size;
	fh.attr_size = size;
	fh.data.off = out_pos;
}

void pd_file_head(void)
{
	u64 ids = sizeof(fh);
	int i;

	pd_file_begin();
	/* perf_file_attr: the attr, then where its ids are, after all attrs */
	for (i = 0; i < nev; i++) {
		unsigned char a[ATTR_SIZE];
		struct section s = { o64(ids + nev * (ATTR_SIZE + 16) + 8 * nhdr * i), o64(8 * nhdr) };

		attr_out(&evs[i].attr, a);
		out_put(a, ATTR_SIZE);
		out_put(&s, sizeof(s));
	}
	for (i = 0; i < nev; i++) {
		int j;

		for (j = 0; j < nhdr; j++) {
			u64 id = o64(evs[i].ids[j]);

			out_put(&id, 8);
		}
	}
	pd_file_attrs(nev, ATTR_SIZE + 16);
}

/* After the data: the feature sections, then the header, now that the
 * offsets are known. Sections follow the feature bits in order. */
int pd_file_end(int fd)
{
	struct section s[2 + NFEAT];	/* tracing, build-ids, feat[] */
	int i, n = 0, err;
	u64 at;

	fh.data.size = out_pos - fh.data.off;
	fh.magic = MAGIC;
	fh.size = sizeof(fh);
	if (tracing.n)
		fh.features[0] |= 1ULL << F_TRACING;
	if (kbid.n)
		fh.features[0] |= 1ULL << F_BUILD_ID;
	for (i = 0; i < nfeat; i++)
		fh.features[0] |= 1ULL << feat[i].id;
	for (i = 0; i < 64; i++)
		n += fh.features[0] >> i & 1;
	memset(s, 0, sizeof(s));
	out_put(s, n * sizeof(*s));
	n = 0;
	if (tracing.n) {
		s[n].off = out_pos;
		s[n++].size = tracing.n;
		out_put(tracing.p, tracing.n);
	}
	if (kbid.n) {
		s[n].off = out_pos;
		s[n++].size = kbid.n;
		out_put(kbid.p, kbid.n);
	}
	for (i = 0; i < nfeat; i++) {
		s[n].off = out_pos;
		s[n++].size = feat[i].len;
		out_put(feats.p + feat[i].off, feat[i].len);
	}
	err = out_end();
	at = fh.data.off + fh.data.size;
	if (BE != pd_be) {	/* the header and sections in the file's order */
		u64 *w = (u64 *)s, k;

		for (k = 0; k < 2 * (u64)n; k++)
			w[k] = __builtin_bswap64(w[k]);
		for (w = (u64 *)&fh, k = 0; k < sizeof(fh) / 8; k++)
			w[k] = __builtin_bswap64(w[k]);
	}
	if (!err && (pwrite(fd, s, n * sizeof(*s), at) < 0 || pwrite(fd, &fh, sizeof(fh), 0) < 0))
		err = errno;
	return err;
}
