#!/bin/bash
# test/s3.sh - a real S3 server on 127.0.0.1 for the push= tests: OpenStack
# Swift from Debian's packages with its s3api middleware (it checks SigV4
# as AWS does) and tempauth; one node, one replica, everything under DIR.
#
#   test/s3.sh start DIR [PORT]   install what is missing, start, create
#       bucket "test", wait until a signed request passes; prints one line:
#       DIR=... ENDPOINT=http://127.0.0.1:PORT ACCESS=... SECRET=... BUCKET=test REGION=us-east-1
#     It takes PORT..PORT+5 (proxy = S3, object, container, account,
#     memcached, the UDP log sink); without PORT the first free block from
#     21000 on. Again on a DIR stopped with --keep: the same ports, objects
#     and credentials (the rings name the ports).
#   test/s3.sh stop DIR [--keep]  end the processes start made for DIR (its
#     pid files) and remove DIR, unless --keep.
#   test/s3.sh install            only the packages.
# Exit 0 ok, 1 failure, 2 usage, 3 the packages could not be installed
# (a test's reason to SKIP). Messages on stderr, server logs in DIR/log.
# Outside DIR only /etc/swift/swift.conf is read (Swift reads its hash
# salt there, from no other path); one is written only if there is none.
HERE=$(cd "$(dirname "$0")" && pwd) || exit 1
PKGS="swift-proxy swift-object swift-container swift-account memcached python3-boto3 stunnel4 openssl"
SERVERS="logsink memcached account container object proxy"
PY=/usr/bin/python3	# Debian's, which has swift and boto3 (not a venv's)

say() { echo "s3.sh: $*" >&2; }
die() { say "$*"; exit 1; }
usage() { sed -n '6,17s/^# \{0,1\}//p' "$0" >&2; exit 2; }

missing() {
	local p
	for p in $PKGS; do
		dpkg-query -W -f '${db:Status-Status}' $p 2>/dev/null | grep -qx installed || echo $p
	done
}

apt_in() {
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		-o DPkg::Lock::Timeout=300 -o Acquire::Retries=3 "$@" >&2
}

cmd_install() {
	local m own= rc
	m=$(missing | tr '\n' ' ')
	[ -z "${m// }" ] && return 0
	[ "$(id -u)" = 0 ] || { say "missing packages: $m(install them as root)"; exit 3; }
	say "installing $m"
	# the packages' scripts would start system-wide swift and memcached
	# services on their default ports; ours run from DIR
	[ -e /usr/sbin/policy-rc.d ] ||
		{ printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d && own=1; }
	# update only when needed: it is slow, and a stale list is the usual cause
	apt_in $m || { apt-get update -q -o DPkg::Lock::Timeout=300 >&2; apt_in $m; }
	rc=$?
	[ -z "$own" ] || rm -f /usr/sbin/policy-rc.d
	[ $rc = 0 ] || { say "apt-get install $m failed"; exit 3; }
}

# free PORT N: PORT..PORT+N-1 have no TCP listener and no UDP socket on
# 127.0.0.1 (nor on the wildcard). SO_REUSEADDR as the servers bind:
# our own TIME_WAIT leftovers of a restart don't count.
free() {
	$PY - "$1" "$2" <<'EOF'
import socket, sys
p, n = int(sys.argv[1]), int(sys.argv[2])
for port in range(p, p + n):
    for kind in socket.SOCK_STREAM, socket.SOCK_DGRAM:
        s = socket.socket(socket.AF_INET, kind)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
            if kind == socket.SOCK_STREAM:
                s.listen(1)
        except OSError:
            sys.exit(1)
        finally:
            s.close()
EOF
}

# pick: a free block of 6 in 21000-28999 (below Linux's ephemeral ports),
# starting where our pid says, so that runs side by side seldom meet
pick() {
	local i p
	for i in $(seq 0 799); do
		p=$((21000 + ($$ + i) % 800 * 10))
		free $p 6 && { echo $p; return; }
	done
	return 1
}

# the defaults every server shares: 127.0.0.1 only, one process each,
# everything under DIR, logs as syslog datagrams to our sink
common() {
	cat <<EOF
[DEFAULT]
bind_ip = 127.0.0.1
bind_port = $1
workers = 0
user = $(id -un)
swift_dir = $D/etc
devices = $D/srv
mount_check = false
disable_fallocate = true
recon_cache_path = $D/cache
log_name = $2
log_udp_host = 127.0.0.1
log_udp_port = $((PORT + 5))
EOF
}

backend() {	# NAME PORT
	common $2 $1-server
	printf '\n[pipeline:main]\npipeline = healthcheck %s\n\n' $1-server
	printf '[app:%s]\nuse = egg:swift#%s\n\n[filter:healthcheck]\nuse = egg:swift#healthcheck\n\n' $1-server $1
	# (their daemons, which we do not run, still want their sections)
	printf '[%s-replicator]\n[%s-updater]\n[%s-auditor]\n' $1 $1 $1
}

proxy() {
	common $PORT proxy-server
	cat <<EOF

[pipeline:main]
pipeline = catch_errors gatekeeper healthcheck proxy-logging cache listing_formats s3api tempauth copy slo dlo proxy-logging proxy-server

[app:proxy-server]
use = egg:swift#proxy
account_autocreate = true
# the proxy reads a body in 64 KiB chunks, each within client_timeout
# (60 s by default): a 1 KiB/s uplink (t_push) needs more
client_timeout = 600

[filter:s3api]
use = egg:swift#s3api
location = us-east-1
allowable_clock_skew = 900
# virtual-hosted style for Host BUCKET.s3.tracer.test (t_tls); any other
# Host is path style
storage_domain = s3.tracer.test

# tempauth's S3 access key is ACCOUNT:USER; it needs memcache for tokens
[filter:tempauth]
use = egg:swift#tempauth
user_s3_ci = $SECRET .admin

[filter:cache]
use = egg:swift#memcache
memcache_servers = 127.0.0.1:$((PORT + 4))

[filter:proxy-logging]
use = egg:swift#proxy_logging
# the access log has its own address (else it goes to localhost:514)
access_log_udp_host = 127.0.0.1
access_log_udp_port = $((PORT + 5))
# the Host each request came with (t_tls: the name tracer signed)
access_log_headers = true
access_log_headers_only = Host
EOF
	local f
	for f in catch_errors gatekeeper healthcheck listing_formats copy slo dlo; do
		printf '\n[filter:%s]\nuse = egg:swift#%s\n' $f $f
	done
}

# rings: one device (d1) per server kind, 2^6 partitions, one replica
rings() {
	$PY - "$D/etc" $((PORT + 1)) $((PORT + 2)) $((PORT + 3)) <<'EOF'
import sys
from swift.common.ring import RingBuilder
etc = sys.argv[1]
for kind, port in zip(("object", "container", "account"), sys.argv[2:]):
    b = RingBuilder(6, 1, 1)
    b.add_dev({"id": 0, "region": 1, "zone": 1, "ip": "127.0.0.1", "port": int(port),
               "device": "d1", "weight": 1.0, "meta": ""})
    b.rebalance()
    b.save("%s/%s.builder" % (etc, kind))
    b.get_ring().save("%s/%s.ring.gz" % (etc, kind))
EOF
}

configure() {
	mkdir -p "$D/etc" "$D/srv/d1" "$D/run" "$D/log" "$D/cache" || return
	# the object server keeps an object's metadata in user xattrs
	$PY -c 'import os, sys; f = sys.argv[1] + "/.x"; open(f, "w").close(); os.setxattr(f, "user.t", b"1"); os.unlink(f)' \
		"$D/srv/d1" 2>/dev/null || die "$D: no user xattrs on this filesystem (ext4, xfs, or tmpfs of Linux 6.6 on will do)"
	SECRET=$(head -c 60 /dev/urandom | base64 | tr -dc A-Za-z0-9 | head -c 40)
	printf 'PORT=%s\nACCESS=s3:ci\nSECRET=%s\n' $PORT $SECRET >"$D/etc/s3.env"
	backend object $((PORT + 1)) >"$D/etc/object-server.conf"
	backend container $((PORT + 2)) >"$D/etc/container-server.conf"
	backend account $((PORT + 3)) >"$D/etc/account-server.conf"
	proxy >"$D/etc/proxy-server.conf"
	rings >"$D/log/rings.out" 2>&1 || { cat "$D/log/rings.out" >&2; die "building the rings failed"; }
}

swift_conf() {
	[ -e /etc/swift/swift.conf ] && return
	mkdir -p /etc/swift && printf '%s\n' '[swift-hash]' 'swift_hash_path_suffix = tracer-test' \
		'[storage-policy:0]' 'name = Policy-0' 'default = yes' >/etc/swift/swift.conf
}

# run NAME CMD...: detached in its own session (the caller's ^C or its
# shell's end leaves it; stop ends it); it writes its own pid, as the
# pid of a background job need not be the one that execs
run() {
	local n=$1; shift
	setsid sh -c 'echo $$ >"$0"; exec "$@"' "$D/run/$n.pid" "$@" </dev/null >"$D/log/$n.out" 2>&1 &
}

# Swift logs only to syslog or UDP; this keeps the datagrams in a file
SINK='import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", int(sys.argv[1])))
f = open(sys.argv[2], "ab", 0)
while True:
    f.write(s.recv(65536).rstrip(b"\0\n") + b"\n")'

launch() {
	local s i
	run logsink $PY -c "$SINK" $((PORT + 5)) "$D/log/swift.log"
	# -P names DIR in its command line, as the others do theirs (stop
	# and the tests find our processes by it); it writes the file only
	# as a daemon (-d), which it is not
	run memcached memcached -l 127.0.0.1 -p $((PORT + 4)) -U 0 -m 64 -u "$(id -un)" -P "$D/run/memcached.pid"
	for s in account container object proxy; do
		run $s swift-$s-server "$D/etc/$s-server.conf"
	done
	# (each writes its pid file from its own shell, a moment later)
	for i in $(seq 50); do
		for s in $SERVERS; do [ -s "$D/run/$s.pid" ] || break; s=; done
		[ -z "$s" ] && return
		sleep 0.1
	done
}

# alive PID: not gone and not a zombie (a zombie waits for whoever
# adopted it to reap it: it holds no port)
alive() { [ -r /proc/$1/stat ] && ! awk '{ exit $3 != "Z" }' /proc/$1/stat 2>/dev/null; }

# ours PID: that pid is still a process of DIR (pids get reused)
ours() { tr '\0' '\n' </proc/$1/cmdline 2>/dev/null | grep -qF "$D/"; }

# died: the first of our processes that is gone, with its log's tail
died() {
	local s
	for s in $SERVERS; do
		alive "$(cat "$D/run/$s.pid")" && continue
		say "$s died: $(tail -5 "$D/log/$s.out" "$D/log/swift.log" 2>/dev/null)"
		return 0
	done
	return 1
}

healthy() {	# PORT: its /healthcheck answers 200
	(exec 3<>/dev/tcp/127.0.0.1/$1 && printf 'GET /healthcheck HTTP/1.0\r\n\r\n' >&3 &&
		read -r -t 2 l <&3 && [[ $l == *" 200 "* ]]) 2>/dev/null
}

s3c() {
	S3_ENDPOINT=http://127.0.0.1:$PORT S3_ACCESS=$ACCESS S3_SECRET=$SECRET S3_BUCKET=test \
		$PY "$HERE/s3check.py" "$@"
}

# up: every server answers, then bucket "test" is made (or is there)
# by a SigV4-signed PUT, which is the signed request that must pass
up() {
	local p end=$((SECONDS + 60)) out
	for p in $((PORT + 3)) $((PORT + 2)) $((PORT + 1)) $PORT; do
		until healthy $p; do
			died && return 1
			[ $SECONDS -lt $end ] || { say "port $p answers no healthcheck after 60 s"; return 1; }
			sleep 0.1
		done
	done
	until out=$(s3c mkbucket 2>&1); do
		died && return 1
		[ $SECONDS -lt $end ] || { say "bucket test: $out"; return 1; }
		sleep 0.2
	done
}

cmd_start() {
	[ -n "$1" ] || usage
	mkdir -p "$1" && D=$(cd "$1" && pwd) || exit 1
	cmd_install
	swift_conf || die "can't write /etc/swift/swift.conf"
	local f t0
	if [ -e "$D/etc/s3.env" ]; then
		for f in "$D"/run/*.pid; do [ -e "$f" ] && die "$D runs (or was not stopped): test/s3.sh stop $D --keep first"; done
		. "$D/etc/s3.env"
		[ -z "$2" ] || [ "$2" = $PORT ] || say "$D keeps its port $PORT (the rings name it), not $2"
		free $PORT 6 || die "$D's ports $PORT-$((PORT + 5)) are taken"
	else
		if [ -n "$2" ]; then
			PORT=$2; free $PORT 6 || die "a port of $PORT-$((PORT + 5)) on 127.0.0.1 is taken"
		else
			PORT=$(pick) || die "no 6 free ports in 21000-28999"
		fi
		configure
		. "$D/etc/s3.env"
	fi
	t0=$(date +%s%N)
	launch
	up || { cmd_stop "$D" --keep; die "did not come up: logs in $D/log"; }
	say "up in $((($(date +%s%N) - t0) / 1000000)) ms"
	echo "DIR=$D ENDPOINT=http://127.0.0.1:$PORT ACCESS=$ACCESS SECRET=$SECRET BUCKET=test REGION=us-east-1"
}

cmd_stop() {
	[ -d "${1:-}" ] || usage
	D=$(cd "$1" && pwd) || exit 1
	local f p pids= i
	for f in "$D"/run/*.pid; do
		[ -e "$f" ] || continue
		p=$(cat "$f"); rm -f "$f"
		[ -n "$p" ] && ours $p && kill -TERM $p 2>/dev/null && pids="$pids $p"
	done
	for i in $(seq 100); do
		for p in $pids; do alive $p && break; p=; done
		[ -z "$p" ] && break
		sleep 0.1
	done
	for p in $pids; do alive $p && say "pid $p ignored SIGTERM: SIGKILL" && kill -KILL $p; done
	[ "${2:-}" = --keep ] || rm -rf "$D"
}

case ${1:-} in
start) shift; cmd_start "$@" ;;
stop) shift; cmd_stop "$@" ;;
install) cmd_install ;;
*) usage ;;
esac
