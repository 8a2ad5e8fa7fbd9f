// Crossbar switch allocator of one network (requests SM -> L2, or responses L2 -> SM): for an
// output port that is free, which input may send its head packet. The C++ model of the same
// boundary is memsys/crossbar_arbiter.cpp; docs/rtl-cosim.md has the pin protocol.
//
// One arbiter state per output (its round-robin pointer); each output's grant holds until the
// packet's last flit has been switched (wormhole), which the crossbar signals with done.
//   grant_valid  output grant_out asks: req holds the inputs whose head packet targets it and may be
//                switched this cycle; gnt_valid/gnt_idx answer combinationally. No state changes.
//   done_valid   the packet from input done_in has fully left through output done_out: with
//                ROUND_ROBIN the output's pointer moves past that input (committed on the edge).
// ROUND_ROBIN = 1: the first requesting input at or after the pointer, wrapping; 0: fixed
// priority, the lowest-numbered requesting input. Inputs beyond the network's real port count
// never request, so the pointer needs no wrap at that count: starting past the last real input
// finds nothing above it and wraps to 0, as the model does.
module xbar_arbiter #(
    parameter int N_IN        = 256,
    parameter int N_OUT       = 256,
    parameter int ROUND_ROBIN = 1
) (
    input  logic                     clk,
    input  logic                     rst_n,
    input  logic                     grant_valid,
    input  logic [$clog2(N_OUT)-1:0] grant_out,
    input  logic [N_IN-1:0]          req,
    output logic                     gnt_valid,
    output logic [$clog2(N_IN)-1:0]  gnt_idx,
    input  logic                     done_valid,
    input  logic [$clog2(N_OUT)-1:0] done_out,
    input  logic [$clog2(N_IN)-1:0]  done_in
);
  localparam int InBits = $clog2(N_IN);

  logic [N_OUT*InBits-1:0] ptr_q;  // output o's pointer at [o*InBits +: InBits]

  logic [InBits-1:0] ptr;
  logic [N_IN-1:0]   above;        // requests at or after the pointer
  logic              found_above, found_any;
  logic [InBits-1:0] first_above, first_any;
  always_comb begin
    ptr = (ROUND_ROBIN != 0) ? ptr_q[grant_out*InBits +: InBits] : '0;
    above = req & ({N_IN{1'b1}} << ptr);
    found_above = 1'b0;
    found_any = 1'b0;
    first_above = '0;
    first_any = '0;
    for (int i = N_IN - 1; i >= 0; i--) begin
      if (above[i]) begin
        found_above = 1'b1;
        first_above = i[InBits-1:0];
      end
      if (req[i]) begin
        found_any = 1'b1;
        first_any = i[InBits-1:0];
      end
    end
    gnt_valid = grant_valid && found_any;
    gnt_idx = found_above ? first_above : first_any;
  end

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) ptr_q <= '0;
    else if (done_valid && ROUND_ROBIN != 0)
`ifdef SCGPU_PLANTED_BUG
      // A deliberate bug for the co-simulation tests (built only into a test copy of the block):
      // the pointer stays on the input just served, which then wins again over every other one.
      ptr_q[done_out*InBits +: InBits] <= done_in;
`else
      ptr_q[done_out*InBits +: InBits] <= done_in + 1'b1;
`endif
  end

`ifdef FORMAL
  // ---- rtl-verif: properties, proved by scripts/rtl_formal.sh (BMC and k-induction) through
  // rtl/formal/xbar_arbiter_formal.sv, which resets the block once and assumes the crossbar's
  // protocol (a grant is followed by its done). N_IN must be a power of two here (indices wrap).
  //   P1 a grant goes to a requesting input (one input: the grant is an index);
  //   P2 an asking output with a requesting input gets a grant;
  //   P3 the grant is the first requesting input at or after the pointer (round robin; input 0
  //      for fixed priority), cyclically;
  //   P4 round robin, no starvation: while input i0 requests at output o0, at most N_IN - 1 other
  //      inputs are granted o0 before it (o0, i0: any, chosen once by the solver).
  function automatic logic [InBits-1:0] f_first_from(input logic [N_IN-1:0] r, input logic [InBits-1:0] p);
    logic [InBits-1:0] j;
    f_first_from = p;
    for (int k = N_IN - 1; k >= 0; k--) begin
      j = p + k[InBits-1:0];
      if (r[j]) f_first_from = j;
    end
  endfunction
  (* anyconst *) logic [$clog2(N_OUT)-1:0] f_o0;
  (* anyconst *) logic [InBits-1:0] f_i0;
  logic [InBits-1:0] f_ptr0, f_dist;
  logic [InBits:0] f_passed;  // grants of o0 to other inputs while i0 requests there
  assign f_ptr0 = ptr_q[f_o0*InBits +: InBits];
  assign f_dist = f_i0 - f_ptr0;  // inputs from the pointer up to i0
  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) f_passed <= '0;
    else if (grant_valid && grant_out == f_o0) begin
      if (!req[f_i0] || (gnt_valid && gnt_idx == f_i0)) f_passed <= '0;
      else if (gnt_valid) f_passed <= f_passed + 1'b1;
    end
  end
  always_comb begin
    if (rst_n) begin
      if (gnt_valid) assert (req[gnt_idx]);                                              // P1
      assert (gnt_valid == (grant_valid && req != '0));                                  // P2
      if (gnt_valid) assert (gnt_idx == f_first_from(req, ptr));                         // P3
      if (ROUND_ROBIN != 0) begin
        assert (f_passed < N_IN);                                                        // P4
        assert ({1'b0, f_passed} + {2'b0, f_dist} <= N_IN - 1 || f_passed == '0);        // P4's invariant
      end
    end
  end
  // ---- end rtl-verif
`endif
endmodule
