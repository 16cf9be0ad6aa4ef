#!/bin/sh
# test/qemu-init.sh - /init of the QEMU end-to-end guest (test/qemu.sh).
# Mounts proc/sys/devtmpfs, loads the modules listed in /etc/qemu-test.conf,
# remounts / read-only, brings up 10.0.2.15, then runs tracer three ways:
#   a  tracer -o PORT_DEV     one pipe-mode stream on a dedicated port
#   b  tracer 'frame=text'    framed text dumps on the console
#   c  tracer | nc -l -p 9000 the stream through netcat to the host (tracepoints alone)
# In each: a pinned workload (spin, SIGUSR1, sleep, hold), a SIGUSR2 dump,
# a crash that trips trip=segv, a SIGINT dump. Lines starting "QT " are
# read by the host; then poweroff -f.
export PATH=/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
. /etc/qemu-test.conf

say() { echo "QT $*"; }
say "guest up: $(uname -r) $(uname -m), $(grep -c ^processor /proc/cpuinfo) cpus, uptime $(cut -d' ' -f1 /proc/uptime)"
for m in $MODULES; do
	insmod "/lib/modules/$m.ko" || say "insmod $m failed"
done
# Bookkeeping of this script (tracer's stderr) on a tmpfs; tracer itself
# runs from the read-only root.
mount -t tmpfs run /run
mount -o remount,ro / || say "remount ro failed"
if touch /rootfile 2>/dev/null; then say "root is writable"; else say "root is read-only"; fi
ip link set lo up
ip addr add 10.0.2.15/24 dev eth0 && ip link set eth0 up || say "network setup failed"
say "ref $(awk '$3 == "_text" { t = $0 } $3 == "_stext" && s == "" { s = $0 } END { print t != "" ? t : s }' /proc/kallsyms)"
say "kallsyms: $(grep -c . /proc/kallsyms) lines, first: $(head -1 /proc/kallsyms), $(grep -m3 -E ' (_stext|_head|_text|_etext)$' /proc/kallsyms | tr '\n' ' ')"

# wait_for FILE PATTERN SECONDS [PID]: poll for PATTERN in FILE; give up
# early when PID is gone
wait_for() {
	n=$(($3 * 10))
	while [ $n -gt 0 ]; do
		grep -q "$2" "$1" 2>/dev/null && return 0
		if [ -n "${4:-}" ] && ! kill -0 "$4" 2>/dev/null; then
			grep -q "$2" "$1" 2>/dev/null
			return
		fi
		usleep 100000
		n=$((n - 1))
	done
	return 1
}

# wait_exit PID SECONDS: wait until PID is gone
wait_exit() {
	n=$(($2 * 10))
	while [ $n -gt 0 ]; do
		kill -0 "$1" 2>/dev/null || return 0
		usleep 100000
		n=$((n - 1))
	done
	return 1
}

# run_scenario TAG TRACER_PID: the same steps for every transport
run_scenario() {
	tag=$1 tp=$2 err=/run/$1.err
	if [ -z "$tp" ] || ! wait_for $err "recording" 60 $tp; then
		say "$tag: tracer did not start"
		sed "s/^/QT $tag err: /" $err
			[ -n "$tp" ] && kill -9 $tp 2>/dev/null
		return
	fi
	say "$tag: tracer=$tp"
	taskset $WORK_MASK /bin/wk_hot spin 400 signal sleep 20 hold &
	w=$!
	say "$tag: work=$w cpu_mask=$WORK_MASK"
	usleep $SETTLE_US
	t0=$(cut -d' ' -f1 /proc/uptime)
	kill -USR2 $tp
	[ "$tag" = b ] && for i in 1 2 3; do echo "qemu-test kernel noise $i" >/dev/kmsg; usleep 50000; done
	wait_for $err "dump 1 (" $DUMP_WAIT $tp || say "$tag: no dump 1"
	/bin/wk_hot crash &
	c=$!
	say "$tag: crash=$c"
	wait $c
	say "$tag: crash exit=$?"
	wait_for $err "dump 2 (" $DUMP_WAIT $tp || say "$tag: no dump 2"
	kill -INT $tp
	wait_exit $tp $DUMP_WAIT || { say "$tag: tracer did not exit"; kill -9 $tp; }
	if [ -e /run/$tag.rc ]; then
		say "$tag: tracer exit=$(cat /run/$tag.rc)"
	else
		wait $tp 2>/dev/null
		say "$tag: tracer exit=$?"
	fi
	kill -TERM $w 2>/dev/null
	wait $w 2>/dev/null
	say "$tag: done in $(awk -v a=$t0 '{ printf "%.1f", $1 - a }' /proc/uptime)s"
	sed "s/^/QT $tag err: /" $err
}

CFG=$TRACER_CONFIG

# a: the dedicated port (x86 and MIPS ttyS1, ppc64el spapr-vty hvc1,
# virtio console hvc0 elsewhere)
if [ -z "${ONLY##*a*}" ]; then
	say "a: begin -o $PORT_DEV"
	/bin/tracer -o $PORT_DEV "$CFG baud=115200" 2>/run/a.err &
	run_scenario a $!
fi

# b: framed over the console, interleaved with kernel messages
if [ -z "${ONLY##*b*}" ]; then
	say "b: begin frame=text on the console"
	/bin/tracer "$CFG frame=text" 2>/run/b.err &
	run_scenario b $!
fi

# c: the stream through busybox nc, fetched by the host through hostfwd
if [ -z "${ONLY##*c*}" ]; then
	say "c: begin | nc -l -p 9000"
	( /bin/tracer "${TRACER_CONFIG_C:-$CFG}" 2>/run/c.err; echo $? >/run/c.rc ) | nc -l -p 9000 &
	ncpid=$!
	n=50 tp=
	while [ $n -gt 0 ] && [ -z "$tp" ] && [ ! -e /run/c.rc ]; do
		tp=$(pidof tracer); usleep 100000; n=$((n - 1))
	done
	say "c: listening"
	# the host connects when it sees "listening"; dump only once it has
	# (nc listens on IPv6 too: the connection may be in tcp6)
	n=600
	while [ $n -gt 0 ] && [ -n "$tp" ] && kill -0 $tp 2>/dev/null &&
	    ! cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | grep -q ':2328 [0-9A-F]*:[0-9A-F]* 01 '; do
		usleep 100000; n=$((n - 1))
	done
	[ $n -gt 0 ] && [ -n "$tp" ] && kill -0 $tp 2>/dev/null && say "c: host connected" || say "c: host did not connect"
	run_scenario c "$tp"
	wait_exit $ncpid 20 || { say "c: nc did not exit"; kill $ncpid; }
fi

say "all done, uptime $(cut -d' ' -f1 /proc/uptime)"
poweroff -f
