/* f_ftrace.c - the ftrace engine's reading of a copied ring: ft_walk(),
 * ft_next() and ft_sample() over arbitrary pages.
 *
 * A page comes from the kernel (mapped, snapshot or read), but what a
 * dump copies may be torn (a writer that got past the pause), and a
 * size or count read from it is trusted only within its bounds: the
 * page header's commit, each event's type_len and array[0]. So every
 * event handed out must lie within its own page of the copy, every
 * sample must fit what merge_out asks out_room for (len + 72) and say
 * its own size, and the walk must end.
 *
 * Input: flags (bit 0: a 32-bit kernel's 12-byte page header, else 16;
 * bit 1: a stream that goes on, with a time and count already sent;
 * bit 2: 8 KiB pages), then [u64 sent time, u8 count] with bit 1, then
 * pages, as many whole ones as the input holds (at most 16). */
#include "fz.h"
#include "ftrace.c"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const u64 tp[3] = { 316, 318, 20 };
	int i;

	nev = 3;
	nmax = nring = 1;
	tracefs = "/nonexistent-tracefs";	/* (a walk asks the instance's stats: none here) */
	evs = xmalloc(nev * sizeof(*evs));
	for (i = 0; i < nev; i++) {
		evs[i].name = "fz:fz";
		evs[i].attr.type = TYPE_TRACEPOINT;
		evs[i].attr.config = tp[i];
		evs[i].attr.sample_type = S_IDENTIFIER | S_IP | S_TID | S_TIME | S_CPU | S_PERIOD | S_RAW;
		evs[i].ids = xmalloc(nmax * sizeof(u64));
		evs[i].ft = 1;
	}
	ft_n = nev;
	ft_fc = xmalloc(sizeof(*ft_fc));
	for (i = 0; i < nev; i++)
		evs[i].ids[0] = FT_ID | (u64)i << 16;
	tp_tab();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	struct fz_in in = { d, n };
	uint8_t fl = fz_u8(&in);
	struct fcpu *f = ft_fc;
	static u64 o[(65536 + 64) / 8];
	size_t npg, k = 0;
	u64 t;

	fz_persist = 0;
	ft_hsz = fl & 1 ? 12 : 16;
	ft_sbs = fl & 4 ? 8192 : 4096;
	memset(f, 0, sizeof(*f));
	f->fd = -1;
	if (fl & 2) {
		f->last_t = fz_uN(&in, 8);
		f->last_k = fz_u8(&in);
	}
	npg = in.n / ft_sbs > 16 ? 16 : in.n / ft_sbs;
	f->n = f->cap = npg;
	f->cp = xmalloc(npg * ft_sbs + 1);
	f->ord = xmalloc((npg + 1) * sizeof(*f->ord));
	fz_bytes(&in, f->cp, npg * ft_sbs);
	f->pg = f->cp;		/* mapped pages (only ever tested for being there) */
	/* in time order, as ft_grab puts mapped pages */
	order(f);

	FZ_ARM();
	if (!setjmp(fz_jmp)) {
		ft_walk(f, fl & 2);
		while (ft_next(0, &t)) {
			size_t pg = (f->data - f->cp) / ft_sbs, m;
			struct rec_hdr h;

			FZ_CHECK(f->data >= f->cp + pg * ft_sbs + ft_hsz && f->data + f->dlen <= f->cp + (pg + 1) * ft_sbs,
				 "event of %u bytes at %zd: outside its page", f->dlen, f->data - f->cp);
			FZ_CHECK(++k <= npg * ft_sbs / 8, "more events than the pages hold");
			FZ_CHECK(t == f->t, "ft_next's time %llu is not the event's %llu",
				 (unsigned long long)t, (unsigned long long)f->t);
			m = ft_sample(0, 3, (unsigned char *)o);
			memcpy(&h, o, 8);
			FZ_CHECK(m <= f->dlen + 72 && m == h.size && !(m & 7) && h.type == REC_SAMPLE,
				 "sample of %zu bytes (header %u) for %u bytes of data", m, h.size, f->dlen);
			FZ_CHECK(ft_ev_of(f->data) != 0, "an event of no tracepoint of ours");
		}
		ft_sent();
	}
	FZ_DISARM();
	fz_free_all();
	return 0;
}
