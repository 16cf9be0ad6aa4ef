/* f_pull.c - the pull protocol without sockets: a client's key line as
 * it comes in pieces (key_line(), fed as pull_keyline() feeds it), the
 * listen= address (pull_addr(), pull_open_addr()) and the rate limit
 * (pull_rate()).
 *
 * Input: byte 0: the key's length (16 + b % 113); the key (a newline
 * or CR in it is an 'a': a key file's first line has none); then
 * pieces, each a length byte and that many bytes, as read() would
 * return them (length 0: the client's end of writing), until the line
 * is decided or the input ends; then a NUL-ended listen= address; then
 * the rest as times (8 bytes each) for the rate limit.
 * Each answer is checked against the line worked out whole. */
#include <sys/un.h>
#include "fz.h"
#include "pull.c"

/* What the line must be judged: -1 while undecided, else 1 if its
 * first line is the key. s: every byte the client sent, n of them;
 * eof: it ended its writing after them. */
static int judge(const uint8_t *s, size_t n, int eof)
{
	size_t m = n < KEY_MAX + 2 ? n : KEY_MAX + 2, k;
	const uint8_t *nl = memchr(s, '\n', m);

	if (!nl && !eof && m < KEY_MAX + 2)
		return -1;
	k = nl ? (size_t)(nl - s) : m;
	if (k && s[k - 1] == '\r')
		k--;
	return k == keylen && !memcmp(s, key, k);
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	struct fz_in in = { d, n };
	static uint8_t sent[1 << 16];
	struct pend s;
	size_t tot = 0;
	int r = -1, eof = 0;
	unsigned i;

	fz_persist = 0;
	memset(key, 0, sizeof(key));
	keylen = KEY_MIN + fz_u8(&in) % (KEY_MAX - KEY_MIN + 1);
	fz_bytes(&in, key, keylen);
	for (i = 0; i < keylen; i++)
		if (key[i] == '\n' || key[i] == '\r')
			key[i] = 'a';
	memset(&s, 0, sizeof(s));
	while (r < 0 && in.n && !eof) {
		unsigned want = fz_u8(&in), k = want;

		if (k > sizeof(s.b) - s.n)
			k = sizeof(s.b) - s.n;	/* read() takes what fits */
		if (k > in.n)
			k = in.n;
		eof = !want;
		memcpy(s.b + s.n, in.p, k);
		memcpy(sent + tot, in.p, k);
		in.p += k, in.n -= k, s.n += k, tot += k;
		r = key_line(s.b, s.n, eof);
		FZ_CHECK(r == judge(sent, tot, eof), "key_line %d, the whole line %d (%zu bytes, eof %d)",
			 r, judge(sent, tot, eof), tot, eof);
		FZ_CHECK(s.n <= sizeof(s.b), "%u bytes in a buffer of %zu", s.n, sizeof(s.b));
	}
	{
		union { struct sockaddr_in in; struct sockaddr_un un; } a;
		char spec[256];
		unsigned len = 0, k = 0;

		while (k < sizeof(spec) - 1 && in.n && (spec[k] = fz_u8(&in)))
			k++;
		spec[k] = 0;
		if (!pull_addr(spec, &a, &len)) {
			FZ_CHECK(len <= sizeof(a), "length %u", len);
			FZ_CHECK(a.in.sin_family == AF_INET ? len == sizeof(a.in) :
				 a.un.sun_family == AF_UNIX && *spec == '@' &&
				 len == offsetof(struct sockaddr_un, sun_path) + strlen(spec),
				 "'%s': family %d, length %u", spec, a.in.sin_family, len);
			FZ_CHECK(pull_open_addr(spec) == (a.in.sin_family == AF_INET &&
				 ((const u8 *)&a.in.sin_addr)[0] != 127), "'%s': open", spec);
		} else {
			FZ_CHECK(!pull_open_addr(spec), "'%s' is no address, and open", spec);
		}
	}
	{
		u64 t = 0, now = 0, t0, dt;
		int ms, go = 0;

		while (in.n) {
			now += dt = fz_uN(&in, 4);
			t0 = t;
			ms = pull_rate(&t, now);
			FZ_CHECK(ms >= 0 && ms <= (int)((u64)PULL_BURST * PULL_EVERY / 1000 + 1), "%d ms", ms);
			FZ_CHECK(t == (t0 < now ? now : t0) + (ms ? 0 : PULL_EVERY),
				 "t %llu from %llu at %llu: %d ms", (unsigned long long)t, (unsigned long long)t0,
				 (unsigned long long)now, ms);
			/* at one instant, no more than the burst */
			go = (dt ? 0 : go) + !ms;
			FZ_CHECK(go <= PULL_BURST, "%d at one instant", go);
		}
	}
	fz_free_all();
	return 0;
}
