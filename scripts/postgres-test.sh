#!/bin/sh
# postgres-test.sh: install the PostgreSQL server binaries (Debian's
# postgresql package) with apt-get, only if they are missing, for the tests
# of server/store/postgres and of the service that uses it. The tests do
# not use a system server: server/store/postgres/pgtest runs initdb in a
# temporary directory and starts a throwaway server on a unix socket there
# (as the postgres user when the tests run as root), and removes it
# afterwards. Debian puts initdb and postgres in
# /usr/lib/postgresql/<version>/bin, off PATH; pgtest looks there.
set -eu

have() {
	if command -v initdb >/dev/null 2>&1; then
		return 0
	fi
	for d in /usr/lib/postgresql/*/bin; do
		if [ -x "$d/initdb" ] && [ -x "$d/postgres" ]; then
			return 0
		fi
	done
	return 1
}

if have; then
	exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
	echo "postgres-test: install the PostgreSQL server (initdb, postgres); no apt-get here" >&2
	exit 1
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	SUDO=sudo
fi
echo "postgres-test: installing postgresql (apt-get)"
$SUDO apt-get update -qq
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
if ! have; then
	echo "postgres-test: postgresql installed, but no initdb found on PATH or in /usr/lib/postgresql/*/bin" >&2
	exit 1
fi
