#!/bin/sh
# peers/run.sh: builds the drivers of independent implementations of
# schemes kexlab implements, from their package registries, and measures
# them in ONE kexlab compare run beside every kexlab scheme: each driver
# runs as a child process speaking kexlab-peer/1 (package bench/peer), its
# schemes sampled in the same seeded, interleaved order as kexlab's, on
# thread CPU time. Writes $OUT/peers/results.json and report.html (the
# report tests kexlab against each peer of the same scheme).
#
#   rust        crates.io spake2 0.4.0 (SPAKE2, Ed25519), srp 0.6.0
#               (SRP-6a, 3072-bit group): cargo build --release --locked
#   python      PyPI spake2 0.9 (Ed25519), srp 1.0.22 (pysrp, 3072-bit
#               group): a venv in peers/.venv, pinned requirements.txt
#   go-opaque   github.com/bytemare/opaque v0.10.0 (P-256, scrypt and
#               no KSF): its own module, go build
#
# PEERS_BUDGET is the run's time budget (default 3m), PEERS_N the most
# samples per scheme (default 100). A driver that fails to build is
# reported and left out; the script fails when none built. Needs cargo,
# python3 and go, and the registries on first use.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-out}/peers
n=${PEERS_N:-100}
budget=${PEERS_BUDGET:-3m}
case $out in /*) ;; *) out=$root/$out ;; esac
mkdir -p "$out" && rm -f "$out"/*.json

set --
built=0
if (cd "$root/peers/rust" && cargo build --release --locked --quiet); then
	set -- "$@" -peer "$root/peers/rust/target/release/kexlab-peer-rust --serve"
	built=$((built + 1))
else
	echo "peers/run.sh: the rust driver did not build; left out" >&2
fi
if (cd "$root/peers" && { [ -x .venv/bin/python ] || python3 -m venv .venv; } &&
	.venv/bin/python -m pip install --quiet --disable-pip-version-check -r python/requirements.txt); then
	set -- "$@" -peer "$root/peers/.venv/bin/python $root/peers/python/peers.py --serve"
	built=$((built + 1))
else
	echo "peers/run.sh: the python driver did not install; left out" >&2
fi
if (cd "$root/peers/go-opaque" && go build -o "$root/bin/peer-go-opaque" .); then
	set -- "$@" -peer "$root/bin/peer-go-opaque -serve"
	built=$((built + 1))
else
	echo "peers/run.sh: the go-opaque driver did not build; left out" >&2
fi
[ "$built" -gt 0 ] || { echo "peers/run.sh: no driver built" >&2; exit 1; }
echo "peers/run.sh: $built drivers; one interleaved run of ${budget}" >&2
exec "$root/bin/kexlab" compare -label peers -time "$budget" -n "$n" -out "$out" "$@"
