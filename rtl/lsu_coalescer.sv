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
        // verilator coverage_off
        default: state_q <= Idle;  // unreachable (state_q takes only the three values above)
        // verilator coverage_on
      endcase
    end
  end

  // in_bytes is part of the boundary (the precondition above makes the sector of a lane depend on
  // its address alone); it is kept on the pins so that a design that splits wider accesses fits.
  logic unused_ok;
  assign unused_ok = ^in_bytes;

`ifdef FORMAL
  // ---- rtl-verif: properties, checked by scripts/rtl_formal.sh (BMC and k-induction) through
  // rtl/formal/lsu_coalescer_formal.sv (reset once; every input free, out_ready too, so the
  // output is back-pressured at random). The reference is recomputed here from the registered
  // access, lane by lane, without the block's comparator network. For each access:
  //   C1 a line is sent only for a line some active lane touches, and never twice;
  //   C2 its sector mask is exactly the sectors the active lanes touch in it;
  //   C3 lines leave in the order the lanes first touch them (the lowest lane not yet served);
  //   C4 out_last is set on exactly the line after which every active lane has been served, so
  //      it is seen once per access with an active lane, and never for an empty access;
  //   C5 the block is back in Idle (in_ready) when, and only when, every active lane is served.
  logic [LANES-1:0] f_served;  // lanes whose line has been sent in this access
  logic [LANES-1:0] f_same;    // lanes whose line is the line on out_line
  logic [Sectors-1:0] f_sectors;
  logic [LaneIdx-1:0] f_first;
  logic f_any;
  always_comb begin
    f_same = '0;
    f_sectors = '0;
    f_first = '0;
    f_any = 1'b0;
    for (int j = LANES - 1; j >= 0; j--) begin
      if (mask_q[j] && addr_q[j*ADDR_BITS+LineBits +: ADDR_BITS-LineBits] == out_line[ADDR_BITS-1:LineBits]) begin
        f_same[j] = 1'b1;
        f_sectors[addr_q[j*ADDR_BITS+SectorBits +: SIdxBits]] = 1'b1;
      end
      if (mask_q[j] && !f_served[j]) begin
        f_first = j[LaneIdx-1:0];
        f_any = 1'b1;
      end
    end
  end
  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) f_served <= '0;
    else if (state_q == Idle && in_valid) f_served <= '0;
    else if (out_valid && out_ready) f_served <= f_served | f_same;
  end
  always_comb begin
    if (rst_n) begin
      if (out_valid) begin
        assert (f_same != '0 && (f_same & f_served) == '0);                          // C1
        assert (out_line[LineBits-1:0] == '0);
        assert (out_sectors == f_sectors);                                            // C2
        assert (f_any && f_same[f_first]);                                            // C3
        assert (out_last == ((f_served | f_same) == mask_q));                         // C4
      end
      if (state_q == Emit) assert (out_valid && f_served != mask_q);                  // C5
      if (state_q == Idle) assert (f_served == mask_q);
      // The induction's invariants: nothing is served before the access is coalesced; the lanes
      // still pending are the first lanes of the lines not yet sent; a line is served for all its
      // lanes at once; the state is one of the three.
      if (state_q == Load) assert (f_served == '0);
      if (state_q == Emit) assert (pending_q == (first & ~f_served));
      assert ((f_served & ~mask_q) == '0 && state_q != 2'd3);
      for (int i = 0; i < LANES; i++)
        for (int j = 0; j < LANES; j++)
          if (mask_q[i] && mask_q[j] &&
              addr_q[i*ADDR_BITS+LineBits +: ADDR_BITS-LineBits] == addr_q[j*ADDR_BITS+LineBits +: ADDR_BITS-LineBits])
            assert (f_served[i] == f_served[j]);
    end
  end
  // ---- end rtl-verif
`endif
endmodule
