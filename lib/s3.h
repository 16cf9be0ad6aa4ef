/* s3.h - AWS Signature Version 4 for S3 requests (s3.c): pure
 * functions, no I/O, and the reading of the store's answer. */
#ifndef S3_H
#define S3_H

#include <string.h>
#include "lib.h"

struct s3req {
	const char *method;	/* "PUT" */
	const char *host;	/* the Host header's value: "127.0.0.1:8080" */
	const char *path;	/* the canonical URI, already URI-encoded: "/bucket/a/b.data" */
	const char *query;	/* canonical query string, or "" */
	const char *amzdate;	/* "20261127T120401Z" (its first 8 chars are the date) */
	const char *region, *service;	/* "us-east-1", "s3" */
	const char *access, *secret;
	const char *payload;	/* hex SHA-256 of the body, or "UNSIGNED-PAYLOAD" */
	const char *const *hdrs;	/* more headers to sign, "name:value" with lowercase names, sorted by name, trimmed values; 0-terminated; may be 0 */
	int no_content_sha;	/* 1: don't sign x-amz-content-sha256 (only for the AWS test-suite vectors, which don't) */
};
/* The Authorization header's value into o (at most n bytes, NUL-terminated):
 * "AWS4-HMAC-SHA256 Credential=ACCESS/DATE/REGION/SERVICE/aws4_request, SignedHeaders=..., Signature=..."
 * Signed headers: host, x-amz-content-sha256 (unless no_content_sha), x-amz-date, and hdrs, all in sorted order.
 * Returns its length, or 0 if it does not fit. */
size_t s3_auth(const struct s3req *r, char *o, size_t n);
/* The URI-encoding of an S3 key path into o: unreserved chars (A-Z a-z 0-9 - . _ ~) and '/' as they are, every other byte %XX uppercase; returns the length or 0 if it does not fit */
size_t s3_uri(char *o, size_t n, const char *key);
/* The signing key of r's secret, date, region and service (s3_auth
 * signs with it; apart for the test of the documented example). */
void s3_key(const struct s3req *r, u8 key[32]);
/* The store's answer, h of n bytes (NUL-ended). Its status ("HTTP/1.1
 * 200"), or 0: none, or too short to have one. */
int s3_status(const char *h, size_t n);
/* In its head, header name's (lowercase) value, to the line's end; or 0 */
char *s3_header(const char *h, const char *name);
/* 1 once the answer in h (*n bytes, in a buffer of max) is all a
 * client needs: a 2xx's head; another's body to its Content-Length or
 * a chunked end, for the S3 error code; or a full buffer. An interim
 * 1xx ("100 Continue") is taken out: the final answer follows it. */
int s3_whole(char *h, size_t *n, size_t max);
/* A Date: header's time (s since 1970), or 0: RFC 9110's form ("Fri, 27
 * Nov 2026 12:04:01 GMT"), every field in its bounds, nothing read past
 * its end */
u64 s3_httpdate(const char *s);
/* YYYYMMDDTHHMMSSZ for t (s since 1970), 17 bytes with the NUL */
void s3_amzdate(char *o, u64 t);
/* s up to e into o, n bytes at most: printable ASCII, and \xHH for any
 * other byte, so that a store's words forge no line and no escape */
char *s3_esc(char *o, size_t n, const char *s, const char *e);
/* n bytes at p zeroed where the compiler sees no later read (a secret
 * on the stack), which memset alone may leave out */
static inline void s3_wipe(void *p, size_t n)
{
	memset(p, 0, n);
	__asm__ __volatile__("" : : "r"(p) : "memory");
}

#endif
