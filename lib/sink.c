/* sink.c - where dumps go, and how: a buffered output that waits in
 * poll() for room, reports progress on slow links and remembers its
 * first error; stdout, a tty put in raw mode at the speed asked for (and
 * put back on every exit path), a fifo, or new files. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <termios.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include "config.h"
#include "ring.h"
#include "frame.h"
#include "zstd.h"
#include "sink.h"

/* ---- output sink ----
 * Writes wait in poll() for room, so that during the final dump a second
 * SIGINT/SIGTERM (on the signalfd) is seen at once, and so that a slow
 * link can report progress. A failing sink only fails this dump. */

int sink_fd = -1;	/* a stream's fd, or -1 */
int sink_stream;	/* stdout, a tty, a fifo; 0: new files */
int sink_tty;		/* the stream is a tty, opened to read requests too */
const char *sink_name = "stdout";
static int sink_fifo;	/* reopened for each new reader */
int (*out_bound)(int fd, u64 size, u64 about, int dump);
static const char *opath;	/* this dump's file: removed if cut short */
static char obuf[(1 << 16) + 64];	/* + what out_room may add to a record */
static size_t olen;
static int ofd, oerr, osfd = -1, oframe, oyield, ostall, odump, ny;
static struct pollfd *ypoll;
static u64 yuntil;
static u32 fsig[2];	/* the final dump's signal and its sender */
int out_final;
static size_t ochunk;
static u64 otick, otick0, ow0, owritten, ohint, olast, ostop, oabout;
u64 out_pos, out_in;
static struct termios tio_saved;
static int tio_fd = -1;

/* Every exit path comes here: put a serial port back as we found it. */
void sink_restore(void)
{
	if (CFG_SERIAL && tio_fd >= 0)
		tcsetattr(tio_fd, TCSANOW, &tio_saved);
}

/* A pulled dump waits for room, and gives way at once to what the loop
 * has to do (a signal, a tripwire, a request, a post-trigger dump's
 * time): 0 when there is room, else 1 and oerr says why (EINTR; or
 * ETIMEDOUT: 5 s without room). */
static int sink_wait(void)
{
	u64 now = now_us();
	int i, ms = 5000;

	if (yuntil)
		ms = yuntil <= now ? 0 : min_ms(ms, (yuntil - now) / 1000 + 1);
	ypoll[0] = (struct pollfd){ ofd, POLLOUT, 0 };
	i = poll(ypoll, ny, ms);
	if (i < 0)
		return 0;
	for (i = 1; i < ny; i++)
		if (ypoll[i].revents)
			break;
	if (i < ny || (yuntil && now_us() >= yuntil))
		oerr = EINTR;
	else if (!ypoll[0].revents)
		oerr = ETIMEDOUT;	/* a pulled dump nobody reads */
	return oerr != 0;
}

/* After an ending signal, how long the reader may take nothing (us),
 * and the most we wait for the final dump, whatever its pace. With
 * pulls or uploads to serve, a dump's reader may take nothing for
 * STALL before that dump is given up. */
#define STOP_IDLE 5000000
#define STOP_MAX 20000000
#define STALL 10000000

void sink_write(const char *p, size_t n)
{
	/* idle: while a reader takes nothing, not what we did before */
	for (olast = now_us(); n && !oerr; ) {
		struct pollfd pf[2] = { { ofd, POLLOUT, 0 }, { osfd, POLLIN, 0 } };
		const char *quit = 0;
		ssize_t w;
		u64 t = now_us(), end = ostop ? olast + STOP_IDLE : (CFG_LISTEN || CFG_PUSH) && ostall ? olast + STALL : (u64)-1;

		if (ostop && end > ostop + STOP_MAX && ochunk <= 4096)	/* (a file has no reader) */
			end = ostop + STOP_MAX;
		if (CFG_LISTEN && oyield) {
			if (sink_wait())
				break;
		} else if (t >= end) {
			if (!ostop) {
				oerr = ETIMEDOUT;	/* given up: pulls wait */
				break;
			}
			quit = end == ostop + STOP_MAX ? " 20 s ago" : ": the reader took nothing for 5 s";
		} else if (poll(pf, 1 + (osfd >= 0), end == (u64)-1 ? -1 : (int)((end - t) / 1000 + 1)) <= 0) {
			continue;
		} else if (pf[1].revents) {
			u32 si[32] = { 0 };	/* struct signalfd_siginfo */

			/* An ending signal (osfd reads no other) during a dump
			 * makes the next one final; during the final dump only
			 * a second one ends it: the same signal again from the
			 * same process is the same request (timeout(1) sends
			 * it to us, then to our process group), as is what
			 * comes within STOP_GATHER. A tty's (pid 0), or another
			 * sender's, is a second one. */
			read(osfd, si, sizeof(si));
			if (!ostop) {
				msg("%s: the final dump, after dump %d", sig_name(si[0]), odump);
				sink_final(si[0], si[3]);
				continue;
			}
			if ((si[0] == fsig[0] && si[3] == fsig[1] && si[3]) || t - ostop < STOP_GATHER)
				continue;
			fsig[0] = si[0];	/* the second, named */
			quit = "";
		}
		if (quit) {
			msg("%s%s: exiting before the final dump is written (%L bytes were)%s", sig_name(fsig[0]),
			    quit, owritten, opath ? "; its file is removed" : "");
			if (opath)
				unlink(opath);
			die_hook();	/* the tty, and what is above us */
			_exit(1);
		}
		if (CFG_ROOM && out_bound &&	/* (the -o series' bounds, the spool's) */
		    (oerr = out_bound(ofd, owritten + (n > ochunk ? ochunk : n), oabout, odump)))
			break;
		/* A pipe or tty takes PIPE_BUF without blocking once POLLOUT. */
		w = write(ofd, p, n > ochunk ? ochunk : n);
		if (w < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (w <= 0) {
			oerr = w ? errno : EIO;
			break;
		}
		p += w, n -= w, owritten += w;
		olast = t = now_us();
		if (t - otick >= 3000000 && ohint) {	/* a dump (-p has no size) */
			/* The rate since the first tick (before it, a pipe's
			 * buffer took 64 KiB at once). The total: what was put,
			 * and what is left of the hint at the ratio so far
			 * (records expanded), in bytes written per byte put
			 * (zstd, frame=text; what waits in obuf is not out). */
			u64 in = CFG_LEAN ? out_in : out_raw_pos,	/* (only LEAN and FTRACE expand) */
				all = out_raw_pos + (ohint > in ? ohint - in : 0) * out_raw_pos / (in + 1);

			if (CFG_ZSTD || CFG_FRAME)
				all = all * owritten / (out_raw_pos - olen + 1);
			all = all > owritten ? all : owritten + 1;
			if (ow0)
				msg("dump %d: %L of ~%L bytes written, %L s to go", odump, owritten, all,
				    (all - owritten) * (t - otick0) / (owritten - ow0 + 1) / 1000000);
			else
				ow0 = owritten, otick0 = t;
			otick = t;
		}
	}
}

static void out_raw(const void *p, size_t n)
{
	if (CFG_FRAME && oframe)
		frame_put(p, n);
	else
		sink_write(p, n);
}

/* ---- compression ----
 * While on, what is put goes out as PERF_RECORD_COMPRESSED records, one
 * zstd frame of at most ZSTD_MAX bytes each (perf's reader carries a
 * record cut between two of them over, but wants one frame in each).
 * The frame pads itself to 8 bytes, as perf's own records are aligned.
 * out_pos counts what goes out; out_raw_pos what went in. */
static int ozstd;
u64 out_raw_pos;

static void out_flush(const char *p, size_t n)
{
	static u8 z[8 + ZSTD_ROOM(ZSTD_MAX) + 16];

	while (CFG_ZSTD && ozstd && n) {
		size_t k = n < ZSTD_MAX ? n : ZSTD_MAX;
		size_t m = 8 + zstd_frame((const u8 *)p, k, z + 8);
		struct rec_hdr h = { REC_COMPRESSED, 0, m };

		if (BE)
			h = (struct rec_hdr){ __builtin_bswap32(h.type), 0, __builtin_bswap16(h.size) };
		memcpy(z, &h, 8);
		out_raw(z, m);
		out_pos += m;
		p += k, n -= k;
	}
	if (n)
		out_raw(p, n);
}

/* Compress what is put from now on (on), or no more (off: what waits
 * goes out first). */
void out_zstd(int on)
{
	out_flush(obuf, olen);
	olen = 0;
	ozstd = CFG_ZSTD && on;
}

/* Dump number dump begins on fd; hint: about how many bytes it will be,
 * for progress messages; how: OUT_FRAME as text lines, OUT_YIELD gives
 * up at a signal or after 5 s without progress (a pulled dump),
 * OUT_STALL after 10 s without progress (oerr ETIMEDOUT); path:
 * the new file it goes to (removed if a second signal cuts it short),
 * or 0. */
void out_begin(int fd, u64 hint, int dump, int how, const char *path)
{
	int frame = how & OUT_FRAME;

	oyield = how & OUT_YIELD;
	oabout = how & OUT_ABOUT ? hint : 0;
	ostall = how & OUT_STALL;
	ofd = fd;
	opath = path;
	olen = oerr = ozstd = 0;
	/* A pipe, fifo, socket or tty (they can't seek) takes PIPE_BUF
	 * without blocking; files and /dev/null take it all at once. */
	ochunk = lseek(fd, 0, SEEK_CUR) < 0 ? 4096 : sizeof(obuf);
	out_pos = out_raw_pos = owritten = 0;
	otick = now_us();
	ow0 = out_in = 0;
	ohint = hint;
	odump = dump;
	oframe = frame;
	if (CFG_FRAME && oframe)
		frame_begin(dump, sink_write);
}

/* Room for n bytes in the output buffer, to write in place; then
 * out_commit says how many were written. A compressed frame takes at
 * most ZSTD_MAX. */
void *out_room(size_t n)
{
	if (olen + n > (ozstd ? ZSTD_MAX : sizeof(obuf))) {
		out_flush(obuf, olen);
		olen = 0;
	}
	return obuf + olen;
}

void out_commit(size_t n)
{
	olen += n;
	out_raw_pos += n;
	if (!ozstd)
		out_pos += n;
}

void out_put(const void *p, size_t n)
{
	if (n > sizeof(obuf) - 64) {
		out_flush(obuf, olen);
		olen = 0;
		out_flush(p, n);
		out_raw_pos += n;
		if (!ozstd)
			out_pos += n;
		return;
	}
	memcpy(out_room(n), p, n);
	out_commit(n);
}

int out_end(void)
{
	out_zstd(0);
	if (CFG_FRAME && oframe)
		frame_end();
	oframe = 0;
	opath = 0;
	/* A fifo whose reader left: closed, so that the pipe and what it
	 * still holds go, and opened again for the next reader. */
	if (oerr && sink_fifo && sink_fd >= 0) {
		close(sink_fd);
		sink_fd = -1;
	}
	return oerr;
}

/* The stream's fd for a dump: a fifo is opened again if its reader
 * left; -1 (errno ENXIO) while nobody reads it. */
int sink_get(void)
{
	if (sink_fd < 0)
		sink_fd = open(sink_name, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	return sink_fd;
}

speed_t sink_baud(long b)
{
	static const struct { int b; speed_t s; } t[] = {
		{ 9600, B9600 }, { 19200, B19200 }, { 38400, B38400 }, { 57600, B57600 },
		{ 115200, B115200 }, { 230400, B230400 }, { 460800, B460800 },
		{ 500000, B500000 }, { 576000, B576000 }, { 921600, B921600 },
		{ 1000000, B1000000 }, { 1500000, B1500000 }, { 2000000, B2000000 },
		{ 3000000, B3000000 }, { 4000000, B4000000 },
	};
	unsigned i;

	for (i = 0; i < sizeof(t) / sizeof(*t); i++)
		if (t[i].b == b)
			return t[i].s;
	return 0;
}

/* A serial port: raw, at the speed asked for; restored on every exit. */
static void tty_raw(int fd, long speed)
{
	struct termios t;

	if (tcgetattr(fd, &tio_saved))
		die(1, "%s: tcgetattr:", sink_name);
	tio_fd = fd;
	die_hook = sink_restore;
	t = tio_saved;
	cfmakeraw(&t);
	if (speed) {
		cfsetospeed(&t, sink_baud(speed));
		cfsetispeed(&t, sink_baud(speed));
	}
	if (tcsetattr(fd, TCSANOW, &t))
		die(1, "%s: tcsetattr:", sink_name);
}


/* ---- a shared terminal ----
 * A tty that is some other process's controlling terminal (a shell's
 * on the console, a getty's) is not a port of our own: written as it
 * is set, never put in raw mode, never read (its input is the shell's).
 * Found by the real device (TIOCGDEV: /dev/console names the tty
 * behind it) in each process's stat, tty_nr. */
struct owner {
	unsigned dev;
	int pid;
};

static void tty_pid(const char *name, void *ctx)
{
	struct owner *o = ctx;
	char p[40], st[512], *c, *e;
	int i, pid = xtou(name, &e, 10);
	long n;

	if (o->pid || *e || !pid || pid == getpid())
		return;
	fmt(p, sizeof(p), "/proc/%s/stat", name);
	n = readfile(p, st, sizeof(st) - 1);
	st[n > 0 ? n : 0] = 0;
	if (!(c = xstrrchr(st, ')')))
		return;
	for (i = 0; i < 5; i++)	/* state ppid pgrp session tty_nr */
		c += 1 + span(c + 1, " ", 0);
	if (xtou(c, 0, 10) == o->dev)
		o->pid = pid;
}

/* The pid of a process whose terminal fd is, or 0. */
static int tty_owner(int fd)
{
	struct owner o = { 0, 0 };

	if (!ioctl(fd, TIOCGDEV, &o.dev) && o.dev)
		dir_each("/proc", tty_pid, &o);
	return o.pid;
}

/* Where dumps go: out (-o), or stdout. Something that exists and is not a
 * regular file (a tty, a fifo, /dev/null) is a stream, opened once, and
 * sink_stream says so; otherwise each dump is a new file. Nothing here
 * blocks: a tty without carrier, or a fifo nobody reads yet (then each
 * dump tries again). frame: dumps go as text lines; speed: a tty's, or 0. */
void sink_open(const char *out, int frame, long speed)
{
	if (out && !*out)
		die(2, "-o needs a path");
	if (out && (sink_fd = open(out, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)) < 0 &&
	    errno != ENOENT && !(errno == ENXIO && path_mode(out) == S_IFIFO))
		die(1, "-o %s:", out);
	sink_fifo = out && path_mode(out) == S_IFIFO;
	if (sink_fd >= 0 && S_ISREG(fd_mode(sink_fd))) {
		close(sink_fd);
		sink_fd = -1;
	}
	if (sink_fd >= 0 || sink_fifo) {
		sink_stream = 1;
		sink_name = out;
		if (sink_fd < 0)
			msg("-o %s: nobody reads this fifo yet; each dump tries again", out);
		else if (is_tty(sink_fd)) {
			int rw;

			if (!CFG_SERIAL)
				die(2, "-o %s: serial output is not built in (CONFIG_SERIAL)", out);
			if ((rw = tty_owner(sink_fd))) {
				if (!frame || speed)
					die(2, "-o %s: the terminal of pid %d too (a shell's?): only frame=text goes there, "
					    "without baud=, or give a port of its own", out, rw);
				msg("-o %s: the terminal of pid %d too: written as it is set; its input and modes are left alone",
				    out, rw);
				return;
			}
			/* read too: the host may ask for a dump on the line */
			if ((rw = open(out, O_RDWR | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)) >= 0) {
				close(sink_fd);
				sink_fd = rw;
				sink_tty = 1;
			}
			tty_raw(sink_fd, speed);
		}
	} else if (!out) {
		sink_fd = 1;
		sink_stream = 1;
		if (is_tty(1) && !frame)
			die(2, "stdout is a terminal: give -o FILE, pipe it (tracer | perf script -i -), or use frame=text");
	} else {
		char dir[4096], *sl;

		if (strlen(out) > 4000)
			die(2, "%s: path too long", out);
		/* Find out now, not when the moment that matters is dumped. */
		memcpy(dir, out, strlen(out) + 1);
		sl = xstrrchr(dir, '/');
		if (sl)
			sl[sl == dir] = 0;
		if (access(sl ? dir : ".", W_OK | X_OK))
			die(1, "-o %s: can't create files in %s:", out, sl ? dir : ".");
	}
}

/* The signalfd: during the final dump a second ending signal exits. */
void sink_signals(int sfd)
{
	osfd = sfd;
}

/* The final dump begins, for signal sig sent by pid. */
void sink_final(int sig, u32 pid)
{
	out_final = 1;
	ostop = now_us();
	fsig[0] = sig, fsig[1] = pid;
}

/* What a pulled dump gives way to: p[1..n) (p[0] is ours, for the
 * output), and the time until (us, 0: none). */
void sink_yield(struct pollfd *p, int n, u64 until)
{
	ypoll = p, ny = n, yuntil = until;
}

/* ---- requests on a serial line ----
 * "DUMP" alone on a line (ended by CR or LF) asks for a dump; anything
 * else, such as a Ctrl-C or line noise, is ignored. Returns 1 for a
 * request, -1 once the line hung up (no more requests). */
int sink_request(void)
{
	static char line[8];
	static int n;
	char b[64];
	int i, k, req = 0;

	while ((k = read(sink_fd, b, sizeof(b))) > 0 || (k < 0 && errno == EINTR))
		for (i = 0; i < k; i++) {
			if (b[i] == '\n' || b[i] == '\r') {
				req |= n == 4 && !memcmp(line, "DUMP", 4);
				n = 0;
			} else if (n >= 0 && n < 5) {
				line[n++] = b[i];
			} else {
				n = -1;		/* too long: not a request */
			}
		}
	if (req)
		return 1;
	if (k < 0 && errno == EAGAIN)
		return 0;
	sink_tty = 0;		/* hung up: no more requests, not even polled */
	return -1;
}
