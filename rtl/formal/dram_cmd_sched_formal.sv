// The harness of the DRAM command scheduler's formal properties (in rtl/dram_cmd_sched.sv under
// `ifdef FORMAL`), for scripts/rtl_formal.sh: the block reset in the first cycle and never again;
// the configuration chosen by the solver (any value, constant for the run: anyconst), loaded by
// every edge (cfg_load high), within the block's documented contract: every timing constraint and
// every counter load (tRAS + tRP, tRTP + tRP, tCL + burst, tCWL + burst + tWTR,
// tCWL + burst + tWR + tRP) below 2^TIME_BITS, which rtl/dram_sched_rtl.cpp checks at load. Everything else is free in every cycle: enqueues of any burst to either queue (the
// block refuses one into a full queue), any arrival countdown, command edges in any pattern.
module dram_cmd_sched_formal #(
    parameter int NUM_BANKS   = 4,
    parameter int QUEUE_DEPTH = 2,
    parameter int ROW_BITS    = 1,
    parameter int TAG_BITS    = 1,
    parameter int TIME_BITS   = 4,
    parameter int WAIT_BITS   = 1
) (
    input logic                         clk,
    input logic                         enq_valid,
    input logic                         enq_write,
    input logic [$clog2(NUM_BANKS)-1:0] enq_bank,
    input logic [ROW_BITS-1:0]          enq_row,
    input logic [TAG_BITS-1:0]          enq_tag,
    input logic [WAIT_BITS-1:0]         enq_wait,
    input logic                         cmd_en
);
  localparam int TB = TIME_BITS;
  localparam int CB = $clog2(QUEUE_DEPTH) + 1;
  (* anyconst *) logic [2:0]    cfg_bpg_log2;
  (* anyconst *) logic          cfg_fr_fcfs, cfg_closed_page, cfg_refresh;
  (* anyconst *) logic [CB-1:0] cfg_wd_high, cfg_wd_low;
  (* anyconst *) logic [TB-1:0] cfg_tRCD, cfg_tRP, cfg_tRAS, cfg_tRC, cfg_tCL, cfg_tCWL, cfg_tCCD_S, cfg_tCCD_L,
                                cfg_tRRD_S, cfg_tRRD_L, cfg_tFAW, cfg_tWTR, cfg_tRTW, cfg_tWR, cfg_tRTP, cfg_tREFI,
                                cfg_tRFC, cfg_burst;
  logic                         rst_n, cfg_load;
  logic                         enq_ready;
  logic                         cmd_valid;
  logic [2:0]                   cmd_kind;
  logic [$clog2(NUM_BANKS)-1:0] cmd_bank;
  logic [ROW_BITS-1:0]          cmd_row;
  logic                         cmd_tag_valid;
  logic [TAG_BITS-1:0]          cmd_tag;
  logic                         write_mode, refresh_due;
  logic [CB-1:0]                rd_count, wr_count;
  dram_cmd_sched #(.NUM_BANKS(NUM_BANKS), .QUEUE_DEPTH(QUEUE_DEPTH), .ROW_BITS(ROW_BITS), .TAG_BITS(TAG_BITS),
                   .TIME_BITS(TIME_BITS), .WAIT_BITS(WAIT_BITS)) dut (.*);

  logic init = 1'b1;
  always @(posedge clk) init <= 1'b0;
  assign rst_n = !init;
  assign cfg_load = 1'b1;

  // The counter loads fit TIME_BITS (the block's parameter contract, the list makeRtlDramScheduler
  // in rtl/dram_sched_rtl.cpp refuses a config by; the single parameters fit by their width).
  localparam int SW = TB + 2;
  always @(*) begin
    assume (SW'(cfg_tRAS) + SW'(cfg_tRP) < SW'(1 << TB));
    assume (SW'(cfg_tCWL) + SW'(cfg_burst) + SW'(cfg_tWR) + SW'(cfg_tRP) < SW'(1 << TB));
    assume (SW'(cfg_tRTP) + SW'(cfg_tRP) < SW'(1 << TB));
    assume (SW'(cfg_tCL) + SW'(cfg_burst) < SW'(1 << TB));
    assume (SW'(cfg_tCWL) + SW'(cfg_burst) + SW'(cfg_tWTR) < SW'(1 << TB));
  end
endmodule
