#!/bin/sh
# run.sh - the two commands of the README, for a fresh Debian 12 machine.
#
#   ./run.sh         installs missing Debian packages (as root, or via sudo), builds, and runs
#                    bitarenad on 127.0.0.1:7777 (telnet) and http://127.0.0.1:8080 (the web
#                    page) in the foreground (data in ./data, SQLite)
#   ./run.sh test    the same set-up, then builds with AddressSanitizer + UBSan and -Werror
#                    and runs the whole test suite (make check)
#
# Extra arguments after `./run.sh run` go to bitarenad (e.g. ./run.sh run --listen [::1]:7777).
set -eu
cd "$(dirname "$0")"

PKGS="build-essential autoconf automake pkg-config libuv1-dev libcjson-dev check \
libsqlite3-dev libsodium-dev libwebsockets-dev libwebsockets-evlib-uv libpq-dev libhiredis-dev python3"
# For `./run.sh test` only: the browser tests' headless Chromium and its driver; the servers
# the storage and cluster tests start for themselves (throw-away PostgreSQL, redis-server);
# telnet (tests/check_telnet); clang and its runtime (libFuzzer is in libclang-rt-14-dev, only
# a recommendation of clang) for the fuzz targets (.ci/run: make fuzz-smoke); jsonschema and
# yaml for the HTTP API's check against protocol/openapi.yaml (tests/loopback/check-api.sh);
# prometheus for its promtool, which checks the /metrics page (tests/loopback/check_metrics.py;
# only the tool is used: the package's service may be stopped and disabled).
[ "${1:-run}" = test ] && PKGS="$PKGS chromium chromium-driver python3-selenium postgresql \
redis-server telnet clang libclang-rt-14-dev python3-jsonschema python3-yaml prometheus"

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "run.sh: installing:$missing"
	SUDO=""
	[ "$(id -u)" -eq 0 ] || SUDO=sudo
	$SUDO apt-get update -qq
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
fi

if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt Makefile.in ]; then
	./autogen.sh
fi
jobs=$(nproc 2>/dev/null || echo 2)
mode=${1:-run}
[ $# -gt 0 ] && shift

case "$mode" in
run)
	mkdir -p build
	cd build
	[ -f Makefile ] || ../configure
	make -j"$jobs"
	mkdir -p ../data
	echo "run.sh: bitarenad on 127.0.0.1:7777 — try: nc localhost 7777, or http://127.0.0.1:8080"
	exec ./bitarenad --listen 127.0.0.1:7777 --http 127.0.0.1:8080 --data ../data "$@"
	;;
test)
	mkdir -p build-test
	cd build-test
	[ -f Makefile ] || ../configure --enable-sanitizers --enable-werror
	status=0
	make -j"$jobs" check || status=$?
	# Each Check suite's closing line, and one total over all of them.
	grep -h -E '^[0-9]+%: Checks: ' tests/*/*.log 2>/dev/null || true
	grep -h -E '^[0-9]+%: Checks: ' tests/*/*.log 2>/dev/null | awk -F'[:,] *' '
		{ n += $3; f += $5 + $7 }
		END { printf "tests: %d passed, %d failed\n", n - f, f }'
	exit "$status"
	;;
*)
	echo "usage: ./run.sh [run [bitarenad options] | test]" >&2
	exit 2
	;;
esac
