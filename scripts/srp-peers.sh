#!/bin/sh
# srp-peers.sh: installs the independent SRP-6a implementations that
# pake/srp's interoperability tests run against, from the package
# registries (pinned versions; no peer code in this repository), and puts
# one executable per peer in peers/srp-interop/bin/ (KEXLAB_SRP_PEERS):
#
#   pysrp-ctypes, pysrp-python   PyPI srp 1.0.22 (pysrp) in a venv,
#                                peers/srp-interop/python/requirements.txt
#   rustcrypto                   crates.io srp 0.7.0-rc.3, cargo build
#                                --release --locked (peers/srp-interop/rust)
#
# Needs python3 (with venv) and cargo. Re-running it is cheap: pip and
# cargo do nothing when the pinned versions are already there.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
dir=$root/peers/srp-interop
bin=$dir/bin
for tool in python3 cargo; do
	command -v "$tool" >/dev/null 2>&1 || { echo "srp-peers: $tool not found: the SRP interoperability tests need it" >&2; exit 1; }
done
if ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
	echo "srp-peers: installing python3-venv (apt-get)"
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
fi
[ -x "$dir/.venv/bin/python" ] || python3 -m venv "$dir/.venv"
"$dir/.venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$dir/python/requirements.txt"
(cd "$dir/rust" && cargo build --release --locked --quiet)
mkdir -p "$bin"
for backend in ctypes python; do
	printf '#!/bin/sh\nexec "%s" "%s" %s\n' "$dir/.venv/bin/python" "$dir/python/srp_peer.py" "$backend" >"$bin/pysrp-$backend"
done
printf '#!/bin/sh\nexec "%s"\n' "$dir/rust/target/release/kexlab-srp-interop" >"$bin/rustcrypto"
chmod +x "$bin"/*
# pysrp's default backend must really be OpenSSL's: fail here, not in a test.
"$dir/.venv/bin/python" -c 'import srp._ctsrp' || { echo "srp-peers: pysrp's OpenSSL backend does not load" >&2; exit 1; }
echo "srp-peers: $(ls "$bin" | tr '\n' ' ')in $bin"
