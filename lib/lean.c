/* lean.c - the lean layout: what the kernel writes per record (less
 * than perf's layout), whether a copied record holds it, and the
 * record in perf's layout again for the dump. */
#include <string.h>
#include "config.h"
#include "seen.h"
#include "lean.h"

/* ---- the lean layout (the default; the key full turns it off) ----
 * Every u64 the kernel writes per record costs time on the hot path.
 * So the kernel writes only IDENTIFIER, TID, TIME, PERIOD (+RAW) for
 * tracepoints, and no CPU for any event; the dump puts back what tracer
 * knows anyway: the CPU is the ring's.
 * A tracepoint's IP only tells the function it sits in, which its name
 * mostly does too; it is written as 0. Its PERIOD stays: a tracepoint
 * that carries a count (sched_stat_*, __perf_count()) is one sample of
 * that period with it, and one sample per unit of the count without
 * it (perf_swevent_event()), which floods the ring. The header
 * declares the full layout, so perf reads the expanded records like any
 * others.
 * When the rings hold tracepoints only, each a different one, the raw
 * data's first field (common_type, the tracepoint's id) already names
 * the event: then the kernel writes no IDENTIFIER either (lean_noid),
 * and the dump puts back the id of that event on that ring. */

int lean_noid;
static int noid_first;
/* tracepoint id - tplo -> event + 1: the tracepoints that are no
 * tripwire's (the rings' or the ftrace instance's, ftrace.c) */
static u16 *tptab;
static u64 tplo, tpn;

/* The table of the tracepoints that are no tripwire's, by id, again
 * whenever events were dropped: -1 if one is there twice (other
 * filters), which needs ids; else 1 if those are all the events that
 * are no tripwire's. */
int tp_tab(void)
{
	u64 hi = 0;
	int i, all = 1;

	if (!tptab) {
		tplo = ~0ULL;
		for (i = 0; i < nev; i++) {
			const struct perf_attr *a = &evs[i].attr;

			if (evs[i].trip || a->type != TYPE_TRACEPOINT || a->config > 0xffff)
				continue;
			tplo = a->config < tplo ? a->config : tplo;
			hi = a->config > hi ? a->config : hi;
		}
		if (hi < tplo)
			return 0;
		tpn = hi - tplo + 1;
		tptab = xmalloc(tpn * sizeof(*tptab));
	}
	memset(tptab, 0, tpn * sizeof(*tptab));
	for (i = nev; i-- > 0;) {
		u64 k = evs[i].attr.config - tplo;

		if (evs[i].trip)
			continue;
		if (evs[i].attr.type != TYPE_TRACEPOINT || k >= tpn) {
			all = 0;
			continue;
		}
		if (tptab[k])
			return -1;
		tptab[k] = i + 1;
		noid_first = i;
	}
	return all;
}

struct event *tp_ev(u16 id)
{
	return tab_ev(tptab, tplo, tpn, id);
}

/* Whether the rings can go without IDENTIFIER (when they hold
 * tracepoints only, each once). Before open_all. */
void noid_init(void)
{
	lean_noid = tp_tab() == 1;
}

u64 lean_type(const struct event *e)
{
	u64 t = e->attr.sample_type & ~(u64)(lean_noid ? S_CPU | S_IDENTIFIER : S_CPU);

	return e->attr.type == TYPE_TRACEPOINT ? t & ~(u64)S_IP : t;
}

/* The event of a lean sample whose body is [a, end): by its IDENTIFIER,
 * or under lean_noid (TID TIME PERIOD [CALLCHAIN] RAW) by the common_type its
 * raw data starts with; 0 if it names none. */
struct event *lean_ev(const u64 *a, const u64 *end)
{
	u16 type;

	if (!lean_noid)
		return a < end ? ev_by_id(a[0]) : 0;
	a += 3;
	if (cfg_stack && (a >= end || *a >= (u64)(end - a) || (a += 1 + *a) >= end))
		return 0;
	if (a >= end)
		return 0;
	memcpy(&type, (const unsigned char *)a + 4, 2);	/* after RAW's u32 size */
	return tp_ev(type);
}

/* What the kernel wrote for a lean sample: its event's layout, or for
 * one that names none, the first ring event's (under lean_noid the
 * same for all). */
static u64 lean_type_of(const struct event *e)
{
	return lean_type(e ? e : evs + noid_first);
}

/* Whether a record copied from a ring holds what its layout says. A
 * writer that got past the pause may finish a record after the copy,
 * and the oldest record of a wrapped ring can be torn: its size is
 * plausible (ring_walk checked it), its contents need not be. So a
 * sample must name one of our events and hold its fields, and its
 * callchain and raw data must end inside it; anything else must hold
 * the trailer. */
int rec_ok(const struct rec_hdr *h)
{
	const u64 *a = (const u64 *)(h + 1), *end = (const u64 *)((const char *)h + h->size);
	const struct event *e;
	u64 k, f;
	u32 raw;

	if (h->type != REC_SAMPLE)
		return h->size >= 8 + (CFG_LEAN && cfg_lean ? 24 - 8 * lean_noid : 32);
	if (!(e = CFG_LEAN && cfg_lean ? lean_ev(a, end) : a < end ? ev_by_id(a[0]) : 0))
		return 0;
	k = CFG_LEAN && cfg_lean ? lean_type(e) : e->attr.sample_type;
	/* a u64 each: IDENTIFIER IP TID TIME CPU PERIOD, as we ask for */
	for (f = k & (S_IDENTIFIER | S_IP | S_TID | S_TIME | S_CPU | S_PERIOD); f; f &= f - 1)
		a++;
	if (a > end)
		return 0;
	if (k & S_CALLCHAIN && (a >= end || *a >= (u64)(end - a) || (a += 1 + *a) > end))
		return 0;
	if (!(k & S_RAW))
		return 1;
	if (a >= end)
		return 0;
	memcpy(&raw, a, 4);
	return raw <= (u64)(end - a) * 8 - 4;
}

u64 lean_time(const struct rec_hdr *h)
{
	const u64 *a = (const u64 *)(h + 1);
	u64 k;

	/* the trailer: TID TIME [IDENTIFIER] */
	if (h->type != REC_SAMPLE)
		return *(const u64 *)((const unsigned char *)h + h->size - 16 + 8 * lean_noid);
	k = lean_type_of(lean_ev(a, (const u64 *)((const char *)h + h->size)));
	return a[!lean_noid + !!(k & S_IP) + 1];	/* [IDENTIFIER] [IP] TID TIME */
}

/* A lean record from ring ri (of CPU cpu) in the full layout, written at o (which
 * need not be aligned): IDENTIFIER (under lean_noid), IP, CPU and
 * PERIOD in a sample, CPU (and IDENTIFIER) in the trailer (TID TIME CPU
 * IDENTIFIER) of any other record. Returns its size, 0 to drop it. */
#define PUT(v) (memcpy(o, &(u64){ v }, 8), o += 8)
size_t lean_expand(const struct rec_hdr *h, int ri, int cpu, unsigned char *o)
{
	const u64 *a = (const u64 *)(h + 1), *end = (const u64 *)((const char *)h + h->size);
	const struct event *e;
	unsigned char *o0 = o;
	struct rec_hdr r = *h;
	u64 c, k, id;

	memcpy(&c, (u32[2]){ cpu, 0 }, 8);	/* {cpu, res} */
	o += 8;
	if (h->type != REC_SAMPLE) {
		size_t body = h->size - 8 - 24 + 8 * lean_noid;

		memcpy(o, a, body);
		o += body;
		a += body / 8;
		PUT(a[0]);		/* TID */
		PUT(a[1]);		/* TIME */
		PUT(c);
		/* IDENTIFIER: under lean_noid, the ring's first event's (the
		 * trailer's layout is the same for all) */
		e = lean_noid ? evs + noid_first : ev_by_id(a[2]);
		PUT(e ? e->ids[ri] : a[2]);
	} else {
		e = lean_ev(a, end);
		if (lean_noid && !e)
			return 0;	/* no id to put back */
		k = lean_type_of(e);
		id = lean_noid ? 0 : *a++;
		PUT(e ? e->ids[ri] : id);	/* IDENTIFIER: the header's */
		PUT(k & S_IP ? *a++ : 0);
		PUT(*a++);		/* TID */
		PUT(*a++);		/* TIME */
		PUT(c);
		PUT(k & S_PERIOD ? *a++ : 1);
		memcpy(o, a, (end - a) * 8);	/* CALLCHAIN, RAW */
		o += (end - a) * 8;
	}
	r.size = o - o0;
	memcpy(o0, &r, 8);
	return r.size;
}


/* ---- records of either layout ---- */

/* The sort key: a sample's TIME is its 4th u64 (after IDENTIFIER, IP,
 * TID); any other record carries it in the trailer, 24 bytes from the
 * end (TID TIME CPU IDENTIFIER). */
u64 rec_time(const struct rec_hdr *h, int lean)
{
	const unsigned char *p = (const void *)h;

	if (lean)
		return lean_time(h);
	if (h->type == REC_SAMPLE)
		return *(const u64 *)(p + 8 + 24);
	return h->size >= 8 + 24 ? *(const u64 *)(p + h->size - 24) : 0;
}

/* A sample's pid and tid into id[2], in the lean layout or perf's
 * (lean: 0); 0 if h is no sample, or names no event of ours, else 1,
 * 2 if it carries an IP (a lean tracepoint's is left out). */
int rec_ids(const struct rec_hdr *h, int lean, u32 id[2])
{
	const u64 *a = (const u64 *)(h + 1), *end = (const u64 *)((const char *)h + h->size);
	const struct event *e;
	int ip = 1;

	if (h->type != REC_SAMPLE)
		return 0;
	if (lean) {	/* [IDENTIFIER] [IP] TID */
		if (!(e = lean_ev(a, end)))
			return 0;
		ip = !!(lean_type(e) & S_IP);
		a -= lean_noid + !ip;
	}
	if (a + 3 > end)	/* IDENTIFIER IP TID */
		return 0;
	memcpy(id, a + 2, 8);
	return 1 + ip;
}

/* What the samples in [p, end) (lean or not) need described (seen.c):
 * their tasks' names, the maps of processes sampled in user mode. */
void rec_needs(const unsigned char *p, const unsigned char *end, int lean)
{
	const struct rec_hdr *h;
	u32 id[2];	/* pid, tid */
	int ip;

	for (; p < end; p += h->size)
		if ((ip = rec_ids(h = (const void *)p, lean, id))) {
			need(NEED_NAME, id[1]);
			if (ip == 2 && (h->misc & 7) == MISC_USER)	/* (a syscall's too) */
				need(NEED_MAPS, id[0]);
		}
}
