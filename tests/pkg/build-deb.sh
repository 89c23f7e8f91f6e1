#!/bin/sh
# tests/pkg/build-deb.sh - builds the bitarena .deb and installs it into a fresh Debian 12 root,
# as a host would: the check of issue 25's "Done when", by hand or from CI.
#
#   tests/pkg/build-deb.sh [WORKDIR]      (as root, on Debian 12; WORKDIR: a fresh temporary one)
#
# 1. The tracked files of this tree (as they are in the work tree) are copied to
#    WORKDIR/bitarena-VERSION, and `dpkg-buildpackage -us -uc -b` builds the package there
#    (debian/rules runs the suites that need no service: the unit suites, the layers, the man
#    pages, the unit). Missing build tools and Build-Depends are installed with apt-get.
# 2. lintian checks the .deb: any error (E:) fails; warnings are counted and printed.
# 3. A fresh Debian 12 root: debootstrap --variant=minbase bookworm from the mirror apt uses
#    (SKIP_DEBOOTSTRAP=1, or debootstrap missing or failing: the .deb unpacked with dpkg -x
#    instead, which checks less and says so). Into it the .deb is installed with apt-get
#    (its dependencies from the mirror) and man-db; then, inside it:
#    - the package made the user bitarena and /var/lib/bitarena (bitarena's, mode 0700),
#      installed the unit, the config file (a conffile) and the man pages (`man -w bitarenad`);
#    - the unit's command line (ExecStart, read from the installed unit) runs as the user
#      bitarena, as systemd would start it (systemd itself does not run in the root: the
#      unit's part is tests/pkg/check_unit.py's), with --http on a free port added: it serves
#      the page from /usr/share/bitarena/web, keeps its store in /var/lib/bitarena, answers
#      over TCP (a registration), reloads on SIGHUP and stops cleanly on SIGTERM.
# The closing lines say what was verified, with figures, and "N passed, 0 failed".
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)
work=${1:-$(mktemp -d /tmp/bitarena-deb.XXXXXX)}
mkdir -p "$work"
log=$work/log
: >"$log"
passed=0
say() { echo "build-deb: $*"; }
ok() { passed=$((passed + 1)); say "ok: $*"; }
die() {
	say "FAIL: $*"
	echo "build-deb: $passed passed, 1 failed"
	exit 1
}
[ "$(id -u)" -eq 0 ] || die "run as root (it installs packages and builds a root)"

# --- 1. the package ---------------------------------------------------------------------
need=""
for t in dpkg-buildpackage:dpkg-dev dh:debhelper lintian:lintian debootstrap:debootstrap; do
	command -v "${t%%:*}" >/dev/null 2>&1 || need="$need ${t#*:}"
done
if [ -n "$need" ]; then
	say "installing:$need"
	apt-get update -qq >>"$log" 2>&1
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need \
		>>"$log" 2>&1 || die "apt-get install$need (see $log)"
fi
version=$(sed -n '1s/^bitarena (\([^)]*\)).*/\1/p' "$here/debian/changelog")
src=$work/bitarena-$version
rm -rf "$src"
mkdir -p "$src"
(cd "$here" && git ls-files -z | tar --null -T - -cf -) | tar -xf - -C "$src"
cd "$src"
if ! dpkg-checkbuilddeps >>"$log" 2>&1; then
	missing=$(dpkg-checkbuilddeps 2>&1 | sed -n 's/.*Unmet build dependencies: //p' |
		sed 's/([^)]*)//g')
	say "installing the Build-Depends: $missing"
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing \
		>>"$log" 2>&1 || die "apt-get install of the Build-Depends (see $log)"
fi
start=$(date +%s)
jobs=$(nproc 2>/dev/null || echo 1)
[ "$jobs" -le 2 ] || jobs=2
DEB_BUILD_OPTIONS="${DEB_BUILD_OPTIONS:-} parallel=$jobs"
export DEB_BUILD_OPTIONS
dpkg-buildpackage -us -uc -b >"$work/build.log" 2>&1 || {
	tail -40 "$work/build.log"
	die "dpkg-buildpackage -us -uc -b (all of it in $work/build.log)"
}
deb=$(ls "$work"/bitarena_"$version"_*.deb)
tests=$(grep -cE '^PASS: ' "$work/build.log" || true)
skipped=$(grep -cE '^SKIP: ' "$work/build.log" || true)
ok "dpkg-buildpackage -us -uc -b in $(($(date +%s) - start)) s: $(basename "$deb")," \
	"$(du -k "$deb" | cut -f1) KiB, $tests suites passed and $skipped skipped in its build"
dpkg-deb -c "$deb" >"$work/contents"
for f in ./usr/sbin/bitarenad ./usr/bin/bitarena ./etc/bitarena/bitarenad.conf \
	./lib/systemd/system/bitarena.service ./usr/share/bitarena/web/index.html \
	./usr/share/bitarena/books/tak6.ptn ./usr/share/man/man8/bitarenad.8.gz \
	./usr/share/man/man1/bitarena.1.gz ./usr/share/man/man7/bitarena-protocol.7.gz \
	./usr/share/doc/bitarena/PROTOCOL.md.gz ./var/lib/bitarena/; do
	grep -q " $f\$" "$work/contents" || die "the package lacks $f"
done
dpkg-deb -e "$deb" "$work/control"
grep -qx /etc/bitarena/bitarenad.conf "$work/control/conffiles" || die "the config is no conffile"
ok "contents: the two programs, the unit, the config (a conffile), the page, the books, 3 man pages"

# --- 2. lintian ---------------------------------------------------------------------------
lintian --tag-display-limit 0 "$deb" >"$work/lintian" 2>&1 || true
errors=$(grep -c '^E: ' "$work/lintian" || true)
warnings=$(grep -c '^W: ' "$work/lintian" || true)
[ "$errors" -eq 0 ] || {
	cat "$work/lintian"
	die "lintian: $errors errors"
}
ok "lintian: 0 errors, $warnings warnings$(sed -n 's/^W: [^:]*: / /p' "$work/lintian" |
	cut -d' ' -f2 | sort -u | tr '\n' ' ' | sed 's/ *$//; s/^ *\(.\)/ (\1/; s/\(.\)$/\1)/')"

# --- 3. a fresh root ----------------------------------------------------------------------
root=$work/root
mirror=$(sed -n 's|^URIs: *\(http[^ ]*/debian\)$|\1|p' /etc/apt/sources.list.d/*.sources \
	2>/dev/null | head -1)
[ -n "$mirror" ] || mirror=$(sed -n 's|^deb \(http[^ ]*/debian\) bookworm .*|\1|p' \
	/etc/apt/sources.list 2>/dev/null | head -1)
mirror=${mirror:-http://deb.debian.org/debian}
chrooted=no
if [ "${SKIP_DEBOOTSTRAP:-0}" != 1 ] && [ ! -x "$root/usr/sbin/bitarenad" ]; then
	rm -rf "$root"
	start=$(date +%s)
	if debootstrap --variant=minbase bookworm "$root" "$mirror" >>"$log" 2>&1; then
		ok "debootstrap --variant=minbase bookworm from $mirror in $(($(date +%s) - start)) s"
		chrooted=yes
	else
		say "debootstrap failed (see $log): the package is checked unpacked (dpkg -x) instead"
	fi
elif [ -x "$root/usr/sbin/bitarenad" ]; then
	chrooted=yes
fi

# $1: how to run a command in the root; the rest: bitarenad's command line; $tmp_in: the
# root's /tmp as the daemon sees it
run_daemon() {
	how=$1
	shift
	rm -f "$root/tmp/port" "$root/tmp/hport"
	# shellcheck disable=SC2086
	$how "$@" --listen 127.0.0.1:0 --port-file "$tmp_in/port" --http 127.0.0.1:0 \
		--http-port-file "$tmp_in/hport" 2>"$work/daemon.log" &
	pid=$!
	i=0
	while [ ! -s "$root/tmp/hport" ] && [ $i -lt 600 ]; do
		kill -0 $pid 2>/dev/null || die "bitarenad exited: $(cat "$work/daemon.log")"
		sleep 0.1
		i=$((i + 1))
	done
	[ -s "$root/tmp/hport" ] || die "bitarenad did not listen: $(cat "$work/daemon.log")"
	python3 - "$root" "$(cat "$root/tmp/port")" "$(cat "$root/tmp/hport")" <<'EOF' ||
import socket, sys, urllib.request
root, port, hport = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
page = urllib.request.urlopen(f'http://127.0.0.1:{hport}/', timeout=10).read()
if page != open(root + '/usr/share/bitarena/web/index.html', 'rb').read():
    sys.exit('GET / is not /usr/share/bitarena/web/index.html')
s = socket.create_connection(('127.0.0.1', port), timeout=10)
f = s.makefile('r')
if 'ready' not in f.readline():
    sys.exit('no welcome')
s.sendall(b'register hostess secret1\n')
reply = f.readline()
if not reply.startswith('ok'):
    sys.exit('register: ' + reply)
EOF
		die "the installed server: see above"
	kill -HUP $pid
	i=0
	until grep -q "config reloaded" "$work/daemon.log" || [ $i -ge 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	grep -q "config reloaded" "$work/daemon.log" || die "no reload on SIGHUP: $(cat "$work/daemon.log")"
	kill -TERM $pid
	wait $pid || die "bitarenad did not stop cleanly: $(cat "$work/daemon.log")"
}

if [ $chrooted = yes ]; then
	cp /etc/resolv.conf "$root/etc/resolv.conf"
	cp "$deb" "$root/tmp/"
	mount -t proc proc "$root/proc"
	trap 'umount "$root/proc" 2>/dev/null || true' EXIT
	in_root() { chroot "$root" "$@"; }
	start=$(date +%s)
	in_root sh -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends /tmp/$(basename "$deb") man-db" >>"$log" 2>&1 ||
		die "apt-get install of the package in the root (see $log)"
	ok "installed into the fresh root with its dependencies in $(($(date +%s) - start)) s"
	in_root getent passwd bitarena >/dev/null || die "no user bitarena"
	[ "$(in_root stat -c '%U:%G %a' /var/lib/bitarena)" = "bitarena:bitarena 700" ] ||
		die "/var/lib/bitarena is $(in_root stat -c '%U:%G %a' /var/lib/bitarena)"
	[ "$(in_root man -w bitarenad)" = /usr/share/man/man8/bitarenad.8.gz ] ||
		die "man -w bitarenad: $(in_root man -w bitarenad 2>&1)"
	in_root man bitarenad 2>/dev/null | grep -q "CONFIGURATION FILE" || die "man bitarenad"
	ok "the root has the user bitarena, /var/lib/bitarena (bitarena:bitarena 700), man bitarenad"
	# shellcheck disable=SC2016
	exec_start=$(sed -n 's/^ExecStart=//p' "$root/lib/systemd/system/bitarena.service" |
		sed 's|${STATE_DIRECTORY}|/var/lib/bitarena|')
	tmp_in=/tmp
	# shellcheck disable=SC2086
	run_daemon "chroot --userspec=bitarena:bitarena $root" $exec_start
	[ "$(in_root stat -c %U /var/lib/bitarena/bitarena.db)" = bitarena ] ||
		die "no store of bitarena's in /var/lib/bitarena"
	ok "the unit's command line as user bitarena: the page from /usr/share/bitarena/web," \
		"a registration stored in /var/lib/bitarena, a reload on SIGHUP, a clean stop"
else
	rm -rf "$root"
	dpkg -x "$deb" "$root"
	mkdir -p "$root/tmp"
	tmp_in=$root/tmp
	run_daemon "" "$root/usr/sbin/bitarenad" --config "$root/etc/bitarena/bitarenad.conf"
	[ -s "$root/var/lib/bitarena/bitarena.db" ] || die "no store in the unpacked var/lib/bitarena"
	ok "unpacked (dpkg -x; not installed: no user, no maintainer scripts): the daemon runs" \
		"from there with the packaged config, serves the packaged page, stores in var/lib"
fi
echo "build-deb: $passed passed, 0 failed"
