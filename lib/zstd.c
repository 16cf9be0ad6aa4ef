/* zstd.c - a small zstd encoder: one frame per call, one block, raw
 * literals, and sequences from a greedy LZ77 match finder coded with the
 * format's predefined FSE tables. No Huffman stage, no repeat offsets:
 * what any zstd decoder reads (RFC 8878), in a few KiB of code.
 *
 * The bitstream of sequences is read backward by the decoder, so it is
 * written from the last sequence to the first: the extra bits of each
 * sequence (LL, ML, OF), the state updates between them (OF, ML, LL),
 * and the initial states at the end (ML, OF, LL), then a 1 bit. The
 * encoder picks a state by the decoder's table: for symbol s and the
 * next state y, the state x of s whose range [base, base + 2^nb) holds
 * y, and writes y - base in nb bits. */
#include <string.h>
#include "zstd.h"

struct fse {
	u8 sym, nb;
	u16 base;
};

static struct fse ll_t[64], ml_t[64], of_t[32];

/* The predefined distributions; -1 is "less than 1". */
static const signed char ll_d[36] = {
	4, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2,
	2, 3, 2, 1, 1, 1, 1, 1, -1, -1, -1, -1 };
static const signed char ml_d[53] = {
	1, 4, 3, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1,
	-1, -1, -1, -1, -1 };
static const signed char of_d[29] = {
	1, 1, 1, 1, 1, 1, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	-1, -1, -1, -1, -1 };

/* Extra bits of the length codes past the direct ones (LL 16.., ML 32..) */
static const u8 ll_x[20] = { 1, 1, 1, 1, 2, 2, 3, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
static const u8 ml_x[21] = { 1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

static int hibit(u32 v)
{
	return 31 - __builtin_clz(v);
}

/* The decoder's table for a distribution, as the format builds it. */
static void fse_build(struct fse *t, const signed char *d, int n, int log)
{
	u16 next[53];
	int size = 1 << log, hi = size - 1, pos = 0, s, i;

	for (s = 0; s < n; s++) {
		next[s] = d[s] < 0 ? 1 : d[s];
		if (d[s] < 0)
			t[hi--].sym = s;
	}
	for (s = 0; s < n; s++)
		for (i = 0; i < d[s]; i++) {
			t[pos].sym = s;
			do
				pos = (pos + (size >> 1) + (size >> 3) + 3) & (size - 1);
			while (pos > hi);
		}
	for (i = 0; i < size; i++) {
		u32 x = next[t[i].sym]++;

		t[i].nb = log - hibit(x);
		t[i].base = (x << t[i].nb) - size;
	}
}

void zstd_init(void)
{
	fse_build(ll_t, ll_d, 36, 6);
	fse_build(ml_t, ml_d, 53, 6);
	fse_build(of_t, of_d, 29, 5);
}

/* ---- the bitstream, little-endian, written forward ---- */
static u8 *bp;
static u64 bc;
static int bn;

static void bits(u32 v, int n)
{
	bc |= (u64)v << bn;
	for (bn += n; bn >= 8; bn -= 8, bc >>= 8)
		*bp++ = bc;
}

/* One FSE step: from state *st (the decoder's next) to one of sym's. */
static void fse_put(const struct fse *t, int size, u32 *st, int sym, int first)
{
	int x;

	for (x = 0; x < size; x++)
		if (t[x].sym == sym && (first || (*st >= t[x].base && *st - t[x].base < 1U << t[x].nb)))
			break;
	if (!first)
		bits(*st - t[x].base, t[x].nb);
	*st = x;
}

/* A length's code and its extra bits: direct below first, then ranges. */
static int code(u32 v, int first, const u8 *x, u32 *extra, int *nb)
{
	u32 base = first;
	int c = first;

	*extra = *nb = 0;
	if (v < (u32)first)
		return v;
	while (v - base >= 1U << x[c - first])
		base += 1U << x[c - first], c++;
	*extra = v - base;
	*nb = x[c - first];
	return c;
}

/* ---- the match finder ---- */
#define HLOG 12
#define MINMATCH 4
static u16 htab[1 << HLOG];
static struct seq { u16 ll, ml, off; } seqs[ZSTD_MAX / MINMATCH + 1];

static u32 rd32(const u8 *p)
{
	u32 v;

	memcpy(&v, p, 4);
	return v;
}

static u32 hash(const u8 *p)
{
	return rd32(p) * 2654435761U >> (32 - HLOG);
}

static void put24(u8 *p, u32 v)
{
	p[0] = v, p[1] = v >> 8, p[2] = v >> 16;
}

/* The frame header's descriptor for 0 to 7 bytes more than the least
 * (4-byte content size, one segment): a window descriptor (not one
 * segment), an 8-byte content size, a dictionary id of 0 (none) in 1, 2
 * or 4 bytes. perf's reader wants one frame per record, and records are
 * 8-byte aligned: so the frame pads itself. */
static const u8 fhd[8] = { 0xa0, 0xa1, 0xa2, 0x82, 0xa3, 0x83, 0xe2, 0xc2 };

/* Greedy: the last position with the same hash, if 4 bytes match,
 * stretched both ways. Position 0 stands for "none". The sequences
 * into seqs; returns how many, and *nlit: the literals' length. */
static size_t zstd_match(const u8 *src, size_t n, size_t *nlit)
{
	size_t i = 1, lit = 0, ns = 0, nl = 0, rep0 = 1;

	memset(htab, 0, sizeof(htab));
	while (n >= 8 && i < n - 8) {
		u32 h = hash(src + i), c = htab[h], rep = i > lit && i >= rep0;

		htab[h] = i;
		/* The last offset again (perf's records repeat their layout):
		 * repeat code 1, which needs literals before it. */
		if (rep && rd32(src + i - rep0) == rd32(src + i))
			c = i - rep0;
		else if (!c || rd32(src + c) != rd32(src + i)) {
			i++;
			continue;
		} else
			rep = 0;
		{
			size_t m = MINMATCH;

			while (i + m < n && src[c + m] == src[i + m] && m < 65535)
				m++;
			while (!rep && i > lit && c > 0 && src[c - 1] == src[i - 1] && m < 65535)
				i--, c--, m++;
			seqs[ns++] = (struct seq){ i - lit, m - 3, rep ? 1 : i - c + 3 };
			if (!rep)
				rep0 = i - c;
			nl += i - lit;
			i += m;
			lit = i;
			if (i < n - 8)
				htab[hash(src + i - 2)] = i - 2;
		}
	}
	*nlit = nl + n - lit;
	return ns;
}

/* Literals, raw, with a 3-byte header: the bytes between the ns
 * sequences' matches. Returns the end. */
static u8 *zstd_lits(u8 *o, const u8 *src, size_t n, size_t nl, size_t ns)
{
	size_t k, i;

	o[0] = (nl & 15) << 4 | 0xc;
	o[1] = nl >> 4;
	o[2] = nl >> 12;
	o += 3;
	for (k = 0, i = 0; k < ns; k++) {
		memcpy(o, src + i, seqs[k].ll);
		o += seqs[k].ll;
		i += seqs[k].ll + seqs[k].ml + 3;
	}
	memcpy(o, src + i, n - i);
	return o + n - i;
}

/* The sequences: their number, then with the predefined tables, one
 * bit stream, written from the last. Returns the end. */
static u8 *zstd_seqs(u8 *o, size_t ns)
{
	u32 st[3] = { 0 };
	size_t k;

	if (ns < 128) {
		*o++ = ns;
	} else if (ns < 0x7f00) {
		*o++ = (ns >> 8) + 128;
		*o++ = ns;
	} else {
		*o++ = 255;
		*o++ = ns - 0x7f00;
		*o++ = (ns - 0x7f00) >> 8;
	}
	if (!ns)
		return o;
	*o++ = 0;	/* predefined tables for LL, OF and ML */
	bp = o, bc = 0, bn = 0;
	for (k = ns; k-- > 0;) {
		struct seq *s = seqs + k;
		u32 lx, mx;
		int lb, mb, lc = code(s->ll, 16, ll_x, &lx, &lb),
		    mc = code(s->ml, 32, ml_x, &mx, &mb), oc = hibit(s->off);

		fse_put(of_t, 32, st + 2, oc, k == ns - 1);
		fse_put(ml_t, 64, st + 1, mc, k == ns - 1);
		fse_put(ll_t, 64, st, lc, k == ns - 1);
		bits(lx, lb);
		bits(mx, mb);
		bits(s->off - (1U << oc), oc);
	}
	bits(st[1], 6);
	bits(st[2], 5);
	bits(st[0], 6);
	bits(1, 1);
	if (bn)
		*bp++ = bc;
	return bp;
}

/* src[0, n) (n <= ZSTD_MAX) as one zstd frame, a multiple of 8 bytes
 * long, into dst, which has room for ZSTD_ROOM(n); returns its size. */
size_t zstd_frame(const u8 *src, size_t n, u8 *dst)
{
	size_t nl, k, ns = zstd_match(src, n, &nl);
	u8 *o, *blk = dst + 24, h[24], *p = h + 5, d;

	o = zstd_seqs(zstd_lits(blk + 3, src, n, nl, ns), ns);
	k = o - blk - 3;
	if (k >= n) {		/* no gain: the block raw */
		memcpy(blk + 3, src, n);
		k = n;
		put24(blk, 1 | k << 3);
	} else {
		put24(blk, 1 | 2 << 1 | k << 3);
	}
	/* The header, now that the length is known: magic, descriptor,
	 * [window: 64 KiB], [dictionary id 0], content size. */
	d = fhd[-(9 + 3 + k) & 7];
	memcpy(h, "\x28\xb5\x2f\xfd", 4);
	h[4] = d;
	if (!(d & 0x20))
		*p++ = 6 << 3;
	memset(p, 0, 12);
	p += (d & 3) + (d & 3) / 3;	/* 0, 1, 2, 4 */
	put24(p, n);
	p += d >> 6 == 2 ? 4 : 8;
	memmove(dst + (p - h), blk, 3 + k);
	memcpy(dst, h, p - h);
	return p - h + 3 + k;
}

/* ---- the decoder, for tracer -p: what zstd_frame writes (raw and
 * compressed blocks, raw literals, the predefined tables, repeat
 * offsets), any number of frames. The rest of the format (Huffman
 * literals and coded tables, as perf record -z writes; RLE) is -2. ---- */
static const u8 *ip;
static size_t ipos;	/* bits left to read, from the top down */
static int ierr;	/* read past the start */

static u32 rbits(int n)
{
	u32 v = 0;

	while (n--) {
		if (!ipos)
			return ierr = 1, v;
		ipos--;
		v = v << 1 | (ip[ipos >> 3] >> (ipos & 7) & 1);
	}
	return v;
}

/* A length code's value: direct below first, then ranges of x's bits. */
static u32 lval(u32 c, u32 first, const u8 *x)
{
	u32 b = first, i;

	if (c < first)
		return c;
	for (i = first; i < c; i++)
		b += 1U << x[i - first];
	return b + rbits(x[c - first]);
}

static u32 le32(const u8 *p)	/* the format's order, on any host */
{
	return p[0] | p[1] << 8 | p[2] << 16 | (u32)p[3] << 24;
}

long zstd_decode(const u8 *s, size_t n, u8 *dst, size_t cap)
{
	static struct fse *const tb[3] = { ll_t, ml_t, of_t };
	const u8 *e = s + n, *q, *be, *lit;
	size_t o = 0;
	u32 rep[3], d, b, len, nl, ns, i, j, st[3], of, ml, ll;

	while (s + 6 <= e) {
		d = s[4];
		if (le32(s) != 0xfd2fb528 || d & 8)
			return -1;
		rep[0] = 1, rep[1] = 4, rep[2] = 8;
		s += 5 + !(d & 0x20) + (d & 3) + (d & 3) / 3 + (d >> 6 ? 1U << (d >> 6) : d >> 5 & 1);
		do {
			if (s + 3 > e)
				return -1;
			b = s[0] | s[1] << 8 | s[2] << 16, len = b >> 3;
			q = s + 3;
			s = be = q + len;
			if (be > e)
				return -1;
			if ((b & 6) == 0) {	/* raw */
				if (len > cap - o)
					return -1;
				memcpy(dst + o, q, len);
				o += len;
				continue;
			}
			/* compressed: raw literals, their size in 5, 12 or 20 bits */
			if ((b & 6) != 4 || len < 4 || q[0] & 3)
				return -2;
			j = q[0] >> 2 & 3;
			nl = j == 1 ? (q[0] >> 4) + (q[1] << 4) : j == 3 ? (q[0] >> 4) + (q[1] << 4) + (q[2] << 12) : q[0] >> 3;
			q += j == 1 ? 2 : j == 3 ? 3 : 1;
			lit = q;
			q += nl;
			if (q + 1 > be || q + (q[0] < 128 ? 1 : q[0] < 255 ? 2 : 3) > be || nl > cap - o)
				return -1;
			ns = q[0] < 128 ? q[0] : q[0] < 255 ? (q[0] - 128) << 8 | q[1] : q[1] + (q[2] << 8) + 0x7f00;
			q += q[0] < 128 ? 1 : q[0] < 255 ? 2 : 3;
			if (ns) {
				if (q + 2 > be || !be[-1])
					return -1;
				if (*q++)
					return -2;	/* not the predefined tables */
				ip = q, ipos = (be - q) * 8 - 8 + hibit(be[-1]), ierr = 0;
				st[0] = rbits(6), st[2] = rbits(5), st[1] = rbits(6);
			}
			for (i = 0; i < ns; i++) {
				of = (1U << of_t[st[2]].sym) + rbits(of_t[st[2]].sym);
				ml = lval(ml_t[st[1]].sym, 32, ml_x) + 3;
				ll = lval(ll_t[st[0]].sym, 16, ll_x);
				if (of > 3) {
					of -= 3;
					rep[2] = rep[1], rep[1] = rep[0], rep[0] = of;
				} else {
					j = of + !ll;
					of = j == 4 ? rep[0] - 1 : rep[j - 1];
					if (j > 1) {
						if (j > 2)
							rep[2] = rep[1];
						rep[1] = rep[0], rep[0] = of;
					}
				}
				if (ll > nl || ml + ll > cap - o || !of || of > o + ll)
					return -1;
				memcpy(dst + o, lit, ll);
				o += ll, lit += ll, nl -= ll;
				for (j = 0; j < ml; j++, o++)
					dst[o] = dst[o - of];
				for (j = 0; i + 1 < ns && j < 3; j++)	/* LL, ML, OF */
					st[j] = tb[j][st[j]].base + rbits(tb[j][st[j]].nb);
			}
			if (ns && (ipos || ierr))
				return -1;
			memcpy(dst + o, lit, nl);
			o += nl;
		} while (!(b & 1));
		s += d & 4;	/* the checksum */
	}
	return s == e ? (long)o : -1;
}
