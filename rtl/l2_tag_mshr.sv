// L2 slice tag and MSHR stage: the sectored tag array (valid and dirty bit per sector), the
// replacement order (LRU or FIFO), and the MSHRs (allocate, merge, fill, complete) of one L2 slice.
// The C++ model of the same boundary is memsys/l2_tag_mshr.cpp; docs/rtl-cosim.md has the pin
// protocol. The slice (memsys/l2_slice.cpp) keeps the data path: the request queue, the hit-latency
// pipes, the atomic unit, the waiting requests' payloads (a target RAM addressed by res_mshr and
// res_count) and the DRAM traffic.
//
// One operation per clock: op_valid with op_kind, op_line (the line number, address / line bytes)
// and op_mask (its sectors). The results are combinational from the state and the operation; the
// rising edge commits the operation's state change (a stalled lookup or a refused fill changes
// nothing). Each operation reads one set, decides, and writes the set back in the same cycle.
//   OP_READ, OP_ATOMIC  a lookup whose sectors must be present: a hit, or a miss that allocates an
//                       MSHR entry (res_dram_mask: the sectors to read), merges into the line's entry
//                       (res_dram_mask: the sectors not yet requested), or stalls (no free entry, or
//                       the entry already holds cfg_merge requests). An atomic hit marks its sectors
//                       dirty (write-back). res_mshr/res_count: the entry and the request's place in
//                       it (its target slot).
//   OP_WRITE            a full-sector write: hit sectors become dirty (write-back); with
//                       cfg_alloc_on_write missing sectors are installed (dirty under write-back),
//                       evicting a line if the line is absent (res_victim*).
//   OP_FILL             sectors returned by DRAM: installed (evicting a line if the line is absent);
//                       the line's entry stops waiting for them, and when none is left it is freed
//                       (RES_FILL_DONE, res_count: its requests, to be answered in order).
//                       Sectors that are not outstanding for a pending line set res_error.
//   OP_UPDATE           an atomic whose line has just been filled executes: its sectors become dirty
//                       (write-back) and the line most recently used.
// Replacement: an invalid way first (the lowest), else the way last in the order: the order of last
// use (cfg_lru) or of installation (FIFO). The order is a position per way (0: most recent): the
// valid ways of a set always hold 0 .. valid-1, so no reset of the positions is needed.
// The configuration inputs are static during a run; they may ask for less than the build
// (sets, ways, entries, merge depth), never more. Sets must be a power of two.
module l2_tag_mshr #(
    parameter int SETS    = 1024,  // at most, a power of two
    parameter int WAYS    = 32,    // at most
    parameter int SECTORS = 4,     // sectors per line, at most
    parameter int ENTRIES = 512,   // MSHR entries, at most
    parameter int MERGE   = 64,    // requests per MSHR entry, at most
    parameter int LINE_W  = 60     // line-number bits (64-bit addresses, lines of 16 bytes or more)
) (
    input  logic                         clk,
    input  logic                         rst_n,
    input  logic [$clog2(SETS)-1:0]      cfg_set_mask,      // sets - 1
    input  logic [$clog2(WAYS):0]        cfg_ways,
    input  logic [$clog2(ENTRIES):0]     cfg_entries,
    input  logic [$clog2(MERGE+1)-1:0]   cfg_merge,
    input  logic                         cfg_lru,           // else FIFO
    input  logic                         cfg_write_back,    // else write-through (nothing is dirty)
    input  logic                         cfg_alloc_on_write,
    input  logic                         op_valid,
    input  logic [2:0]                   op_kind,
    input  logic [LINE_W-1:0]            op_line,
    input  logic [SECTORS-1:0]           op_mask,
    output logic [2:0]                   res_kind,
    output logic                         res_line_present,  // the line's tag was present
    output logic [SECTORS-1:0]           res_hit_mask,      // requested sectors valid before the operation
    output logic [SECTORS-1:0]           res_miss_mask,     // requested sectors not valid
    output logic [SECTORS-1:0]           res_dram_mask,     // lookup: sectors to read from DRAM now
    output logic [$clog2(ENTRIES)-1:0]   res_mshr,          // the MSHR entry used
    output logic [$clog2(MERGE+1)-1:0]   res_count,         // lookup: target slot; fill done: requests
    output logic                         res_victim,        // a valid line was evicted
    output logic [LINE_W-1:0]            res_victim_line,
    output logic [SECTORS-1:0]           res_victim_dirty,  // its sectors to write back
    output logic                         res_error          // fill of sectors not outstanding
);
  localparam logic [2:0] OP_READ = 3'd0, OP_ATOMIC = 3'd1, OP_WRITE = 3'd2, OP_FILL = 3'd3, OP_UPDATE = 3'd4;
  localparam logic [2:0] RES_HIT = 3'd0, RES_MISS = 3'd1, RES_MERGE = 3'd2, RES_FULL = 3'd3, RES_MERGE_FULL = 3'd4,
                         RES_WRITE_MISS = 3'd5, RES_FILL = 3'd6, RES_FILL_DONE = 3'd7;
  localparam int SetBits = $clog2(SETS);
  localparam int WayBits = $clog2(WAYS);
  localparam int EntBits = $clog2(ENTRIES);
  localparam int CntBits = $clog2(MERGE + 1);

  // ---- state ------------------------------------------------------------------------------------
  // Per set, way w's field at [w*F +: F]. Only the valid bits are reset; the rest is written when a
  // way is installed (tag, sectors, position) before it is ever read as valid.
  logic [WAYS*LINE_W-1:0]  tag_mem   [SETS];  // the full line number (so a victim's line is its tag)
  logic [WAYS*SECTORS-1:0] vmask_mem [SETS];  // valid sectors
  logic [WAYS*SECTORS-1:0] dmask_mem [SETS];  // dirty sectors
  logic [WAYS*WayBits-1:0] pos_mem   [SETS];  // replacement order, 0 = most recent
  logic [SETS*WAYS-1:0]    valid_q;           // line valid, set s way w at [s*WAYS + w]
  // MSHR entries: the line, the sectors requested from DRAM, those not yet returned, the requests.
  logic [LINE_W-1:0]  m_line  [ENTRIES];
  logic [SECTORS-1:0] m_req   [ENTRIES];
  logic [SECTORS-1:0] m_out   [ENTRIES];
  logic [CntBits-1:0] m_cnt   [ENTRIES];
  logic [ENTRIES-1:0] m_valid_q;

  // ---- the set and the line ------------------------------------------------------------------------
  logic [SetBits-1:0]      set;
  logic [WAYS*LINE_W-1:0]  tags;
  logic [WAYS*SECTORS-1:0] vms, dms;
  logic [WAYS*WayBits-1:0] poss;
  logic [WAYS-1:0]         vbits, in_cfg, match;
  logic                    present, any_invalid;
  logic [WayBits-1:0]      hit_way, first_invalid, last_way, way_sel;
  logic [SECTORS-1:0]      line_vm, line_dm;
  logic [WayBits-1:0]      hit_pos;
  logic [31:0]             ways32;   // cfg_ways and a position, widened to compare with loop indices
  logic [31:0]             pos32;
  always_comb begin
    ways32 = {{(31 - WayBits) {1'b0}}, cfg_ways};
    set = op_line[SetBits-1:0] & cfg_set_mask;
    tags = tag_mem[set];
    vms = vmask_mem[set];
    dms = dmask_mem[set];
    poss = pos_mem[set];
    vbits = valid_q[set*WAYS +: WAYS];
    present = 1'b0;
    any_invalid = 1'b0;
    hit_way = '0;
    first_invalid = '0;
    last_way = '0;
    for (int w = WAYS - 1; w >= 0; w--) begin
      in_cfg[w] = w < ways32;
      pos32 = {{(32 - WayBits) {1'b0}}, poss[w*WayBits +: WayBits]};
      match[w] = vbits[w] && in_cfg[w] && tags[w*LINE_W +: LINE_W] == op_line;
      if (match[w]) begin
        present = 1'b1;
        hit_way = w[WayBits-1:0];
      end
      if (!vbits[w] && in_cfg[w]) begin
        any_invalid = 1'b1;
        first_invalid = w[WayBits-1:0];
      end
      // With every configured way valid, their positions are 0 .. cfg_ways-1: the last one goes.
      if (in_cfg[w] && pos32 + 1 == ways32)
        last_way = w[WayBits-1:0];
    end
    way_sel = present ? hit_way : any_invalid ? first_invalid : last_way;
    line_vm = present ? vms[hit_way*SECTORS +: SECTORS] : '0;
    line_dm = dms[way_sel*SECTORS +: SECTORS];
    hit_pos = poss[hit_way*WayBits +: WayBits];
  end

  // ---- the MSHR entry of the line, and the first free one ----------------------------------------------
  logic               m_found, m_any_free;
  logic [EntBits-1:0] m_idx, m_free;
  logic [31:0]        entries32;
  always_comb begin
    entries32 = {{(31 - EntBits) {1'b0}}, cfg_entries};
    m_found = 1'b0;
    m_any_free = 1'b0;
    m_idx = '0;
    m_free = '0;
    for (int e = ENTRIES - 1; e >= 0; e--) begin
      if (m_valid_q[e] && m_line[e] == op_line) begin
        m_found = 1'b1;
        m_idx = e[EntBits-1:0];
      end
      if (!m_valid_q[e] && e < entries32) begin
        m_any_free = 1'b1;
        m_free = e[EntBits-1:0];
      end
    end
  end

  // ---- the operation ------------------------------------------------------------------------------------
  logic               touch, install, set_wr;  // the line becomes most recent / is installed in way_sel
  logic [SECTORS-1:0] new_valid, new_dirty;    // sectors of the line set valid / dirty
  logic               m_alloc, m_update, m_free_it;
  logic [SECTORS-1:0] m_req_n, m_out_n;
  logic [CntBits-1:0] m_cnt_n;
  logic [EntBits-1:0] m_sel;
  always_comb begin
    res_kind = RES_HIT;
    res_line_present = present;
    res_hit_mask = op_mask & line_vm;
    res_miss_mask = op_mask & ~line_vm;
    res_dram_mask = '0;
    res_mshr = '0;
    res_count = '0;
    res_error = 1'b0;
    touch = 1'b0;
    install = 1'b0;
    new_valid = '0;
    new_dirty = '0;
    m_alloc = 1'b0;
    m_update = 1'b0;
    m_free_it = 1'b0;
    m_sel = m_idx;
    m_req_n = m_req[m_idx];
    m_out_n = m_out[m_idx];
    m_cnt_n = m_cnt[m_idx];
    case (op_kind)
      OP_READ, OP_ATOMIC: begin
        if (res_miss_mask == '0) begin
          touch = present;
          if (op_kind == OP_ATOMIC && cfg_write_back) new_dirty = op_mask;
        end else if (m_found) begin
          res_mshr = m_idx;
          res_count = m_cnt[m_idx];
          if (m_cnt[m_idx] >= cfg_merge) res_kind = RES_MERGE_FULL;
          else begin
            res_kind = RES_MERGE;
            res_dram_mask = res_miss_mask & ~m_req[m_idx];
            m_update = 1'b1;
            m_req_n = m_req[m_idx] | res_dram_mask;
            m_out_n = m_out[m_idx] | res_dram_mask;
            m_cnt_n = m_cnt[m_idx] + 1'b1;
            touch = present;
          end
        end else if (!m_any_free) res_kind = RES_FULL;
        else begin
          res_kind = RES_MISS;
          res_mshr = m_free;
          res_dram_mask = res_miss_mask;
`ifdef SCGPU_PLANTED_BUG
          // The tests' planted bug: a miss of every sector asks DRAM for all but the last.
          if (&res_miss_mask) res_dram_mask[SECTORS-1] = 1'b0;
`endif
          m_alloc = 1'b1;
          m_sel = m_free;
          m_req_n = res_miss_mask;
          m_out_n = res_miss_mask;
          m_cnt_n = {{(CntBits - 1) {1'b0}}, 1'b1};
          touch = present;
        end
      end
      OP_WRITE, OP_UPDATE: begin
        if (res_miss_mask != '0) res_kind = RES_WRITE_MISS;
        touch = present;
        if (cfg_write_back) new_dirty = res_hit_mask;
        if (op_kind == OP_WRITE && cfg_alloc_on_write && res_miss_mask != '0) begin
          new_valid = res_miss_mask;
          if (cfg_write_back) new_dirty = op_mask;
          install = !present;
        end
      end
      OP_FILL: begin
        res_mshr = m_idx;
        if (!m_found || op_mask == '0 || (op_mask & ~m_out[m_idx]) != '0) res_error = 1'b1;
        else begin
          touch = present;
          install = !present;
          new_valid = op_mask;
          m_out_n = m_out[m_idx] & ~op_mask;
          if (m_out_n == '0) begin
            res_kind = RES_FILL_DONE;
            res_count = m_cnt[m_idx];
            m_free_it = 1'b1;
          end else begin
            res_kind = RES_FILL;
            m_update = 1'b1;
          end
        end
      end
      default: res_error = 1'b1;
    endcase
    res_victim = install && !any_invalid;
    res_victim_line = res_victim ? tags[way_sel*LINE_W +: LINE_W] : '0;
    res_victim_dirty = res_victim ? line_dm : '0;
    set_wr = touch || install || new_valid != '0 || new_dirty != '0;
  end

  // ---- the set after the operation ------------------------------------------------------------------
  logic [WAYS*LINE_W-1:0]  tags_n;
  logic [WAYS*SECTORS-1:0] vms_n, dms_n;
  logic [WAYS*WayBits-1:0] poss_n;
  logic [WAYS-1:0]         vbits_n;
  logic                    reorder;
  logic [WayBits-1:0]      ref_pos;
  always_comb begin
    tags_n = tags;
    vms_n = vms;
    dms_n = dms;
    poss_n = poss;
    vbits_n = vbits;
    // An installed line passes every other valid way; a used one (LRU) passes those more recent than it.
    reorder = install || (touch && cfg_lru);
    ref_pos = install ? {WayBits{1'b1}} : hit_pos;
    for (int w = 0; w < WAYS; w++) begin
      if (reorder && vbits[w] && w[WayBits-1:0] != way_sel &&
          (install ? 1'b1 : poss[w*WayBits +: WayBits] < ref_pos))
        poss_n[w*WayBits +: WayBits] = poss[w*WayBits +: WayBits] + 1'b1;
    end
    if (reorder) poss_n[way_sel*WayBits +: WayBits] = '0;
    if (install) begin
      tags_n[way_sel*LINE_W +: LINE_W] = op_line;
      vms_n[way_sel*SECTORS +: SECTORS] = new_valid;
      dms_n[way_sel*SECTORS +: SECTORS] = new_dirty;
      vbits_n[way_sel] = 1'b1;
    end else if (present) begin
      vms_n[way_sel*SECTORS +: SECTORS] = line_vm | new_valid;
      dms_n[way_sel*SECTORS +: SECTORS] = dms[way_sel*SECTORS +: SECTORS] | new_dirty;
    end
  end

  always_ff @(posedge clk) begin
    if (op_valid && set_wr && !res_error) begin
      tag_mem[set] <= tags_n;
      vmask_mem[set] <= vms_n;
      dmask_mem[set] <= dms_n;
      pos_mem[set] <= poss_n;
    end
    if (op_valid && (m_alloc || m_update) && !res_error) begin
      m_line[m_sel] <= op_line;
      m_req[m_sel] <= m_req_n;
      m_out[m_sel] <= m_out_n;
      m_cnt[m_sel] <= m_cnt_n;
    end
  end

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      for (int s = 0; s < SETS; s++) valid_q[s*WAYS +: WAYS] <= '0;  // (a loop: one '0 this wide is a lint warning)
      m_valid_q <= '0;
    end else if (op_valid && !res_error) begin
      if (set_wr) valid_q[set*WAYS +: WAYS] <= vbits_n;
      if (m_alloc) m_valid_q[m_sel] <= 1'b1;
      if (m_free_it) m_valid_q[m_idx] <= 1'b0;
    end
  end

endmodule
