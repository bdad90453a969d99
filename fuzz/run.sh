#!/usr/bin/env bash
# Builds the fuzz targets and runs each for SECONDS under libFuzzer (stable Rust: no cargo-fuzz or
# nightly needed; see fuzz/README.md). New inputs go to fuzz/target/corpus/<target>/ (scratch); the
# kept seeds in fuzz/corpus/<target>/ are only read. A crash, hang (> 10 s) or out-of-memory
# (> 2 GB) stops that target, saves the input under fuzz/artifacts/<target>/ and fails the run.
# libFuzzer's closing statistics (executions, coverage `cov`, features `ft`) go to
# fuzz/target/logs/<target>.log and are summed up at the end.
#
#   fuzz/run.sh SECONDS [TARGET…]      (default: every target)
set -euo pipefail
cd "$(dirname "$0")"
seconds=${1:?usage: fuzz/run.sh SECONDS [TARGET...]}
shift
triple=$(rustc -vV | sed -n 's/^host: //p')
# What cargo-fuzz passes, minus the address sanitizer (nightly-only; the library has no unsafe code).
export RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing"
cargo build --release --locked --quiet --target "$triple" --target-dir target
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(swf_reader swf_gzip swf_header swf_roundtrip catalog labels order_expr experiment)
mkdir -p target/logs
status=0
for t in "${targets[@]}"; do
  mkdir -p "target/corpus/$t" "artifacts/$t"
  if ! "target/$triple/release/$t" "target/corpus/$t" "corpus/$t" \
      -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=8192 \
      -artifact_prefix="artifacts/$t/" -print_final_stats=1 >"target/logs/$t.log" 2>&1; then
    echo "fuzz $t: FAILED, see fuzz/target/logs/$t.log and fuzz/artifacts/$t/"
    status=1
  fi
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "target/logs/$t.log")
  last=$(grep -E '^#[0-9]+.*(DONE|cov:)' "target/logs/$t.log" | tail -1)
  cov=$(sed -n 's/.*cov: \([0-9]*\).*/\1/p' <<<"$last")
  ft=$(sed -n 's/.*ft: \([0-9]*\).*/\1/p' <<<"$last")
  echo "fuzz $t: ${seconds}s, ${execs:-?} executions, cov ${cov:-?}, ft ${ft:-?}, corpus $(ls "target/corpus/$t" | wc -l)"
done
exit $status
