/* buildid.h - build-ids of mapped ELF files (buildid.c). */
#ifndef BUILDID_H
#define BUILDID_H

#include "ring.h"

/* The build-id of the file a mapping shows (path, device, inode): 20
 * bytes into id; its length, or 0. */
int bid_map(const char *path, u32 maj, u32 min, u64 ino, u8 *id);
/* An MMAP2 record's device and inode replaced by its file's build-id. */
void bid_mmap2(struct rec_hdr *h);

#endif
