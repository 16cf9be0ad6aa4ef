/* shatest.c - lib/sha.c and lib/s3.c against published test vectors;
 * one line per vector, "ok NAME" or "FAIL NAME: got X want Y"; exit 1
 * on any failure. "shatest lens" prints digests of made-up data of many
 * lengths instead, for t_sha.sh to compare with python3's hashlib and
 * hmac (an independent implementation). Built with musl-gcc -static
 * -I. -Ilib test/shatest.c lib/sha.c lib/s3.c lib/lib.c. */
#include <stdio.h>
#include <string.h>
#include "lib.h"
#include "sha.h"
#include "s3.h"

static int bad;

static void check(const char *name, const char *got, const char *want)
{
	if (!strcmp(got, want)) {
		printf("ok %s\n", name);
	} else {
		printf("FAIL %s: got %s want %s\n", name, got, want);
		bad = 1;
	}
}

static void check_sha(const char *name, const void *p, size_t n, const char *want)
{
	u8 d[32];
	char h[65];

	sha256(p, n, d);
	check(name, hexstr(h, d, 32), want);
}

/* want may be shorter than the MAC: RFC 4231 case 5 keeps 128 bits. */
static void check_hmac(const char *name, const void *k, size_t kn, const void *m, size_t mn, const char *want)
{
	u8 d[32];
	char h[65];

	hmac256(k, kn, m, mn, d);
	hexstr(h, d, strlen(want) / 2);
	check(name, h, want);
}

static void check_auth(const char *name, const struct s3req *r, const char *want)
{
	char o[512];

	if (!s3_auth(r, o, sizeof(o)))
		strcpy(o, "(0: does not fit)");
	check(name, o, want);
}

/* FIPS 180-2 appendix B (and NIST's "SHA256.pdf" examples): "abc", the
 * two-block message, one million 'a'; the empty string's digest as NIST's
 * CAVS SHA256ShortMsg.rsp gives it for Len = 0. */
static void test_sha(void)
{
	static const size_t piece[] = { 1, 7, 63, 64, 65, 127, 200, 3, 55, 56, 57 };
	struct sha256 s;
	char a[1000], h[65];
	size_t left = 1000000, i = 0, k;
	u8 d[32];

	check_sha("sha256 abc (FIPS 180-2 B.1)", "abc", 3,
		"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	check_sha("sha256 448 bits (FIPS 180-2 B.2)", "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56,
		"248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	check_sha("sha256 empty (NIST SHA256ShortMsg Len=0)", "", 0,
		"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	memset(a, 'a', sizeof(a));
	sha256_init(&s);
	while (left) {
		k = piece[i++ % (sizeof(piece) / sizeof(*piece))];
		k = k < left ? k : left;
		sha256_add(&s, a, k);
		left -= k;
	}
	sha256_end(&s, d);
	check("sha256 one million a in odd pieces (FIPS 180-2 B.3)", hexstr(h, d, 32),
		"cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	/* the S3 API reference's PUT Object example: its
	 * x-amz-content-sha256 of the body */
	check_sha("sha256 S3 doc PUT Object body", "Welcome to Amazon S3.", 21,
		"44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072");
}

/* RFC 4231 section 4, test cases 1 to 7 (HMAC-SHA-256 rows). */
static void test_hmac(void)
{
	u8 k[131], m[50];
	int i;

	memset(k, 0x0b, 20);
	check_hmac("hmac256 RFC 4231 case 1", k, 20, "Hi There", 8,
		"b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
	check_hmac("hmac256 RFC 4231 case 2", "Jefe", 4, "what do ya want for nothing?", 28,
		"5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
	memset(k, 0xaa, 20);
	memset(m, 0xdd, 50);
	check_hmac("hmac256 RFC 4231 case 3", k, 20, m, 50,
		"773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe");
	for (i = 0; i < 25; i++)
		k[i] = i + 1;
	memset(m, 0xcd, 50);
	check_hmac("hmac256 RFC 4231 case 4", k, 25, m, 50,
		"82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b");
	memset(k, 0x0c, 20);
	check_hmac("hmac256 RFC 4231 case 5 (128 bits)", k, 20, "Test With Truncation", 20,
		"a3b6167473100ee06e0c796c2955552b");
	memset(k, 0xaa, 131);
	check_hmac("hmac256 RFC 4231 case 6 (131-byte key)", k, 131,
		"Test Using Larger Than Block-Size Key - Hash Key First", 54,
		"60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
	check_hmac("hmac256 RFC 4231 case 7 (131-byte key)", k, 131,
		"This is a test using a larger than block-size key and a larger than block-size data."
		" The key needs to be hashed before being used by the HMAC algorithm.", 152,
		"9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2");
}

#define EMPTY "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

/* The AWS General Reference's SigV4 examples ("Create a signed AWS API
 * request": the IAM ListUsers request; its signing key under "Derive a
 * signing key"), and the AWS SigV4 test suite (aws-sig-v4-test-suite,
 * get-vanilla/get-vanilla.authz). */
static void test_sigv4(void)
{
	static const char *const iam_hdrs[] = { "content-type:application/x-www-form-urlencoded; charset=utf-8", 0 };
	struct s3req r = {
		.method = "GET", .host = "iam.amazonaws.com", .path = "/",
		.query = "Action=ListUsers&Version=2010-05-08", .amzdate = "20150830T123600Z",
		.region = "us-east-1", .service = "iam",
		.access = "AKIDEXAMPLE", .secret = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
		.payload = EMPTY, .hdrs = iam_hdrs, .no_content_sha = 1,
	};
	char h[65];
	u8 k[32];

	s3_key(&r, k);
	check("sigv4 signing key (AWS doc, 20150830 us-east-1 iam)", hexstr(h, k, 32),
		"c4afb1cc5771d871763a393e44b703571b55cc28424d1a5e86da6ed3c154a4b9");
	check_auth("sigv4 IAM ListUsers (AWS doc)", &r,
		"AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/iam/aws4_request, "
		"SignedHeaders=content-type;host;x-amz-date, "
		"Signature=5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7");
	r.host = "example.amazonaws.com";
	r.query = "";
	r.service = "service";
	r.hdrs = 0;
	check_auth("sigv4 test suite get-vanilla", &r,
		"AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
		"SignedHeaders=host;x-amz-date, "
		"Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31");
}

/* The S3 API reference, "Signature Calculations for the Authorization
 * Header: Transferring Payload in a Single Chunk", its examples: GET
 * Object, PUT Object, GET Bucket Lifecycle, GET Bucket (List Objects).
 * The page prints the header with "," between the parts; these are the
 * same headers as s3_auth writes them, ", " as the SigV4 reference and
 * its test suite do (S3 takes either), the published signatures as
 * they are. */
#define S3CRED "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders="
static void test_s3(void)
{
	static const char *const get_hdrs[] = { "range:bytes=0-9", 0 };
	static const char *const put_hdrs[] = { "date:Fri, 24 May 2013 00:00:00 GMT", "x-amz-storage-class:REDUCED_REDUNDANCY", 0 };
	struct s3req r = {
		.method = "GET", .host = "examplebucket.s3.amazonaws.com", .path = "/test.txt",
		.query = "", .amzdate = "20130524T000000Z", .region = "us-east-1", .service = "s3",
		.access = "AKIAIOSFODNN7EXAMPLE", .secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
		.payload = EMPTY, .hdrs = get_hdrs,
	};
	char path[64], body[65], o[512];
	u8 d[32];
	size_t n;

	check_auth("s3 doc GET Object", &r, S3CRED
		"host;range;x-amz-content-sha256;x-amz-date, "
		"Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");

	/* the key "test$file.text": the canonical URI the page gives */
	s3_uri(path, sizeof(path), "/test$file.text");
	check("s3_uri S3 doc PUT Object key", path, "/test%24file.text");
	sha256("Welcome to Amazon S3.", 21, d);
	r.method = "PUT";
	r.path = path;
	r.payload = hexstr(body, d, 32);
	r.hdrs = put_hdrs;
	check_auth("s3 doc PUT Object", &r, S3CRED
		"date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class, "
		"Signature=98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd");

	r.method = "GET";
	r.path = "/";
	r.query = "lifecycle=";
	r.payload = EMPTY;
	r.hdrs = 0;
	check_auth("s3 doc GET Bucket Lifecycle", &r, S3CRED
		"host;x-amz-content-sha256;x-amz-date, "
		"Signature=fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543");
	r.query = "max-keys=2&prefix=J";
	check_auth("s3 doc GET Bucket (List Objects)", &r, S3CRED
		"host;x-amz-content-sha256;x-amz-date, "
		"Signature=34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7");

	/* Not published vectors: the bounds, and the encoding rule as the
	 * brief and RFC 3986 2.3 state it. */
	n = s3_auth(&r, o, sizeof(o));
	snprintf(body, sizeof(body), "%zu %zu %zu", n == strlen(o) ? n : 0, s3_auth(&r, o, n), s3_auth(&r, o, n + 1));
	snprintf(path, sizeof(path), "%zu 0 %zu", n, n);
	check("s3_auth: its length; 0 when the NUL does not fit", body, path);
	n = s3_uri(o, sizeof(o), "/b/A-z_0.9~ +%\x7f\xc3\xa4:");
	check("s3_uri: unreserved and / kept, the rest %XX", o, "/b/A-z_0.9~%20%2B%25%7F%C3%A4%3A");
	snprintf(body, sizeof(body), "%zu %zu %zu", n, s3_uri(o, 32, "/b/A-z_0.9~ +%\x7f\xc3\xa4:"),
		s3_uri(o, 33, "/b/A-z_0.9~ +%\x7f\xc3\xa4:"));
	check("s3_uri: its length; 0 when it does not fit", body, "32 0 32");
}

/* Made-up data of every length from 0 to 300 and a few more, fed in
 * pieces of length % 13 + 1 bytes: "LEN SHA256 HMAC" with the first
 * LEN % 150 bytes as the key; then "key LEN SIGNING-KEY". */
static void lens(void)
{
	static const size_t more[] = { 511, 512, 513, 1000, 4095, 4096, 65537 };
	static u8 p[65537];
	struct sha256 s;
	char h[65], g[101];
	size_t n, i, k;
	u8 d[32];

	for (i = 0; i < sizeof(p); i++)
		p[i] = i * 31 + 7;
	for (n = 0; n < 301 + sizeof(more) / sizeof(*more); n++) {
		size_t l = n < 301 ? n : more[n - 301];

		sha256_init(&s);
		for (i = 0; i < l; i += k) {
			k = l % 13 + 1;
			sha256_add(&s, p + i, k < l - i ? k : l - i);
		}
		sha256_end(&s, d);
		hexstr(h, d, 32);
		hmac256(p, l % 150, p, l, d);
		printf("%zu %s %s\n", l, h, hexstr(g, d, 32));
	}
	/* the signing key of secrets of 0 to 100 letters: past 60, "AWS4"
	 * SECRET is longer than HMAC's block */
	for (n = 0; n <= 100; n++) {
		struct s3req r = { .amzdate = "20261127T120401Z", .region = "us-east-1", .service = "s3", .secret = g };

		for (i = 0; i < n; i++)
			g[i] = 'A' + i % 26;
		g[n] = 0;
		s3_key(&r, d);
		printf("key %zu %s\n", n, hexstr(h, d, 32));
	}
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "lens")) {
		lens();
		return 0;
	}
	test_sha();
	test_hmac();
	test_sigv4();
	test_s3();
	return bad;
}
