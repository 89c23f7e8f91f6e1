#!/bin/sh
# run.sh - runs the libFuzzer builds of the fuzz targets (./configure CC=clang --enable-fuzzing;
# `make fuzz-smoke` and `make fuzz` call it), one after the other, each on a copy of its seed
# corpus, and prints a line per target: executions, executions a second, peak memory, and
# whether it found anything.
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

# The longest input libFuzzer makes: the framer needs lines past FRAME_MAX (4096).
max_len()
{
	case $1 in
	proto) echo 12000 ;;
	*) echo 4096 ;;
	esac
}

status=0
for t in "$@"; do
	bin=$bindir/fuzz_$t
	mkdir -p "$out/corpus/$t" "$out/crash/$t"
	cp "$srcdir/corpus/$t"/* "$out/corpus/$t/"
	start=$(date +%s)
	# shellcheck disable=SC2086
	if "$bin" "$limit" -max_len="$(max_len "$t")" -artifact_prefix="$out/crash/$t/" \
		-print_final_stats=1 ${FUZZ_FLAGS:-} "$out/corpus/$t" >"$out/$t.log" 2>&1; then
		verdict=ok
	else
		verdict="FAILED (see $out/$t.log and $out/crash/$t/)"
		status=1
	fi
	secs=$(($(date +%s) - start))
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/$t.log")
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$out/$t.log")
	rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$out/$t.log")
	printf 'fuzz_%-8s %10s runs in %5ss, %6s exec/s, %4s MB, corpus %4s: %s\n' "$t" \
		"${runs:-?}" "$secs" "${rate:-?}" "${rss:-?}" "$(ls "$out/corpus/$t" | wc -l)" \
		"$verdict"
done
exit $status
