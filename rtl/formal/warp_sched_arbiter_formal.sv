// The harness of the warp-scheduler arbiter's formal properties (in rtl/warp_sched_arbiter.sv under
// `ifdef FORMAL`), for scripts/rtl_formal.sh: the block reset in the first cycle and never again,
// and the SM's protocol assumed, everything else free: at most one of add, remove and pick per
// cycle; cfg_active constant, between 1 and NUM_WARPS. The SM adds a warp only into a free slot
// and removes only a live one, but that is not assumed: the block keeps its invariants whatever
// warp joins or leaves (a live warp re-added moves to the back), so the proofs cover both, and an
// induction step needs no link between a shadow here and the block's live set.
module warp_sched_arbiter_formal #(
    parameter int NUM_WARPS = 4,
    parameter int POLICY    = 0
) (
    input logic                         clk,
    input logic [$clog2(NUM_WARPS):0]   cfg_active,
    input logic                         add_valid,
    input logic [$clog2(NUM_WARPS)-1:0] add_idx,
    input logic                         remove_valid,
    input logic [$clog2(NUM_WARPS)-1:0] remove_idx,
    input logic                         pick_valid,
    input logic [NUM_WARPS-1:0]         ready,
    input logic [NUM_WARPS-1:0]         parked
);
  logic                         rst_n;
  logic                         grant_valid;
  logic [$clog2(NUM_WARPS)-1:0] grant_idx;
  warp_sched_arbiter #(.NUM_WARPS(NUM_WARPS), .POLICY(POLICY)) dut (.*);

  logic init = 1'b1;
  always @(posedge clk) init <= 1'b0;
  assign rst_n = !init;

  logic [$clog2(NUM_WARPS):0] cfg0;
  always @(posedge clk) cfg0 <= cfg_active;
  always @(*) begin
    assume ({2'b0, add_valid} + {2'b0, remove_valid} + {2'b0, pick_valid} <= 3'd1);
    assume (cfg_active >= 1 && cfg_active <= NUM_WARPS);
    if (!init) assume (cfg_active == cfg0);
  end
endmodule
