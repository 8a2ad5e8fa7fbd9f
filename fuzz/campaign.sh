#!/usr/bin/env bash
# One round of a fuzzing campaign on a machine with many cores and none of our packages (the
# device machine of docs/fuzzing.md): all seven targets at once, -fork=FORKS workers each, for
# SECONDS, from the carried multi-target binary and its libraries (build-fuzz-carry/, made as
# docs/fuzzing.md says, with the program interpreter /opt/scgpu-carry/ld-linux-x86-64.so.2) and the
# state of the previous round (build-fuzz-carry/state.tar.gz: corpora, artifacts, logs). Writes
# the new state to OUTDIR/state.tar.gz. Run from the repository root:
#   fuzz/campaign.sh ROUND SECONDS OUTDIR [FORKS]
set -u
round=$1 secs=$2 out=$3 forks=${4:-3}
root=$(pwd) carry=$(pwd)/build-fuzz-carry w=/tmp/campaign
mkdir -p /opt/scgpu-carry && cp "$carry"/fuzz_all "$carry"/*.so* /opt/scgpu-carry/ && chmod +x /opt/scgpu-carry/*
rm -rf $w && mkdir -p $w/logs
[ -f "$carry/state.tar.gz" ] && tar -xzf "$carry/state.tar.gz" -C $w
export SCGPU_CONFIG_DIR=$root/configs SCGPU_FUZZ_DIR=$root/fuzz
export SCGPU_FUZZ_KNOWN=json-number-overflow
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
for t in ptx config launch stats exec wire wire_client; do
  mkdir -p $w/corpus/$t $w/artifacts/$t
  cp -n "$root"/fuzz/corpus/$t/* $w/corpus/$t/ 2>/dev/null
  (cd /tmp && SCGPU_FUZZ_TARGET=$t timeout $((secs + 25)) /opt/scgpu-carry/fuzz_all $w/corpus/$t -fork=$forks \
     -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 -dict="$root/fuzz/dict/$t.dict" -max_total_time=$secs \
     -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix=$w/artifacts/$t/ \
     > $w/logs/$t.round$round.log 2>&1) &
done
wait
# Keep the 40 smallest artifacts of each kind per target (a bug found again and again adds many).
for d in $w/artifacts/*; do
  for kind in crash leak timeout oom slow-unit; do
    ls -S -r "$d" 2>/dev/null | grep "^$kind-" | tail -n +41 | sed "s|^|$d/|" | xargs -r rm -f
  done
done
for t in ptx config launch stats exec wire wire_client; do
  echo "$t: $(ls $w/corpus/$t | wc -l) inputs, $(ls $w/artifacts/$t | wc -l) artifacts"
  grep -E '^#[0-9]+: cov' $w/logs/$t.round$round.log | tail -1
done
# The last round (MERGE=1) also minimises each corpus (-merge=1) and replays the result once without
# fork mode, whose INITED line gives the corpus's coverage in the usual units (cov: edges, ft: features).
if [ "${MERGE:-0}" = 1 ]; then
  for t in ptx config launch stats exec wire wire_client; do
    (mkdir -p $w/merged/$t && cd /tmp && SCGPU_FUZZ_TARGET=$t timeout 80 /opt/scgpu-carry/fuzz_all -merge=1 \
       -timeout=10 -rss_limit_mb=2048 $w/merged/$t $w/corpus/$t > $w/logs/$t.merge.log 2>&1;
     SCGPU_FUZZ_TARGET=$t timeout 45 /opt/scgpu-carry/fuzz_all -runs=0 -timeout=10 -rss_limit_mb=2048 $w/merged/$t \
       > $w/logs/$t.final.log 2>&1; echo "$t merged: $(ls $w/merged/$t | wc -l) inputs; $(grep INITED $w/logs/$t.final.log)") &
  done
  wait
fi
tar -czf "$out/state.tar.gz" -C $w corpus artifacts logs $( [ -d $w/merged ] && echo merged ) && ls -la "$out"
