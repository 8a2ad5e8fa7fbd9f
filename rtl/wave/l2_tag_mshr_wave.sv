// The L2 slice tag/MSHR stage as its divergence waveform shows it (rtl-verif; built with --trace,
// used only in cosim): the block (`dut`, its internal signals traced; the tag and MSHR memories
// are larger than Verilator traces) beside the model's result of the same operation on the same
// clock, one cycle per operation. model_*: the model's result pins; `mismatch` is high on an
// operation whose results differ on any pin the co-simulation compares.
module l2_tag_mshr_wave #(
    parameter int SETS    = 1024,
    parameter int WAYS    = 32,
    parameter int SECTORS = 4,
    parameter int ENTRIES = 512,
    parameter int MERGE   = 64,
    parameter int LINE_W  = 60
) (
    input  logic                         clk,
    input  logic                         rst_n,
    input  logic [$clog2(SETS)-1:0]      cfg_set_mask,
    input  logic [$clog2(WAYS):0]        cfg_ways,
    input  logic [$clog2(ENTRIES):0]     cfg_entries,
    input  logic [$clog2(MERGE+1)-1:0]   cfg_merge,
    input  logic                         cfg_lru,
    input  logic                         cfg_write_back,
    input  logic                         cfg_alloc_on_write,
    input  logic                         op_valid,
    input  logic [2:0]                   op_kind,
    input  logic [LINE_W-1:0]            op_line,
    input  logic [SECTORS-1:0]           op_mask,
    output logic [2:0]                   res_kind,
    output logic                         res_line_present,
    output logic [SECTORS-1:0]           res_hit_mask,
    output logic [SECTORS-1:0]           res_miss_mask,
    output logic [SECTORS-1:0]           res_dram_mask,
    output logic [$clog2(ENTRIES)-1:0]   res_mshr,
    output logic [$clog2(MERGE+1)-1:0]   res_count,
    output logic                         res_victim,
    output logic [LINE_W-1:0]            res_victim_line,
    output logic [SECTORS-1:0]           res_victim_dirty,
    output logic                         res_error,
    // the model's side
    input  logic [2:0]                   model_kind,
    input  logic                         model_line_present,
    input  logic [SECTORS-1:0]           model_hit_mask,
    input  logic [SECTORS-1:0]           model_miss_mask,
    input  logic [SECTORS-1:0]           model_dram_mask,
    input  logic [$clog2(ENTRIES)-1:0]   model_mshr,
    input  logic [$clog2(MERGE+1)-1:0]   model_count,
    input  logic                         model_victim,
    input  logic [LINE_W-1:0]            model_victim_line,
    input  logic [SECTORS-1:0]           model_victim_dirty,
    input  logic                         model_error,
    output logic                         mismatch
);
  l2_tag_mshr #(.SETS(SETS), .WAYS(WAYS), .SECTORS(SECTORS), .ENTRIES(ENTRIES), .MERGE(MERGE), .LINE_W(LINE_W))
      dut (.*);
  // Only in the half cycle before the edge that commits the operation (clk low): after the edge
  // the RTL's outputs already answer the next cycle while the model's side still holds this one's.
  assign mismatch = !clk && op_valid && (res_kind != model_kind || res_line_present != model_line_present ||
                                 res_hit_mask != model_hit_mask || res_miss_mask != model_miss_mask ||
                                 res_dram_mask != model_dram_mask || res_mshr != model_mshr ||
                                 res_count != model_count || res_victim != model_victim ||
                                 res_victim_line != model_victim_line || res_victim_dirty != model_victim_dirty ||
                                 res_error != model_error);
endmodule
