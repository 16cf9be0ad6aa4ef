/* sha.h - SHA-256 and HMAC-SHA-256 (FIPS 180-4, RFC 2104), for signing
 * S3 uploads (s3.c). */
#ifndef SHA_H
#define SHA_H

#include "lib.h"

struct sha256 { u32 h[8]; u64 n; u8 b[64]; };	/* n: bytes so far */
void sha256_init(struct sha256 *s);
void sha256_add(struct sha256 *s, const void *p, size_t n);
void sha256_end(struct sha256 *s, u8 out[32]);
void sha256(const void *p, size_t n, u8 out[32]);
/* out may be key or msg: both are read before out is written. */
void hmac256(const void *key, size_t kn, const void *msg, size_t mn, u8 out[32]);
/* p's n bytes as lowercase hex at o, NUL-terminated (2n + 1 bytes); returns o. */
char *hexstr(char *o, const void *p, size_t n);

#endif
