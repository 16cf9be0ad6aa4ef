# test/dupchk.awk - over perf script --show-task-events --show-mmap-events:
# a COMM (per tid) or an MMAP2 (per pid and start) that repeats the last
# description of the same thing is a repeat. Prints "COMMS MMAPS REPEATS".
# A FORK names the task after its parent (perf): the COMM after it is
# no repeat. With -v pids="P1 P2 ...": only those processes count (a
# test judges what it made; a busy machine's churn may make tracer
# describe others again, which perf takes fine).
BEGIN { n = split(pids, a, " "); for (i = 1; i <= n; i++) want[a[i]] = 1 }
function mine(p) { sub("/.*", "", p); return pids == "" || p in want }
/PERF_RECORD_FORK\(/ { f = $0; sub(/^.*PERF_RECORD_FORK\(/, "", f); sub(/\).*$/, "", f); sub(":", "/", f); delete last["c" f] }
/PERF_RECORD_COMM/ { sub(/^.*PERF_RECORD_COMM[^:]*: /, ""); n = split($0, a, ":"); k = "c" a[n]; v = $0
	if (!mine(a[n])) next
	if (k in last && last[k] == v) { rep++; if (show) print "repeat: " $0 } last[k] = v; nc++ }
/PERF_RECORD_MMAP2/ { sub(/^.*PERF_RECORD_MMAP2 /, ""); split($0, a, /[\/:\[(]/); k = "m" a[1] " " a[5]; v = $0
	if (!mine(a[1])) next
	if (k in last && last[k] == v) { rep++; if (show) print "repeat: " $0 } last[k] = v; nm++ }
END { print nc + 0, nm + 0, rep + 0 }
