#!/bin/sh
# wg-test-deps.sh: install the real key-source back ends the wg/keysource
# tests start — SoftHSM2 (a PKCS#11 token) and swtpm (a TPM 2.0 emulator) —
# with apt-get, only if they are missing. The tests initialise their own
# tokens and start their own emulators in temporary directories.
set -eu

need=""
command -v softhsm2-util >/dev/null 2>&1 || need="$need softhsm2"
command -v swtpm >/dev/null 2>&1 || need="$need swtpm swtpm-tools"
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
