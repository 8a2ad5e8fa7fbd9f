// The harness of the crossbar switch allocator's formal properties (in rtl/xbar_arbiter.sv under
// `ifdef FORMAL`), for scripts/rtl_formal.sh: the block reset in the first cycle and never again,
// every request, output and ask free (the solver picks any value in any cycle), and the crossbar's
// protocol assumed: a granted packet is done at its output in the cycle of its grant (a one-flit
// packet, the quickest the pointer can move).
module xbar_arbiter_formal #(
    parameter int N_IN        = 4,
    parameter int N_OUT       = 2,
    parameter int ROUND_ROBIN = 1
) (
    input logic                     clk,
    input logic                     grant_valid,
    input logic [$clog2(N_OUT)-1:0] grant_out,
    input logic [N_IN-1:0]          req
);
  logic                     rst_n;
  logic                     gnt_valid;
  logic [$clog2(N_IN)-1:0]  gnt_idx;
  logic                     done_valid;
  logic [$clog2(N_OUT)-1:0] done_out;
  logic [$clog2(N_IN)-1:0]  done_in;
  assign done_valid = gnt_valid;
  assign done_out = grant_out;
  assign done_in = gnt_idx;

  xbar_arbiter #(.N_IN(N_IN), .N_OUT(N_OUT), .ROUND_ROBIN(ROUND_ROBIN)) dut (.*);

  logic init = 1'b1;
  always @(posedge clk) init <= 1'b0;
  assign rst_n = !init;
endmodule
