// Warp-scheduler issue arbiter of one sub-core: which of its warps issues. The C++ model of the same
// boundary is sm/timing/warp_scheduler.cpp (policies lrr, gto, two_level); docs/rtl-cosim.md has
// the pin protocol.
//
// Warps are identified by their local index (SM warp slot / sub-cores). Launch order and the
// two-level active and pending orders are kept as order matrices (older[i][j]: i is ahead of j),
// so no sequence counter can wrap. One operation per clock (sampled on the rising edge):
//   add_valid    warp add_idx joins, behind every live warp (launch order) and, for two_level, at
//                the back of the pending set;
//   remove_valid warp remove_idx leaves;
//   pick_valid   a selection: given this cycle's ready and parked masks, grant_valid/grant_idx say
//                (combinationally) which warp issues; the edge commits the state (the warp that
//                issued, and for two_level the moves between the sets). Exactly one of the three
//                is high in a cycle.
// Policies (parameter POLICY): 0 lrr, the first ready warp after the one that issued last, in
// launch order; 1 gto, the warp that issued last while it is ready, else the oldest ready warp;
// 2 two_level, an active set of at most cfg_active warps scheduled round robin: an active warp
// that is parked (long-scoreboard, barrier or mbarrier wait) moves to the back of the pending set,
// and free active places are filled from the pending set in order, skipping parked warps.
module warp_sched_arbiter #(
    parameter int NUM_WARPS = 32,
    parameter int POLICY    = 1
) (
    input  logic                         clk,
    input  logic                         rst_n,
    input  logic [$clog2(NUM_WARPS):0]   cfg_active,     // two_level: size of the active set
    input  logic                         add_valid,
    input  logic [$clog2(NUM_WARPS)-1:0] add_idx,
    input  logic                         remove_valid,
    input  logic [$clog2(NUM_WARPS)-1:0] remove_idx,
    input  logic                         pick_valid,
    input  logic [NUM_WARPS-1:0]         ready,
    input  logic [NUM_WARPS-1:0]         parked,
    output logic                         grant_valid,
    output logic [$clog2(NUM_WARPS)-1:0] grant_idx
);
  localparam int N = NUM_WARPS;
  localparam int IdxBits = $clog2(N);
  localparam int CntBits = IdxBits + 1;

  // ---- state ------------------------------------------------------------------------------------
  logic [N-1:0]   live_q;               // warps of this sub-core
  logic [N*N-1:0] launch_older_q;       // [i*N+j]: i was launched before j
  logic [N-1:0]   active_q, pending_q;  // two_level sets
  logic [N*N-1:0] act_older_q, pend_older_q;
  logic           last_valid_q;         // the warp that issued last (lrr, two_level) or the greedy warp (gto)
  logic [IdxBits-1:0] last_q;

  // ---- helpers ----------------------------------------------------------------------------------
  // The first set bit of `cand` in the order given by `older` (the member no other member is
  // behind); the top bit says whether there is one.
  function automatic logic [IdxBits:0] first_of(input logic [N-1:0] cand, input logic [N*N-1:0] older);
    logic ahead;
    first_of = '0;
    for (int i = 0; i < N; i++) begin
      ahead = cand[i];
      for (int j = 0; j < N; j++)
        if (j != i && cand[j] && older[j*N+i]) ahead = 1'b0;
      if (ahead) first_of = {1'b1, i[IdxBits-1:0]};
    end
  endfunction

  function automatic logic [CntBits-1:0] count(input logic [N-1:0] v);
    count = '0;
    for (int i = 0; i < N; i++) count = count + {{(CntBits-1){1'b0}}, v[i]};
  endfunction

  // ---- two_level: the sets after this pick's moves -----------------------------------------------
  logic [N-1:0]   parked_active, active_kept, eligible, moved, active_next, pending_next;
  logic [N*N-1:0] act_older_next, pend_older_next;
  logic [CntBits-1:0] free_places, rank;
  // Built only for the two_level policy (a generate block), so the other policies carry none of it.
  if (POLICY == 2) begin : g_two_level
    always_comb begin
      parked_active = active_q & parked & live_q;
      active_kept = active_q & ~parked_active;
      // Parked active warps go to the back of the pending set, keeping their active order.
      pend_older_next = pend_older_q;
      for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
          if (parked_active[j]) begin
            if (parked_active[i]) pend_older_next[i*N+j] = act_older_q[i*N+j];
            else pend_older_next[i*N+j] = pending_q[i];
            if (!parked_active[i]) pend_older_next[j*N+i] = 1'b0;
          end
      // Free active places are filled from the (old) pending set in order, skipping parked warps.
      eligible = pending_q & ~parked & live_q;
      free_places = (count(active_kept) < cfg_active) ? cfg_active - count(active_kept) : '0;
      moved = '0;
      for (int i = 0; i < N; i++) begin
        rank = '0;
        for (int j = 0; j < N; j++)
          if (j != i && eligible[j] && pend_older_q[j*N+i]) rank = rank + 1'b1;
        if (eligible[i] && rank < free_places) moved[i] = 1'b1;
      end
      active_next = active_kept | moved;
      pending_next = (pending_q | parked_active) & ~moved;
      // Moved warps join the back of the active set, in their pending order.
      act_older_next = act_older_q;
      for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
          if (moved[j]) begin
            if (moved[i]) act_older_next[i*N+j] = pend_older_q[i*N+j];
            else act_older_next[i*N+j] = active_kept[i];
            if (!moved[i]) act_older_next[j*N+i] = 1'b0;
          end
    end
  end else begin : g_no_two_level
    assign parked_active = '0;
    assign active_kept = '0;
    assign eligible = '0;
    assign moved = '0;
    assign active_next = '0;
    assign pending_next = '0;
    assign act_older_next = '0;
    assign pend_older_next = '0;
    assign free_places = '0;
    assign rank = '0;
    logic unused_two_level_inputs;  // the active-set size and the parked mask matter to two_level only
    assign unused_two_level_inputs = ^{cfg_active, parked, active_q, act_older_q, pend_older_q, parked_active,
                                       active_kept, eligible, moved, pending_next, pend_older_next, free_places, rank};
  end

  // ---- selection -----------------------------------------------------------------------------------
  logic [N-1:0]   cand_all, cand_after, order_set;
  logic [N*N-1:0] order;
  logic [IdxBits:0] pick_after, pick_any;
  always_comb begin
    if (POLICY == 2) begin
      order = act_older_next;
      order_set = active_next;
    end else begin
      order = launch_older_q;
      order_set = live_q;
    end
    cand_all = ready & order_set;
    // Behind the last warp that issued (when it is still in the set being scheduled).
    cand_after = '0;
    if (last_valid_q && order_set[last_q])
      for (int i = 0; i < N; i++) cand_after[i] = cand_all[i] && order[last_q*N+i];
    pick_after = first_of(cand_after, order);
    pick_any = first_of(cand_all, order);
    grant_valid = 1'b0;
    grant_idx = '0;
    if (POLICY == 1) begin
      if (last_valid_q && ready[last_q] && live_q[last_q]) begin
        grant_valid = 1'b1;
        grant_idx = last_q;
      end else begin
        grant_valid = pick_any[IdxBits];
        grant_idx = pick_any[IdxBits-1:0];
      end
    end else if (pick_after[IdxBits]) begin
      grant_valid = 1'b1;
      grant_idx = pick_after[IdxBits-1:0];
    end else begin
      grant_valid = pick_any[IdxBits];
      grant_idx = pick_any[IdxBits-1:0];
    end
  end

  // ---- state update --------------------------------------------------------------------------------
  logic [N-1:0] add_oh;
  always_comb begin
    add_oh = '0;
    add_oh[add_idx] = 1'b1;
  end

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      live_q <= '0;
      launch_older_q <= '0;
      active_q <= '0;
      pending_q <= '0;
      act_older_q <= '0;
      pend_older_q <= '0;
      last_valid_q <= 1'b0;
      last_q <= '0;
    end else if (add_valid) begin
      live_q[add_idx] <= 1'b1;
      pending_q[add_idx] <= 1'b1;
      active_q[add_idx] <= 1'b0;
      // The new warp is behind every live (and every pending) warp.
      for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
          if (add_oh[j]) begin
            launch_older_q[i*N+j] <= live_q[i] && !add_oh[i];
            pend_older_q[i*N+j] <= pending_q[i] && !add_oh[i];
            if (!add_oh[i]) begin
              launch_older_q[j*N+i] <= 1'b0;
              pend_older_q[j*N+i] <= 1'b0;
            end
          end
    end else if (remove_valid) begin
      live_q[remove_idx] <= 1'b0;
      active_q[remove_idx] <= 1'b0;
      pending_q[remove_idx] <= 1'b0;
      if (last_valid_q && last_q == remove_idx) last_valid_q <= 1'b0;
    end else if (pick_valid) begin
      if (POLICY == 2) begin
        active_q <= active_next;
        pending_q <= pending_next;
        act_older_q <= act_older_next;
        pend_older_q <= pend_older_next;
      end
      if (grant_valid) begin
        last_valid_q <= 1'b1;
        last_q <= grant_idx;
      end
    end
  end

`ifdef FORMAL
  // ---- rtl-verif: properties, proved by scripts/rtl_formal.sh (BMC and k-induction) through
  // rtl/formal/warp_sched_arbiter_formal.sv, which resets the block once and assumes the SM's
  // protocol (one operation per cycle, cfg_active constant and at least 1; joins and departures
  // of any warp, live or not, so the proof also covers an SM that breaks that part of it).
  //   S1 a grant goes to a live warp that is ready (for two_level: one of the active set);
  //   S2 work conserving: there is a grant whenever such a warp exists;
  //   S3 lrr, no starvation: a warp that is ready at every pick issues within N - 1 picks of other
  //      warps while no warp joins or leaves (a joining warp is placed behind every live warp, and
  //      the departure of the warp that issued last restarts the order at the oldest warp, so a
  //      stream of joins and departures could be scheduled ahead of it: the model does the same);
  //   S4 gto, greedy: the warp that issued last issues again while it is live and ready;
  //   S5 two_level: the active set holds at most cfg_active warps, all live, none pending.
  // The I* assertions are invariants of the state, which k-induction needs (an induction step
  // starts from any state that satisfies the assertions, so they must rule out unreachable order
  // matrices); with them the properties hold at every depth:
  //   I1 the launch order is a strict total order of the live warps (irreflexive, one of i, j ahead
  //      of the other, transitive);
  //   I2 two_level: the active and pending orders are strict total orders of their sets; the two
  //      sets are disjoint and together the live warps;
  //   I3 lrr: while w0 has been passed over (f_waits > 0), the warp that issued last is live, is
  //      not w0, and lies at least f_waits live warps after w0 in the cyclic launch order: each
  //      pass moves the last warp strictly further round from w0 without reaching it, and the
  //      distance is at most N - 1, which is S3.
  // "Strict total order of the set S under older": for i, j in S, i != j, exactly one of
  // older[i][j], older[j][i]; never older[i][i]; older[i][j] && older[j][k] -> older[i][k].
  // Transitivity is one bit per triple, from generate loops (procedural loops of assertions over
  // the N^3 triples take Yosys minutes to elaborate).
  logic [N*N*N-1:0] f_intransitive;  // [(i*N+j)*N+k]: i ahead of j ahead of k, i not ahead of k
  for (genvar i = 0; i < N; i++) begin : g_f_i
    for (genvar j = 0; j < N; j++) begin : g_f_j
      for (genvar k = 0; k < N; k++) begin : g_f_k
        assign f_intransitive[(i*N+j)*N+k] =
            (live_q[i] && live_q[j] && live_q[k] && launch_older_q[i*N+j] && launch_older_q[j*N+k] &&
             !launch_older_q[i*N+k]) ||
            (POLICY == 2 && active_q[i] && active_q[j] && active_q[k] && act_older_q[i*N+j] &&
             act_older_q[j*N+k] && !act_older_q[i*N+k]) ||
            (POLICY == 2 && pending_q[i] && pending_q[j] && pending_q[k] && pend_older_q[i*N+j] &&
             pend_older_q[j*N+k] && !pend_older_q[i*N+k]);
      end
    end
  end
  (* anyconst *) logic [IdxBits-1:0] f_w0;
  logic [CntBits:0] f_waits;  // picks that passed w0 over while it was ready
  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) f_waits <= '0;
    else if (add_valid || remove_valid) f_waits <= '0;
    else if (pick_valid) begin
      if (!(ready[f_w0] && live_q[f_w0]) || (grant_valid && grant_idx == f_w0)) f_waits <= '0;
      else if (grant_valid) f_waits <= f_waits + 1'b1;
    end
  end
  // I3's distance: the live warps in the cyclic launch-order interval (w0, last], i.e. after w0 up
  // to and including last, wrapping from the newest warp to the oldest.
  logic [CntBits:0] f_round;
  always_comb begin
    f_round = '0;
    for (int y = 0; y < N; y++)
      if (live_q[y] && y != f_w0 &&
          (launch_older_q[f_w0*N+last_q]
               ? launch_older_q[f_w0*N+y] && (launch_older_q[y*N+last_q] || y == last_q)
               : launch_older_q[f_w0*N+y] || launch_older_q[y*N+last_q] || y == last_q))
        f_round = f_round + 1'b1;
  end
  logic [N-1:0] f_eligible;
  assign f_eligible = ready & live_q & (POLICY == 2 ? active_next : {N{1'b1}});
  always_comb begin
    if (rst_n) begin
      if (grant_valid) assert (f_eligible[grant_idx]);                                  // S1
      assert (grant_valid == (f_eligible != '0));                                       // S2
      if (POLICY == 0) assert (f_waits < N);                                            // S3
      if (POLICY == 1 && last_valid_q && live_q[last_q] && ready[last_q])
        assert (grant_valid && grant_idx == last_q);                                    // S4
      if (POLICY == 2) begin
        assert (count(active_q) <= cfg_active);                                         // S5
        assert ((active_q & ~live_q) == '0 && (active_q & pending_q) == '0);
      end
      for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) begin
          if (live_q[i] && live_q[j])                                                   // I1
            assert (i == j ? !launch_older_q[i*N+j] : launch_older_q[i*N+j] != launch_older_q[j*N+i]);
          if (POLICY == 2 && active_q[i] && active_q[j])                                // I2
            assert (i == j ? !act_older_q[i*N+j] : act_older_q[i*N+j] != act_older_q[j*N+i]);
          if (POLICY == 2 && pending_q[i] && pending_q[j])
            assert (i == j ? !pend_older_q[i*N+j] : pend_older_q[i*N+j] != pend_older_q[j*N+i]);
        end
      assert (f_intransitive == '0);                                                   // I1, I2
      if (POLICY == 2) assert ((active_q | pending_q) == live_q);                      // I2
      if (POLICY == 0 && f_waits != '0) begin                                           // I3
        assert (last_valid_q && live_q[last_q] && live_q[f_w0] && last_q != f_w0);
        assert (f_waits <= f_round);
      end
    end
  end
  // ---- end rtl-verif
`endif
endmodule
