#!/usr/bin/env bash
# Peak memory of a long replay (issue 32): JOBS synthetic jobs of the Lublin–Feitelson model on
# flat:32768, replayed under EASY with the flat allocator, without a per-job table and with one
# (--jobs-out, Parquet and CSV). Prints peak RSS (`/usr/bin/time -v`), bytes per job and user CPU.
# The workload is generated once into target/tmp/ (seed 1) and reused.
#
# usage: tools/bench-memory.sh BIN [JOBS]
set -euo pipefail
bin=${1:?usage: tools/bench-memory.sh BIN [JOBS]}
jobs=${2:-1000000}
dir=target/tmp/bench-memory
mkdir -p "$dir"
swf="$dir/lublin-$jobs.swf"
if [ ! -s "$swf" ]; then
  "$bin" synth --model lublin --machine flat:32768 --jobs "$jobs" --seed 1 --out "$swf.part"
  mv "$swf.part" "$swf"
fi
replay=("$bin" run --trace "$swf" --machine flat:32768 --sched easy --alloc flat --format json)
measure() {
  local label=$1; shift
  local stats="$dir/time.txt"
  /usr/bin/time -v "$@" >/dev/null 2>"$stats" || { cat "$stats" >&2; exit 1; }
  local kb user
  kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$stats")
  user=$(awk -F': ' '/User time/ {print $2}' "$stats")
  awk -v l="$label" -v kb="$kb" -v n="$jobs" -v u="$user" 'BEGIN {
    printf "%-22s %8.1f MB peak RSS  %6.0f B/job  %7.2f s user\n", l, kb / 1024, kb * 1024 / n, u }'
}
echo "$jobs jobs, EASY / flat on flat:32768 ($bin)"
measure "replay" "${replay[@]}"
measure "--jobs-out parquet" "${replay[@]}" --jobs-out "$dir/jobs.parquet"
measure "--jobs-out csv" "${replay[@]}" --jobs-out "$dir/jobs.csv"
rm -f "$dir/jobs.parquet" "$dir/jobs.csv" "$dir/time.txt"
