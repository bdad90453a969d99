#!/usr/bin/env bash
# Builds the kept seed corpus fuzz/corpus/<target>/ from the real logs' headers and a few job lines
# each (never whole logs), the built-in catalog, and every documented label. Idempotent: file names
# are the content's sha1, as libFuzzer names its own corpus files.
#
#   fuzz/seed-corpus.sh [TRACE_DIR]   (default: $PWA_TRACES's first directory, else ../shared/traces)
set -eu  # no pipefail: `zcat | awk ... exit` ends zcat with SIGPIPE on purpose
cd "$(dirname "$0")"
traces=${1:-${PWA_TRACES%%:*}}
traces=${traces:-../../shared/traces}
[ -d "$traces" ] || { echo "no trace directory $traces (pass one)"; exit 1; }

# put TARGET < content: one corpus file named after its hash.
put() {
  local dir=corpus/$1 tmp
  mkdir -p "$dir"
  tmp=$(mktemp)
  cat >"$tmp"
  mv "$tmp" "$dir/$(sha1sum "$tmp" | cut -c1-40)"
}

shopt -s nullglob
for log in "$traces"/*.swf.gz "$traces"/*.swf; do
  cat_log() { case "$log" in *.gz) zcat "$log" ;; *) cat "$log" ;; esac; }
  header=$(cat_log | awk '!/^[ \t]*;/ { exit } { print }')
  # The header alone, as comment text (the `;` removed), for the header parser.
  printf '%s\n' "$header" | sed 's/^[ \t]*;//' | put swf_header
  # Header and the first job lines: plain and gzip for the reader; plain for the others.
  head_jobs=$(cat_log | awk '/^[ \t]*;/ { next } { print; if (++n == 6) exit }')
  printf '%s\n%s\n' "$header" "$head_jobs" | tee >(put swf_gzip) >(put swf_roundtrip) | put swf_reader
  printf '%s\n%s\n' "$header" "$head_jobs" | gzip -c | put swf_reader
  # Four runs of 8 consecutive job lines from across the log (no header).
  total=$(cat_log | grep -vc '^[ \t]*;' || true)
  for part in 1 2 3 4; do
    from=$(( total * part / 5 ))
    lines=$(cat_log | awk -v from="$from" '/^[ \t]*;/ { next } { if (++n > from) { print; if (++k == 8) exit } }')
    printf '%s\n' "$lines" | tee >(put swf_gzip) >(put swf_roundtrip) | put swf_reader
  done
done

# The built-in catalog whole and one entry at a time.
put catalog <../traces/catalog.toml
awk '/^\[traces\./ { if (entry != "") print entry > ("/tmp/seed-entry-" n++); entry = "" }
     /^\[traces\./, 0 { entry = entry $0 "\n" }
     END { if (entry != "") print entry > ("/tmp/seed-entry-" n++) }' ../traces/catalog.toml
for f in /tmp/seed-entry-*; do put catalog <"$f"; rm -f "$f"; done

# Every documented label form.
for label in fcfs oo oocb:8 oocb-head:0 oocb-incl:3 window:240 delay delay:count bq:600 bq:inf \
  lazy lazy:30 scan-up scan-down static gang gang:slice=2,nmax=4,retry=8,switch=0.1 \
  largest-first largest-first:16 easy easy:sjbf conservative \
  ff bf fo as mpl mpl-fixed flat buddy freelist graycode buddy2d ep nep ep:pair nep:pair \
  flat:128 mesh:22x16 mesh:1x64 mesh:64x1 mesh:4x4x4 torus:8x8 torus:4x4x8 hypercube:7 \
  square-tall square-wide paragon subcube nodes box exact user x2 x0.5 predict predict:estimate tsafrir \
  synth:lublin synth:lublin,nodes=64,jobs=300,class=batch,seed=2 \
  synth:uniform synth:uniform-decreasing,mesh=16x16,jobs=200,rate=0.5 \
  synth:normal,mesh=32x32,jobs=500,traffic=2,seed=9,dist=hyperexp synth:squares,mesh=8x8,dist=normal \
  synth:hypercube synth:hypercube,dim=6,size=normal,demand=hyperexp,dist=independent,load=0.8,residence=2,jobs=100,seed=3 \
  synth:hypercube,window=500 auto 0.5,1.0 0.1:2.0:0.1 0.25,0.5:1.5:0.25; do
  printf '%s' "$label" | put labels
done
echo "seed corpus: $(find corpus -type f | wc -l) files in $(du -sh corpus | cut -f1)"
for d in corpus/*/; do echo "  $d $(ls "$d" | wc -l)"; done
