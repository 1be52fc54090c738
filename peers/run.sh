#!/bin/sh
# peers/run.sh: builds independent implementations of schemes kexlab
# implements, from their package registries, and times them on this
# machine. Each driver writes a kexlab-results/1 file to $OUT/peers/
# (default out/peers/) that `kexlab report` merges as peer rows:
#
#   rust.json       crates.io spake2 0.4.0 (SPAKE2, Ed25519), srp 0.6.0
#                   (SRP-6a, 3072-bit group): cargo build --release --locked
#   python.json     PyPI spake2 0.9 (Ed25519), srp 1.0.22 (pysrp, 3072-bit
#                   group): a venv in peers/.venv, pinned requirements.txt
#   go-opaque.json  github.com/bytemare/opaque v0.10.0 (P-256, scrypt and
#                   no KSF): its own module, go build
#
# PEERS_N samples per scheme after PEERS_WARMUP warm-up exchanges. A peer
# that fails to build or run is reported and skipped; the script fails only
# when none produced a result. Needs cargo, python3 and go, and the
# registries (crates.io, PyPI, the Go module proxy) on first use.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-out}/peers
n=${PEERS_N:-100}
warmup=${PEERS_WARMUP:-5}
case $out in /*) ;; *) out=$root/$out ;; esac
mkdir -p "$out" && rm -f "$out"/*.json
PEERS_TIME=$(date -u +%Y-%m-%dT%H:%M:%SZ)
export PEERS_TIME

ok=0
failed=""
peer() { # name command...
	name=$1
	shift
	echo "== peer $name" >&2
	if ("$@"); then
		ok=$((ok + 1))
	else
		echo "peers/run.sh: peer $name failed; skipped" >&2
		failed="$failed $name"
	fi
}

# Each step is chained with &&: set -e does not apply inside an if condition.
run_rust() {
	cd "$root/peers/rust" &&
		cargo build --release --locked --quiet &&
		./target/release/kexlab-peer-rust "$out/rust.json" "$n" "$warmup"
}

run_python() {
	cd "$root/peers" &&
		{ [ -x .venv/bin/python ] || python3 -m venv .venv; } &&
		.venv/bin/python -m pip install --quiet --disable-pip-version-check -r python/requirements.txt &&
		.venv/bin/python python/peers.py "$out/python.json" "$n" "$warmup"
}

run_goopaque() {
	cd "$root/peers/go-opaque" &&
		go build -o "$root/bin/peer-go-opaque" . &&
		"$root/bin/peer-go-opaque" -n "$n" -warmup "$warmup" -o "$out/go-opaque.json"
}

peer rust run_rust
peer python run_python
peer go-opaque run_goopaque

echo "peers/run.sh: $ok peer drivers wrote $out/*.json${failed:+; failed:$failed}" >&2
[ "$ok" -gt 0 ]
