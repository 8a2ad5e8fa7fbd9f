#!/usr/bin/env bash
# Formal properties of the RTL blocks (SystemVerilog assertions under `ifdef FORMAL` in rtl/*.sv,
# harnesses in rtl/formal/), checked with Yosys and yosys-smtbmc on z3 at small parameter sizes:
# bounded model checking from reset to a depth, then, where the properties carry the invariants
# it needs, k-induction at that depth (a proof for every depth). Then the mutants: copies of a
# block with a bug planted (a define or a one-line substitution), each of which must FAIL a
# property; a mutant that passes means the properties would not catch that bug. ctest runs it as
# `rtl_formal`.
#
# Usage: scripts/rtl_formal.sh [NAME ...]   (default: every proof and every mutant below)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
solver="${SCGPU_FORMAL_SOLVER:-z3}"

# Proofs: name, block (rtl/<block>.sv, harness rtl/formal/<block>_formal.sv), harness parameters
# (NAME=VALUE,...), method (prove: BMC + k-induction; bmc: BMC only), depth in clock cycles.
proofs=(
  "coalescer         lsu_coalescer       LANES=4,ADDR_BITS=8,LINE_BYTES=16,SECTOR_BYTES=4  prove 10"
  "xbar_rr           xbar_arbiter        N_IN=4,N_OUT=2,ROUND_ROBIN=1                      prove 10"
  "xbar_fixed        xbar_arbiter        N_IN=4,N_OUT=2,ROUND_ROBIN=0                      prove 10"
  "sched_lrr         warp_sched_arbiter  NUM_WARPS=4,POLICY=0                              prove 16"
  "sched_gto         warp_sched_arbiter  NUM_WARPS=4,POLICY=1                              prove 16"
  "sched_two_level   warp_sched_arbiter  NUM_WARPS=4,POLICY=2                              prove 10"
  "dram              dram_cmd_sched      NUM_BANKS=4,QUEUE_DEPTH=2,TIME_BITS=4              prove 5"
)
# Mutants, |-separated: name, the proof whose properties must catch it, what is planted (-DDEFINE, a
# define the block knows, or a sed substitution on the block's source, which must change it), and
# what the bug is. Mutants run BMC only: a counterexample within the depth is what is looked for.
mutants=(
  "coalescer_planted_bug|coalescer|-DSCGPU_PLANTED_BUG|the co-simulation tests' planted bug: a line touched in its first and last sector loses the last"
  "coalescer_last_early|coalescer|s/assign out_last  = pending_after == '0;/assign out_last  = pending_after == pending_q;/|out_last on the wrong line"
  "xbar_rr_skip|xbar_rr|s/({N_IN{1'b1}} << ptr)/({N_IN{1'b1}} << (ptr + 1'b1))/|round robin skips the input at the pointer"
  "xbar_rr_stuck|xbar_rr|s/<= done_in + 1'b1;/<= done_in;/|the pointer stays on the input just served (starvation)"
  "sched_lrr_oldest|sched_lrr|s/if (last_valid_q \&\& order_set\[last_q\])/if (1'b0)/|lrr always picks the oldest ready warp (starvation)"
  "sched_gto_any|sched_gto|s/if (last_valid_q \&\& ready\[last_q\] \&\& live_q\[last_q\])/if (last_valid_q \&\& live_q[last_q])/|gto keeps a warp that is not ready"
  "dram_planted_bug|dram|-DSCGPU_PLANTED_BUG|the co-simulation tests' planted bug: a read ignores tRCD"
  "dram_no_trtp|dram|s/is_rd ? k_tRTP :/is_rd ? '0 :/|a read does not delay its bank's precharge (tRTP)"
  "dram_no_twtr|dram|s/is_col ? k_tCWL + k_burst + k_tWTR/is_col ? k_tCWL + k_burst/|a read may follow a write's data at once (tWTR)"
  "dram_ref_early|dram|s/end else if (all_act_ok) begin/end else if (1'b1) begin/|REF without waiting for the banks (tRP, tRFC)"
  "dram_act_open|dram|s/end else if (open_q\[cmd_bank\]) begin/end else if (1'b0) begin/|a row conflict activates the open bank instead of precharging it"
)

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

declare -A proof_of=()
for row in "${proofs[@]}"; do
  read -r name _ <<<"$row"
  proof_of[$name]="$row"
done

# run NAME BLOCK PARAMS METHOD DEPTH [DEFINE | SED]: prints PASS or FAIL (and the log on error).
run() {
  local name="$1" block="$2" params="$3" method="$4" depth="$5" plant="${6:-}"
  local dir="$work/$name"
  mkdir -p "$dir"
  cp "$root/rtl/$block.sv" "$dir/$block.sv"
  local defines=""
  if [[ "$plant" == -D* ]]; then
    defines="$plant"
  elif [ -n "$plant" ]; then
    sed -i "$plant" "$dir/$block.sv"
    if cmp -s "$root/rtl/$block.sv" "$dir/$block.sv"; then
      echo "ERROR"
      echo "rtl_formal: mutant $name: the substitution changes nothing in rtl/$block.sv" >&2
      return
    fi
  fi
  local chparam=""
  IFS=',' read -r -a kvs <<<"$params"
  for kv in "${kvs[@]}"; do chparam+=" -chparam ${kv%%=*} ${kv#*=}"; done
  # Elaborated only with the harness's parameters (-defer, then hierarchy -chparam): at the blocks'
  # default sizes (32 warps, 64-entry queues) the properties' loops take Yosys minutes.
  # Bit-blasted to an and-inverter graph before SMT: z3 is quick on that, and slow on the
  # word-level form of the arbiters' order matrices.
  cat > "$dir/run.ys" <<EOF
read_verilog -defer -sv -formal $defines $dir/$block.sv $root/rtl/formal/${block}_formal.sv
hierarchy -top ${block}_formal$chparam
prep -flatten -top ${block}_formal
async2sync
opt -full; techmap; opt -fast; abc -g AND; opt_clean; dffunmap
write_smt2 -wires $dir/model.smt2
EOF
  if ! yosys -q "$dir/run.ys" > "$dir/yosys.log" 2>&1; then
    echo "ERROR"
    cat "$dir/yosys.log" >&2
    return
  fi
  if ! yosys-smtbmc -s "$solver" --presat -t "$depth" "$dir/model.smt2" > "$dir/bmc.log" 2>&1; then
    echo "FAIL"
    tr '\r' '\n' < "$dir/bmc.log" | grep -E "failed|Assert|Status" | head -5 > "$dir/why.txt" || true
    return
  fi
  if [ "$method" = prove ] &&
     ! yosys-smtbmc -s "$solver" --presat -i -t "$depth" "$dir/model.smt2" > "$dir/ind.log" 2>&1; then
    echo "FAIL(induction)"
    tr '\r' '\n' < "$dir/ind.log" | grep -E "failed|Assert|Status" | head -5 > "$dir/why.txt" || true
    return
  fi
  echo "PASS"
}

selected=("$@")
want() {
  [ ${#selected[@]} -eq 0 ] && return 0
  local n
  for n in "${selected[@]}"; do [ "$n" = "$1" ] && return 0; done
  return 1
}

failed=0
printf '%-22s %-20s %-48s %-6s %5s %-16s %6s\n' check block parameters method depth result s
for row in "${proofs[@]}"; do
  read -r name block params method depth <<<"$row"
  want "$name" || continue
  start=$SECONDS
  result="$(run "$name" "$block" "$params" "$method" "$depth")"
  printf '%-22s %-20s %-48s %-6s %5s %-16s %6s\n' "$name" "$block" "$params" "$method" "$depth" "$result" \
    "$((SECONDS - start))"
  if [ "$result" != PASS ]; then
    failed=1
    cat "$work/$name/why.txt" 2>/dev/null >&2 || true
  fi
done
for row in "${mutants[@]}"; do
  IFS='|' read -r name proof plant what <<<"$row"
  want "$name" || continue
  read -r _ block params method depth <<<"${proof_of[$proof]}"
  start=$SECONDS
  result="$(run "$name" "$block" "$params" bmc "$depth" "$plant")"
  verdict="caught"
  if [ "$result" != FAIL ]; then
    verdict="NOT CAUGHT ($result)"
    failed=1
    echo "rtl_formal: mutant $name ($what) was not caught by the properties of $proof" >&2
  fi
  printf '%-22s %-20s %-48s %-6s %5s %-16s %6s\n' "$name" "$block" "mutant of $proof" bmc "$depth" "$verdict" \
    "$((SECONDS - start))"
done
exit $failed
