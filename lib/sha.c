/* sha.c - SHA-256 (FIPS 180-4) and HMAC-SHA-256 (RFC 2104). Small
 * rather than fast: one round loop, the state shifted a word each round.
 * Words are built from bytes, big-endian as the standard says, so the
 * code reads the same on any byte order and never loads a word from an
 * address that may be unaligned. */
#include <string.h>
#include "lib.h"
#include "sha.h"

/* The first 32 bits of the fractional parts of the cube roots of the
 * first 64 primes (FIPS 180-4 4.2.2), then of the square roots of the
 * first 8 (5.3.3: the initial hash value). */
static const u32 sha_k[64 + 8] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
	0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

static u32 ror(u32 x, int n)
{
	return x >> n | x << (32 - n);
}

/* One 64-byte block into the state h. */
static void sha_block(u32 *h, const u8 *p)
{
	u32 w[64], v[8], t, u;
	int i, j;

	for (i = 0; i < 64; i++, p += 4) {
		if (i < 16)
			w[i] = (u32)p[0] << 24 | (u32)p[1] << 16 | (u32)p[2] << 8 | p[3];
		else
			w[i] = w[i - 16] + w[i - 7] +
				(ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ w[i - 15] >> 3) +
				(ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ w[i - 2] >> 10);
	}
	memcpy(v, h, sizeof(v));
	for (i = 0; i < 64; i++) {
		/* v: a b c d e f g h */
		t = v[7] + (ror(v[4], 6) ^ ror(v[4], 11) ^ ror(v[4], 25)) +
			((v[4] & v[5]) ^ (~v[4] & v[6])) + sha_k[i] + w[i];
		u = (ror(v[0], 2) ^ ror(v[0], 13) ^ ror(v[0], 22)) +
			((v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]));
		for (j = 7; j; j--)
			v[j] = v[j - 1];
		v[4] += t;
		v[0] = t + u;
	}
	for (i = 0; i < 8; i++)
		h[i] += v[i];
}

void sha256_init(struct sha256 *s)
{
	memcpy(s->h, sha_k + 64, sizeof(s->h));
	s->n = 0;
}

void sha256_add(struct sha256 *s, const void *p, size_t n)
{
	const u8 *c = p;

	while (n) {
		/* whole blocks straight from the caller's bytes */
		if (!(s->n % 64) && n >= 64) {
			sha_block(s->h, c);
			c += 64, n -= 64, s->n += 64;
			continue;
		}
		s->b[s->n++ % 64] = *c++;
		n--;
		if (!(s->n % 64))
			sha_block(s->h, s->b);
	}
}

/* The padding: 0x80, zeros up to 56 mod 64, the length in bits as 8
 * bytes big-endian. */
void sha256_end(struct sha256 *s, u8 out[32])
{
	u64 bits = s->n * 8;
	u8 c = 0x80;
	int i;

	do {
		sha256_add(s, &c, 1);
		c = 0;
	} while (s->n % 64 != 56);
	for (i = 56; i >= 0; i -= 8) {
		c = bits >> i;
		sha256_add(s, &c, 1);
	}
	for (i = 0; i < 32; i++)
		out[i] = s->h[i / 4] >> (24 - i % 4 * 8);
}

void sha256(const void *p, size_t n, u8 out[32])
{
	struct sha256 s;

	sha256_init(&s);
	sha256_add(&s, p, n);
	sha256_end(&s, out);
}

/* H((K ^ opad) || H((K ^ ipad) || msg)), K zero-padded to the block, or
 * hashed first when longer than it. */
void hmac256(const void *key, size_t kn, const void *msg, size_t mn, u8 out[32])
{
	struct sha256 s;
	u8 k[64], h[32];
	int i, pass;

	memset(k, 0, sizeof(k));
	if (kn > 64)
		sha256(key, kn, k);
	else
		memcpy(k, key, kn);
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < 64; i++)
			k[i] ^= pass ? 0x36 ^ 0x5c : 0x36;
		sha256_init(&s);
		sha256_add(&s, k, 64);
		sha256_add(&s, pass ? h : msg, pass ? 32 : mn);
		sha256_end(&s, h);
	}
	memcpy(out, h, 32);
}

char *hexstr(char *o, const void *p, size_t n)
{
	const u8 *c = p;
	char *q = o;

	while (n--) {
		*q++ = "0123456789abcdef"[*c >> 4];
		*q++ = "0123456789abcdef"[*c++ & 15];
	}
	*q = 0;
	return o;
}
