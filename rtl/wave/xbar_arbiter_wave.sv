// The crossbar switch allocator as its divergence waveform shows it (rtl-verif; built with --trace,
// used only in cosim): the block (`dut`, every internal signal traced, the per-output pointers
// included) beside the model's answer to the same grant on the same clock. One cycle is one
// operation of the allocator: a grant (grant_valid; the edge changes nothing) or a done
// (done_valid; the edge moves the output's pointer). model_valid/model_idx: the model's grant;
// `mismatch` is high on a grant where the RTL's differs.
module xbar_arbiter_wave #(
    parameter int N_IN        = 256,
    parameter int N_OUT       = 256,
    parameter int ROUND_ROBIN = 1
) (
    input  logic                     clk,
    input  logic                     rst_n,
    input  logic                     grant_valid,
    input  logic [$clog2(N_OUT)-1:0] grant_out,
    input  logic [N_IN-1:0]          req,
    output logic                     gnt_valid,
    output logic [$clog2(N_IN)-1:0]  gnt_idx,
    input  logic                     done_valid,
    input  logic [$clog2(N_OUT)-1:0] done_out,
    input  logic [$clog2(N_IN)-1:0]  done_in,
    // the model's side
    input  logic                     model_valid,
    input  logic [$clog2(N_IN)-1:0]  model_idx,
    output logic                     mismatch
);
  xbar_arbiter #(.N_IN(N_IN), .N_OUT(N_OUT), .ROUND_ROBIN(ROUND_ROBIN)) dut (.*);
  // Only in the half cycle before the edge that commits the operation (clk low): after the edge
  // the RTL's outputs already answer the next cycle while the model's side still holds this one's.
  assign mismatch = !clk && grant_valid && (gnt_valid != model_valid || (gnt_valid && gnt_idx != model_idx));
endmodule
