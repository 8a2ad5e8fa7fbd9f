// The warp-scheduler arbiter as its divergence waveform shows it (rtl-verif; built with --trace,
// used only in cosim): the block (`dut`, every internal signal traced) beside the model's answer
// to the same pick on the same clock. model_valid/model_idx: the model's grant (the local index
// of its warp) on a pick cycle; `mismatch` is high on a pick where the RTL's grant differs.
module warp_sched_arbiter_wave #(
    parameter int NUM_WARPS = 32,
    parameter int POLICY    = 1
) (
    input  logic                         clk,
    input  logic                         rst_n,
    input  logic [$clog2(NUM_WARPS):0]   cfg_active,
    input  logic                         add_valid,
    input  logic [$clog2(NUM_WARPS)-1:0] add_idx,
    input  logic                         remove_valid,
    input  logic [$clog2(NUM_WARPS)-1:0] remove_idx,
    input  logic                         pick_valid,
    input  logic [NUM_WARPS-1:0]         ready,
    input  logic [NUM_WARPS-1:0]         parked,
    output logic                         grant_valid,
    output logic [$clog2(NUM_WARPS)-1:0] grant_idx,
    // the model's side
    input  logic                         model_valid,
    input  logic [$clog2(NUM_WARPS)-1:0] model_idx,
    output logic                         mismatch
);
  warp_sched_arbiter #(.NUM_WARPS(NUM_WARPS), .POLICY(POLICY)) dut (.*);
  // Only in the half cycle before the edge (clk low): after it the RTL's outputs already answer
  // the next cycle while the model's side still holds this one's.
  assign mismatch = !clk && pick_valid && (grant_valid != model_valid || (grant_valid && grant_idx != model_idx));
endmodule
