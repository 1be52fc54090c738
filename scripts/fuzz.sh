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
    go test -run='^$' -fuzz="^${target}\$" -fuzztime="$fuzztime" "$pkg" >/tmp/kexlab-fuzz.log 2>&1 || {
      cat /tmp/kexlab-fuzz.log
      echo "fuzz target $pkg.$target failed" >&2
      exit 1
    }
    n=$((n + 1))
  done
done
echo "fuzz: $n targets ran for $fuzztime each, no failures"
