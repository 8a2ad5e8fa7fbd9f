// The LSU coalescer as its divergence waveform shows it (rtl-verif; built with --trace, used only
// in cosim): the block (`dut`, every internal signal traced) beside the model's side of the same
// transaction on the same clock, so that the model's signals and the RTL's share one time base.
// The transactor drives the model_* pins from the C++ model's lines: model_line/model_sectors are
// the line the model expects on the next out handshake of the access (model_valid while there is
// one), model_cycle is the core cycle of the access in the model. `mismatch` is high on a cycle
// where the RTL hands over a line the model does not expect there.
module lsu_coalescer_wave #(
    parameter int LANES        = 32,
    parameter int ADDR_BITS    = 64,
    parameter int LINE_BYTES   = 128,
    parameter int SECTOR_BYTES = 32
) (
    input  logic                                clk,
    input  logic                                rst_n,
    input  logic                                in_valid,
    output logic                                in_ready,
    input  logic [LANES-1:0]                    in_mask,
    input  logic [LANES*ADDR_BITS-1:0]          in_addr,
    input  logic [4:0]                          in_bytes,
    output logic                                out_valid,
    input  logic                                out_ready,
    output logic [ADDR_BITS-1:0]                out_line,
    output logic [LINE_BYTES/SECTOR_BYTES-1:0]  out_sectors,
    output logic                                out_last,
    // the model's side
    input  logic [63:0]                         model_cycle,
    input  logic                                model_valid,
    input  logic [ADDR_BITS-1:0]                model_line,
    input  logic [LINE_BYTES/SECTOR_BYTES-1:0]  model_sectors,
    output logic                                mismatch
);
  lsu_coalescer #(.LANES(LANES), .ADDR_BITS(ADDR_BITS), .LINE_BYTES(LINE_BYTES), .SECTOR_BYTES(SECTOR_BYTES)) dut (
      .clk, .rst_n, .in_valid, .in_ready, .in_mask, .in_addr, .in_bytes, .out_valid, .out_ready, .out_line,
      .out_sectors, .out_last);
  // Only in the half cycle before the edge (clk low): after it the RTL's outputs already answer
  // the next cycle while the model's side still holds this one's.
  assign mismatch = !clk && out_valid && out_ready && (!model_valid || out_line != model_line || out_sectors != model_sectors);
  logic unused_cycle;
  assign unused_cycle = ^model_cycle;
endmodule
