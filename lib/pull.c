/* pull.c - pulled dumps: listen=IP:PORT or listen=@NAME. Each
 * connection that may have one gets one standalone dump; who may:
 *   - on an abstract unix socket, root and our own user (SO_PEERCRED);
 *   - over TCP from a loopback address, a client whose socket belongs to
 *     root or to us (the kernel's socket table, /proc/net/tcp, names the
 *     owner of the other end, since the client's socket is ours to see);
 *   - from anywhere, a client whose first line is the secret of key=FILE.
 * Nobody else gets a byte, and a refusal starts no dump. A client may
 * shut its end of writing (nc -N, BusyBox nc: at their input's end);
 * one that closed is told apart where the kernel shows it (pend_shut),
 * and gets no dump. Connections wait here, each with its own fd in the
 * loop's poll, while a key is typed or the rate limit holds them:
 * nothing here blocks. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <netinet/in.h>
#include "config.h"
#include "pull.h"

#define KEY_MIN 16
#define KEY_MAX 128
#define KEY_WAIT 5000000	/* us a client has to send its key */

/* A connection that waits: for its key (want), or for its turn. */
static struct pend {
	int fd, want;
	int lo;		/* let in by the socket table: it may be looked up again */
	int shut;	/* its end of writing is shut, or may be (it sent the
			 * key): polled for its hangup alone */
	u64 since;
	unsigned n;
	char who[48];
	char b[KEY_MAX + 2];
} pend[PULL_PEND];
static char key[KEY_MAX + 1];
static unsigned keylen, said[3];	/* refused, gone, no fd: so far */
static int lfd = -1;
static u64 tat;		/* the rate limit's clock (below) */
/* Each connection costs a look at the socket table (a client that
 * closed at once is found there as root's, a closed end, and is dropped
 * only after it): a burst of TAKE_BURST, then one each TAKE_EVERY us.
 * While that limit holds (or no descriptor is free) the listening
 * socket is not polled until lhold, and the kernel's backlog holds who
 * comes meanwhile. */
#define TAKE_BURST 16
#define TAKE_EVERY 100000
static u64 rtat, lhold;
static int lheld;

/* listen='s address into sa (room for a struct sockaddr_un) and its
 * length: "@NAME", or an IPv4 "a.b.c.d:port"; -1 if it is neither. */
int pull_addr(const char *spec, void *sa, unsigned *len)
{
	union { struct sockaddr_in in; struct sockaddr_un un; } *a = sa;
	const char *p = spec;
	u8 *ip = (u8 *)&a->in.sin_addr;
	char *e;
	u64 v = 0;
	int i;

	memset(a, 0, sizeof(*a));
	if (*spec == '@') {
		if (!spec[1] || strlen(spec) > 100)
			return -1;
		a->un.sun_family = AF_UNIX;
		*len = strlen(spec);	/* '@' stands for the leading NUL */
		memcpy(a->un.sun_path + 1, spec + 1, *len - 1);
		*len += offsetof(struct sockaddr_un, sun_path);
		return 0;
	}
	for (i = 0; i < 5; i++, p = e + 1) {	/* four bytes, then the port */
		v = xtou(p, &e, 10);
		if (e == p || e - p > 5 || v > (i < 4 ? 255 : 65535) ||
		    *e != (i < 3 ? '.' : i == 3 ? ':' : 0))
			return -1;
		if (i < 4)
			ip[i] = v;
	}
	if (!v)
		return -1;
	a->in.sin_family = AF_INET;
	a->in.sin_port = htons(v);
	*len = sizeof(a->in);
	return 0;
}

/* 1 if spec is TCP on an address other than 127.x: one that others
 * reach, where only a key lets a client in. */
int pull_open_addr(const char *spec)
{
	union { struct sockaddr_in in; struct sockaddr_un un; } a;	/* what pull_addr fills */
	unsigned len;

	return !pull_addr(spec, &a, &len) && a.in.sin_family == AF_INET &&
	       ((const u8 *)&a.in.sin_addr)[0] != 127;
}

/* key=FILE: its first line is the secret, 16 to 128 bytes. 0, or why
 * not: a file others may read is no secret. */
const char *pull_key(const char *path)
{
	char b[KEY_MAX + 2];
	unsigned m;
	long n;
	/* O_NONBLOCK: a FIFO would wait for a writer, with the signals
	 * blocked; it is refused below, as a device is. */
	int fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return "can't open the key file";
	/* statx, not libc's fstat (0.6 KiB); none before Linux 4.11, and
	 * then who may read the file can't be told */
	m = fd_stat(fd);
	if (!S_ISREG(m)) {
		close(fd);
		return m ? "not a regular file" : "a key file needs Linux 4.11 or later (statx), to tell who may read it";
	}
	n = read(fd, b, sizeof(b));
	close(fd);
	if (m & 044)
		return "others may read this file (chmod 600 it)";
	for (keylen = 0; n > 0 && keylen < (unsigned)n && b[keylen] != '\n' && b[keylen] != '\r'; keylen++)
		;
	if (keylen < KEY_MIN || keylen > KEY_MAX)
		return "the key is its first line, 16 to 128 bytes (head -c 24 /dev/urandom | base64 > FILE)";
	memcpy(key, b, keylen);
	return 0;
}

/* Each connection gets one standalone stream, then is closed. A name
 * or port that another program holds is said as such. The backlog
 * holds the clients that wait for a free slot (each slot waits at
 * most for its key or for the rate limit). */
void pull_listen(const char *spec)
{
	union { struct sockaddr sa; struct sockaddr_un un; } a;
	unsigned len;
	int fd, one = 1, i;

	for (i = 0; i < PULL_PEND; i++)
		pend[i].fd = -1;
	pull_addr(spec, &a, &len);
	fd = socket(a.sa.sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		die(1, "listen=%s: socket:", spec);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, &a.sa, len)) {
		if (errno == EADDRINUSE)
			die(1, "listen=%s: another program (or another tracer) has this %s already", spec,
			    *spec == '@' ? "name" : "port");
		if (errno == EADDRNOTAVAIL)
			die(1, "listen=%s: no interface here has this address", spec);
		die(1, "listen=%s: bind:", spec);
	}
	if (listen(fd, 64))
		die(1, "listen=%s: listen:", spec);
	lfd = fd;
}

/* v as n upper-case hex digits at p, as /proc/net/tcp prints them. */
static char *hex(char *p, u32 v, int n)
{
	while (n--)
		*p++ = "0123456789ABCDEF"[v >> 4 * n & 15];
	return p;
}

/* "LOCAL:PORT REMOTE:PORT" as the socket table prints it: an address's
 * 32-bit words each as the CPU reads them (so byte order takes care of
 * itself), ports as numbers. A v6 entry has the v4 address mapped. */
static char *tcp_pair(char *p, const struct sockaddr_in *l, const struct sockaddr_in *r, int v6)
{
	static const u8 mapped[4] = { 0, 0, 0xff, 0xff };
	const struct sockaddr_in *s;
	u32 w;
	int k;

	for (k = 0; k < 2; k++) {
		s = k ? r : l;
		if (v6) {
			memcpy(&w, mapped, 4);
			p = hex(hex(p, 0, 16), w, 8);
		}
		memcpy(&w, &s->sin_addr, 4);
		p = hex(p, w, 8);
		*p++ = ':';
		p = hex(p, ntohs(s->sin_port), 4);
		*p++ = ' ';
	}
	p[-1] = 0;
	return p;
}

/* The uid that owns the client's end of a loopback connection: the
 * entry whose local address is the peer's and remote is ours; -1 if
 * none (it is not ours to see), -2 if no process holds that end (inode
 * 0: it closed; the kernel shows such an end as root's). */
static long peer_uid(int fd, const struct sockaddr_in *peer)
{
	static const char *const file[] = { "/proc/net/tcp", "/proc/net/tcp6" };
	struct sockaddr_in me;
	socklen_t ml = sizeof(me);
	char want[100], b[4096 + 256], *p, *e;
	long uid = -1, n;
	size_t have;
	int f, v6, i;

	if (getsockname(fd, (struct sockaddr *)&me, &ml))
		return -1;
	for (v6 = 0; v6 < 2 && uid == -1; v6++) {
		tcp_pair(want, peer, &me, v6);
		if ((f = open(file[v6], O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		have = 0;
		/* in blocks; a line cut by the block's end is kept for the next */
		while (uid < 0 && (n = read(f, b + have, sizeof(b) - 1 - have)) > 0) {
			b[have += n] = 0;
			if ((p = xstrstr(b, want)) && (e = xstrchr(p, '\n'))) {
				/* st tx:rx tr:when retrnsmt, then the uid,
				 * the timeout and the inode */
				p += strlen(want);
				for (i = 0; i < 6; i++) {
					if (i == 4)
						uid = xtou(p, 0, 10);
					p += span(p, " ", 1), p += span(p, " ", 0);
				}
				uid = p >= e ? -1 : xtou(p, 0, 10) ? uid : -2;
				break;
			}
			p = xstrrchr(b, '\n');
			have = p ? (size_t)(b + have - p - 1) : 0;
			memmove(b, p ? p + 1 : b, have);
			if (have > 256)
				have = 0;	/* no line is that long */
		}
		close(f);
	}
	return uid;
}

/* 1 at the 1st, 2nd, 4th, 8th, ... time of kind k: so that a flood
 * does not flood stderr. */
static int said_now(int k)
{
	unsigned n = ++said[k];

	return !(n & (n - 1));
}

/* A connection that gets no dump, and why: refused (gone 0), or gone
 * before its dump (1). */
static void pend_drop(struct pend *s, int gone, const char *why)
{
	if (said_now(gone))
		msg(gone ? "listen: %s hung up before its dump: %s (%u so far)" :
			   "listen: %s may not pull a dump: %s (%u refused so far)", s->who, why, said[gone]);
	close(s->fd);
	s->fd = -1;
}

/* A new connection into slot s: served (want 0), waits for its key
 * (want 1), or is refused. */
static void pull_new(struct pend *s)
{
	union { struct sockaddr sa; struct sockaddr_in in; } a;
	socklen_t len = sizeof(a);
	int fd = accept4(lfd, &a.sa, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
	uid_t me = geteuid();
	long uid;

	if (fd < 0) {
		/* No descriptor free (they come back as connections and dumps
		 * end): the listening socket rests a second rather than wake
		 * the loop at once, again and again. */
		if (errno == EMFILE || errno == ENFILE) {
			lhold = now_us() + 1000000;
			if (said_now(2))
				msg("listen: accept: no file descriptor free, a second's rest:");
		}
		return;
	}
	memset(s, 0, sizeof(*s));
	s->fd = fd;
	s->since = now_us();
	rtat = (rtat < s->since ? s->since : rtat) + TAKE_EVERY;
	if (a.sa.sa_family == AF_UNIX) {
		u32 cr[3];	/* struct ucred: pid, uid, gid */
		socklen_t cl = sizeof(cr);

		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, cr, &cl))
			cr[0] = 0, cr[1] = -1;
		fmt(s->who, sizeof(s->who), "pid %u of uid %u", cr[0], cr[1]);
		if (cr[1] && cr[1] != me)
			pend_drop(s, 0, "not root, not us");
		else
			fmt(s->who, sizeof(s->who), "pid %u", cr[0]);
		return;
	}
	{
		const u8 *ip = (const u8 *)&a.in.sin_addr;

		fmt(s->who, sizeof(s->who), "%u.%u.%u.%u:%u", ip[0], ip[1], ip[2], ip[3], ntohs(a.in.sin_port));
		uid = ip[0] == 127 ? peer_uid(fd, &a.in) : -1;
	}
	if (uid == 0 || uid == (long)me) {
		s->lo = 1;
		return;
	}
	if (uid == -2)
		pend_drop(s, 1, "it closed at once");
	else if (keylen)
		s->want = 1;
	else
		pend_drop(s, 0, uid < 0 ? "its socket's owner is not to be found" : "not root, not us");
}

/* The key line in b, n bytes of it so far (eof: the client's end of
 * writing came): -1 while more may come, else 1 if it is the key, 0 if
 * not. Ended by a newline (a CR before it is no part of it), the end
 * of writing, or a full buffer. Compared in constant time. */
static int key_line(const char *b, unsigned n, int eof)
{
	const char *nl = memchr(b, '\n', n);
	unsigned d = 0, i, k;

	if (!nl && !eof && n < KEY_MAX + 2)
		return -1;	/* more to come */
	k = nl ? (unsigned)(nl - b) : n;
	if (k && b[k - 1] == '\r')
		k--;
	for (i = 0; i < KEY_MAX; i++)
		d |= (u8)(i < k ? b[i] : 0) ^ (u8)key[i];
	return !d && k == keylen;
}

/* The key line, as it comes. It may end at the client's end of
 * writing (nc -N, BusyBox nc), which then still gets its dump; an end
 * before a whole key is a wrong key. */
static void pull_keyline(struct pend *s)
{
	int k = read(s->fd, s->b + s->n, sizeof(s->b) - s->n), eof = !k;

	if (k < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (k < 0) {
		pend_drop(s, 1, "a reset");
		return;
	}
	s->n += k;
	k = key_line(s->b, s->n, eof);
	if (!k)
		pend_drop(s, 0, eof ? "wrong key (its end of writing came first)" : "wrong key");
	else if (k > 0)
		s->want = 0, s->shut = 1;
}

/* Its end of writing came, or its hangup (a served-to-be connection).
 * A client that shut its end still reads, and gets its dump; one that
 * closed looks the same, and a dump to it is lost. Told apart where
 * the kernel shows it: a unix socket's hangup, a loopback client's end
 * in the socket table (no process holds a closed one). One let in by
 * its key is taken at its word. */
static void pend_shut(struct pend *s)
{
	struct pollfd q = { s->fd, 0, 0 };
	struct sockaddr_in a;
	socklen_t l = sizeof(a);

	poll(&q, 1, 0);
	if (q.revents || (s->lo && !s->shut &&
	    (getpeername(s->fd, (struct sockaddr *)&a, &l) || peer_uid(s->fd, &a) < 0)))
		pend_drop(s, 1, "it closed before its turn");
	s->shut = 1;
}

/* The rate limit: a burst of PULL_BURST, then one each PULL_EVERY us
 * (the generic cell rate algorithm: tat is when the bucket is empty
 * again). 0 if one may go now (and it is taken), else the ms to wait. */
int pull_rate(u64 *t, u64 now)
{
	u64 edge;

	if (*t < now)
		*t = now;
	edge = *t - now;
	if (edge > (u64)(PULL_BURST - 1) * PULL_EVERY)
		return (edge - (u64)(PULL_BURST - 1) * PULL_EVERY) / 1000 + 1;
	*t += PULL_EVERY;
	return 0;
}

int pull_fds(struct pollfd *p)
{
	int i, room = 0;

	for (i = 0; i < PULL_PEND; i++) {
		room += pend[i].fd < 0 || pend[i].want;
		p[1 + i].fd = pend[i].fd;
		/* a served-to-be one: only its hangup or the end of what it
		 * sends (then pend_shut looks closer), not its bytes; one
		 * that shut its end or sent the key, its hangup alone */
		p[1 + i].events = pend[i].want ? POLLIN : pend[i].shut ? 0 : POLLRDHUP;
	}
	/* Full of connections that wait their turn: the rest wait in the
	 * backlog. A slot that waits for a key gives way to a newcomer. */
	p[0].fd = room && !lheld ? lfd : -1;
	p[0].events = POLLIN;
	return 1 + PULL_PEND;
}

/* A free slot for a newcomer; when there is none, the one that has
 * waited longest for its key gives way; -1 if all wait their turn. */
static int pull_slot(void)
{
	int i, old = -1;

	for (i = 0; i < PULL_PEND; i++) {
		if (pend[i].fd < 0)
			return i;
		if (pend[i].want && (old < 0 || pend[i].since < pend[old].since))
			old = i;
	}
	if (old >= 0)
		pend_drop(pend + old, 0, "a newer connection needed its slot");
	return old;
}

int pull_step(const struct pollfd *p, char *who, size_t n, int *wait)
{
	u64 now, first = -1;
	int i, ms, pick = -1;
	char c;

	for (i = 0; i < PULL_PEND; i++) {
		struct pend *s = pend + i;

		if (s->fd < 0 || !p[1 + i].revents)
			continue;
		if (s->want)
			pull_keyline(s);
		else
			pend_shut(s);
	}
	if (p[0].revents && (i = pull_slot()) >= 0)
		pull_new(pend + i);
	now = now_us();
	*wait = -1;
	for (i = 0; i < PULL_PEND; i++) {
		struct pend *s = pend + i;

		if (s->fd < 0)
			continue;
		/* its end of writing came, and the poll had not said so yet */
		if (!s->want && !s->shut && !recv(s->fd, &c, 1, MSG_PEEK | MSG_DONTWAIT)) {
			pend_shut(s);
			if (s->fd < 0)
				continue;
		}
		if (s->want && now - s->since >= KEY_WAIT) {
			pend_drop(s, 0, "no key within 5 s");
			continue;
		}
		if (s->want)
			*wait = min_ms(*wait, (KEY_WAIT - (now - s->since)) / 1000 + 1);
		else if (s->since < first) {
			first = s->since, pick = i;
		}
	}
	/* the listening socket rests while the connections' limit holds */
	if (rtat > now + (u64)TAKE_BURST * TAKE_EVERY && lhold < rtat - (u64)TAKE_BURST * TAKE_EVERY)
		lhold = rtat - (u64)TAKE_BURST * TAKE_EVERY;
	if ((lheld = lhold > now))
		*wait = min_ms(*wait, (lhold - now) / 1000 + 1);
	if (pick < 0)
		return -1;
	if ((ms = pull_rate(&tat, now))) {
		*wait = min_ms(*wait, ms);
		return -1;
	}
	fmt(who, n, "%s", pend[pick].who);
	*wait = 0;	/* then a look at the others that wait */
	i = pend[pick].fd;
	pend[pick].fd = -1;
	return i;
}

/* A pulled dump is out: what the client sent is read, so that closing
 * does not reset the connection before it has read the end; what has
 * come only, and at most 64 KiB: a client that keeps sending gets its
 * reset, and never holds the loop. */
void pull_hangup(int fd)
{
	char b[1024];
	int i;

	shutdown(fd, SHUT_WR);
	for (i = 0; i < 64 && read(fd, b, sizeof(b)) > 0; i++)
		;
	close(fd);
}
