# Fuzzing: test/fuzz/run.sh builds the libFuzzer targets (ASan + UBSan) and
# runs each one about 8 s (FUZZ_TEST_TIME), first over its corpus: the seeds
# and every crash found so far, which stay there as regression inputs.
# A crash, a leak or a timeout fails that target.

fz_out=$(bash test/fuzz/run.sh "${FUZZ_TEST_TIME:-8}" 2>&1)
fz_rc=$?
case $fz_rc in
77) skip "fuzz" "${fz_out##*$'\n'}" ;;
2) fail "fuzz: the harnesses build" "$(echo "$fz_out" | tail -8 | tr '\n' ' ')" ;;
*)
	for fz_t in $(echo "$fz_out" | sed -n 's/^fuzz \([a-z]*\): .*/\1/p' | uniq); do
		fz_l=$(echo "$fz_out" | grep -m1 "^fuzz $fz_t: ")
		case $fz_l in
		"fuzz $fz_t: ok, "*) pass "fuzz $fz_t: no crash (${fz_l#fuzz $fz_t: ok, })" ;;
		*) fail "fuzz $fz_t" "$(echo "$fz_out" | grep "^fuzz $fz_t:" | sed "s/^fuzz $fz_t: *//" | tr '\n' ' ')" ;;
		esac
	done
	fz_n=$(echo "$fz_out" | sed -n 's/^fuzz \([a-z]*\): .*/\1/p' | sort -u | wc -l)
	fz_all=$(sed -n 's/^ALL="\(.*\)"$/\1/p' test/fuzz/run.sh | wc -w)
	[ "$fz_n" = "$fz_all" ] || fail "fuzz: all $fz_all targets ran" "$fz_n reported: $(echo "$fz_out" | tail -3 | tr '\n' ' ')"
	[ $fz_rc = 0 ] || echo "$fz_out" | grep -q CRASH || fail "fuzz" "run.sh exit $fz_rc: $(echo "$fz_out" | tail -3 | tr '\n' ' ')"
	;;
esac
