/* pushcfg.c - push='s config (push= s3key= region= spool= via= style=)
 * and its credentials file, for push.c. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "config.h"
#include "pull.h"
#include "s3.h"
#include "push.h"
#include "pushcfg.h"

char *cfg_push;
char *pc_s3key, *pc_region = "us-east-1", *pc_spool_dir;
long pc_spool_max = 8;
u64 pc_spool_bytes = 32 << 20;
char pc_host[128], *pc_bucket, *pc_prefix = "", *pc_via;	/* host: signed for; via: connected to */
char pc_who[200];	/* host, and via= (for what is said) */
static int pc_vhost;	/* style=virtual: the bucket is host's first label */
u64 pc_sa[16];		/* the store's address (pull_addr's) */
unsigned pc_salen;

/* host[:port] from /etc/hosts or as an address, into sa */
static const char *resolve(const char *h, const char *port)
{
	static char b[8192];
	char ip[40], spec[64], *p, *nl;
	long n;

	/* TCP only: pull_addr's "@NAME" is an abstract socket, which any
	 * local process may bind and so be handed the signed PUT */
	fmt(spec, sizeof(spec), "%s:%s", h, port);
	if (*h != '@' && !pull_addr(spec, pc_sa, &pc_salen))
		return 0;
	n = readfile("/etc/hosts", b, sizeof(b) - 1);
	b[n > 0 ? n : 0] = 0;
	for (p = b; *p; p = nl + !!*nl) {
		char *w, *e;

		nl = p + span(p, "\n", 0);
		e = p + span(p, "#\n", 0);
		w = p + span(p, " \t", 1);
		n = span(w, " \t#\n", 0);
		if (w >= e || (size_t)n >= sizeof(ip))
			continue;
		memcpy(ip, w, n), ip[n] = 0;
		for (w += n; w < e; w += n) {
			w += span(w, " \t", 1);
			n = span(w, " \t#\n", 0);
			if (n && (size_t)n == strlen(h) && !memcmp(w, h, n)) {
				fmt(spec, sizeof(spec), "%s:%s", ip, port);
				if (*ip != '@' && !pull_addr(spec, pc_sa, &pc_salen))
					return 0;
			}
		}
	}
	return "not an IPv4 address, nor a name /etc/hosts gives one (no DNS here)";
}

/* ADDR[:PORT] (80 by default) into sa */
static const char *addr(const char *a)
{
	char hn[128];
	size_t n = span(a, ":", 0);

	if (n >= sizeof(hn))
		return "an address of at most 127 bytes";
	memcpy(hn, a, n), hn[n] = 0;
	return resolve(hn, a[n] ? a + n + 1 : "80");
}

#define URL "push=http://HOST[:PORT]/BUCKET[/PREFIX], or with style=virtual http://BUCKET.HOST[:PORT][/PREFIX]"

/* push=, with style= known: host, bucket (path style), prefix */
static const char *url(char *v)
{
	char *h, *p, *c, b[104];

	if (!strncmp(v, "https://", 8))
		return "no TLS in tracer: push=http://HOST/... via=ADDR:PORT, a TLS terminator such as stunnel (doc/push.md)";
	if (strncmp(v, "http://", 7))
		return URL;
	h = v + 7;
	p = h + span(h, "/", 0);
	if (p == h || p - h >= (long)sizeof(pc_host))
		return URL ": a host of 1 to 127 bytes";
	memcpy(pc_host, h, p - h);
	pc_host[p - h] = 0;
	/* The Host header as it is signed: a name, and a port */
	c = pc_host + span(pc_host, "abcdefghijklmnopqrstuvwxyz0123456789.-ABCDEFGHIJKLMNOPQRSTUVWXYZ", 1);
	if (*c && (*c != ':' || !c[1] || c[1 + span(c + 1, "0123456789", 1)] || c == pc_host))
		return URL ": HOST is letters, digits, '.' and '-', then :PORT";
	pc_bucket = xstrdup(*p ? p + 1 : p);
	if (pc_vhost) {	/* the path is the prefix */
		pc_prefix = pc_bucket, pc_bucket = 0;
	} else if (!*pc_bucket || *pc_bucket == '/') {
		return URL ": a bucket is needed";
	} else if ((c = xstrchr(pc_bucket, '/'))) {
		*c++ = 0;
		pc_prefix = c;
	}
	for (c = pc_prefix + strlen(pc_prefix); c > pc_prefix && c[-1] == '/'; )
		*--c = 0;
	/* The bucket goes into the path as it is: S3's names only (no '?',
	 * '%' or '#' that would make another request). The prefix as the
	 * signed path has it, percent-encoded: room for the rest of the key
	 * in path[] (start()) whatever its bytes. */
	c = pc_bucket ? pc_bucket + span(pc_bucket, "abcdefghijklmnopqrstuvwxyz0123456789.-_ABCDEFGHIJKLMNOPQRSTUVWXYZ", 1) : "";
	if (*c || (pc_bucket && strlen(pc_bucket) > 63))
		return "a bucket is 1 to 63 letters, digits, '.', '-' or '_'";
	if (*pc_prefix == '.' || xstrstr(pc_prefix, "//") || xstrstr(pc_prefix, "/.") || (*pc_prefix && !s3_uri(b, 101, pc_prefix)))
		return "a prefix of at most 100 bytes once percent-encoded (3 for a byte not A-Z a-z 0-9 - . _ ~ /), "
		       "no segment empty or beginning with '.'";
	return 0;
}

static char *pc_ptok, *pc_vtok;	/* push='s and via='s tokens */

const char *push_cfg(char **tok)
{
	const char *why;

	if (!cfg_push)
		return 0;
	*tok = pc_ptok;
	if ((why = url(cfg_push)))
		return why;
	fmt(pc_who, sizeof(pc_who), pc_via ? "%s via %s" : "%s", pc_host, pc_via);
	if (pc_via)
		return (why = addr(pc_via)) ? *tok = pc_vtok, why : 0;
	return addr(pc_host) ? "HOST is not an IPv4 address, nor a name /etc/hosts gives one (no DNS here; "
			    "via=ADDR:PORT connects there and signs for HOST)" : 0;
}

int pc_keys;	/* s3key= region= spool= via= style= given */

int push_key(const char *key, char *val, const char **why)
{
	*why = 0;
	pc_keys += !!strcmp(key, "push");
	if (!strcmp(key, "push")) {
		if (cfg_push)
			*why = "given twice: each key once";
		cfg_push = val, pc_ptok = val - 5;
	} else if (!strcmp(key, "via")) {
		if (pc_via)
			*why = "given twice: each key once";
		else if (!*val)
			*why = "via=ADDR[:PORT]: where to connect (a TLS terminator), signing for push='s HOST";
		pc_via = val, pc_vtok = val - 4;
	} else if (!strcmp(key, "style")) {
		pc_vhost = !strcmp(val, "virtual");
		if (!pc_vhost && strcmp(val, "path"))
			*why = "style=path (http://HOST/BUCKET/PREFIX) or style=virtual (http://BUCKET.HOST/PREFIX)";
	} else if (!strcmp(key, "s3key")) {
		pc_s3key = val;
	} else if (!strcmp(key, "region")) {
		if (!*val || strlen(val) > 32 || val[span(val, "abcdefghijklmnopqrstuvwxyz0123456789-", 1)])
			*why = "region=NAME: us-east-1, eu-central-1, ...";
		pc_region = val;
	} else if (!strcmp(key, "spool")) {
		if (*val == '/') {
			pc_spool_dir = val;
			if (strlen(val) > 200)
				*why = "spool=DIR: a path of at most 200 bytes";
		} else {
			u64 v = num(val, 1);

			if (val[span(val, "0123456789", 1)])	/* a size */
				pc_spool_bytes = v, *why = v < 4096 ? "spool=SIZE: 4k or more" : 0;
			else
				pc_spool_max = v, *why = v < 1 || v > 1024 ? "spool=N: 1 to 1024 dumps" : 0;
		}
	} else {
		return 0;
	}
	return 1;
}

/* s3key= whole into b (KEY_FILE bytes at most), NUL-ended; 0, or why
 * not. Only tracer's user may use it: a key others may read or replace
 * is no secret. */
#define KEY_FILE 8192
static const char *cred_read(char *b)
{
	/* O_NONBLOCK: a FIFO would wait for a writer; it is refused below */
	int fd = open(pc_s3key, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	const char *why = 0;
	struct stat st;
	long n = 0, r = 1;

	if (fd < 0)
		return "can't open s3key=";
	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		why = "s3key= is no regular file";
	else if (st.st_mode & 077)
		why = "group or others may read or write s3key= (chmod 600 it)";
	else if (st.st_uid != geteuid())
		why = "s3key= belongs to another user (chown it to tracer's)";
	while (!why && n <= KEY_FILE && (r = read(fd, b + n, KEY_FILE + 1 - n)) > 0)
		n += r;
	close(fd);
	b[n > KEY_FILE ? 0 : n] = 0;
	return why ? why : r < 0 ? "can't read s3key=" : n > KEY_FILE ? "s3key= is over 8 KiB" : 0;
}

/* The secret and its id from s3key=FILE (the AWS shared credentials
 * file, [default]); 0, or why not. The copy of the file is wiped here,
 * id and sec by the caller once signed. */
const char *push_cred(char *id, char *sec)
{
	char b[KEY_FILE + 2], *p, *nl;
	const char *why = cred_read(b);
	int in = 0;

	*id = *sec = 0;
	for (p = b; !why && *p; p = nl + !!*nl) {
		char *k, *v, *e;
		size_t kn;

		nl = p + span(p, "\n", 0);
		k = p + span(p, " \t", 1);
		if (*k == '[') {
			in = !strncmp(k, "[default]", 9);
			continue;
		}
		kn = span(k, " \t=\n\r", 0);
		v = k + kn + span(k + kn, " \t", 1);
		if (!in || *v != '=')
			continue;
		v += 1 + span(v + 1, " \t", 1);
		for (e = nl; e > v && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'); e--)
			;
		/* a token would need x-amz-security-token, which tracer does
		 * not send: said, rather than a refused signature */
		if (kn == 17 && !strncmp(k, "aws_session_token", 17))
			why = "aws_session_token in s3key=: no temporary credentials (a key of the board's own)";
		else if (!(kn == 17 && !strncmp(k, "aws_access_key_id", 17)) && !(kn == 21 && !strncmp(k, "aws_secret_access_key", 21)))
			continue;
		else if (e - v > 127)
			why = k[4] == 's' ? "aws_secret_access_key in s3key= is over 127 bytes" :
			      "aws_access_key_id in s3key= is over 127 bytes";
		else if (k[4] == 'a')
			memcpy(id, v, e - v), id[e - v] = 0;
		else
			memcpy(sec, v, e - v), sec[e - v] = 0;
	}
	s3_wipe(b, sizeof(b));
	if (!why && (!*id || !*sec))
		why = "s3key= needs [default] with aws_access_key_id = and aws_secret_access_key =";
	return why;
}

