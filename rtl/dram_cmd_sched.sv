// DRAM channel command scheduler: which command (ACT, PRE, RD, WR, REF or none) the controller
// issues in a DRAM command-clock cycle. The C++ model of the same boundary is
// memsys/dram_scheduler.cpp; docs/rtl-cosim.md has the pin protocol and the parameter mapping.
//
// Two request queues (read, write) of bursts, each a collapsing queue: entry 0 is the oldest, so
// age is position and "oldest" is a priority encoder; a served entry is squeezed out. An entry
// holds its bank, row, the channel's tag, and a countdown until it may be scheduled (the
// controller's arrival pipeline). Per bank: open flag, open row, and down-counters until an ACT,
// a PRE and a column command are allowed; per bank group (indexed by bank >> cfg_bpg_log2) and for
// the channel: counters for tRRD_S/L, tCCD_S/L, tWTR, tRTW, the data bus and a four-entry tFAW
// window; a refresh interval counter. Every counter holds "cycles until allowed" (0 = allowed);
// a command loads max(counter, constraint), so a later, looser constraint never shortens an
// earlier one.
//
// The decision is combinational from the state alone (cmd_*; the configuration pins are captured
// into registers, and the inputs only feed the edge), taken by the rising edge when cmd_en is
// high: a cmd_en edge is one DRAM command cycle (every counter moves one cycle, the command's
// effects are committed). enq_valid writes a burst at any edge; the transactor uses edges with
// cmd_en low for it, so that a burst arriving during a cycle takes part in that cycle's decision
// (the controller's front end runs on a faster clock than the command clock).
//
// Policy (the model's, to the cycle):
//  - mode: read mode -> write mode when the write queue holds >= cfg_wd_high bursts, or some and
//    no read is queued; back when the write queue is empty, or below cfg_wd_low while reads wait.
//  - refresh: due every cfg_tREFI cycles; while due, no access starts: open banks are precharged
//    (the lowest whose PRE is allowed, one a cycle), then REF when every bank allows an ACT.
//  - else, over the active queue: fr_fcfs: the oldest ready burst hitting its bank's open row
//    whose column command is allowed (RD/WR); else the oldest ready burst that is the oldest of
//    its bank, whose bank has no ready hit, and whose PRE (other row open) or ACT (bank closed) is
//    allowed. fcfs: the oldest ready burst that is the oldest of its bank and whose next command
//    (RD/WR, PRE or ACT) is allowed.
//  - closed page: every RD/WR auto-precharges (the bank closes; its next ACT waits for the
//    precharge, which starts when tRAS and tRTP / write recovery allow, plus tRP).
module dram_cmd_sched #(
    parameter int NUM_BANKS   = 16,  // banks per channel (bank_groups * banks_per_group at most this)
    parameter int QUEUE_DEPTH = 64,  // entries per queue (read and write)
    parameter int ROW_BITS    = 16,  // rows per bank at most 2^ROW_BITS
    parameter int TAG_BITS    = 8,   // the channel's burst tags
    parameter int TIME_BITS   = 16,  // timing constraints (and their sums) below 2^TIME_BITS cycles
    parameter int WAIT_BITS   = 8    // controller latency below 2^WAIT_BITS cycles
) (
    input  logic                           clk,
    input  logic                           rst_n,
    // Configuration (the channel's DRAM parameters): captured into registers by an edge with
    // cfg_load (the transactor loads them during reset), so no logic depends on these pins.
    input  logic                           cfg_load,
    input  logic [2:0]                     cfg_bpg_log2,   // banks per bank group = 1 << cfg_bpg_log2
    input  logic                           cfg_fr_fcfs,    // else fcfs
    input  logic                           cfg_closed_page,
    input  logic                           cfg_refresh,
    input  logic [$clog2(QUEUE_DEPTH):0]   cfg_wd_high,    // write-drain watermarks, in bursts
    input  logic [$clog2(QUEUE_DEPTH):0]   cfg_wd_low,
    input  logic [TIME_BITS-1:0]           cfg_tRCD, cfg_tRP, cfg_tRAS, cfg_tRC, cfg_tCL, cfg_tCWL,
    input  logic [TIME_BITS-1:0]           cfg_tCCD_S, cfg_tCCD_L, cfg_tRRD_S, cfg_tRRD_L, cfg_tFAW,
    input  logic [TIME_BITS-1:0]           cfg_tWTR, cfg_tRTW, cfg_tWR, cfg_tRTP, cfg_tREFI, cfg_tRFC,
    input  logic [TIME_BITS-1:0]           cfg_burst,      // data-bus cycles per burst
    // A burst joins a queue.
    input  logic                           enq_valid,
    output logic                           enq_ready,      // the queue enq_write names has room
    input  logic                           enq_write,
    input  logic [$clog2(NUM_BANKS)-1:0]   enq_bank,
    input  logic [ROW_BITS-1:0]            enq_row,
    input  logic [TAG_BITS-1:0]            enq_tag,
    input  logic [WAIT_BITS-1:0]           enq_wait,       // command cycles until it may be scheduled
    // The command of this cycle, committed by an edge with cmd_en.
    input  logic                           cmd_en,
    output logic                           cmd_valid,
    output logic [2:0]                     cmd_kind,       // 1 ACT, 2 PRE, 3 RD, 4 WR, 5 REF
    output logic [$clog2(NUM_BANKS)-1:0]   cmd_bank,
    output logic [ROW_BITS-1:0]            cmd_row,        // ACT, RD, WR
    output logic                           cmd_tag_valid,  // ACT, PRE (not refresh's), RD, WR
    output logic [TAG_BITS-1:0]            cmd_tag,        // the burst the command serves
    // Status.
    output logic                           write_mode,     // this cycle's mode
    output logic                           refresh_due,    // this cycle refresh blocks accesses
    output logic [$clog2(QUEUE_DEPTH):0]   rd_count,
    output logic [$clog2(QUEUE_DEPTH):0]   wr_count
);
  localparam int NB = NUM_BANKS;
  localparam int D = QUEUE_DEPTH;
  localparam int BB = $clog2(NB);
  localparam int QB = $clog2(D);
  localparam int CB = QB + 1;
  localparam int TB = TIME_BITS;
  localparam logic [2:0] KAct = 3'd1, KPre = 3'd2, KRd = 3'd3, KWr = 3'd4, KRef = 3'd5;

  // ---- configuration registers ------------------------------------------------------------------
  logic [2:0]    k_bpg_log2;
  logic          k_fr_fcfs, k_closed_page, k_refresh;
  logic [CB-1:0] k_wd_high, k_wd_low;
  logic [TB-1:0] k_tRCD, k_tRP, k_tRAS, k_tRC, k_tCL, k_tCWL, k_tCCD_S, k_tCCD_L, k_tRRD_S, k_tRRD_L, k_tFAW,
                 k_tWTR, k_tRTW, k_tWR, k_tRTP, k_tREFI, k_tRFC, k_burst;
  always_ff @(posedge clk) begin
    if (cfg_load) begin
      k_bpg_log2 <= cfg_bpg_log2;
      k_fr_fcfs <= cfg_fr_fcfs;
      k_closed_page <= cfg_closed_page;
      k_refresh <= cfg_refresh;
      k_wd_high <= cfg_wd_high;
      k_wd_low <= cfg_wd_low;
      k_tRCD <= cfg_tRCD;
      k_tRP <= cfg_tRP;
      k_tRAS <= cfg_tRAS;
      k_tRC <= cfg_tRC;
      k_tCL <= cfg_tCL;
      k_tCWL <= cfg_tCWL;
      k_tCCD_S <= cfg_tCCD_S;
      k_tCCD_L <= cfg_tCCD_L;
      k_tRRD_S <= cfg_tRRD_S;
      k_tRRD_L <= cfg_tRRD_L;
      k_tFAW <= cfg_tFAW;
      k_tWTR <= cfg_tWTR;
      k_tRTW <= cfg_tRTW;
      k_tWR <= cfg_tWR;
      k_tRTP <= cfg_tRTP;
      k_tREFI <= cfg_tREFI;
      k_tRFC <= cfg_tRFC;
      k_burst <= cfg_burst;
    end
  end

  // ---- state ------------------------------------------------------------------------------------
  // Queues: read entries at [0, D), write entries at [D, 2D) (entry i of queue q at q*D + i);
  // entries [0, count) of a queue are valid, oldest first.
  logic [(2*D)*(BB)-1:0]        q_bank;
  logic [(2*D)*(ROW_BITS)-1:0]  q_row;
  logic [(2*D)*(TAG_BITS)-1:0]  q_tag;
  logic [(2*D)*(WAIT_BITS)-1:0] q_wait;
  logic [2*CB-1:0]               q_count;
  // Banks.
  logic [NB-1:0]                    open_q;
  logic [(NB)*(ROW_BITS)-1:0]      row_q;
  logic [(NB)*(TB)-1:0]            c_act, c_pre, c_col;
  // Bank groups (at most NB of them) and the channel.
  logic [(NB)*(TB)-1:0]            g_act, g_rd, g_wr;     // tRRD_L; tCCD_L of reads; tCCD_L of writes
  logic [TB-1:0]                    a_act, a_rd, a_wr;     // tRRD_S; tCCD_S, tWTR; tCCD_S, tRTW
  logic [TB-1:0]                    bus_q;                 // cycles until the data bus is free
  logic [4*TB-1:0]                  faw_q;                 // tFAW left of the last four ACTs
  logic [1:0]                       faw_ptr;               // the oldest of them
  logic                             mode_q;                // write mode
  logic [TB-1:0]                    ref_elapsed;           // cycle mod tREFI
  logic                             ref_started;           // past cycle 0
  logic [2:0]                       ref_owed;              // refreshes due and not yet issued

  function automatic logic [TB-1:0] tmax(input logic [TB-1:0] a, input logic [TB-1:0] b);
    tmax = a > b ? a : b;
  endfunction
  // One cycle passes: a counter moves towards 0 and stays there.
  function automatic logic [TB-1:0] dec(input logic [TB-1:0] a);
    dec = a == '0 ? '0 : a - 1'b1;
  endfunction
  function automatic logic [BB-1:0] group_of(input logic [BB-1:0] b);
    group_of = b >> k_bpg_log2;
  endfunction

  // ---- this cycle's mode and refresh ------------------------------------------------------------
  logic ref_tick;
  always_comb begin
    rd_count = q_count[0*CB +: CB];
    wr_count = q_count[1*CB +: CB];
    if (!mode_q)
      write_mode = wr_count != '0 && (wr_count >= k_wd_high || rd_count == '0);
    else
      write_mode = !(wr_count == '0 || (wr_count < k_wd_low && rd_count != '0));
    ref_tick = k_refresh && ref_started && ref_elapsed == '0;
    refresh_due = ref_owed != '0 || ref_tick;
  end

  // ---- what each bank allows ------------------------------------------------------------------
  logic [NB-1:0] act_ok, pre_ok, col_ok;
  always_comb begin
    for (int b = 0; b < NB; b++) begin
      act_ok[b] = c_act[b*TB +: TB] == '0 && a_act == '0 && g_act[group_of(b[BB-1:0])*TB +: TB] == '0 && faw_q[faw_ptr*TB +: TB] == '0;
      pre_ok[b] = c_pre[b*TB +: TB] == '0;
      if (write_mode)
        col_ok[b] = c_col[b*TB +: TB] == '0 && a_wr == '0 && g_wr[group_of(b[BB-1:0])*TB +: TB] == '0 && bus_q <= k_tCWL;
      else
        col_ok[b] = c_col[b*TB +: TB] == '0 && a_rd == '0 && g_rd[group_of(b[BB-1:0])*TB +: TB] == '0 && bus_q <= k_tCL;
`ifdef SCGPU_PLANTED_BUG
      // A deliberate bug for the co-simulation tests (built only into a test copy of the block):
      // a read ignores tRCD, so it can follow its bank's ACT too early.
      if (!write_mode)
        col_ok[b] = a_rd == '0 && g_rd[group_of(b[BB-1:0])*TB +: TB] == '0 && bus_q <= k_tCL;
`endif
    end
  end

  // ---- the active queue's candidates --------------------------------------------------------------
  // The active queue's entries (a 2:1 choice per entry: every index below is a constant, so the
  // per-entry logic is built once, not once per queue).
  logic              aq;  // the active queue
  logic [D*BB-1:0]   a_bank;
  logic [D*ROW_BITS-1:0] a_row;
  logic [D-1:0]      e_valid, e_ready, e_hit, e_front, col_cand, row_cand;
  logic [NB-1:0]     seen, ready_hit;
  logic [BB-1:0]     eb;
  always_comb begin
    aq = write_mode;
    a_bank = aq ? q_bank[D*BB +: D*BB] : q_bank[0 +: D*BB];
    a_row = aq ? q_row[D*ROW_BITS +: D*ROW_BITS] : q_row[0 +: D*ROW_BITS];
    seen = '0;
    ready_hit = '0;
    for (int i = 0; i < D; i++) begin
      eb = a_bank[i*BB +: BB];
      e_valid[i] = CB'(i) < (aq ? wr_count : rd_count);
      e_ready[i] = (aq ? q_wait[(D+i)*WAIT_BITS +: WAIT_BITS] : q_wait[i*WAIT_BITS +: WAIT_BITS]) == '0;
      e_hit[i] = open_q[eb] && row_q[eb*ROW_BITS +: ROW_BITS] == a_row[i*ROW_BITS +: ROW_BITS];
      e_front[i] = e_valid[i] && !seen[eb];  // no older entry of its bank
      for (int b = 0; b < NB; b++)
        if (eb == BB'(b)) begin
          if (e_valid[i]) seen[b] = 1'b1;
          if (e_valid[i] && e_ready[i] && e_hit[i]) ready_hit[b] = 1'b1;
        end
    end
    // fr_fcfs needs no e_front for column commands: a bank's older hits are ready too (entries
    // become ready in age order), so the oldest candidate overall is its bank's oldest hit.
    for (int i = 0; i < D; i++) begin
      eb = a_bank[i*BB +: BB];
      col_cand[i] = e_valid[i] && e_ready[i] && e_hit[i] && col_ok[eb] && (k_fr_fcfs || e_front[i]);
      row_cand[i] = e_front[i] && e_ready[i] && !e_hit[i] && !(k_fr_fcfs && ready_hit[eb]) &&
                    (open_q[eb] ? pre_ok[eb] : act_ok[eb]);
    end
  end

  // The oldest candidate: fr_fcfs prefers column commands, fcfs takes the oldest of either kind.
  logic [D-1:0]  pick_set;
  logic          pick_found;
  logic [QB-1:0] pick_idx;
  logic [BB-1:0]       pick_bank;
  logic [ROW_BITS-1:0] pick_row;
  logic [TAG_BITS-1:0] pick_tag;
  logic                pick_col;
  always_comb begin
    pick_set = k_fr_fcfs ? (col_cand != '0 ? col_cand : row_cand) : (col_cand | row_cand);
    pick_found = pick_set != '0;
    pick_idx = '0;
    pick_bank = '0;
    pick_row = '0;
    pick_tag = '0;
    pick_col = 1'b0;
    for (int i = D - 1; i >= 0; i--)
      if (pick_set[i]) begin
        pick_idx = QB'(i);
        pick_bank = a_bank[i*BB +: BB];
        pick_row = a_row[i*ROW_BITS +: ROW_BITS];
        pick_tag = aq ? q_tag[(D+i)*TAG_BITS +: TAG_BITS] : q_tag[i*TAG_BITS +: TAG_BITS];
        pick_col = col_cand[i];
      end
  end

  // Refresh: the lowest open bank whose PRE is allowed; REF once all are closed and allow an ACT.
  logic          any_open, all_act_ok, rpre_found;
  logic [BB-1:0] rpre_bank;
  always_comb begin
    any_open = open_q != '0;
    all_act_ok = 1'b1;
    rpre_found = 1'b0;
    rpre_bank = '0;
    for (int b = NB - 1; b >= 0; b--) begin
      if (c_act[b*TB +: TB] != '0) all_act_ok = 1'b0;
      if (open_q[b] && pre_ok[b]) begin
        rpre_found = 1'b1;
        rpre_bank = b[BB-1:0];
      end
    end
  end

  // ---- the command ------------------------------------------------------------------------------
  logic col_pick;  // the pick is a column command (the burst leaves its queue)
  always_comb begin
    cmd_valid = 1'b0;
    cmd_kind = '0;
    cmd_bank = '0;
    cmd_row = '0;
    cmd_tag_valid = 1'b0;
    cmd_tag = '0;
    col_pick = 1'b0;
    if (refresh_due) begin
      if (any_open) begin
        cmd_valid = rpre_found;
        cmd_kind = rpre_found ? KPre : 3'd0;
        cmd_bank = rpre_bank;
      end else if (all_act_ok) begin
        cmd_valid = 1'b1;
        cmd_kind = KRef;
      end
    end else if (pick_found) begin
      cmd_valid = 1'b1;
      cmd_bank = pick_bank;
      cmd_tag_valid = 1'b1;
      cmd_tag = pick_tag;
      col_pick = pick_col;
      if (col_pick) begin
        cmd_kind = aq ? KWr : KRd;
        cmd_row = pick_row;
      end else if (open_q[cmd_bank]) begin
        cmd_kind = KPre;
      end else begin
        cmd_kind = KAct;
        cmd_row = pick_row;
      end
    end
  end

  // ---- next state -------------------------------------------------------------------------------
  // The queues after a command edge (state only: the served burst squeezed out, every countdown
  // one cycle on); the edge then takes these (cmd_en) and writes an enqueued burst behind the last.
  logic [(2*D)*(BB)-1:0]        n_bank;
  logic [(2*D)*(ROW_BITS)-1:0]  n_row;
  logic [(2*D)*(TAG_BITS)-1:0]  n_tag;
  logic [(2*D)*(WAIT_BITS)-1:0] n_wait;
  logic [2*CB-1:0]              n_count;
  assign enq_ready = q_count[enq_write*CB +: CB] != CB'(D);
  always_comb begin
    n_bank = q_bank;
    n_row = q_row;
    n_tag = q_tag;
    n_wait = q_wait;
    n_count = q_count;
    for (int q = 0; q < 2; q++) begin
      if (cmd_valid && col_pick && aq == q[0]) begin
        for (int i = 0; i < D - 1; i++)
          if (QB'(i) >= pick_idx) begin
            n_bank[(q*D+i)*BB +: BB] = q_bank[(q*D+i+1)*BB +: BB];
            n_row[(q*D+i)*ROW_BITS +: ROW_BITS] = q_row[(q*D+i+1)*ROW_BITS +: ROW_BITS];
            n_tag[(q*D+i)*TAG_BITS +: TAG_BITS] = q_tag[(q*D+i+1)*TAG_BITS +: TAG_BITS];
            n_wait[(q*D+i)*WAIT_BITS +: WAIT_BITS] = q_wait[(q*D+i+1)*WAIT_BITS +: WAIT_BITS];
          end
        n_count[q*CB +: CB] = q_count[q*CB +: CB] - 1'b1;
      end
      for (int i = 0; i < D; i++)
        if (n_wait[(q*D+i)*WAIT_BITS +: WAIT_BITS] != '0)
          n_wait[(q*D+i)*WAIT_BITS +: WAIT_BITS] = n_wait[(q*D+i)*WAIT_BITS +: WAIT_BITS] - 1'b1;
    end
  end

  logic [CB-1:0] tail;  // where an enqueued burst goes: behind the last one after this edge
  assign tail = cmd_en ? n_count[enq_write*CB +: CB] : q_count[enq_write*CB +: CB];
  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      q_bank <= '0;
      q_row <= '0;
      q_tag <= '0;
      q_wait <= '0;
      q_count <= '0;
    end else begin
      if (cmd_en) begin
        q_bank <= n_bank;
        q_row <= n_row;
        q_tag <= n_tag;
        q_wait <= n_wait;
        q_count <= n_count;
      end
      if (enq_valid && enq_ready)
        for (int q = 0; q < 2; q++)
          if (enq_write == q[0]) begin
            for (int i = 0; i < D; i++)
              if (tail == CB'(i)) begin
                q_bank[(q*D+i)*BB +: BB] <= enq_bank;
                q_row[(q*D+i)*ROW_BITS +: ROW_BITS] <= enq_row;
                q_tag[(q*D+i)*TAG_BITS +: TAG_BITS] <= enq_tag;
                q_wait[(q*D+i)*WAIT_BITS +: WAIT_BITS] <= enq_wait;
              end
            q_count[q*CB +: CB] <= tail + 1'b1;
          end
    end
  end

  // Timing state: moves only on command edges. A command loads each counter it constrains with
  // max(counter, constraint) (0: it constrains nothing there), then every counter moves one cycle.
  logic [BB-1:0]     cb, cg;
  logic              is_act, is_pre, is_col, is_rd, is_ref;
  logic [TB-1:0]     pre_after;  // the bank's PRE counter after a column command
  logic [NB*TB-1:0]  ld_act, ld_pre, ld_gact, ld_grd, ld_gwr;
  logic [NB-1:0]     hit_b, hit_g;
  always_comb begin
    cb = cmd_bank;
    cg = group_of(cmd_bank);
    is_act = cmd_valid && cmd_kind == KAct;
    is_pre = cmd_valid && cmd_kind == KPre;
    is_rd = cmd_valid && cmd_kind == KRd;
    is_col = is_rd || (cmd_valid && cmd_kind == KWr);
    is_ref = cmd_valid && cmd_kind == KRef;
    pre_after = '0;
    for (int b = 0; b < NB; b++)
      if (cb == BB'(b)) pre_after = tmax(c_pre[b*TB +: TB], is_rd ? k_tRTP : k_tCWL + k_burst + k_tWR);
    for (int b = 0; b < NB; b++) begin
      hit_b[b] = cb == BB'(b);
      hit_g[b] = cg == BB'(b);
      ld_act[b*TB +: TB] = is_ref ? k_tRFC
                         : !hit_b[b] ? '0
                         : is_act ? k_tRC
                         : is_pre ? k_tRP
                         : is_col && k_closed_page ? pre_after + k_tRP  // auto-precharge, then tRP
                         : '0;
      ld_pre[b*TB +: TB] = !hit_b[b] ? '0 : is_act ? k_tRAS : is_col ? pre_after : '0;
      ld_gact[b*TB +: TB] = hit_g[b] && is_act ? k_tRRD_L : '0;
      ld_grd[b*TB +: TB] = hit_g[b] && is_rd ? k_tCCD_L : '0;
      ld_gwr[b*TB +: TB] = hit_g[b] && is_col && !is_rd ? k_tCCD_L : '0;
    end
  end

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      open_q <= '0;
      row_q <= '0;
      c_act <= '0;
      c_pre <= '0;
      c_col <= '0;
      g_act <= '0;
      g_rd <= '0;
      g_wr <= '0;
      a_act <= '0;
      a_rd <= '0;
      a_wr <= '0;
      bus_q <= '0;
      faw_q <= '0;
      faw_ptr <= '0;
      mode_q <= 1'b0;
      ref_elapsed <= '0;
      ref_started <= 1'b0;
      ref_owed <= '0;
    end else if (cmd_en) begin
      mode_q <= write_mode;
      ref_started <= 1'b1;
      ref_elapsed <= (ref_elapsed == k_tREFI - 1'b1) ? '0 : ref_elapsed + 1'b1;
      ref_owed <= ref_owed + {2'b0, ref_tick} - {2'b0, is_ref};
      for (int b = 0; b < NB; b++) begin
        if (hit_b[b] && is_act) begin
          open_q[b] <= 1'b1;
          row_q[b*ROW_BITS +: ROW_BITS] <= cmd_row;
        end else if (hit_b[b] && (is_pre || (is_col && k_closed_page))) begin
          open_q[b] <= 1'b0;  // PRE, or a column command's auto-precharge
        end
        c_act[b*TB +: TB] <= dec(tmax(c_act[b*TB +: TB], ld_act[b*TB +: TB]));
        c_pre[b*TB +: TB] <= dec(tmax(c_pre[b*TB +: TB], ld_pre[b*TB +: TB]));
        c_col[b*TB +: TB] <= hit_b[b] && is_act ? dec(k_tRCD) : dec(c_col[b*TB +: TB]);
        g_act[b*TB +: TB] <= dec(tmax(g_act[b*TB +: TB], ld_gact[b*TB +: TB]));
        g_rd[b*TB +: TB] <= dec(tmax(g_rd[b*TB +: TB], ld_grd[b*TB +: TB]));
        g_wr[b*TB +: TB] <= dec(tmax(g_wr[b*TB +: TB], ld_gwr[b*TB +: TB]));
      end
      a_act <= dec(tmax(a_act, is_act ? k_tRRD_S : '0));
      a_rd <= dec(tmax(a_rd, is_rd ? k_tCCD_S : is_col ? k_tCWL + k_burst + k_tWTR : '0));
      a_wr <= dec(tmax(a_wr, is_rd ? k_tRTW : is_col ? k_tCCD_S : '0));
      // The data bus is busy until the end of the burst just started.
      bus_q <= is_col ? dec(is_rd ? k_tCL + k_burst : k_tCWL + k_burst) : dec(bus_q);
      for (int k = 0; k < 4; k++)
        faw_q[k*TB +: TB] <= is_act && faw_ptr == 2'(k) ? dec(k_tFAW) : dec(faw_q[k*TB +: TB]);
      if (is_act) faw_ptr <= faw_ptr + 1'b1;
    end
  end

`ifdef FORMAL
  // ---- rtl-verif: properties, proved by scripts/rtl_formal.sh (BMC and k-induction) through
  // rtl/formal/dram_cmd_sched_formal.sv, which resets the block once, loads a configuration the
  // solver picks (constant for the run, within the TIME_BITS contract) and leaves every other input
  // free (enqueues of any burst, command edges in any pattern).
  //
  // The specification is an observer written from the command stream alone, not from the
  // block's counters: per bank, per bank group and for the channel, how many command cycles ago
  // each kind of command issued (saturating; "never" reads as long ago), and the bank states the
  // commands imply. Every command the block offers (cmd_valid, whether or not this edge commits it)
  // must then satisfy:
  //   D1 one command: cmd_kind is ACT, PRE, RD, WR or REF (one per cycle: the pins carry one);
  //   D2 ACT: to a closed bank; tRC after its last ACT; tRP after its last PRE; tRAS + tRP after
  //      its last ACT, tRTP + tRP after its last RD, tCWL + burst + tWR + tRP after its last WR
  //      (the bank's precharge, explicit or automatic (closed page), waits for tRAS, tRTP and
  //      write recovery, and the ACT for tRP after it); tRRD_S after any ACT, tRRD_L after an ACT
  //      of its bank group; tFAW after the fourth-last ACT (at most four ACTs in any tFAW window);
  //   D3 PRE: to an open bank; tRAS after its ACT, tRTP after its last RD, tCWL + burst + tWR
  //      (write recovery) after its last WR;
  //   D4 RD: to the bank's open row; tRCD after its ACT; tCCD_S after any RD, tCCD_L after a RD of
  //      its group; tCWL + burst + tWTR after any WR; its data (tCL on) starts after the last burst
  //      on the data bus ends;
  //   D5 WR: the same with tCCD_S/L after WRs, tRTW after any RD, data from tCWL on;
  //   D6 REF: refresh enabled, every bank closed and allowing an ACT (tRC, tRP, the precharge
  //      waits of D2);
  //   D7 refresh: no command at all within tRFC of a REF.
  // The I* assertions are invariants of the implementation (each counter covers what the observer
  // says is still owed), which k-induction needs: with them the properties hold at every depth.
  localparam int FW = TB + 2;  // observer counters: saturate at 2^FW - 1, above every sum below
  localparam int SW = FW + 2;  // width of the sums compared
  function automatic logic [FW-1:0] f_inc(input logic [FW-1:0] a);
    f_inc = a == '1 ? a : a + 1'b1;
  endfunction
  function automatic logic [SW-1:0] fw(input logic [TB-1:0] a);  // a constraint, widened
    fw = SW'(a);
  endfunction
  function automatic logic [SW-1:0] fc(input logic [FW-1:0] a);  // an observer count, widened
    fc = SW'(a);
  endfunction
  logic [NB-1:0]          f_open;
  logic [NB*ROW_BITS-1:0] f_row;
  logic [NB*FW-1:0]       f_act, f_pre, f_rd, f_wr;  // per bank: cycles since its last ACT, PRE, RD, WR
  logic [NB*FW-1:0]       f_gact, f_grd, f_gwr;      // per bank group: since its last ACT, RD, WR
  logic [FW-1:0]          f_act_any, f_rd_any, f_wr_any, f_col, f_ref;
  logic                   f_col_rd;                  // the last column command was a RD
  logic [4*FW-1:0]        f_faw;                     // since the last four ACTs, [0] the latest
  logic [SW-1:0] f_wrec, f_wtr, f_end;  // write recovery, write-to-read, the last burst's end
  logic [BB-1:0] f_b, f_g;
  always_comb begin
    f_wrec = fw(k_tCWL) + fw(k_burst) + fw(k_tWR);
    f_wtr = fw(k_tCWL) + fw(k_burst) + fw(k_tWTR);
    f_end = f_col_rd ? fw(k_tCL) + fw(k_burst) : fw(k_tCWL) + fw(k_burst);
    f_b = cmd_bank;
    f_g = group_of(cmd_bank);
  end
  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      f_open <= '0;
      f_row <= '0;
      f_act <= '1;
      f_pre <= '1;
      f_rd <= '1;
      f_wr <= '1;
      f_gact <= '1;
      f_grd <= '1;
      f_gwr <= '1;
      f_act_any <= '1;
      f_rd_any <= '1;
      f_wr_any <= '1;
      f_col <= '1;
      f_col_rd <= 1'b0;
      f_ref <= '1;
      f_faw <= '1;
    end else if (cmd_en) begin
      for (int b = 0; b < NB; b++) begin
        f_act[b*FW +: FW] <= is_act && f_b == BB'(b) ? FW'(1) : f_inc(f_act[b*FW +: FW]);
        f_pre[b*FW +: FW] <= is_pre && f_b == BB'(b) ? FW'(1) : f_inc(f_pre[b*FW +: FW]);
        f_rd[b*FW +: FW] <= is_rd && f_b == BB'(b) ? FW'(1) : f_inc(f_rd[b*FW +: FW]);
        f_wr[b*FW +: FW] <= is_col && !is_rd && f_b == BB'(b) ? FW'(1) : f_inc(f_wr[b*FW +: FW]);
        f_gact[b*FW +: FW] <= is_act && f_g == BB'(b) ? FW'(1) : f_inc(f_gact[b*FW +: FW]);
        f_grd[b*FW +: FW] <= is_rd && f_g == BB'(b) ? FW'(1) : f_inc(f_grd[b*FW +: FW]);
        f_gwr[b*FW +: FW] <= is_col && !is_rd && f_g == BB'(b) ? FW'(1) : f_inc(f_gwr[b*FW +: FW]);
        if (f_b == BB'(b)) begin
          if (is_act) begin
            f_open[b] <= 1'b1;
            f_row[b*ROW_BITS +: ROW_BITS] <= cmd_row;
          end
          if (is_pre || (is_col && k_closed_page)) f_open[b] <= 1'b0;
        end
      end
      f_act_any <= is_act ? FW'(1) : f_inc(f_act_any);
      f_rd_any <= is_rd ? FW'(1) : f_inc(f_rd_any);
      f_wr_any <= is_col && !is_rd ? FW'(1) : f_inc(f_wr_any);
      f_col <= is_col ? FW'(1) : f_inc(f_col);
      if (is_col) f_col_rd <= is_rd;
      f_ref <= is_ref ? FW'(1) : f_inc(f_ref);
      // An ACT shifts the history: it becomes the latest, the fourth-last drops out.
      f_faw[0 +: FW] <= is_act ? FW'(1) : f_inc(f_faw[0 +: FW]);
      for (int k = 1; k < 4; k++)
        f_faw[k*FW +: FW] <= f_inc(is_act ? f_faw[(k-1)*FW +: FW] : f_faw[k*FW +: FW]);
    end
  end

  // Per bank: closed, and its precharge waits before an ACT are over (D2, D6).
  logic [NB-1:0] f_act_allowed;
  always_comb
    for (int b = 0; b < NB; b++)
      f_act_allowed[b] = !f_open[b] &&
                         fc(f_act[b*FW +: FW]) >= fw(k_tRC) &&
                         fc(f_act[b*FW +: FW]) >= fw(k_tRAS) + fw(k_tRP) &&
                         fc(f_pre[b*FW +: FW]) >= fw(k_tRP) &&
                         fc(f_rd[b*FW +: FW]) >= fw(k_tRTP) + fw(k_tRP) &&
                         fc(f_wr[b*FW +: FW]) >= f_wrec + fw(k_tRP);

  always_comb begin
    if (rst_n) begin
      // D1: a command is one of the five kinds; nothing names a kind without cmd_valid.
      assert (cmd_valid ? cmd_kind >= KAct && cmd_kind <= KRef : cmd_kind == '0);
      if (cmd_valid && cmd_kind == KAct) begin                                            // D2
        assert (f_act_allowed[f_b]);
        assert (fc(f_act_any) >= fw(k_tRRD_S));
        assert (fc(f_gact[f_g*FW +: FW]) >= fw(k_tRRD_L));
        assert (fc(f_faw[3*FW +: FW]) >= fw(k_tFAW));
      end
      if (cmd_valid && cmd_kind == KPre) begin                                            // D3
        assert (f_open[f_b]);
        assert (fc(f_act[f_b*FW +: FW]) >= fw(k_tRAS));
        assert (fc(f_rd[f_b*FW +: FW]) >= fw(k_tRTP));
        assert (fc(f_wr[f_b*FW +: FW]) >= f_wrec);
      end
      if (cmd_valid && (cmd_kind == KRd || cmd_kind == KWr)) begin                        // D4, D5
        assert (f_open[f_b] && f_row[f_b*ROW_BITS +: ROW_BITS] == cmd_row);
        assert (fc(f_act[f_b*FW +: FW]) >= fw(k_tRCD));
      end
      if (cmd_valid && cmd_kind == KRd) begin                                             // D4
        assert (fc(f_rd_any) >= fw(k_tCCD_S));
        assert (fc(f_grd[f_g*FW +: FW]) >= fw(k_tCCD_L));
        assert (fc(f_wr_any) >= f_wtr);
        assert (fc(f_col) + fw(k_tCL) >= f_end);
      end
      if (cmd_valid && cmd_kind == KWr) begin                                             // D5
        assert (fc(f_wr_any) >= fw(k_tCCD_S));
        assert (fc(f_gwr[f_g*FW +: FW]) >= fw(k_tCCD_L));
        assert (fc(f_rd_any) >= fw(k_tRTW));
        assert (fc(f_col) + fw(k_tCWL) >= f_end);
      end
      if (cmd_valid && cmd_kind == KRef) begin                                            // D6
        assert (k_refresh);
        assert (f_act_allowed == '1);
      end
      if (cmd_valid) assert (fc(f_ref) >= fw(k_tRFC));                                    // D7

      // Invariants (for induction): the bank states agree; every counter of the block is at least
      // what the observer says is still owed (counter + cycles since >= constraint).
      assert (open_q == f_open);
      assert (k_refresh || ref_owed == '0);  // no refresh owed while refresh is off
      for (int b = 0; b < NB; b++) begin
        if (open_q[b]) begin
          assert (row_q[b*ROW_BITS +: ROW_BITS] == f_row[b*ROW_BITS +: ROW_BITS]);
          assert (fw(c_col[b*TB +: TB]) + fc(f_act[b*FW +: FW]) >= fw(k_tRCD));
          assert (fc(f_ref) >= fw(k_tRFC));
        end else begin
          assert (fw(c_act[b*TB +: TB]) + fc(f_act[b*FW +: FW]) >= fw(k_tRAS) + fw(k_tRP));
          assert (fw(c_act[b*TB +: TB]) + fc(f_rd[b*FW +: FW]) >= fw(k_tRTP) + fw(k_tRP));
          assert (fw(c_act[b*TB +: TB]) + fc(f_wr[b*FW +: FW]) >= f_wrec + fw(k_tRP));
        end
        assert (fw(c_act[b*TB +: TB]) + fc(f_act[b*FW +: FW]) >= fw(k_tRC));
        assert (fw(c_act[b*TB +: TB]) + fc(f_pre[b*FW +: FW]) >= fw(k_tRP));
        assert (fw(c_act[b*TB +: TB]) + fc(f_ref) >= fw(k_tRFC));
        assert (fw(c_pre[b*TB +: TB]) + fc(f_act[b*FW +: FW]) >= fw(k_tRAS));
        assert (fw(c_pre[b*TB +: TB]) + fc(f_rd[b*FW +: FW]) >= fw(k_tRTP));
        assert (fw(c_pre[b*TB +: TB]) + fc(f_wr[b*FW +: FW]) >= f_wrec);
        // ... and at most its largest load: a column command adds tRP to it (closed page), and in
        // an unreachable state above that the sum would wrap.
        assert (fw(c_pre[b*TB +: TB]) <= fw(k_tRAS) || fw(c_pre[b*TB +: TB]) <= fw(k_tRTP) ||
                fw(c_pre[b*TB +: TB]) <= f_wrec);
        assert (fw(g_act[b*TB +: TB]) + fc(f_gact[b*FW +: FW]) >= fw(k_tRRD_L));
        assert (fw(g_rd[b*TB +: TB]) + fc(f_grd[b*FW +: FW]) >= fw(k_tCCD_L));
        assert (fw(g_wr[b*TB +: TB]) + fc(f_gwr[b*FW +: FW]) >= fw(k_tCCD_L));
      end
      assert (fw(a_act) + fc(f_act_any) >= fw(k_tRRD_S));
      assert (fw(a_rd) + fc(f_rd_any) >= fw(k_tCCD_S));
      assert (fw(a_rd) + fc(f_wr_any) >= f_wtr);
      assert (fw(a_wr) + fc(f_wr_any) >= fw(k_tCCD_S));
      assert (fw(a_wr) + fc(f_rd_any) >= fw(k_tRTW));
      assert (fw(bus_q) + fc(f_col) >= f_end);
      // tFAW: the window entry at faw_ptr + k belongs to the (4 - k)-th last ACT.
      for (int k = 0; k < 4; k++)
        assert (fw(faw_q[2'(faw_ptr + 2'(k))*TB +: TB]) + fc(f_faw[(3-k)*FW +: FW]) >= fw(k_tFAW));
    end
  end
  // ---- end rtl-verif
`endif

endmodule
