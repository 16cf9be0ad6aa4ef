#!/bin/bash
# test/run.sh - run the real static binary as root, as a user would, and
# judge its dumps with the host's perf. Ends with "N passed, N failed".
cd "$(dirname "$0")/.." || exit 1
TOP=$PWD
. test/lib.sh

need_root
T=$(mktemp -d /tmp/tracer-test.XXXXXX)
export WORK_HELD=$T/held	# test/work.c's hold step says it got there
need_tools
trap 'cpu_restore; stop_all; rm -rf "$T"' EXIT
trap 'exit 130' INT TERM HUP	# so the EXIT trap runs
build_main
gcc -O1 -g -fno-inline -o "$T/work" test/work.c || die_setup "can't build test/work.c"

# ftrace instances as they were after every test file: tracer removes
# its own on every way out
inst() { ls "$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)/instances" 2>/dev/null | sort | tr '\n' ' '; }
# What a test file left: instances that came while it ran and whose
# tracer is gone. Other tracers on the machine (other jobs' tests) come
# and go meanwhile: theirs are live (their pid runs), or were there
# before.
left() {
	local i p
	for i in $(inst); do
		case " $1 " in *" $i "*) continue ;; esac
		p=${i#tracer.}; p=${p%%[!0-9]*}
		[ -n "$p" ] && [ -d "/proc/$p" ] && continue	# (any name: tracer.dbg, a copy)
		printf '%s ' "$i"
	done
}
# TESTS="t_dump t_trip" runs only those files (while working on them)
for t in test/t_*.sh; do
	if [ -n "${TESTS:-}" ]; then case " $TESTS " in *" $(basename "$t" .sh) "*) ;; *) continue ;; esac; fi
	echo "== $t"
	i0=$(inst) RUN_T0=$(date +%s)
	. "$t"
	for i in $(seq 20); do [ -z "$(left "$i0")" ] && break; sleep 0.1; done
	testing "$t leaves no ftrace instance behind" "" "$(left "$i0")"
	echo "== $t: $(($(date +%s) - RUN_T0)) s"
done
report
