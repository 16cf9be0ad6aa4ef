/* s3.c - AWS Signature Version 4 (the Authorization header of an S3
 * request): the canonical request is hashed as it is made, never held,
 * so a path or header of any length needs no buffer; what the header
 * repeats (the scope, the signed header names) is read back from the
 * output. */
#include <stdarg.h>
#include <string.h>
#include "lib.h"
#include "sha.h"
#include "s3.h"

/* l bytes of s at p, short of e with room left for a NUL; 0 when they
 * don't fit, and 0 stays 0. */
static char *s3_put(char *p, char *e, const char *s, size_t l)
{
	if (!p || (size_t)(e - p) <= l)
		return 0;
	memcpy(p, s, l);
	return p + l;
}

/* The strings up to a null pointer, as s3_put. */
static char *s3_cat(char *p, char *e, ...)
{
	va_list ap;
	const char *s;

	va_start(ap, e);
	while ((s = va_arg(ap, const char *)))
		p = s3_put(p, e, s, strlen(s));
	va_end(ap);
	return p;
}

/* n bytes of p and then c into the canonical request's hash */
static void s3_hash(struct sha256 *s, const char *p, size_t n, char c)
{
	sha256_add(s, p, n);
	sha256_add(s, &c, 1);
}

/* Header names that end at ':' or NUL, in byte order. */
static int s3_namecmp(const char *a, const char *b)
{
	while (*a == *b && *a && *a != ':')
		a++, b++;
	return (*a == ':' ? 0 : (u8)*a) - (*b == ':' ? 0 : (u8)*b);
}

/* HMAC chain from "AWS4" SECRET over the date, region, service and
 * "aws4_request". That first key is as s's buffer collects it, or, once
 * it is longer than HMAC's block, its hash: the same key to HMAC (RFC
 * 2104), so a secret of any length needs no buffer of its own. */
void s3_key(const struct s3req *r, u8 key[32])
{
	const char *m[4] = { r->amzdate, r->region, r->service, "aws4_request" };
	struct sha256 s;
	size_t n;
	int i;

	sha256_init(&s);
	sha256_add(&s, "AWS4", 4);
	sha256_add(&s, r->secret, strlen(r->secret));
	n = s.n;
	if (n > 64) {
		sha256_end(&s, s.b);
		n = 32;
	}
	for (i = 0; i < 4; i++, n = 32)
		hmac256(s.b, n, m[i], i ? strlen(m[i]) : 8, s.b);
	memcpy(key, s.b, 32);
	s3_wipe(&s, sizeof(s));	/* s.b past the key still held the secret */
}

size_t s3_auth(const struct s3req *r, char *o, size_t n)
{
	static const char *const fixed[3] = { "host", "x-amz-content-sha256", "x-amz-date" };
	static const char *const none;
	const char *val[3] = { r->host, r->payload, r->amzdate };
	const char *cr[3] = { r->method, r->path, r->query };
	const char *const *h = r->hdrs ? r->hdrs : &none;
	const char *nm, *v;
	char sts[256], date[9], *p, *e = o + n, *scope, *names, *q;
	struct sha256 s;
	size_t nl, sl;
	u8 d[32];
	int i = 0;

	if (strlen(r->amzdate) < 8)
		return 0;
	memcpy(date, r->amzdate, 8);
	date[8] = 0;
	p = s3_cat(o, e, "AWS4-HMAC-SHA256 Credential=", r->access, "/", (char *)0);
	if (!p)
		return 0;
	scope = p;
	p = s3_cat(p, e, date, "/", r->region, "/", r->service, "/aws4_request", (char *)0);
	if (!p)
		return 0;
	sl = p - scope;
	names = p = s3_cat(p, e, ", SignedHeaders=", (char *)0);

	/* the canonical request: METHOD PATH QUERY, the headers as
	 * name:value, the signed names, the payload's hash */
	sha256_init(&s);
	for (; i < 3; i++)
		s3_hash(&s, cr[i], strlen(cr[i]), '\n');
	for (i = 0;;) {
		if (i == 1 && r->no_content_sha)
			i++;
		if (i < 3 && (!*h || s3_namecmp(fixed[i], *h) < 0))
			nm = fixed[i], v = val[i++];
		else if (*h)
			nm = *h++, v = 0;
		else
			break;
		nl = span(nm, ":", 0);
		if (!v)
			v = nm + nl + !!nm[nl];
		s3_hash(&s, nm, nl, ':');
		s3_hash(&s, v, strlen(v), '\n');
		if (p != names)
			p = s3_put(p, e, ";", 1);
		p = s3_put(p, e, nm, nl);
	}
	if (!p)
		return 0;
	s3_hash(&s, names, 0, '\n');
	s3_hash(&s, names, p - names, '\n');
	sha256_add(&s, r->payload, strlen(r->payload));
	sha256_end(&s, d);

	/* the string to sign: the algorithm, the time, the scope, the
	 * canonical request's hash */
	q = s3_cat(sts, sts + sizeof(sts), "AWS4-HMAC-SHA256\n", r->amzdate, "\n", (char *)0);
	q = s3_put(q, sts + sizeof(sts), scope, sl);
	q = s3_put(q, sts + sizeof(sts), "\n", 1);
	if (!q || sts + sizeof(sts) - q < 65)
		return 0;
	hexstr(q, d, 32);
	s3_key(r, d);
	hmac256(d, 32, sts, q + 64 - sts, d);

	p = s3_cat(p, e, ", Signature=", (char *)0);
	if (!p || e - p < 65)
		return 0;
	hexstr(p, d, 32);
	return p + 64 - o;
}

/* RFC 3986's unreserved bytes and '/' as they are, the rest %XX. */
size_t s3_uri(char *o, size_t n, const char *key)
{
	size_t i = 0, k;
	u8 c;

	for (; (c = *key); key++) {
		k = (u8)((c | 32) - 'a') < 26 || (u8)(c - '0') < 10 || (c && xstrchr("-._~/", c)) ? 1 : 3;
		if (n - i <= k)
			return 0;
		if (k == 1) {
			o[i++] = c;
		} else {
			o[i++] = '%';
			o[i++] = "0123456789ABCDEF"[c >> 4];
			o[i++] = "0123456789ABCDEF"[c & 15];
		}
	}
	if (i >= n)
		return 0;
	o[i] = 0;
	return i;
}

/* ---- the store's answer (s3.h) ---- */

void s3_amzdate(char *o, u64 t)
{
	u64 d = t / 86400, s = t % 86400;
	/* days to the civil date (Howard Hinnant's algorithm) */
	u64 z = d + 719468, era = z / 146097, doe = z - era * 146097;
	u64 yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	u64 doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
	u64 day = doy - (153 * mp + 2) / 5 + 1, mon = mp < 10 ? mp + 3 : mp - 9;
	u64 y = yoe + era * 400 + (mon <= 2);
	u64 v[6] = { y, mon, day, s / 3600, s / 60 % 60, s % 60 };
	int i, w[6] = { 4, 2, 2, 2, 2, 2 };

	for (i = 0; i < 6; i++) {
		int k;

		for (k = w[i]; k--; v[i] /= 10)
			o[k] = '0' + v[i] % 10;
		o += w[i];
		if (i == 2)
			*o++ = 'T';
	}
	*o++ = 'Z';
	*o = 0;
}

u64 s3_httpdate(const char *s)
{
	static const char mon[] = "JanFebMarAprMayJunJulAugSepOctNovDec", form[] = "www, 00 mmm 0000 00:00:00 GMT";
	u64 d, m, y, hh, mm, ss;
	int i;

	for (i = 0; form[i]; i++)
		if (!s[i] || (form[i] == '0' ? (unsigned)(s[i] - '0') > 9 : form[i] != 'w' && form[i] != 'm' && s[i] != form[i]))
			return 0;
	for (m = 0; m < 12 && strncmp(s + 8, mon + 3 * m, 3); m++)
		;
	d = xtou(s + 5, 0, 10), y = xtou(s + 12, 0, 10);
	hh = xtou(s + 17, 0, 10), mm = xtou(s + 20, 0, 10), ss = xtou(s + 23, 0, 10);
	if (m++ == 12 || !d || d > 31 || y < 1970 || hh > 23 || mm > 59 || ss > 60)
		return 0;
	/* the civil date to days */
	y -= m <= 2;
	{
		u64 era = y / 400, yoe = y - era * 400;
		u64 doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
		u64 doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;

		return (era * 146097 + doe - 719468) * 86400 + hh * 3600 + mm * 60 + ss;
	}
}

char *s3_header(const char *h, const char *name)
{
	char *p = (char *)h, *end = xstrstr(h, "\r\n\r\n");
	size_t n = strlen(name);

	while ((p = xstrchr(p, '\n')) && (!end || p < end)) {
		size_t i;

		for (p++, i = 0; i < n && (p[i] | 32) == name[i]; i++)
			;
		if (i == n && p[n] == ':')
			return p + n + 1 + span(p + n + 1, " ", 1);
	}
	return 0;
}

int s3_status(const char *h, size_t n)
{
	if (n < 12 || strncmp(h, "HTTP/1.", 7) || h[8] != ' ' || span(h + 9, "0123456789", 1) != 3)
		return 0;
	return (h[9] - '0') * 100 + (h[10] - '0') * 10 + h[11] - '0';
}

int s3_whole(char *h, size_t *n, size_t max)
{
	char *b, *l;

	for (;;) {
		h[*n] = 0;
		if (!(b = xstrstr(h, "\r\n\r\n")))
			return *n >= max - 1;
		b += 4;
		if (s3_status(h, *n) / 100 != 1)
			break;
		*n -= b - h;
		memmove(h, b, *n + 1);
	}
	if (s3_status(h, *n) / 100 == 2)
		return 1;
	if ((l = s3_header(h, "content-length")) && (u64)(h + *n - b) >= xtou(l, 0, 10))
		return 1;	/* (lengths compared: no pointer past the buffer) */
	if ((l = s3_header(h, "transfer-encoding")) && !strncmp(l, "chunked", 7) &&
	    (!strncmp(b, "0\r\n", 3) || xstrstr(b, "\r\n0\r\n")))
		return 1;
	return *n >= max - 1;
}

char *s3_esc(char *o, size_t n, const char *s, const char *e)
{
	size_t k = 0;

	for (; s < e && k + 5 < n; s++) {
		if (*s > ' ' && *s <= '~' && *s != '\\') {
			o[k++] = *s;
		} else {
			o[k++] = '\\', o[k++] = 'x';
			o[k++] = "0123456789abcdef"[(u8)*s >> 4], o[k++] = "0123456789abcdef"[*s & 15];
		}
	}
	o[k] = 0;
	return o;
}
