# test/exited.awk - over perf script --show-task-events (comm and tid
# first): leaves out a task's records after its PERF_RECORD_EXIT, where
# perf 6.8 and later forget the task and name them :TID, in perf
# record's own files too (perf 6.1 keeps the name, as the dump line's
# count does), and the side-band lines themselves but FINISHED_ROUND. A FORK or COMM of
# the tid (a reused one) brings it back.
/FINISHED_ROUND/ { print; next }
/PERF_RECORD_EXIT\(/ { s = $0; sub(/.*PERF_RECORD_EXIT\([0-9]*:/, "", s); sub(/\).*/, "", s); gone[s] = 1; next }
/PERF_RECORD_FORK\(/ { s = $0; sub(/.*PERF_RECORD_FORK\([0-9]*:/, "", s); sub(/\).*/, "", s); delete gone[s]; next }
/PERF_RECORD_COMM/ { s = $0; sub(/.*\//, "", s); delete gone[s]; next }
/PERF_RECORD_/ { next }
!($2 in gone) { print }
