#!/bin/sh
# test/qemu-init.sh - /init of the QEMU end-to-end guest (test/qemu.sh).
# Mounts proc/sys/devtmpfs, loads the modules listed in /etc/qemu-test.conf,
# remounts / read-only, brings up 10.0.2.15, then runs tracer three ways:
#   a  tracer -o PORT_DEV     one pipe-mode stream on a dedicated port
#   b  tracer 'frame=text'    framed text dumps on the console
#   c  tracer | nc -l -p 9000 the stream through netcat to the host (tracepoints alone)
#   r  (4.4) a build without OLDKERNEL refuses at start (defconfig's records)
#   i  (4.4) tracer's wake-ups in 20 s idle: tracepoints only, the
#      default config, the default with a spinner on each CPU
#   d  what used to break: -o on a file that exists, count=300, SIGBUS,
#      300 short processes, cpu2 offline and back, every CPU merged (the
#      dump files go to the host through nc, as c); then pr: tracer -p on
#      the guest's own dumps (stream, file, framed, zstd), the text to the
#      host beside each dump; pl: a dump pulled with listen= on loopback
#   n  numbered records: wk_hot on cpu 0 closes fds 100000, 100001, ...
#      in order, about 1.7 times what a 16 MiB ring holds, through this
#      kernel's read path (mapped pages, snapshot swaps or consuming
#      reads), then SIGINT; the kernel's count of what cpu 0's ring
#      holds just before; the dump to the host through nc (as c)
#   s  push=: a crash's dump and the final one into the host's S3 server
#   k  (a boot of its own, "tracer_k") a shell on the console, driven
#      from the host by test/gconsole.py: the README's board commands
#   h  (a boot of its own, "tracer_h", aarch64 under -icount) hardware
#      counters: tracer -l, an event the PMU lacks, cycles and
#      instructions with callchains while wk_hot spins on each CPU
#   p  (a boot of its own, "tracer_p" on the command line, 6.12) surviving
#      a crash: each boot writes the boot before with tracer -b (framed,
#      on the console), records with persist=boot_map, runs wk_bootN and
#      panics; QEMU keeps the RAM across the reboot. Five times.
# In a, b, c: a pinned workload (spin, SIGUSR1, sleep, hold), a SIGUSR2 dump,
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
# k: a board's console, shared ("tracer_k" on the command line): a shell
# whose controlling terminal is the console, /tmp a tmpfs as on a board;
# test/gconsole.py on the host types into it, and ends with poweroff -f
if grep -q tracer_k /proc/cmdline; then
	mount -t tmpfs tmp /tmp
	say "k: shell on /dev/$CON"
	setsid sh -c "exec sh -i <>/dev/$CON >&0 2>&1" &
	while :; do sleep 1000; done
fi
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

# wait_exit PID SECONDS: wait until PID is gone (or a zombie, which
# kill -0 still finds until the shell reaps it). Every 10 s of waiting
# says where it is (state and wchan), so that a guest that times out
# tells what it waited on.
wait_exit() {
	n=$(($2 * 10))
	while [ $n -gt 0 ]; do
		kill -0 "$1" 2>/dev/null || return 0
		st=$(cut -d' ' -f3 /proc/$1/stat 2>/dev/null)
		[ "$st" = Z ] && return 0
		[ $((n % 100)) = 0 ] && [ $n != $(($2 * 10)) ] &&
			say "waiting for pid $1: state $st, wchan $(cat /proc/$1/wchan 2>/dev/null), uptime $(cut -d' ' -f1 /proc/uptime)"
		usleep 100000
		n=$((n - 1))
	done
	return 1
}

# caught PID SIG SECONDS: wait until PID catches SIG (its SigCgt bit)
caught() {
	n=$(($3 * 10))
	while [ $n -gt 0 ]; do
		m=$(sed -n 's/^SigCgt:[^0-9a-f]*//p' /proc/$1/status 2>/dev/null)
		m=${m#????????}
		[ -n "$m" ] && [ $(((0x$m >> ($2 - 1)) & 1)) = 1 ] && return 0
		usleep 100000
		n=$((n - 1))
	done
	return 1
}

# stop_tp TAG PID: SIGINT, the final dump, and how tracer exited (from
# /run/TAG.rc when it ran in a pipeline)
stop_tp() {
	kill -INT $2
	say "$1: SIGINT sent, uptime $(cut -d' ' -f1 /proc/uptime)"
	wait_exit $2 $DUMP_WAIT || { say "$1: tracer did not exit"; kill -9 $2; }
	# in a pipeline (c, d2), the subshell writes the status once tracer is gone
	case $1 in c|d2) wait_for /run/$1.rc . 5 ;; esac
	if [ -e /run/$1.rc ]; then
		say "$1: tracer exit=$(cat /run/$1.rc)"
	else
		wait $2 2>/dev/null
		say "$1: tracer exit=$?"
	fi
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
	stop_tp $tag $tp
	kill -TERM $w 2>/dev/null
	wait $w 2>/dev/null
	say "$tag: done in $(awk -v a=$t0 '{ printf "%.1f", $1 - a }' /proc/uptime)s"
	sed "s/^/QT $tag err: /" $err
}

# p: the persistent instance boot_map (reserve_mem= trace_instance= on
# the command line). The boot number: the boot before's workload, as its
# records (read without consuming them, from the text view) name it.
if grep -q tracer_p /proc/cmdline; then
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
	I=/sys/kernel/tracing/instances/boot_map
	n=$(grep -ao 'wk_boot[0-9]*' $I/trace 2>/dev/null | tail -1)
	n=${n#wk_boot}; n=${n:-0}
	# tracer_pd: QEMU wrote over part of the region at each reset, so
	# the records may not name the boot before: the second boot is the
	# one whose kernel found a boot before's meta data (any word but
	# the first boot's "mismatch of magic")
	if grep -q tracer_pd /proc/cmdline; then
		dmesg | grep 'Ring buffer' | grep -vq 'mismatch of magic' && n=1 || n=0
		dmesg | grep 'Ring buffer' | sed 's/^\[[^]]*\] //; s/^/QT pd kernel: /'	# (no "[ t ]": qt_join)
	fi
	say "p: boot $((n + 1)), uptime $(cut -d' ' -f1 /proc/uptime), last_boot_info $(head -1 $I/last_boot_info 2>&1 | tr '\t' ' ')"
	if [ $n -gt 0 ]; then
		say "p: b$n begin"
		/bin/tracer-p -b frame=text 2>/run/pb.err
		say "p: b$n exit=$? last_boot_info $(head -1 $I/last_boot_info 2>&1 | tr '\t' ' ')"
		sed "s/^/QT p$n err: /" /run/pb.err
	fi
	if [ $n -ge ${P_BOOTS:-5} ]; then
		say "all done, uptime $(cut -d' ' -f1 /proc/uptime)"
		poweroff -f
	fi
	k=$((n + 1))
	/bin/tracer-p -o /run/p.data "persist=boot_map sched:sched_switch sched:sched_process_exec" 2>/run/p.err &
	tp=$!
	if ! wait_for /run/p.err recording 60 $tp; then
		say "p: tracer did not start"
		sed "s/^/QT p err: /" /run/p.err
		poweroff -f
	fi
	say "p: tracer=$tp"
	cp /bin/wk_hot /run/wk_boot$k
	/run/wk_boot$k spin 300
	say "p: panic$k uptime=$(cut -d' ' -f1 /proc/uptime)"
	usleep 200000	# the console takes the line before the panic stops it
	echo c >/proc/sysrq-trigger
	sleep 10
	say "p: no panic"
	poweroff -f
fi

# m: pstore's pmsg (a kernel with PSTORE_PMSG, ramoops on memory a warm
# reboot keeps: "tracer_m" on the command line). Boot 1 dumps into
# /dev/pmsg0 and panics; boot 2 finds the dump in /sys/fs/pstore.
if grep -q tracer_m /proc/cmdline; then
	mkdir -p /run/pstore
	mount -t pstore pstore /run/pstore || say "m: mount pstore failed"
	if [ -e /run/pstore/pmsg-ramoops-0 ]; then
		say "m: pstore $(cd /run/pstore && ls | tr '\n' ' ')"
		say "m: pmsg begin"
		cat /run/pstore/pmsg-ramoops-0
		echo
		say "m: pmsg end"
		say "all done, uptime $(cut -d' ' -f1 /proc/uptime)"
		poweroff -f
	fi
	/bin/tracer -o /dev/pmsg0 "sched:sched_switch sched:sched_process_exec buf=64k frame=text zstd" 2>/run/m.err &
	tp=$!
	wait_for /run/m.err recording 60 $tp || say "m: tracer did not start"
	cp /bin/wk_hot /run/wk_pmsg
	/run/wk_pmsg spin 200
	kill -USR2 $tp
	wait_for /run/m.err "dump 1 (" $DUMP_WAIT $tp || say "m: no dump 1"
	sed "s/^/QT m err: /" /run/m.err
	say "m: panic uptime=$(cut -d' ' -f1 /proc/uptime)"
	usleep 200000
	echo c >/proc/sysrq-trigger
	sleep 10
	say "m: no panic"
	poweroff -f
fi

# h: hardware counters ("tracer_h" on the command line: aarch64 under
# -icount shift=N, test/qemu.sh): what tracer -l lists, the word for an
# event this PMU lacks, then H_CONFIG on the port while wk_hot spins
# H_MS ms of its CPU time on each CPU
if grep -q tracer_h /proc/cmdline; then
	# an instruction takes 2^N ns of the guest's clock here: the kernel
	# would find its sampling interrupts slow and lower the sample rate
	echo 0 >/proc/sys/kernel/perf_cpu_time_max_percent
	/bin/tracer -l 2>&1 | grep -v 'tracepoint]$\|software]$' | sed 's/^/QT h list: /'
	/bin/tracer -o /run/hx.data cache-misses 2>/run/hx.err &
	tp=$!
	wait_exit $tp 10 || kill -INT $tp
	wait $tp
	say "h: cache-misses exit=$? $(cat /run/hx.err)"
	/bin/tracer -o $PORT_DEV "$H_CONFIG" 2>/run/h.err &
	tp=$!
	if wait_for /run/h.err recording 60 $tp; then
		n=$(grep -c ^processor /proc/cpuinfo) i=0 w=
		say "h: tracer=$tp cpus=$n"
		while [ $i -lt $n ]; do
			taskset $((1 << i)) /bin/wk_hot spin $H_MS &
			say "h: spin cpu=$i pid=$!"
			w="$w $!" i=$((i + 1))
		done
		wait $w
		stop_tp h $tp
	else
		say "h: tracer did not start"
		kill -9 $tp 2>/dev/null
	fi
	say "h: perf_event_max_sample_rate $(cat /proc/sys/kernel/perf_event_max_sample_rate)"
	sed "s/^/QT h err: /" /run/h.err
	say "all done, uptime $(cut -d' ' -f1 /proc/uptime)"
	poweroff -f
fi

CFG=$TRACER_CONFIG

# r: a kernel with no backward ring buffers (4.4): a build without
# OLDKERNEL refuses at start, says why, writes nothing to stdout (the
# other scenarios run defconfig's build, which has OLDKERNEL)
if [ -z "${ONLY##*r*}" ]; then
	say "r: begin"
	/bin/tracer-noold "$CFG" >/run/r.out 2>/run/r.err
	say "r: tracer exit=$? stdout=$(wc -c </run/r.out) bytes"
	sed "s/^/QT r err: /" /run/r.err
	/bin/tracer-noold 'sched:sched_* engine=perf' >/run/r.out 2>/run/r.err	# a glob on perf rings
	say "rg: tracer exit=$? stdout=$(wc -c </run/r.out) bytes"
	sed "s/^/QT rg err: /" /run/r.err
fi

# i: idle wake-ups (before 4.7 the perf rings are forward, and wake
# tracer at 3/4): tracer's voluntary switches in 20 s, with tracepoints
# only and with the default config idle, then the default while a
# spinner runs on each of two CPUs
if [ -z "${ONLY##*i*}" ]; then
	vs() { awk '/^voluntary_ctxt_switches/ { print $2 }' /proc/$1/status; }
	for m in tp def load; do
		c=; [ $m = tp ] && c="sched:sched_switch sched:sched_wakeup sched:sched_process_exec sched:sched_process_exit signal:signal_generate"
		/bin/tracer -o /run/i-$m.data ${c:+"$c"} 2>/run/i-$m.err &
		tp=$!
		if wait_for /run/i-$m.err "recording" 60 $tp; then
			sleep 2
			l=; [ $m = load ] && { taskset 1 /bin/wk_hot spin 21000 & l="$!"; taskset 2 /bin/wk_hot spin 21000 & l="$l $!"; }
			a=$(vs $tp); sleep 20; b=$(vs $tp)
			[ -n "$l" ] && wait $l
			say "i: $m: wake-ups=$((b - a)) in 20 s"
			stop_tp i-$m $tp >/dev/null
		else
			say "i: $m: tracer did not start"; kill -9 $tp 2>/dev/null
		fi
		sed "s/^/QT i err: /" /run/i-$m.err
	done
	# off and on: SIGUSR1 drops what comes (before 4.7 there is no
	# PAUSE_OUTPUT), SIGCONT records again; o.data goes with d's files
	cp /bin/wk_hot /run/wk_off; cp /bin/wk_hot /run/wk_on
	/bin/tracer -o /run/o.data "cpu-clock@99 buf=64k" 2>/run/o.err &
	tp=$!
	if wait_for /run/o.err "recording" 60 $tp; then
		kill -USR1 $tp; wait_for /run/o.err "recording off" 10 $tp
		/run/wk_off spin 500
		kill -CONT $tp; wait_for /run/o.err "recording on" 10 $tp
		/run/wk_on spin 500
		stop_tp o $tp >/dev/null
	else
		kill -9 $tp 2>/dev/null
	fi
	sed "s/^/QT o err: /" /run/o.err
	# a glob's tracepoints on perf rings (engine=perf), forward too
	/bin/tracer -o /run/g.data "sched:sched_process_* engine=perf buf=64k" 2>/run/g.err &
	tp=$!
	if wait_for /run/g.err "recording" 60 $tp; then
		/bin/wk_hot spin 10
		stop_tp g $tp >/dev/null
	else
		kill -9 $tp 2>/dev/null
	fi
	sed "s/^/QT g err: /" /run/g.err
fi

# a: the dedicated port (x86 and MIPS ttyS1, ppc64el spapr-vty hvc1,
# virtio console hvc0 elsewhere)
if [ -z "${ONLY##*a*}" ]; then
	say "a: begin -o $PORT_DEV"
	/bin/tracer -o $PORT_DEV "$CFG baud=115200" 2>/run/a.err &
	run_scenario a $!
fi

# b: framed over the console, interleaved with kernel messages, and
# compressed (zstd): the encoder on every arch, big-endian s390x too
if [ -z "${ONLY##*b*}" ]; then
	say "b: begin frame=text on the console"
	/bin/tracer "$CFG frame=text zstd" 2>/run/b.err &
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

# s: push= (a build with PUSH): a crash trips trip=segv, and that dump
# and the final one go to the host's S3 server at 10.0.2.2 (QEMU's user
# network reaches the host's loopback there), signed with this arch's
# SHA-256 and sent from this arch's poll loop; the host judges them
if [ -z "${ONLY##*s*}" ] && [ -x /bin/tracer-s ]; then
	/bin/tracer-s -o /dev/null "push=$PUSH_URL s3key=/etc/s3key trip=segv cpu-clock@99 buf=64k" 2>/run/s.err &
	sp=$!
	if wait_for /run/s.err "recording" 60 $sp; then
		/bin/wk_hot crash
		wait_for /run/s.err " arrived: " $DUMP_WAIT $sp || say "s: dump 1 did not arrive"
		kill -INT $sp
		wait_exit $sp 60 || say "s: tracer did not exit"
		say "s: arrived $(grep -c ' arrived: ' /run/s.err)"
	else
		say "s: tracer did not start"
	fi
	sed "s/^/QT s err: /" /run/s.err
fi

# n: numbered records overfill cpu 0's ring; the host judges that the
# final dump holds the newest close and every one before it that the
# ring still held (the kernel's entries of cpu 0, read just before the
# SIGINT). Before d: a, b and c's two CPUs, the RAM d's dumps want later.
if [ -z "${ONLY##*n*}" ]; then
	say "n: begin -o /run/n.data '$N_CONFIG', close $N_CLOSES"
	t0=$(cut -d' ' -f1 /proc/uptime)
	/bin/tracer -o /run/n.data "$N_CONFIG" 2>/run/n.err &
	tp=$!
	if wait_for /run/n.err "recording" 60 $tp; then
		say "n: tracer=$tp"
		taskset 1 /bin/wk_hot close $N_CLOSES &
		w=$!
		wait $w
		x=$?
		s=$(ls -d /sys/kernel/tracing/instances/tracer.$tp* /sys/kernel/debug/tracing/instances/tracer.$tp* 2>/dev/null | head -1)
		s=$(cat $s/per_cpu/cpu0/stats 2>/dev/null | sed -n -e 's/^entries: *\([0-9]*\)/entries=\1/p' -e 's/^overrun: *\([0-9]*\)/overrun=\1/p' | tr '\n' ' ')
		say "n: work=$w exit=$x ring $s"
		stop_tp n $tp
	else
		say "n: tracer did not start"
		kill -9 $tp 2>/dev/null
	fi
	say "n: done in $(awk -v a=$t0 '{ printf "%.1f", $1 - a }' /proc/uptime)s"
	sed "s/^/QT n err: /" /run/n.err
	# (the host connects when it sees "serving", and stops trying at
	# "served": an empty file is served too)
	[ -e /run/n.data ] || : >/run/n.data
	nc -l -p 9000 </run/n.data &
	ncpid=$!
	usleep 200000
	say "n: serving n.data $(wc -c </run/n.data) bytes"
	wait_exit $ncpid 60 || { say "n: nc did not exit"; kill $ncpid; }
	say "n: served"
	rm -f /run/n.data
fi

# B (make bench's dur phase, never in make test-qemu): what an armed
# trip=wakeup>5ms adds on a switch-heavy load, side by side: pingpong
# round trips (two wakeups, two switches each, on one CPU) with no
# tracer, with a config, with the same config and the tripwire armed;
# each round runs the three in turn, the order turned round each time
if [ -z "${ONLY##*B*}" ]; then
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
	BC='sched:sched_switch sched:sched_waking'
	for r in 1 2 3 4 5 6 7 8 9 10; do
		ks="bare plain armed"; [ $((r % 2)) = 0 ] && ks="armed plain bare"
		for k in $ks; do
			tp=
			case $k in
			plain) /bin/tracer -o /run/B.data "$BC" 2>/run/B.err & tp=$! ;;
			armed) /bin/tracer -o /run/B.data "$BC trip=wakeup>5ms" 2>/run/B.err & tp=$! ;;
			esac
			if [ -n "$tp" ] && ! wait_for /run/B.err "recording" 60 $tp; then
				say "B: $k: tracer did not start: $(tr '\n' ' ' </run/B.err)"
				kill -9 $tp 2>/dev/null; continue
			fi
			ns=$(/bin/wk_hot pingpong 20000 | sed -n 's/^pingpong \([0-9]*\) ns.*/\1/p')
			say "B: round $r $k $ns"
			if [ -n "$tp" ]; then
				# (SIGINT: its instance and triggers go, as a
				# SIGKILL's would stay and weigh on the next runs)
				kill -INT $tp; wait_exit $tp $DUMP_WAIT || kill -9 $tp; wait $tp 2>/dev/null
				grep -q "trip wakeup" /run/B.err && say "B: round $r: the tripwire fired: $(grep -m1 'trip wakeup' /run/B.err)"
			fi
			rm -f /run/B.data*
		done
	done
	say "B: done, uptime $(cut -d' ' -f1 /proc/uptime)"
fi

# w: duration tripwires, computed by the kernel (hist triggers and
# synthetic events: CONFIG_HIST_TRIGGERS, CONFIG_SYNTH_EVENTS, 4.17+;
# without them tracer exits 2 and says so). T = 50 ms; the injected
# delays 200 ms (fires) and 10 ms (must not): TCG's wake-up jitter of an
# RT task stays far below 50 ms. Beside: another user's synthetic event
# and hist triggers (the top instance), a second tracer, a SIGKILL and
# the next start's clean-up.
if [ -z "${ONLY##*w*}" ]; then
	TFS=/sys/kernel/tracing
	mount -t tracefs nodev $TFS 2>/dev/null
	cp /bin/wk_hot /run/wk_late; cp /bin/wk_hot /run/wk_pipe
	WCFG='sched:sched_switch sched:sched_waking trip=wakeup/comm=="wk_late"/>50ms trip=syscall/comm=="wk_pipe"/>50ms buf=1m'
	wleft() { echo "$(ls $TFS/instances | grep -c '^tracer') instances, $(grep -c '^tr_dur_' $TFS/synthetic_events) synthetic events"; }
	if [ ! -e $TFS/synthetic_events ]; then
		/bin/tracer -o /run/w.data "$WCFG" 2>/run/w.err
		say "w: no synthetic events: tracer exit=$?"
		sed "s/^/QT w err: /" /run/w.err
	else
		echo 'other_lat u64 lat; pid_t pid' >>$TFS/synthetic_events
		echo 'hist:keys=pid:ots=common_timestamp.usecs' >>$TFS/events/sched/sched_waking/trigger
		echo 'hist:keys=next_pid:olat=common_timestamp.usecs-$ots:onmatch(sched.sched_waking).other_lat($olat,next_pid)' \
			>>$TFS/events/sched/sched_switch/trigger
		echo 'hist:keys=pid' >>$TFS/events/synthetic/other_lat/trigger
		/bin/tracer -o /run/w.data "$WCFG" 2>/run/w.err &
		tp=$!
		wait_for /run/w.err "recording" 60 $tp
		# a second tracer, started once the first is armed: its start
		# (the sweep of a killed tracer's objects) leaves the first's
		/bin/tracer -o /dev/null 'trip=wakeup>1s trip=syscall>100s' 2>/run/wb.err &
		tb=$!
		if wait_for /run/w.err "recording" 60 $tp && wait_for /run/wb.err "recording" 60 $tb; then
			/run/wk_late late 10
			/run/wk_pipe piperead 10
			usleep 500000
			say "w: short: $(grep -c 'dump [0-9]* (' /run/w.err) dumps"
			/run/wk_late late 200 &
			lp=$!
			wait $lp
			wait_for /run/w.err "dump 1 (" $DUMP_WAIT $tp
			/run/wk_pipe piperead 300 &
			pp=$!
			wait $pp
			wait_for /run/w.err "dump 2 (" $DUMP_WAIT $tp
			say "w: late pid $lp, pipe pid $pp"
			stop_tp w $tp >/dev/null
			stop_tp wb $tb >/dev/null
		else
			kill -9 $tp $tb 2>/dev/null
		fi
		sed "s/^/QT w err: /" /run/w.err
		sed "s/^/QT wb err: /" /run/wb.err
		say "w: left: $(wleft)"
		# blocked: a vfork parent waits in D state for its child's sleep;
		# irq: above 1 us (some handler crosses it), and above 10 s (none)
		cp /bin/wk_hot /run/wk_blk
		/bin/tracer -o /run/wx.data 'sched:sched_switch trip=blocked/prev_comm=="wk_blk"/>100ms trip=irq>1us,holdoff=10s trip=irq>10s' 2>/run/wx.err &
		tp=$!
		if wait_for /run/wx.err "recording" 60 $tp; then
			/run/wk_blk vforkwait 10
			usleep 300000
			say "w: blocked short: $(grep -c 'trip blocked' /run/wx.err) dumps"
			/run/wk_blk vforkwait 300 &
			bp=$!
			wait $bp
			wait_for /run/wx.err "trip blocked" $DUMP_WAIT $tp
			sleep 2
			say "w: blocked pid $bp"
			stop_tp wx $tp >/dev/null
		else
			kill -9 $tp 2>/dev/null
		fi
		sed "s/^/QT wx err: /" /run/wx.err
		# softirq above 1 us (some crosses it) and above 10 s (none);
		# oncpu: a task that spins 400 ms after a sleep (its switch-in
		# under its own name), and one that spins 10 ms; the generic
		# form: from a fork to the child's exit, the child's name at
		# its exit, 300 ms and 10 ms
		cp /bin/wk_hot /run/wk_hog; cp /bin/wk_hot /run/wk_gen
		/bin/tracer -o /run/wy.data 'sched:sched_switch trip=softirq>1us,holdoff=10s trip=softirq>10s trip=oncpu/next_comm=="wk_hog"/>50ms trip=sched:sched_process_fork(child_pid)..sched:sched_process_exit(pid)/comm=="wk_gen"/>100ms' 2>/run/wy.err &
		tp=$!
		if wait_for /run/wy.err "recording" 60 $tp; then
			wait_for /run/wy.err "trip softirq" $DUMP_WAIT $tp
			/run/wk_hog sleep 50 wspin 10
			/run/wk_gen sleep 10
			usleep 500000
			say "w: oncpu, fork..exit short: $(grep -c 'trip oncpu\|trip sched_process_fork' /run/wy.err) dumps"
			/run/wk_hog sleep 50 wspin 400 &
			hp=$!
			wait $hp
			wait_for /run/wy.err "trip oncpu" $DUMP_WAIT $tp
			sleep 1
			/run/wk_gen sleep 300 &
			gp=$!
			wait $gp
			wait_for /run/wy.err "trip sched_process_fork" $DUMP_WAIT $tp
			say "w: hog pid $hp, gen pid $gp"
			stop_tp wy $tp >/dev/null
		else
			kill -9 $tp 2>/dev/null
		fi
		sed "s/^/QT wy err: /" /run/wy.err
		# engine=perf: the recording on perf rings, the tripwire the same
		/bin/tracer -o /run/wp.data 'sched:sched_switch engine=perf trip=syscall/comm=="wk_pipe"/>50ms' 2>/run/wp.err &
		tp=$!
		if wait_for /run/wp.err "recording" 60 $tp; then
			/run/wk_pipe piperead 300 &
			pp=$!
			wait $pp
			wait_for /run/wp.err "trip syscall" $DUMP_WAIT $tp
			say "w: perf engine: pipe pid $pp"
			stop_tp wp $tp >/dev/null
		else
			kill -9 $tp 2>/dev/null
		fi
		sed "s/^/QT wp err: /" /run/wp.err
		# idle: the same config unarmed, then armed (wakeup>1s and
		# syscall>1s of the load), each under a load of wakeups and syscalls below
		# both thresholds, for 60 s (the issue's; 20 s but on x86_64), in
		# one process (new processes would wake the default config's
		# tracking ring)
		secs=20; [ "$(uname -m)" = x86_64 ] && secs=60
		set --
		i=0
		while [ $i -lt $((secs * 10)) ]; do set -- "$@" sleep 100 sys 1; i=$((i + 1)); done
		for m in unarmed armed; do
			c='sched:sched_switch sched:sched_waking'
			# (the load's own: this shell's wait4 for it lasts the 30 s)
			[ $m = armed ] && c="$c trip=wakeup/comm==\"wk_hot\"/>1s trip=syscall/comm==\"wk_hot\"/>1s"
			/bin/tracer -o /dev/null "$c" 2>/run/wi-$m.err &
			tp=$!
			if wait_for /run/wi-$m.err "recording" 60 $tp; then
				usleep 500000; usleep 500000; usleep 500000; usleep 500000
				a=$(awk '/^voluntary_ctxt_switches/ { print $2 }' /proc/$tp/status)
				/bin/wk_hot "$@"
				b=$(awk '/^voluntary_ctxt_switches/ { print $2 }' /proc/$tp/status)
				say "w: idle $m: wake-ups=$((b - a)) in $secs s"
				stop_tp wi-$m $tp >/dev/null
			else
				kill -9 $tp 2>/dev/null
			fi
			sed "s/^/QT wi err: /" /run/wi-$m.err
		done
		/bin/tracer -o /dev/null 'trip=wakeup>1s' 2>/run/wk.err &
		tp=$!
		wait_for /run/wk.err "recording" 60 $tp && kill -9 $tp
		wait $tp 2>/dev/null
		say "w: killed: $(wleft)"
		/bin/tracer -o /dev/null 'trip=syscall>1s' 2>/run/wn.err &
		tp=$!
		wait_for /run/wn.err "recording" 60 $tp
		kill -TERM $tp
		wait $tp
		sed "s/^/QT wn err: /" /run/wn.err
		say "w: after: $(wleft)"
		h0=$(sed -n 's/^ *Hits: //p' $TFS/events/synthetic/other_lat/hist)
		/bin/wk_hot sleep 10 sleep 10
		say "w: other: $(grep -c '^other_lat' $TFS/synthetic_events) event, hits $h0 then $(sed -n 's/^ *Hits: //p' $TFS/events/synthetic/other_lat/hist)"
	fi
fi

# d: what used to break, each in a few seconds. The guest booted with
# maxcpus=2 where it has more (a, b and c as on two CPUs): the others
# come online first. The dumps go to files on /run, carried to the host
# in one tar through nc (as c).
# d1 (tracer -o /run/d.data, a file that exists): the file is left as it
#   is and the dumps go to d.data.1, ...; a tripwire with count=300 on
#   SIGUSR1 (every hit counted, also with 64 KiB pages; sent 10 at a time,
#   each ten once tracer has counted the ten before: the 8 KiB tripwire
#   ring is not a burst buffer), then kill -BUS trips trip=segv (SIGBUS
#   is in the preset: 7, on MIPS 10).
# d2 (tracer -o /run/d2.data): dump 1 after 300 short processes and a
#   wk_hot that spun and exited (its comm and symbols come from the
#   tracking table); then, where there is a cpu2, cpu2 goes offline and
#   back and a workload runs on it; a spinner on every CPU; dump 2 at
#   exit (all CPUs merged in time order).
if [ -z "${ONLY##*d*}" ]; then
	for c in /sys/devices/system/cpu/cpu[0-9]*/online; do
		[ ! -e $c ] || [ "$(cat $c)" = 1 ] || echo 1 >$c || say "d: $c: can't bring it online"
	done
	say "d: $(grep -c ^processor /proc/cpuinfo) cpus online"

	say "d1: begin -o /run/d.data (exists)"
	t0=$(cut -d' ' -f1 /proc/uptime)
	echo "qemu-test: this file was here first" >/run/d.data
	sum0=$(md5sum </run/d.data)
	taskset $WORK_MASK /bin/wk_hot hold &
	w=$!
	# SIGUSR1 only once wk_hot catches it: before its handler is in (still
	# taskset, or not yet at main on a slow guest) one kills it (seen on
	# the 24Kc: exit 144, 128 + SIGUSR1)
	caught $w $SIGUSR1 30 || say "d1: wk_hot $w does not catch SIGUSR1"
	/bin/tracer -o /run/d.data "$D1_CONFIG" 2>/run/d1.err &
	tp=$!
	if wait_for /run/d1.err "recording" 60 $tp; then
		say "d1: tracer=$tp work=$w"
		i=0
		while [ $i -lt 300 ]; do
			kill -USR1 $w
			i=$((i + 1))
			[ $((i % 10)) = 0 ] && [ $i -lt 300 ] && ! wait_for /run/d1.err "hit $i of 300," 10 $tp && break
		done
		say "d1: sent $i SIGUSR1"
		wait_for /run/d1.err "dump 1 (" 20 $tp || say "d1: no dump 1"
		/bin/wk_hot hold &
		bus=$!
		n=50
		while [ $n -gt 0 ] && [ "$(cat /proc/$bus/comm 2>/dev/null)" != wk_hot ]; do usleep 100000; n=$((n - 1)); done
		kill -BUS $bus
		wait $bus
		say "d1: bus=$bus exit=$?"
		wait_for /run/d1.err "(trip segv" 20 $tp || say "d1: no trip segv dump"
		stop_tp d1 $tp
	else
		say "d1: tracer did not start"
		kill -9 $tp 2>/dev/null
	fi
	kill -0 $w 2>/dev/null || say "d1: work $w was gone before its SIGTERM"
	kill -TERM $w 2>/dev/null; wait $w 2>/dev/null; say "d1: work $w exit=$?"
	[ "$(md5sum </run/d.data)" = "$sum0" ] && say "d1: existing file unchanged" ||
		say "d1: existing file changed: $(head -c 60 /run/d.data | od -An -c | head -2 | tr -s ' \n' ' ')"
	say "d1: files $(cd /run && ls d.data* | tr '\n' ' ')"
	for f in /run/d.data.*; do
		[ -e "$f" ] && say "d1: ${f#/run/} $(wc -c <$f) bytes, magic $([ "$(head -c 8 $f)" = PERFILE2 ] && echo PERFILE2 || echo other)"
	done
	say "d1: done in $(awk -v a=$t0 '{ printf "%.1f", $1 - a }' /proc/uptime)s"
	sed "s/^/QT d1 err: /" /run/d1.err

	say "d2: begin -o /run/d2.data"
	t0=$(cut -d' ' -f1 /proc/uptime)
	# tracer's stderr through a reader that, the moment tracer says cpu2
	# is back, execs a workload there (a user's script reacting to the
	# line): what runs on a CPU after that line must be recorded
	: >/run/d2.err
	( /bin/tracer -o /run/d2.data "$D2_CONFIG" 2>&1; echo $? >/run/d2.rc ) | while IFS= read -r l; do
		echo "$l" >>/run/d2.err
		case $l in *"cpu 2 is back online: recording it again"*)
			taskset 4 /bin/wk_hot spin 300 sleep 10 signal &
			echo $! >/run/d2.hot ;;
		esac
	done &
	n=50 tp=
	while [ $n -gt 0 ] && [ -z "$tp" ] && [ ! -e /run/d2.rc ]; do
		tp=$(pidof tracer); usleep 100000; n=$((n - 1))
	done
	if [ -n "$tp" ] && wait_for /run/d2.err "recording" 60 $tp; then
		say "d2: tracer=$tp"
		/bin/wk_hot storm 300
		taskset $WORK_MASK /bin/wk_hot spin 300 &
		s=$!
		wait $s
		say "d2: spun=$s exit=$? cpu_mask=$WORK_MASK"
		kill -0 $s 2>/dev/null && say "d2: $s is still there"
		kill -USR2 $tp
		wait_for /run/d2.err "dump 1 (" $DUMP_WAIT $tp || say "d2: no dump 1"
		CPU2=/sys/devices/system/cpu/cpu2/online
		if [ -w $CPU2 ] && [ "$(cat $CPU2)" = 1 ]; then
			if echo 0 >$CPU2; then
				wait_for /run/d2.err "cpu 2 went offline" 20 $tp || say "d2: tracer did not see cpu2 go"
				say "d2: cpu2 online=$(cat $CPU2)"
				echo 1 >$CPU2 || say "d2: cpu2 did not come back"
				wait_for /run/d2.err "cpu 2 is back online" 20 $tp || say "d2: tracer did not see cpu2 come back"
				wait_for /run/d2.hot . 5 || say "d2: no workload started on cpu2"
				h=$(cat /run/d2.hot 2>/dev/null)
				[ -n "$h" ] && wait_exit $h 60
				say "d2: hotplug=$h"
			else
				say "d2: cpu2 can't be taken offline"
			fi
		else
			say "d2: no cpu2 to take offline"
		fi
		pids= n=0
		for c in /sys/devices/system/cpu/cpu[0-9]*; do
			c=${c##*cpu}
			[ "$(cat /sys/devices/system/cpu/cpu$c/online 2>/dev/null || echo 1)" = 1 ] || continue
			taskset $(printf '%x' $((1 << c))) /bin/wk_hot spin 100 &
			pids="$pids $!" n=$((n + 1))
		done
		for p in $pids; do wait $p; done
		say "d2: spinners on $n cpus"
		stop_tp d2 $tp
	else
		say "d2: tracer did not start"
		kill -9 $tp 2>/dev/null
	fi
	say "d2: done in $(awk -v a=$t0 '{ printf "%.1f", $1 - a }' /proc/uptime)s"
	sed "s/^/QT d2 err: /" /run/d2.err

	# pr: tracer -p here, on the guest's own dumps, in each mode: a
	# stream, a file, a framed capture, zstd; the host compares the text
	# with host perf on the same dump
	for m in stream file framed zstd; do
		k=; case $m in framed) k=frame=text ;; zstd) k=zstd ;; esac
		if [ $m = file ]; then
			/bin/tracer -o /run/pr-$m.data "$PR_CONFIG" 2>/run/pr-$m.err &
		else
			/bin/tracer "$PR_CONFIG $k" >/run/pr-$m.data 2>/run/pr-$m.err &
		fi
		tp=$!
		if wait_for /run/pr-$m.err "recording" 60 $tp; then
			/bin/wk_hot spin 30 signal sys 200 signal
			echo "<4>qemu-test pr $m" >/dev/kmsg
			usleep 200000
			stop_tp pr-$m $tp >/dev/null
			/bin/tracer -p /run/pr-$m.data >/run/pr-$m.txt 2>/run/pr-$m.perr
			say "pr: $m: tracer -p exit=$? $(grep -c . /run/pr-$m.txt) lines $(head -c 200 /run/pr-$m.perr | tr '\n' ' ')"
		else
			say "pr: $m: tracer did not start: $(cat /run/pr-$m.err)"
			kill -9 $tp 2>/dev/null
		fi
	done

	# pl: a pulled dump: listen= on loopback, where root pulls with no
	# key (nc's stdin stays open until the dump has come)
	/bin/tracer -o /run/pl-fin.data "sched:sched_switch cpu-clock@99 listen=127.0.0.1:9100 buf=64k" 2>/run/pl.err &
	tp=$!
	if wait_for /run/pl.err "recording" 60 $tp; then
		/bin/wk_hot spin 100
		(usleep 2000000) | nc 127.0.0.1 9100 >/run/pl.data
		stop_tp pl $tp >/dev/null
	else
		kill -9 $tp 2>/dev/null
	fi
	sed "s/^/QT pl err: /" /run/pl.err

	# fw: forward perf rings (a build with OLDKERNEL, forced on any
	# kernel by TRACER_FORWARD): two dumps, each after a spin
	if [ -x /bin/tracer-f ]; then
		TRACER_FORWARD=1 /bin/tracer-f -o /run/fw.data "sched:sched_process_exec cpu-clock@99 engine=perf buf=64k" 2>/run/fw.err &
		tp=$!
		if wait_for /run/fw.err "recording" 60 $tp; then
			/bin/wk_hot spin 300
			kill -USR2 $tp
			wait_for /run/fw.err "dump 1 (" $DUMP_WAIT $tp
			/bin/wk_hot spin 300
			stop_tp fw $tp >/dev/null
		else
			kill -9 $tp 2>/dev/null
		fi
		sed "s/^/QT fw err: /" /run/fw.err
	fi

	# the dump files to the host: one tar through nc (the host connects
	# when it sees "serving")
	(cd /run && tar c d.data* d2.data* pr-* pl.data $(ls o.data g.data fw.data* w.data* wx.data* wy.data* wp.data* 2>/dev/null)) | nc -l -p 9000 &
	ncpid=$!
	usleep 200000
	say "d: serving $(cd /run && ls d.data* d2.data* | tr '\n' ' ')"
	wait_exit $ncpid 30 || { say "d: nc did not exit"; kill $ncpid; }
fi

say "all done, uptime $(cut -d' ' -f1 /proc/uptime)"
poweroff -f
