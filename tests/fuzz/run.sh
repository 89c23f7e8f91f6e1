#!/bin/sh
# run.sh - runs the libFuzzer builds of the fuzz targets (./configure CC=clang --enable-fuzzing;
# `make fuzz-smoke` and `make fuzz` call it), one after the other, each on a copy of its seed
# corpus, and prints a line per target: executions, executions a second (and per second of
# CPU time, with GNU time), peak memory, and whether it found anything.
#
#   tests/fuzz/run.sh BINDIR OUTDIR LIMIT TARGET...
#
# LIMIT is a libFuzzer flag bounding each run: -max_total_time=SECONDS or -runs=N. New inputs
# go to OUTDIR/corpus/<target> (a later run goes on from them), a crash to
# OUTDIR/crash/<target>/, libFuzzer's log to OUTDIR/<target>.log. FUZZ_FLAGS adds flags
# (-jobs, -dict...). Exits 1 if any target failed.
set -eu

[ $# -ge 4 ] || { echo "usage: $0 BINDIR OUTDIR LIMIT TARGET..." >&2; exit 2; }
bindir=$1
out=$2
limit=$3
shift 3
srcdir=$(cd "$(dirname "$0")" && pwd)

# The longest input libFuzzer makes. The framer (proto) and the bridge's reader (cgio) need
# lines past 4096 bytes (FRAME_MAX, and where cgio cuts a line); tak and mnk read 24 lines of
# which the longest meaningful one (an 8x8 TPS, a position row list) is a few hundred bytes,
# xmas 16 action lines: longer inputs only make each execution slower.
max_len()
{
	case $1 in
	proto | cgio) echo 6000 ;;
	tak | mnk) echo 1024 ;;
	xmas) echo 2048 ;;
	*) echo 4096 ;;
	esac
}

status=0
for t in "$@"; do
	bin=$bindir/fuzz_$t
	mkdir -p "$out/corpus/$t" "$out/crash/$t"
	cp "$srcdir/corpus/$t"/* "$out/corpus/$t/"
	# the CPU time too: on a shared machine executions per CPU second say more than per second
	timer=""
	[ -x /usr/bin/time ] && timer="/usr/bin/time -f %e:%U:%S -o $out/$t.time"
	# shellcheck disable=SC2086
	if $timer "$bin" "$limit" -max_len="$(max_len "$t")" -artifact_prefix="$out/crash/$t/" \
		-print_final_stats=1 ${FUZZ_FLAGS:-} "$out/corpus/$t" >"$out/$t.log" 2>&1; then
		verdict=ok
	else
		verdict="FAILED (see $out/$t.log and $out/crash/$t/)"
		status=1
	fi
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/$t.log")
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$out/$t.log")
	rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$out/$t.log")
	cpu="?"
	if [ -s "$out/$t.time" ] && [ -n "$runs" ]; then
		cpu=$(awk -F: -v n="$runs" '{ c = $2 + $3 } END { printf "%.0f", (c > 0 ? n / c : 0) }' \
			"$out/$t.time")
	fi
	printf 'fuzz_%-8s %10s runs, %6s exec/s, %6s exec per CPU second, %4s MB, corpus %4s: %s\n' \
		"$t" "${runs:-?}" "${rate:-?}" "$cpu" "${rss:-?}" "$(ls "$out/corpus/$t" | wc -l)" \
		"$verdict"
done
exit $status
