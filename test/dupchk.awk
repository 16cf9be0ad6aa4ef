# test/dupchk.awk - over perf script --show-task-events --show-mmap-events:
# a COMM (per tid) or an MMAP2 (per pid and start) that repeats the last
# description of the same thing is a repeat. Prints "COMMS MMAPS REPEATS".
# A FORK names the task after its parent (perf): the COMM after it is
# no repeat.
/PERF_RECORD_FORK\(/ { f = $0; sub(/^.*PERF_RECORD_FORK\(/, "", f); sub(/\).*$/, "", f); sub(":", "/", f); delete last["c" f] }
/PERF_RECORD_COMM/ { sub(/^.*PERF_RECORD_COMM[^:]*: /, ""); n = split($0, a, ":"); k = "c" a[n]; v = $0
	if (k in last && last[k] == v) { rep++; if (show) print "repeat: " $0 } last[k] = v; nc++ }
/PERF_RECORD_MMAP2/ { sub(/^.*PERF_RECORD_MMAP2 /, ""); split($0, a, /[\/:\[(]/); k = "m" a[1] " " a[5]; v = $0
	if (k in last && last[k] == v) { rep++; if (show) print "repeat: " $0 } last[k] = v; nm++ }
END { print nc + 0, nm + 0, rep + 0 }
