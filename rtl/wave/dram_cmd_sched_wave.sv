// The DRAM channel command scheduler as its divergence waveform shows it (rtl-verif; built with
// --trace, used only in cosim): the block (`dut`, its internal signals traced: queues, bank state,
// timing counters) beside the model's command for the same DRAM cycle on the same clock. An edge
// with cmd_en is a DRAM cycle; an edge without it an enqueue. model_*: the model's command
// (model_valid low for none; row and tag as the co-simulation compares them: the row 0 for PRE and
// REF, no tag for REF and refresh's PREs); `mismatch` is high on a DRAM cycle whose commands differ.
module dram_cmd_sched_wave #(
    parameter int NUM_BANKS   = 16,
    parameter int QUEUE_DEPTH = 64,
    parameter int ROW_BITS    = 16,
    parameter int TAG_BITS    = 8,
    parameter int TIME_BITS   = 16,
    parameter int WAIT_BITS   = 8
) (
    input  logic                           clk,
    input  logic                           rst_n,
    input  logic                           cfg_load,
    input  logic [2:0]                     cfg_bpg_log2,
    input  logic                           cfg_fr_fcfs,
    input  logic                           cfg_closed_page,
    input  logic                           cfg_refresh,
    input  logic [$clog2(QUEUE_DEPTH):0]   cfg_wd_high,
    input  logic [$clog2(QUEUE_DEPTH):0]   cfg_wd_low,
    input  logic [TIME_BITS-1:0]           cfg_tRCD, cfg_tRP, cfg_tRAS, cfg_tRC, cfg_tCL, cfg_tCWL,
    input  logic [TIME_BITS-1:0]           cfg_tCCD_S, cfg_tCCD_L, cfg_tRRD_S, cfg_tRRD_L, cfg_tFAW,
    input  logic [TIME_BITS-1:0]           cfg_tWTR, cfg_tRTW, cfg_tWR, cfg_tRTP, cfg_tREFI, cfg_tRFC,
    input  logic [TIME_BITS-1:0]           cfg_burst,
    input  logic                           enq_valid,
    output logic                           enq_ready,
    input  logic                           enq_write,
    input  logic [$clog2(NUM_BANKS)-1:0]   enq_bank,
    input  logic [ROW_BITS-1:0]            enq_row,
    input  logic [TAG_BITS-1:0]            enq_tag,
    input  logic [WAIT_BITS-1:0]           enq_wait,
    input  logic                           cmd_en,
    output logic                           cmd_valid,
    output logic [2:0]                     cmd_kind,
    output logic [$clog2(NUM_BANKS)-1:0]   cmd_bank,
    output logic [ROW_BITS-1:0]            cmd_row,
    output logic                           cmd_tag_valid,
    output logic [TAG_BITS-1:0]            cmd_tag,
    output logic                           write_mode,
    output logic                           refresh_due,
    output logic [$clog2(QUEUE_DEPTH):0]   rd_count,
    output logic [$clog2(QUEUE_DEPTH):0]   wr_count,
    // the model's side
    input  logic [63:0]                    model_cycle,  // the DRAM cycle (the model's count)
    input  logic                           model_valid,
    input  logic [2:0]                     model_kind,
    input  logic [$clog2(NUM_BANKS)-1:0]   model_bank,
    input  logic [ROW_BITS-1:0]            model_row,
    input  logic                           model_tag_valid,
    input  logic [TAG_BITS-1:0]            model_tag,
    output logic                           mismatch
);
  localparam logic [2:0] CmdRef = 3'd5;
  dram_cmd_sched #(.NUM_BANKS(NUM_BANKS), .QUEUE_DEPTH(QUEUE_DEPTH), .ROW_BITS(ROW_BITS), .TAG_BITS(TAG_BITS),
                   .TIME_BITS(TIME_BITS), .WAIT_BITS(WAIT_BITS)) dut (.*);
  // As the transactor reads the pins: nothing when cmd_valid is low, no bank for REF, the row
  // always, the tag when it is valid.
  // Only in the half cycle before the edge that commits the operation (clk low): after the edge
  // the RTL's outputs already answer the next cycle while the model's side still holds this one's.
  assign mismatch = !clk && cmd_en && (cmd_valid != model_valid ||
                               (cmd_valid && (cmd_kind != model_kind || (cmd_kind != CmdRef && cmd_bank != model_bank) ||
                                              cmd_row != model_row || cmd_tag_valid != model_tag_valid ||
                                              (cmd_tag_valid && cmd_tag != model_tag))));
  logic unused_cycle;  // shown in the waveform only
  assign unused_cycle = ^model_cycle;
endmodule
