/* ring.c - open perf events, map their backward rings, pause and walk. */
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include "ring.h"

int ring_event_open(struct perf_attr *a, int cpu, int group)
{
	return syscall(SYS_perf_event_open, a, -1, cpu, group, 8 /* CLOEXEC */);
}

/* Whether this CPU's PMU counts hardware event config: a PMU counts
 * those its event ids advertise (QEMU's arm64 one counts instructions
 * only under -icount shift=N). */
int ring_hw(u64 config)
{
	static struct perf_attr a;	/* TYPE_HARDWARE */
	int fd;

	a.size = ATTR_SIZE;
	a.config = config;
	if ((fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 8)) >= 0)
		close(fd);
	return fd >= 0;
}

/* A ring's data size: at least want, and a power of two of pages (what
 * the kernel maps). Pages are 4 KiB on most boards, 16 or 64 KiB on
 * some arm64, mips and powerpc kernels. */
unsigned long ring_size(unsigned long want)
{
	unsigned long n = getpagesize();

	while (n < want)
		n <<= 1;
	return n;
}

/* Map 1 + size/page pages. Read-only is what makes a ring overwritable;
 * a forward ring is mapped writable so we can hand back data_tail. fd
 * -1: a ring of our own, in anonymous memory (ring_push's). */
int ring_map(struct ring *r, int fd, int cpu, unsigned long size, int forward)
{
	long pg = getpagesize();
	void *p = mmap(0, pg + size, PROT_READ | (forward ? PROT_WRITE : 0),
		       fd < 0 ? MAP_PRIVATE | MAP_ANONYMOUS : MAP_SHARED, fd, 0);

	if (p == MAP_FAILED)
		return -1;
	r->base = p;
	r->size = size;
	r->fd = fd;
	r->cpu = cpu;
	r->prev = 0;
	/* data_offset exists since 4.1; before, data starts at page 1 */
	{
		u64 off = *(volatile u64 *)(r->base + PG_DATA_OFFSET);
		r->data = r->base + (off ? off : (u64)pg);
	}
	return 0;
}

/* Route another event of the same CPU into this ring. */
int ring_attach(struct ring *r, int fd)
{
	return ioctl(fd, IOC_SET_OUTPUT, r->fd);
}

/* While paused the kernel drops new records and counts them; after resume
 * it writes a LOST record first. Events stay enabled throughout. */
int ring_pause(struct ring *r, int paused)
{
	return ioctl(r->fd, IOC_PAUSE_OUTPUT, paused);
}

/* data_head or data_tail as an unsigned long. A 32-bit CPU touches the
 * low word only: that is all a 32-bit kernel uses, and all the modulo
 * arithmetic here needs. */
static unsigned long *ring_word(struct ring *r, int off)
{
	if (sizeof(long) == 4 && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)
		off += 4;
	return (unsigned long *)(r->base + off);
}

/* The head, loaded after every load before it (a copy's, that it
 * judges): acquire alone orders only the loads after. */
unsigned long ring_head(struct ring *r)
{
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return __atomic_load_n(ring_word(r, PG_DATA_HEAD), __ATOMIC_ACQUIRE);
}

/* Copy len bytes at offset at of a ring, unwrapping. */
static void ring_copy(const unsigned char *data, unsigned long size,
		      unsigned long at, unsigned long len, unsigned char *dst)
{
	unsigned long first = size - at < len ? size - at : len;

	memcpy(dst, data + at, first);
	memcpy(dst + first, data, len - first);
}

/* A forward ring (tripwires): the kernel writes upward from data_tail and
 * never past it. Hand each new record to fn, whole, then release the
 * space by storing data_tail (release: our reads happen before). */
void ring_read(struct ring *r, void (*fn)(const struct rec_hdr *, void *), void *ctx)
{
	static u64 tmp[65536 / 8];
	unsigned long head = ring_head(r), tail = r->prev, mask = r->size - 1;

	while (head - tail >= sizeof(struct rec_hdr)) {
		unsigned long at = tail & mask;
		const struct rec_hdr *h = (const void *)(r->data + at);
		unsigned long len = h->size;

		if (len < sizeof(*h) || (len & 7) || len > head - tail || len > r->size)
			break;
		if (at + len > r->size) {
			ring_copy(r->data, r->size, at, len, (void *)tmp);
			h = (const void *)tmp;
		}
		/* fn may read this ring again (a dump drains it): from the
		 * next record on, and then we go on from where it stopped */
		r->prev = tail + len;
		fn(h, ctx);
		tail = r->prev;
		head = ring_head(r);
	}
	r->prev = tail;
	__atomic_store_n(ring_word(r, PG_DATA_TAIL), tail, __ATOMIC_RELEASE);
}

/* Before 4.7 (no backward rings): a record of the kernel's forward
 * ring, into a ring u of ours that lies as the kernel lays out a
 * backward one (ring_map with fd -1): written below its head, which
 * then moves down to it. Records are 8-aligned, so a header never
 * straddles the end. ring_snap and ring_walk read it as any other. */
void ring_push(const struct rec_hdr *h, void *u)
{
	struct ring *r = u;
	unsigned long *w = ring_word(r, PG_DATA_HEAD), len = h->size, head = *w - len,
		at = head & (r->size - 1), first = r->size - at < len ? r->size - at : len;

	memcpy(r->data + at, h, first);
	memcpy(r->data, (const char *)h + first, len - first);
	*w = head;
}

/* Copy len bytes of a ring from head on, as they lie, to the same
 * offsets of dst (another ring's worth; at most all of it): at most two
 * memcpys. ring_walk then reads dst as the ring. */
static void ring_grab(const struct ring *r, unsigned long head, unsigned long len, unsigned char *dst)
{
	unsigned long at = head & (r->size - 1), first = r->size - at;

	if (len > r->size)
		len = r->size;
	if (first > len)
		first = len;
	memcpy(dst + at, r->data + at, first);
	memcpy(dst, r->data, len - first);
}

/* A copy of a backward ring, as its bytes lie, into dst (another
 * ring's worth), while the kernel goes on writing it: from the head to
 * base (where a stream's last dump stopped; 0: all of it), then, up to
 * tries times, what was written meanwhile, which lies over the copy's
 * oldest bytes at the same offsets (all of it, if that is the ring or
 * more). The copy is the ring at the head returned; ring_keep says how
 * much of it is whole. No pause: no blind window. */
unsigned long ring_snap(struct ring *r, unsigned long base, unsigned char *dst, int tries)
{
	unsigned long h = ring_head(r), n;

	ring_grab(r, h, base - h, dst);
	while ((n = ring_head(r)) != h && tries--) {
		ring_grab(r, n, h - n, dst);
		h = n;
	}
	return h;
}

/* Where a dump since the start (base 0) begins. A 32-bit head wraps at
 * 4 GiB, and then looks as if little was written since: a ring not yet
 * full has its unwritten bytes (below the head's offset) all zero; if
 * not, the head went round 2^32, and all of the ring is taken. Only the
 * lowest 512 of them are looked at: the writer comes down from the head
 * to them last, so what it writes meanwhile does not count. */
unsigned long ring_base(struct ring *r, unsigned long base)
{
	unsigned long h, i;

	if (sizeof(long) != 4 || base)
		return base;
	for (h = ring_head(r), i = 0; 0 - h < r->size && i < r->size - (0 - h) && i < 512; i++)
		if (r->data[i])
			return h + r->size;
	return base;
}

/* How many bytes of ring_snap's copy at head are whole and new since
 * base, asked a while after the copy; *wrapped: more than that was
 * written since base. The kernel publishes data_head only when a CPU's
 * outermost output ends: what it reserved below the head meanwhile,
 * and all that interrupts nested in it wrote, is unpublished, and may
 * already lie over the copy's oldest bytes. Output runs with
 * preemption off, so by the time the caller asks (1 ms after the copy)
 * it has been published, and is left out as written
 * since the copy; 4 KiB (an eighth of a smaller ring) is left out
 * besides, for output still in flight then. Ours (fd -1, ring_push's)
 * have no writer. */
unsigned long ring_keep(struct ring *r, unsigned long base, unsigned long head, char *wrapped)
{
	unsigned long w = base - head, k = head - ring_head(r);

	k += r->fd < 0 ? 0 : r->size < 32768 ? r->size / 8 : 4096;
	k = k < r->size ? r->size - k : 0;
	*wrapped = w > k;
	return w < k ? w : k;
}

/* p[0, n) reversed, byte by byte (p 8-aligned, n a multiple of 8) */
static void rev(unsigned char *p, unsigned long n)
{
	uint64_t *a = (void *)p, *b = (void *)(p + n), t;

	while (a < b)
		t = __builtin_bswap64(*--b), *b = __builtin_bswap64(*a), *a++ = t;
}

/* The records of [head, head+avail) of a backward ring's copy b of
 * `size` bytes, as it lay, made to lie oldest first up to b + size, in
 * place (no second copy); returns where they begin. avail is how
 * much was written since the last look (prev - head), capped at the
 * ring size: when the ring has wrapped, the oldest record is partly
 * overwritten and is dropped, as is anything past a zero header (never
 * written). Rotated so that the head comes first (newest first), each
 * record reversed, then all: oldest first. The kernel's heads, and so
 * its records, are 8-aligned. */
unsigned char *ring_walk(unsigned char *b, unsigned long size, unsigned long head, unsigned long avail)
{
	unsigned long at = head & (size - 1), off = 0, len;

	if (avail > size)
		avail = size;
	rev(b, at), rev(b + at, size - at), rev(b, size);
	while (off + sizeof(struct rec_hdr) <= avail && (len = ((struct rec_hdr *)(b + off))->size) >= sizeof(struct rec_hdr) &&
	       !(len & 7) && off + len <= avail)
		rev(b + off, len), off += len;
	rev(b, size);
	return b + size - off;
}
