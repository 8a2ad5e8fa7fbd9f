// A clock domain: one clocked process that ticks the plain C++ components of the domain in a
// fixed order, skipping those that report idle, followed (one delta cycle later) by a transfer
// step that moves their outputs across the TLM links. Because every domain evaluates at an edge
// before any transfer at that time happens, what crosses a link at time T is seen by the receiver
// at its first edge after T, whatever the order SystemC runs processes in: the model is
// deterministic. When every component is idle the domain sleeps until wake() (work arrived) and
// costs nothing; when some only wait for a cycle of their own (Component::due), it sleeps until the
// earliest such cycle, skipping the edges before it. Components that share nothing in their ticks (the SMs, the L2 slices, the DRAM
// channels) are added as one parallel group, which may tick on several host threads (TBB) and
// then commits, in a fixed order, what its members held back: the same results at any thread count.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <queue>
#include <string>
#include <vector>

#include <systemc>
#include <tbb/task_arena.h>

namespace scgpu {

class ClockDomain : public sc_core::sc_module {
 public:
  ClockDomain(sc_core::sc_module_name name, double clock_mhz);

  struct Component {
    Component(std::function<void(std::uint64_t)> tick_fn, std::function<bool()> idle_fn,
              std::function<void(std::uint64_t)> transfer_fn = {}, std::function<std::uint64_t()> due_fn = {},
              bool keeps_awake_domain = true, std::function<std::uint64_t()> quiet_fn = {})
        : tick(std::move(tick_fn)),
          idle(std::move(idle_fn)),
          transfer(std::move(transfer_fn)),
          due(std::move(due_fn)),
          keeps_awake(keeps_awake_domain),
          quiet(std::move(quiet_fn)) {}
    std::function<void(std::uint64_t cycle)> tick;
    std::function<bool()> idle;
    std::function<void(std::uint64_t cycle)> transfer;  // may be empty
    // For a component that reports idle while it waits for a cycle of its own (an SM asleep until
    // a latency elapses, an L2 slice until its next result is due): that cycle, or kNever when
    // only an arrival can give it work. When every component is idle, the domain sleeps until
    // the earliest such cycle (or a wake()) instead of evaluating the edges in between. May be empty.
    std::function<std::uint64_t()> due;
    // false: it ticks at every edge the domain evaluates while !idle(), but does not by itself keep
    // the domain evaluating every edge; only its due() brings an edge (the chip's monitor, whose
    // checks need only the edges at which something happens, and its own deadlines).
    bool keeps_awake = true;
    // For a component of which there are many (SMs): asked after its transfer step, the first
    // cycle before which it is certain to be idle, with nothing to transfer, unless something
    // arrives for it (wakeComponent); 0 when it must be looked at every edge. Until that cycle the
    // domain neither asks it idle() nor transfers or ticks it: with 132 SMs, asking each sleeping
    // SM at every edge touched state that is not in the host's caches and cost more than the
    // SMs that worked. May be empty (looked at every edge).
    std::function<std::uint64_t()> quiet;
  };
  static constexpr std::uint64_t kNever = ~std::uint64_t{0};
  // Components tick in the order they were added. Returns the component's index (wakeComponent).
  std::size_t add(Component c);
  // Members that share no state in tick (SMs, whose global-memory effects wait for commit): they
  // may tick on several host threads, in any order, and then `commit` runs on this thread, after
  // all of them, with the indices (in `members`, ascending) of those that ticked. Together they
  // take the place of one component in the tick order.
  using Commit = std::function<void(std::uint64_t cycle, const std::vector<std::size_t>& ticked)>;
  // Returns the index of the first member (the others follow it).
  std::size_t addParallel(std::vector<Component> members, Commit commit);
  // Host threads for the parallel members of a chip's domains, and when to use them. Handing a
  // cycle's ticks to the threads costs microseconds, and whether that pays depends on the
  // members' work, which changes as a kernel runs. So the leading domain (the core clock) times,
  // at the start of each epoch of its cycles, some whole cycles (its edge to its next edge, the
  // other domains' edges in between) with every domain on this thread and some with every domain
  // on the threads, and all domains then run the rest of the epoch the faster way. Whichever way
  // they run, the results are the same: only the speed depends on it.
  class Threads {
   public:
    // always_parallel: every cycle goes to the threads (no timing; for tests of that path).
    Threads(unsigned n, bool always_parallel);
    ~Threads();
    unsigned count() const { return n_; }
    // While set, every domain ticks its members on this thread (members that reach into each
    // other's state: the SMs of a cluster launch, whose blocks share shared memory and a barrier).
    void requireSerial(bool on) { serial_required_ = on; }

   private:
    friend class ClockDomain;
    void leaderTick();  // the leading domain's group is about to tick: advance the epoch
    static constexpr std::uint64_t kEpochCycles = 2048, kSampleCycles = 24, kWarmupCycles = 8;
    unsigned n_;
    std::unique_ptr<tbb::task_arena> arena_;
    bool parallel_ = false, always_ = false, serial_required_ = false;
    std::uint64_t cycle_ = 0, serial_ns_ = 0, parallel_ns_ = 0;
    std::chrono::steady_clock::time_point last_;
  };
  // The domains of one chip share one Threads (nullptr or 1 thread: all on this thread); the
  // leader drives its epochs.
  void setThreads(std::shared_ptr<Threads> threads, bool leader);

  // Called at every edge the domain evaluates, after its components ticked (tracing); an
  // observer never keeps the domain awake.
  void observe(std::function<void(std::uint64_t cycle)> f) { observers_.push_back(std::move(f)); }

  // Work arrived for a component of this domain: resume ticking at the next edge.
  void wake();
  // Something outside the components' ticks changed them (statistics settled between kernels):
  // every component is looked at again from the next edge.
  void unquietAll() {
    quiet_until_.assign(quiet_until_.size(), 0);
    for (std::size_t i = 0; i < quiet_until_.size(); ++i) setAwake(i);
  }
  // Work arrived for component `index` (add()'s index): it is looked at again from the next edge,
  // whatever its quiet() said.
  void wakeComponent(std::size_t index) {
    if (index < quiet_until_.size()) {
      quiet_until_[index] = 0;
      setAwake(index);
    }
    wake();
  }
  // The cycle in progress at the current simulated time (the last edge at or before now), also
  // while the domain sleeps: what arrives now is stamped with it and handled at the next edge.
  std::uint64_t cycle() const { return sc_core::sc_time_stamp().value() / period_.value(); }
  const sc_core::sc_time& period() const { return period_; }
  double clockMhz() const { return mhz_; }
  std::uint64_t ticks() const { return ticks_; }   // edges actually evaluated (skipped ones excluded)
  bool sleeping() const { return sleeping_; }

 private:
  void evaluate();
  void transfer();
  std::uint64_t edgeIndexAfter(const sc_core::sc_time& t) const;

  double mhz_;
  sc_core::sc_time period_;
  struct Group {
    std::size_t first = 0, count = 0;
    Commit commit;
  };
  void tickGroup(Group& g);

  std::vector<Component> components_;
  std::vector<int> group_at_;  // per component: the group it starts (-1: none or a later member)
  std::vector<Group> groups_;
  std::vector<std::size_t> ready_;  // scratch: a group's members that tick this cycle (index in the group)
  std::shared_ptr<Threads> threads_;
  bool leader_ = false;
  std::vector<std::function<void(std::uint64_t)>> observers_;
  // Per component: it is idle with nothing to transfer before this cycle (Component::quiet) unless
  // woken; kept apart from the components so the look at a quiet one touches only this array.
  std::vector<std::uint64_t> quiet_until_;
  // Per component, which of its optional parts it has (Component::transfer, quiet, due,
  // keeps_awake): the edge's loops read these bytes, not the components' std::functions.
  enum : std::uint8_t { kHasTransfer = 1, kHasQuiet = 2, kHasDue = 4, kKeepsAwake = 8 };
  std::vector<std::uint8_t> parts_;
  // The components not quiet at this cycle (quiet_until_ <= cycle), one bit each, so that an edge
  // visits only those (with 132 SMs asleep, the loops over every component cost more than the
  // components that worked), and the quiet ones by the cycle they wake at (earliest first; an entry
  // whose component was woken or went quiet again since is stale and dropped when it comes up).
  std::vector<std::uint64_t> awake_;
  using QuietEntry = std::pair<std::uint64_t, std::size_t>;  // (quiet_until, component)
  std::priority_queue<QuietEntry, std::vector<QuietEntry>, std::greater<QuietEntry>> waking_;
  void setAwake(std::size_t i) { awake_[i / 64] |= std::uint64_t{1} << (i % 64); }
  void setQuiet(std::size_t i, std::uint64_t until);
  // Marks awake every component whose quiet time has come by cycle_.
  void wakeDue();
  // Calls f(i) for each awake component of [first, last), in index order.
  template <typename F>
  void forAwake(std::size_t first, std::size_t last, F&& f);
  sc_core::sc_event edge_ev_, transfer_ev_;
  std::uint64_t cycle_ = 0, ticks_ = 0;
  bool sleeping_ = true;
};

}  // namespace scgpu
