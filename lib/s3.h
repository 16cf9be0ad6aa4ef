/* s3.h - AWS Signature Version 4 for S3 requests (s3.c): pure
 * functions, no I/O. */
#ifndef S3_H
#define S3_H

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

#endif
