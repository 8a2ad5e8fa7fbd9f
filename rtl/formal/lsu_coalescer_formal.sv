// The harness of the LSU coalescer's formal properties (in rtl/lsu_coalescer.sv under
// `ifdef FORMAL`), for scripts/rtl_formal.sh: the block reset in the first cycle and never again;
// every other input free in every cycle (accesses, masks, addresses, out_ready), except the
// block's precondition (its header): each active lane touches one sector of one line, which the
// harness gets by leaving the bits below the sector free only when they are irrelevant: the block
// ignores them, as it ignores in_bytes, so nothing needs assuming.
module lsu_coalescer_formal #(
    parameter int LANES        = 4,
    parameter int ADDR_BITS    = 8,
    parameter int LINE_BYTES   = 16,
    parameter int SECTOR_BYTES = 4
) (
    input logic                               clk,
    input logic                               in_valid,
    input logic [LANES-1:0]                   in_mask,
    input logic [LANES*ADDR_BITS-1:0]         in_addr,
    input logic [4:0]                         in_bytes,
    input logic                               out_ready
);
  logic                               rst_n;
  logic                               in_ready;
  logic                               out_valid;
  logic [ADDR_BITS-1:0]               out_line;
  logic [LINE_BYTES/SECTOR_BYTES-1:0] out_sectors;
  logic                               out_last;
  lsu_coalescer #(.LANES(LANES), .ADDR_BITS(ADDR_BITS), .LINE_BYTES(LINE_BYTES), .SECTOR_BYTES(SECTOR_BYTES)) dut (.*);

  logic init = 1'b1;
  always @(posedge clk) init <= 1'b0;
  assign rst_n = !init;
endmodule
