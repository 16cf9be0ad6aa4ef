/* lean.h - the lean layout (lean.c): the kernel writes less per record,
 * the dump puts it back. */
#ifndef LEAN_H
#define LEAN_H

#include "cfg.h"

extern int lean_noid;		/* the kernel writes no ids (tracepoints only) */

void noid_init(void);		/* before the events are opened */
int tp_tab(void);		/* the tracepoints by id, again after drops */
struct event *tp_ev(u16 id);
u64 lean_type(const struct event *e);	/* the sample_type the kernel writes */
struct event *lean_ev(const u64 *a, const u64 *end);
int rec_ok(const struct rec_hdr *h);	/* a copied record holds its layout */
u64 lean_time(const struct rec_hdr *h);
/* records of either layout (lean: 1 for the lean one) */
u64 rec_time(const struct rec_hdr *h, int lean);	/* its time */
int rec_ids(const struct rec_hdr *h, int lean, u32 id[2]);	/* a sample's pid, tid; 2: with an IP */
void rec_needs(const unsigned char *p, const unsigned char *end, int lean);	/* seen.c's need()s */
size_t lean_expand(const struct rec_hdr *h, int ri, int cpu, unsigned char *o);

#endif
