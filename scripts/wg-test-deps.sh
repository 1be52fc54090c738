#!/bin/sh
# wg-test-deps.sh: install the real key-source back ends the wg/keysource
# tests start — SoftHSM2 (a PKCS#11 token) and swtpm (a TPM 2.0 emulator) —
# with apt-get, only if they are missing, and iproute2 for the daemon's
# test between two network namespaces (wg/daemon), and systemd-analyze for
# the check of the daemon's systemd unit. The tests initialise
# their own tokens, emulators and namespaces and remove them afterwards.
set -eu

need=""
command -v softhsm2-util >/dev/null 2>&1 || need="$need softhsm2"
command -v swtpm >/dev/null 2>&1 || need="$need swtpm swtpm-tools"
command -v ip >/dev/null 2>&1 || need="$need iproute2"
# systemd-analyze verify checks the daemon's unit (wg/daemon/systemd).
command -v systemd-analyze >/dev/null 2>&1 || need="$need systemd"
if [ -z "$need" ]; then
	exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
	echo "wg-test-deps: install$need (no apt-get here)" >&2
	exit 1
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	SUDO=sudo
fi
echo "wg-test-deps: installing$need (apt-get)"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $need >/dev/null
