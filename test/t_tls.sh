# push= to a store behind TLS, by its name: the store is test/s3.sh's
# Swift (s3api, storage_domain s3.tracer.test) behind stunnel with a
# self-signed certificate for s3.tracer.test and *.s3.tracer.test; the
# "board" runs stunnel in client mode, which checks that certificate and
# the name; tracer connects to it (via=) and signs for the store's name,
# path style and virtual-hosted style. Swift checks each signature over
# the Host it got, and logs that Host; boto3 and perf judge the objects.

TB=$T/kc-push/tracer	# t_push's build (PUSH), made here when run alone
push_build
tw=tw$$; tw=${tw:0:12}; cp "$T/work" "$T/$tw"
# freeport: a TCP port nobody listens on now (the kernel's pick)
freeport() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# stunnel_up NAME: stunnel on $T/tls/NAME.conf, in the foreground (its
# pid is ours to end); waits until it listens (its log says so)
stunnel_up() {
	local i
	stunnel "$T/tls/$1.conf" >/dev/null 2>&1 &
	STUN="${STUN:-} $!"; WORKS="$WORKS $!"
	for i in $(seq 50); do grep -q "Configuration successful" "$T/tls/$1.log" 2>/dev/null && return 0; sleep 0.1; done
	return 1
}

if [ ! -x "$TB" ]; then
	fail "a build with PUSH" "$(tail -5 "$T/kc-push.log")"
elif s3_up tls; rc=$?; [ $rc = 3 ]; then
	skip "push through TLS" "no S3 server: its packages could not be installed: $S3_WHY"
elif [ $rc != 0 ]; then
	fail "push through TLS: the S3 server starts" "$S3_WHY"
elif ! command -v stunnel >/dev/null || ! command -v openssl >/dev/null; then
	fail "push through TLS: stunnel and openssl (test/s3.sh installs them)" "$(command -v stunnel openssl)"
else
	mkdir -p "$T/tls"
	printf '[default]\naws_access_key_id = %s\naws_secret_access_key = %s\n' "$S3_ACCESS" "$S3_SECRET" >"$T/tls/key"
	chmod 600 "$T/tls/key"
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$T/tls/key.pem" -out "$T/tls/cert.pem" -days 2 \
		-subj /CN=s3.tracer.test -addext "subjectAltName=DNS:s3.tracer.test,DNS:*.s3.tracer.test" >/dev/null 2>&1
	SP=$(freeport) PP=$(freeport) VP=$(freeport)
	# the store's side: TLS on SP in front of Swift
	printf 'foreground = yes\npid =\noutput = %s\n[s3]\naccept = 127.0.0.1:%s\nconnect = 127.0.0.1:%s\ncert = %s\nkey = %s\n' \
		"$T/tls/srv.log" $SP "${S3_ENDPOINT##*:}" "$T/tls/cert.pem" "$T/tls/key.pem" >"$T/tls/srv.conf"
	# the board's: plain on PP and VP, TLS to SP, the certificate checked
	# for the name (the store's own, and the bucket's under it)
	{ printf 'foreground = yes\npid =\noutput = %s\n' "$T/tls/cli.log"
	  for s in "path $PP s3.tracer.test" "vhost $VP $S3_BUCKET.s3.tracer.test"; do
		set -- $s
		printf '[%s]\nclient = yes\naccept = 127.0.0.1:%s\nconnect = 127.0.0.1:%s\nverifyChain = yes\nCAfile = %s\ncheckHost = %s\nsni = %s\n' \
			$1 $2 $SP "$T/tls/cert.pem" $3 $3
	  done; } >"$T/tls/cli.conf"
	if ! stunnel_up srv || ! stunnel_up cli; then
		fail "push through TLS: stunnel starts" "$(tail -5 "$T/tls/srv.log" "$T/tls/cli.log" 2>&1)"
	else
		X="sched:sched_process_exec trip=sched:sched_process_exec/filename~\"*$tw\"/ cpu-clock@9 procs=0"
		# tls STYLE URL VIA: a tripwire's dump pushed; its object decodes
		# and holds the exec; Swift logged the PUT with the name as Host
		tls() {
			local pre=tls$1$$ key pid n
			if TRACER=$TB start_tracer "$T/t$1" -o /dev/null "push=$2 via=$4 s3key=$T/tls/key $X ${5:-}"; then
				"$T/$tw" exit 0 & pid=$!; wait $pid
				wait_line "$T/t$1" " arrived: " >/dev/null
				stop_tracer >/dev/null
				key=$(s3c list "$pre/" 2>&1 | awk '/-trip-/ { print $1 }')
				s3c get "$key" "$T/t$1.o" >/dev/null 2>&1
				n=$(perf script -i "$T/t$1.o" -F pid,event 2>/dev/null | grep -c "^ *$pid *sched:sched_process_exec")
				testing "push through TLS, $1 style, signed for $3 (via=$4): boto3 finds the object, perf $(perf version | cut -d' ' -f3) its exec" \
					"1 $3" "$n $(grep -a "PUT [^ ]*$pre/" "$S3_DIR/log/swift.log" | grep -ao 'Host:%20[^ ]*' | sed 's/Host:%20//' | sort -u | tr '\n' ' ' | sed 's/ $//')"
			else
				fail "push through TLS, $1 style: tracer starts" "$(cat "$T/t$1.err")"
			fi
		}
		tls path "http://s3.tracer.test/$S3_BUCKET/tlspath$$" s3.tracer.test 127.0.0.1:$PP
		tls virtual "http://$S3_BUCKET.s3.tracer.test/tlsvirtual$$" "$S3_BUCKET.s3.tracer.test" 127.0.0.1:$VP style=virtual
		grep -q "Certificate accepted" "$T/tls/cli.log" && pass "push through TLS: the board's stunnel checked the store's certificate" ||
			fail "push through TLS: the board's stunnel checked the certificate" "$(tail -3 "$T/tls/cli.log")"
	fi
	# --- what is wrong is named: exit 2 ---
	for c in "push=http://s3.tracer.test/b" "push=http://s3.tracer.test/b via=nosuchhost.invalid:9" "push=http://b.s3.tracer.test style=vhost via=127.0.0.1:9" \
		"push=http://s3.tracer.test:x/b via=127.0.0.1:9" "push=http://s3.tracer.test/ via=127.0.0.1:9" "via=127.0.0.1:9 cpu-clock"; do
		"$TB" -o /dev/null "$c s3key=$T/tls/key" >/dev/null 2>"$T/tbad.err"; rc=$?
		[ $rc = 2 ] && grep -q "config: " "$T/tbad.err" && pass "push: '$c': exit 2, $(head -1 "$T/tbad.err" | sed 's/^tracer: //')" ||
			fail "push: '$c': exit 2" "rc=$rc $(cat "$T/tbad.err")"
	done
	kill $STUN 2>/dev/null; wait $STUN 2>/dev/null
	s3_down "$S3_DIR"
fi
