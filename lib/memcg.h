/* memcg.h - what the memory cgroup we run in still allows. */
#ifndef MEMCG_H
#define MEMCG_H

#include "lib.h"

/* need more bytes for what ("the rings' copies"), or say so,
 * with the numbers, and exit 1 (where the OOM killer would kill). */
void memcg_check(u64 need, const char *what);

#endif
