#!/usr/bin/env bash
# Runs every fuzz target in the module for FUZZTIME (default 3s) each.
# Usage: scripts/fuzz.sh [packages...]   (default ./...)
set -euo pipefail
fuzztime=${FUZZTIME:-3s}
pkgs=("$@")
[ ${#pkgs[@]} -gt 0 ] || pkgs=(./...)
n=0
for pkg in $(go list "${pkgs[@]}"); do
  for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
    echo "fuzz $pkg $target ($fuzztime)"
    # -fuzzminimizetime keeps the short runs from spending their time
    # minimising. The Go fuzzer can end a run that hit its -fuzztime while a
    # worker was busy with "context deadline exceeded" and no failing input
    # (a harness hiccup, not a finding): such a run is repeated once.
    for attempt in 1 2; do
      if go test -run='^$' -fuzz="^${target}\$" -fuzztime="$fuzztime" -fuzzminimizetime=1s "$pkg" >/tmp/kexlab-fuzz.log 2>&1; then
        break
      fi
      if [ "$attempt" = 1 ] && grep -q 'context deadline exceeded' /tmp/kexlab-fuzz.log &&
        ! grep -q 'Failing input written' /tmp/kexlab-fuzz.log; then
        echo "  (fuzzer timed out without a finding; running $target again)"
        continue
      fi
      cat /tmp/kexlab-fuzz.log
      echo "fuzz target $pkg.$target failed" >&2
      exit 1
    done
    n=$((n + 1))
  done
done
echo "fuzz: $n targets ran for $fuzztime each, no failures"
