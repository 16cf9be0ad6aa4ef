# test/closeseq.awk - over perf script -F tid,event,trace: work's
# `close N` or `pclose N` (close(100000 + i), i = 0..N-1) by tid p.
# Prints "ENTRIES FIRST LAST GAPS BREAKS": GAPS, an entry whose fd is
# not the one after the last; BREAKS, an entry or an exit not in turn.
# Its other close()s (fds below 100000) are not counted.
# (mawk has no strtonum: the hex fd by hand.)
function hex(s,  i, c, v) {
	s = tolower(s)
	for (i = 1; i <= length(s) && (c = index("0123456789abcdef", substr(s, i, 1))); i++)
		v = v * 16 + c - 1
	return v
}
$1 == p && $2 ~ /sys_enter/ && $4 == 3 && (fd = hex(substr($5, 2))) >= 100000 {
	br += e; e = 1
	gap += n && fd != last + 1
	if (!n) first = fd
	last = fd; n++
}
$1 == p && $2 ~ /sys_exit/ && $4 == 3 && fd >= 100000 { br += !e; e = 0; fd = 0 }
END { print n + 0, first + 0, last + 0, gap + 0, br + 0 }
