#!/bin/sh
# run-libfuzzer.sh - builds the fuzz targets of tests/fuzz with clang, libFuzzer,
# ASan and UBSan straight from the sources (no configure needed), then fuzzes
# each in turn for SECONDS seconds in one process (one core), starting from a
# copy of its seed corpus. New inputs go to $OUT/corpus/<name>, crashes to $OUT/crash/<name>.
#
#   tests/fuzz/run-libfuzzer.sh [SECONDS [TARGET...]]      (default: 60, all targets)
#
# Environment: CC (default clang, else clang-14), OUT (default ./fuzz-out),
# FUZZ_FLAGS (more libFuzzer flags). Exits 1 if any target found a crash.
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
seconds=${1:-60}
[ $# -gt 0 ] && shift
targets=${*:-"proto tak mnk xmas record tei cgio playtak"}
out=${OUT:-$PWD/fuzz-out}
if [ -z "${CC:-}" ]; then
	if command -v clang >/dev/null 2>&1; then CC=clang; else CC=clang-14; fi
fi

pkgs="libcjson"
cflags="-std=c11 -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined \
-fno-sanitize-recover=undefined -D_GNU_SOURCE -I$top/src -I$top/clients \
$(pkg-config --cflags $pkgs)"
libs="$(pkg-config --libs $pkgs) -lm"

core="src/games/game.c src/games/games.c src/games/game_replay.c src/games/record.c \
src/games/search.c src/games/mnk.c src/games/mnk_notation.c src/games/tak.c \
src/games/tak_slide.c src/games/tak_ptn.c src/games/xmas.c src/games/xmas_notation.c \
src/games/xmas_push.c"

# The sources each target needs besides the core.
sources()
{
	case $1 in
	proto) echo "src/server/framing.c src/server/proto.c" ;;
	tak) echo "tests/fuzz/seq.c" ;;
	mnk) echo "tests/fuzz/seq.c" ;;
	xmas) echo "clients/cmd_xmas.c" ;;
	record) echo "" ;;
	tei) echo "clients/tei.c" ;;
	cgio) echo "clients/cgio.c src/server/framing.c" ;;
	playtak) echo "src/server/playtak.c" ;;
	*) echo "unknown target $1" >&2; exit 2 ;;
	esac
}

# Longest input libFuzzer makes: the framer needs lines past FRAME_MAX (4096).
max_len()
{
	case $1 in
	proto) echo 12000 ;;
	*) echo 4096 ;;
	esac
}

mkdir -p "$out/bin"
status=0
for t in $targets; do
	bin="$out/bin/fuzz_$t"
	srcs=""
	for f in tests/fuzz/fuzz_$t.c $(sources "$t") $core; do srcs="$srcs $top/$f"; done
	echo "== building fuzz_$t"
	# shellcheck disable=SC2086
	$CC $cflags -o "$bin" $srcs $libs
	mkdir -p "$out/corpus/$t" "$out/crash/$t"
	cp "$top/tests/fuzz/corpus/$t"/* "$out/corpus/$t/"
	echo "== fuzzing fuzz_$t for ${seconds}s"
	# shellcheck disable=SC2086
	if ! "$bin" -max_total_time="$seconds" -max_len="$(max_len "$t")" \
		-artifact_prefix="$out/crash/$t/" -print_final_stats=1 ${FUZZ_FLAGS:-} \
		"$out/corpus/$t" 2>"$out/fuzz_$t.log"; then
		echo "fuzz_$t: CRASH, see $out/fuzz_$t.log and $out/crash/$t/"
		status=1
	fi
	grep -E '^stat::(number_of_executed_units|peak_rss_mb)|^#[0-9]+.*DONE' \
		"$out/fuzz_$t.log" || true
	echo "fuzz_$t: corpus now $(ls "$out/corpus/$t" | wc -l) inputs"
done
exit $status
