/* pushcfg.h - push='s config and credentials (pushcfg.c), for push.c. */
#ifndef PUSHCFG_H
#define PUSHCFG_H

#include "lib.h"

extern char *pc_s3key, *pc_region, *pc_spool_dir;	/* s3key= region= spool=DIR */
extern long pc_spool_max;		/* spool=N */
extern u64 pc_spool_bytes;		/* spool=SIZE */
extern char pc_host[128], *pc_bucket, *pc_prefix, *pc_via;	/* bucket 0: style=virtual */
extern char pc_who[200];		/* host, and via=: for what is said */
extern u64 pc_sa[16];			/* where to connect */
extern unsigned pc_salen;
extern int pc_keys;			/* s3key= region= spool= via= style= given */
/* s3key='s id and secret into id and sec (128 bytes each); 0 or why not */
const char *push_cred(char *id, char *sec);

#endif
