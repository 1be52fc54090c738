#!/bin/sh
# peers/prims/run.sh (make prims; not part of make test): kexlab's
# primitives beside the best native implementations on this machine, on the
# same fixed inputs (results checked identical first), interleaved round by
# round, on process CPU time; prints each ratio kexlab/peer with n and
# spread and writes $OUT/prims.json (default out/prims.json).
#
#   c/prims.c   Debian's libssl-dev (OpenSSL libcrypto: BN_mod_exp_mont_
#               consttime, EC_POINT_mul on P-256, PKCS5_PBKDF2_HMAC) and
#               libgmp-dev (mpz_powm_sec): cc -O2, into bin/prims-c
#   rust/       crates.io pbkdf2 0.13.0 + sha2 0.11.1 and libcrux-ml-kem
#               0.0.11, pinned in Cargo.toml and Cargo.lock: cargo build
#               --release --locked
#   go/         the kexlab side (package main in this module, so it can use
#               internal/): go build, into bin/prims-go
#   prims.py    the checks, the rounds and the statistics (python3 stdlib)
#
# PRIMS_N rounds (default 21; PRIMS_N=3 for a smoke test) after
# PRIMS_WARMUP (1) discarded ones, batches of about PRIMS_BATCH_MS (100) ms;
# PRIMS_ROWS=modp-2048,pbkdf2 selects cases by substring. A driver that
# does not build is reported and its cases fail; the script exits non-zero
# when any case failed (a driver missing, results that differ).
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-out}
case $out in /*) ;; *) out=$root/$out ;; esac
GO=${GO:-go}
CC=${CC:-cc}

for tool in "$GO" "$CC" python3; do
	command -v "$tool" >/dev/null 2>&1 || { echo "prims: $tool not found" >&2; exit 1; }
done
# The C driver's headers and libraries (Debian: libssl-dev, libgmp-dev).
if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists libcrypto ||
	! printf '#include <openssl/bn.h>\n#include <gmp.h>\n' | "$CC" -E -x c - >/dev/null 2>&1; then
	echo "prims: installing libssl-dev libgmp-dev pkg-config (apt-get)" >&2
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libssl-dev libgmp-dev pkg-config >/dev/null
fi

mkdir -p "$root/bin"
failed=""
echo "== build c/prims.c (OpenSSL $(pkg-config --modversion libcrypto), GMP)" >&2
# shellcheck disable=SC2046 # pkg-config's flags are words
"$CC" -O2 -Wall -o "$root/bin/prims-c" "$root/peers/prims/c/prims.c" $(pkg-config --cflags --libs libcrypto) -lgmp ||
	{ failed="$failed c"; rm -f "$root/bin/prims-c"; }
echo "== build go/ (kexlab)" >&2
(cd "$root" && "$GO" build -o bin/prims-go ./peers/prims/go) || { failed="$failed go"; rm -f "$root/bin/prims-go"; }
echo "== build rust/ (cargo build --release --locked)" >&2
rustbin=$root/peers/prims/rust/target/release/kexlab-prims-rust
if command -v cargo >/dev/null 2>&1; then
	(cd "$root/peers/prims/rust" && cargo build --release --locked --quiet) || { failed="$failed rust"; rm -f "$rustbin"; }
else
	echo "prims: cargo not found: the Rust rows fail" >&2
	failed="$failed rust"
fi
[ -z "$failed" ] || echo "prims: drivers that did not build:$failed (their rows fail)" >&2

exec python3 "$root/peers/prims/prims.py" --go "$root/bin/prims-go" --c "$root/bin/prims-c" \
	--rust "$rustbin" --cargo-lock "$root/peers/prims/rust/Cargo.lock" --out "$out/prims.json"
