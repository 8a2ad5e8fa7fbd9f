// LSU coalescer: one warp's global memory access in (up to 32 lane addresses, the active mask and
// the access width), the cache lines it touches out, one per cycle, in the order the lanes first
// touch them, each with the mask of sectors touched. The C++ model of the same boundary is
// sm/timing/coalescer.cpp; docs/rtl-cosim.md has the pin protocol.
//
// Protocol (all on the rising edge of clk):
//   in_valid && in_ready   an access is taken; in_ready is high only when the block is idle.
//   out_valid && out_ready one line is taken; out_last marks the last line of the access.
//   An access with no active lane produces no line; in_ready rises again two cycles later.
// Precondition, as the functional core guarantees before an access reaches the LSU: every active
// lane's address is aligned to the access width, and the width is a power of two no larger than a
// sector, so each lane touches exactly one sector of one line.
//
// Lane addresses travel flattened (lane i at bits [i*ADDR_BITS +: ADDR_BITS]) so that the block
// reads the same in Verilator and in Yosys.
module lsu_coalescer #(
    parameter int LANES        = 32,
    parameter int ADDR_BITS    = 64,
    parameter int LINE_BYTES   = 128,
    parameter int SECTOR_BYTES = 32
) (
    input  logic                                clk,
    input  logic                                rst_n,
    // access in
    input  logic                                in_valid,
    output logic                                in_ready,
    input  logic [LANES-1:0]                    in_mask,
    input  logic [LANES*ADDR_BITS-1:0]          in_addr,
    input  logic [4:0]                          in_bytes,
    // lines out
    output logic                                out_valid,
    input  logic                                out_ready,
    output logic [ADDR_BITS-1:0]                out_line,
    output logic [LINE_BYTES/SECTOR_BYTES-1:0]  out_sectors,
    output logic                                out_last
);
  localparam int LineBits   = $clog2(LINE_BYTES);
  localparam int SectorBits = $clog2(SECTOR_BYTES);
  localparam int Sectors    = LINE_BYTES / SECTOR_BYTES;
  localparam int LaneIdx    = $clog2(LANES);
  localparam int SIdxBits   = LineBits - SectorBits;  // a sector's index in its line (lines hold >= 2)

  localparam logic [1:0] Idle = 2'd0;  // waiting for an access
  localparam logic [1:0] Load = 2'd1;  // the access is registered; its lines are being found
  localparam logic [1:0] Emit = 2'd2;  // sending lines

  logic [1:0]                 state_q;
  logic [LANES-1:0]           mask_q;
  logic [LANES*ADDR_BITS-1:0] addr_q;
  logic [LANES-1:0]           pending_q;  // lanes whose line is still to be sent

  // ---- coalescing, combinational over the registered access ------------------------------------
  logic [LANES*ADDR_BITS-1:0] line_of;    // lane i's line address
  logic [LANES*Sectors-1:0]   sector_of;  // lane i's sector, one-hot
  logic [LANES-1:0]           first;      // lane i is the first to touch its line
  logic [LANES*Sectors-1:0]   line_mask;  // sectors of lane i's line, over all lanes

  always_comb begin
    line_of = '0;
    sector_of = '0;
    for (int i = 0; i < LANES; i++) begin
      line_of[i*ADDR_BITS+LineBits +: ADDR_BITS-LineBits] = addr_q[i*ADDR_BITS+LineBits +: ADDR_BITS-LineBits];
      sector_of[i*Sectors + {{(32-SIdxBits){1'b0}}, addr_q[i*ADDR_BITS+SectorBits +: SIdxBits]}] = 1'b1;
    end
    first = '0;
    line_mask = '0;
    for (int i = 0; i < LANES; i++) begin
      first[i] = mask_q[i];
      for (int j = 0; j < LANES; j++) begin
        if (mask_q[j] && line_of[j*ADDR_BITS +: ADDR_BITS] == line_of[i*ADDR_BITS +: ADDR_BITS]) begin
          if (j < i) first[i] = 1'b0;
          line_mask[i*Sectors +: Sectors] = line_mask[i*Sectors +: Sectors] | sector_of[j*Sectors +: Sectors];
        end
      end
    end
  end

  // ---- the lowest pending lane is the next line out ----------------------------------------------
  logic [LaneIdx-1:0] next_lane;
  logic [LANES-1:0]   pending_after;
  always_comb begin
    next_lane = '0;
    for (int i = LANES - 1; i >= 0; i--) if (pending_q[i]) next_lane = i[LaneIdx-1:0];
    pending_after = pending_q;
    pending_after[next_lane] = 1'b0;
  end

  assign in_ready  = state_q == Idle;
  assign out_valid = state_q == Emit && pending_q != '0;
  assign out_line  = line_of[next_lane*ADDR_BITS +: ADDR_BITS];
  assign out_last  = pending_after == '0;
`ifdef SCGPU_PLANTED_BUG
  // A deliberate bug for the co-simulation tests (built only into a test copy of the block): a
  // line touched in its first and its last sector loses the last one.
  always_comb begin
    out_sectors = line_mask[next_lane*Sectors +: Sectors];
    if (out_sectors[0] && out_sectors[Sectors-1]) out_sectors[Sectors-1] = 1'b0;
  end
`else
  assign out_sectors = line_mask[next_lane*Sectors +: Sectors];
`endif

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      state_q   <= Idle;
      mask_q    <= '0;
      addr_q    <= '0;
      pending_q <= '0;
    end else begin
      case (state_q)
        Idle: if (in_valid) begin
          mask_q  <= in_mask;
          addr_q  <= in_addr;
          state_q <= Load;
        end
        Load: begin
          pending_q <= first;
          state_q   <= (first == '0) ? Idle : Emit;
        end
        Emit: if (out_ready && pending_q != '0) begin
          pending_q <= pending_after;
          if (pending_after == '0) state_q <= Idle;
        end
        default: state_q <= Idle;
      endcase
    end
  end

  // in_bytes is part of the boundary (the precondition above makes the sector of a lane depend on
  // its address alone); it is kept on the pins so that a design that splits wider accesses fits.
  logic unused_ok;
  assign unused_ok = ^in_bytes;
endmodule
