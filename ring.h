/* ring.h - the perf ABI tracer uses, and its backward ring buffers.
 *
 * musl's compiler wrapper sees no kernel headers, so the few structs and
 * constants of <linux/perf_event.h> that we need are declared here. Any
 * musl cross toolchain builds tracer with nothing else.
 *
 * The ring contract with the kernel (kernel/events/ring_buffer.c):
 *
 * - Each CPU has one buffer, mapped PROT_READ from the first event's fd,
 *   opened with attr.write_backward. PROT_READ makes it overwritable: the
 *   kernel ignores data_tail and never stops writing.
 * - A writer reserves with head -= size and writes [head, head+size). So
 *   data_head starts at 0 and only decreases; the newest record sits at
 *   head, older ones follow at higher addresses, and the oldest may have
 *   been partly overwritten by the newest.
 * - data_head is published by the kernel after the record is written; we
 *   load it with acquire semantics, which pairs with the kernel's
 *   smp_store_release, behind an acquire fence, so that a copy's loads
 *   before it are done when it is read again (acquire alone orders only
 *   the loads after). No pause: ring_snap copies while the kernel
 *   writes, and leaves out what the writing may have spoilt meanwhile
 *   (ring.c).
 * - The kernel's data_head is an unsigned long. On a 32-bit kernel the u64
 *   in the user page holds a zero-extended 32-bit value that wraps at 2^32,
 *   and a 32-bit CPU can't load a u64 in one go anyway. So all head
 *   arithmetic is done in unsigned long, modulo 2^32 there: only the low
 *   bits matter for offsets, and differences stay right while less than
 *   4 GiB is written between two dumps of a stream. A dump since the
 *   start tells a head that went round 2^32 by the ring's unwritten
 *   bytes (ring_base).
 * - Nested output (an interrupt's records inside a task's) is published
 *   only when the outermost ends: the copy's oldest bytes may already
 *   be overwritten by what the head does not show yet. ring_keep asks
 *   the head again a while later, and leaves that out.
 * - Record headers never straddle the end of the buffer (the kernel pads
 *   with 8-byte alignment and the size is a power of two), but a record
 *   body may wrap.
 * - Before 4.7 (no write_backward; OLDKERNEL) the kernel's ring is a
 *   forward one, and ring_push moves its records into a ring of ours
 *   laid out as above, which the dump reads as it reads the kernel's.
 */
#ifndef RING_H
#define RING_H

#include <sys/ioctl.h>
#include <sys/syscall.h>
#include "lib.h"

/* struct perf_event_attr, PERF_ATTR_SIZE_VER7: the size host perf 6.1
 * knows, so it is accepted both by the kernel and by perf's file reader. */
#define ATTR_SIZE 128
struct perf_attr {
	u32 type, size;
	u64 config;
	u64 sample_period;	/* or sample_freq with ATTR_FREQ */
	u64 sample_type;
	u64 read_format;
	u64 flags;		/* ATTR_* bits below */
	u32 wakeup_events, bp_type;
	u64 config1, config2;
	u64 branch_sample_type;
	u64 sample_regs_user;
	u32 sample_stack_user;
	int32_t clockid;
	u64 sample_regs_intr;
	u32 aux_watermark;
	u16 sample_max_stack, reserved2;
	u32 aux_sample_size, reserved3;
	u64 sig_data;
};

#define BE (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)

/* perf_event_attr bitfield positions (little-endian bitfield layout of
 * the kernel's struct; big-endian ABIs number the bits from the top). */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define ATTR_BIT(n) (1ULL << (63 - (n)))
#else
#define ATTR_BIT(n) (1ULL << (n))
#endif
#define ATTR_DISABLED		ATTR_BIT(0)
#define ATTR_FREQ		ATTR_BIT(10)
#define ATTR_WATERMARK		ATTR_BIT(14)
#define ATTR_SAMPLE_ID_ALL	ATTR_BIT(18)
#define ATTR_EXCLUDE_GUEST	ATTR_BIT(20)
#define ATTR_EXCL_CALLCHAIN_USER ATTR_BIT(22)
#define ATTR_WRITE_BACKWARD	ATTR_BIT(27)

enum { TYPE_HARDWARE, TYPE_SOFTWARE, TYPE_TRACEPOINT };

#define S_IP		(1U << 0)
#define S_TID		(1U << 1)
#define S_TIME		(1U << 2)
#define S_CPU		(1U << 7)
#define S_PERIOD	(1U << 8)
#define S_CALLCHAIN	(1U << 5)
#define S_RAW		(1U << 10)
#define S_IDENTIFIER	(1U << 16)

/* Record types: kernel ones, then the ones only perf.data files carry. */
enum {
	REC_MMAP = 1, REC_LOST = 2, REC_COMM = 3, REC_EXIT = 4, REC_FORK = 7,
	REC_SAMPLE = 9, REC_MMAP2 = 10,
	REC_HEADER_ATTR = 64, REC_HEADER_TRACING_DATA = 66,
	REC_HEADER_BUILD_ID = 67, REC_FINISHED_ROUND = 68,
	REC_HEADER_FEATURE = 80, REC_COMPRESSED = 81,
};
#define MISC_KERNEL 1
#define MISC_USER 2
#define MISC_MMAP_BUILD_ID 0x4000

struct rec_hdr {
	u32 type;
	u16 misc, size;
};

/* The perf ioctls, encoded by musl's _IO/_IOR/_IOW for this arch: the
 * direction bits differ (mips, powerpc, sparc and alpha put three of them
 * at bit 29). IOC_ID's size is a pointer's, as the kernel declares it. */
#define IOC_ENABLE		_IO('$', 0)
#define IOC_SET_OUTPUT		_IO('$', 5)
#define IOC_SET_FILTER		_IOW('$', 6, char *)
#define IOC_ID			_IOR('$', 7, u64 *)
#define IOC_PAUSE_OUTPUT	_IOW('$', 9, u32)

/* Offsets in the first (user) page of the mapping. */
#define PG_DATA_HEAD 1024
#define PG_DATA_TAIL 1032
#define PG_DATA_OFFSET 1040

struct ring {
	unsigned char *base;	/* the user page, then data */
	unsigned char *data;
	unsigned long size;	/* data bytes: a power of two */
	unsigned long prev;	/* backward: head at the previous stream dump;
				   forward: our data_tail */
	int fd;			/* the CPU's first event: owns the ring */
	int cpu;
};

int ring_event_open(struct perf_attr *a, int cpu, int group);
int ring_hw(u64 config);
unsigned long ring_size(unsigned long want);
int ring_map(struct ring *r, int fd, int cpu, unsigned long size, int forward);
int ring_attach(struct ring *r, int fd);
int ring_pause(struct ring *r, int paused);
unsigned long ring_head(struct ring *r);
void ring_read(struct ring *r, void (*fn)(const struct rec_hdr *, void *), void *ctx);
void ring_push(const struct rec_hdr *h, void *u);
unsigned long ring_snap(struct ring *r, unsigned long base, unsigned char *dst, int tries);
unsigned long ring_base(struct ring *r, unsigned long base);
unsigned long ring_keep(struct ring *r, unsigned long base, unsigned long head, char *wrapped);
unsigned char *ring_walk(unsigned char *b, unsigned long size, unsigned long head, unsigned long avail);

#endif
