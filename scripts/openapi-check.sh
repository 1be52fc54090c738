#!/bin/sh
# openapi-check.sh: checks a running kexlab serve against its OpenAPI
# document (server/openapi.json, served at GET /v1/openapi.json) with
# schemathesis (PyPI, pinned in server/openapi-check/requirements.txt,
# installed into server/openapi-check/.venv).
#
#  1. Builds bin/kexlab and starts `kexlab serve` on a free loopback port
#     with its default limits and a throwaway data directory; waits for
#     /healthz.
#  2. server/openapi-check/flows (the Go client) runs what a fuzzer cannot,
#     since every success needs the PAKE computed: registrations and logins
#     of every scheme, a password change, logout, account deletion, a taken
#     name and a wrong password. validate.py checks every answer it
#     recorded against the document with schemathesis's checks.
#  3. schemathesis run: its phases (examples, coverage, fuzzing, and
#     stateful through the document's links: register/start →
#     register/finish, login/start → login/finish, password/start →
#     password/finish) with at most OPENAPI_MAX_EXAMPLES cases per
#     operation (50); hooks.py gives the operations that need a session the
#     sessions flows made.
#
# The whole run is bounded by OPENAPI_TIMEOUT seconds (600). The server is
# stopped with SIGTERM; the exit status is non-zero if validate.py or
# schemathesis failed. OPENAPI_SEED fixes schemathesis's random seed
# (it prints the seed it used); OPENAPI_CHECKS replaces the list of checks.
#
# The server rate-limits starts per client address, so many cases are
# answered 429 with Retry-After, as the document says; flows connects from
# 127.0.0.2 where it can, so as not to take the fuzzer's tokens.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
dir=$root/server/openapi-check
GO=${GO:-go}
max_examples=${OPENAPI_MAX_EXAMPLES:-50}
timeout_s=${OPENAPI_TIMEOUT:-600}
checks=${OPENAPI_CHECKS:-not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance,negative_data_rejection,ignored_auth}

command -v python3 >/dev/null 2>&1 || { echo "openapi-check: python3 not found" >&2; exit 1; }
if ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
	echo "openapi-check: installing python3-venv (apt-get)"
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
fi
[ -x "$dir/.venv/bin/python" ] || python3 -m venv "$dir/.venv"
"$dir/.venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$dir/requirements.txt"

tmp=$(mktemp -d)
pid=
stop() {
	if [ -n "$pid" ]; then
		kill -TERM "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
		pid=
	fi
}
cleanup() {
	stop
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
start=$(date +%s)

(cd "$root" && $GO build -o bin/kexlab ./cmd/kexlab && $GO build -o "$tmp/flows" ./server/openapi-check/flows)

# Port 0: the server picks a free port and prints it.
"$root/bin/kexlab" serve -addr 127.0.0.1:0 -data "$tmp/data" >"$tmp/serve.out" 2>"$tmp/serve.log" &
pid=$!
base=
i=0
while [ $i -lt 300 ]; do
	base=$(sed -n 's|^kexlab serve: listening on \(http://127\.0\.0\.1:[0-9]*\) .*|\1|p' "$tmp/serve.out")
	if [ -n "$base" ] && "$dir/.venv/bin/python" -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=2)' "$base/healthz" 2>/dev/null; then
		break
	fi
	if ! kill -0 "$pid" 2>/dev/null; then
		echo "openapi-check: kexlab serve exited:" >&2
		cat "$tmp/serve.out" "$tmp/serve.log" >&2
		exit 1
	fi
	base=
	i=$((i + 1))
	sleep 0.1
done
[ -n "$base" ] || { echo "openapi-check: kexlab serve did not answer /healthz in 30 s" >&2; cat "$tmp/serve.log" >&2; exit 1; }
echo "openapi-check: kexlab serve at $base"

status=0
timeout -k 10 120 "$tmp/flows" -base "$base" -out "$tmp/flows.json" -timeout 100s || status=$?
if [ "$status" -eq 0 ]; then
	(cd "$tmp" && timeout -k 10 120 "$dir/.venv/bin/python" "$dir/validate.py" "$base/v1/openapi.json" "$tmp/flows.json") || status=$?
fi

left=$((timeout_s - ($(date +%s) - start)))
[ "$left" -gt 30 ] || left=30
set -- run "$base/v1/openapi.json" \
	--checks "$checks" \
	--phases examples,coverage,fuzzing,stateful \
	--max-examples "$max_examples" \
	--workers 2 \
	--request-timeout 10 \
	--generation-database none \
	--no-color
[ -z "${OPENAPI_SEED:-}" ] || set -- "$@" --seed "$OPENAPI_SEED"
st=0
[ ! -f "$tmp/flows.json" ] || export KEXLAB_OPENAPI_FLOWS="$tmp/flows.json"
(cd "$tmp" && SCHEMATHESIS_HOOKS="$dir/hooks.py" timeout -k 10 "$left" "$dir/.venv/bin/schemathesis" "$@") || st=$?
[ "$st" -ne 124 ] || echo "openapi-check: schemathesis ran past the time limit ($timeout_s s in all)" >&2
[ "$status" -ne 0 ] || status=$st
stop
if [ "$status" -ne 0 ]; then
	echo "openapi-check: kexlab serve's log (last 40 lines):" >&2
	tail -n 40 "$tmp/serve.log" >&2
fi
echo "openapi-check: $(($(date +%s) - start)) s, exit status $status"
exit "$status"
