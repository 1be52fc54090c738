#!/usr/bin/env bash
# Instruction counts of the 4-way handshake's KDF and MIC shapes for every
# suite (standard and lightweight), with valgrind --tool=callgrind. Only the
# calls themselves are counted (--toggle-collect on airtime.shapeKDF and
# airtime.shapeMIC), so the figures are deterministic for a given binary,
# whatever else the machine does.
# Usage: scripts/callgrind.sh [n]      (n repetitions per shape, default 1000)
# Needs valgrind (apt-get install valgrind) and a built bin/kexlab.
set -euo pipefail
n=${1:-1000}
command -v valgrind >/dev/null || { echo "callgrind.sh: valgrind not found (apt-get install valgrind)" >&2; exit 1; }
[ -x bin/kexlab ] || go build -o bin/kexlab ./cmd/kexlab
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%-9s %-5s %14s\n' "KDF/MIC" "shape" "instructions"
for suite in standard sae ace spix wage ascon; do
  for op in kdf mic4 mic; do
    # Go's asynchronous preemption signals crash callgrind; turn them off.
    GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --callgrind-out-file="$tmp/out" \
      --toggle-collect='github.com/kexlab/kexlab/wifi/airtime.shape*' \
      bin/kexlab wifi shape -kdf "$suite" -op "$op" -n "$n" >"$tmp/log" 2>&1 || { cat "$tmp/log"; exit 1; }
    total=$(callgrind_annotate "$tmp/out" | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}')
    printf '%-9s %-5s %14d\n' "$suite" "$op" $((total / n))
  done
done
echo "per call; shapes: kdf = one PTK derivation, mic4 = MIC over 4 64-bit blocks, mic = MIC over a 121-octet frame"
