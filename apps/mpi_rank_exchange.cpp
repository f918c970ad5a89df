#include "apps/mpi_rank_exchange.h"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <set>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "sim/mpi_launch_env.h"
#include "sim/partition.h"
#include "sim/simulation.h"

#ifdef ROCESIM_HAVE_MPI
#include <mpi.h>
#endif

namespace rocesim {

int LauncherRanks() {
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"})
    if (const char* v = std::getenv(var)) return std::atoi(v);
  return 1;
}

namespace {

#ifdef ROCESIM_HAVE_MPI
static_assert(std::is_trivially_copyable_v<CrossFrame> && std::is_trivially_copyable_v<IntStack> &&
                  std::is_trivially_copyable_v<RcmNotification>,
              "frames cross ranks as bytes");
static_assert(std::is_trivially_copyable_v<Flow>, "flows are merged as bytes");

template <typename T>
void Append(std::vector<char>& buf, const T& v) {
  const size_t at = buf.size();
  buf.resize(at + sizeof(T));
  std::memcpy(buf.data() + at, &v, sizeof(T));
}
// The elements of `v`, as bytes, in one copy.
template <typename T>
void AppendAll(std::vector<char>& buf, const std::vector<T>& v) {
  const size_t at = buf.size();
  buf.resize(at + v.size() * sizeof(T));
  if (!v.empty()) std::memcpy(buf.data() + at, v.data(), v.size() * sizeof(T));
}
// Appends `n` elements read from `at` to `v`, in one copy.
template <typename T>
void ReadAll(const char*& at, size_t n, std::vector<T>& v) {
  const size_t old = v.size();
  v.resize(old + n);
  if (n > 0) std::memcpy(static_cast<void*>(v.data() + old), at, n * sizeof(T));
  at += n * sizeof(T);
}
template <typename T>
T Read(const char*& at) {
  T v;
  std::memcpy(&v, at, sizeof(T));
  at += sizeof(T);
  return v;
}

// Everyone's `mine` on rank 0, concatenated in rank order (empty elsewhere).
std::vector<char> GatherBytes(const std::vector<char>& mine, int ranks, int rank) {
  const int len = static_cast<int>(mine.size());
  std::vector<int> lens(static_cast<size_t>(ranks)), displs(static_cast<size_t>(ranks));
  MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  int total = 0;
  if (rank == 0)
    for (int r = 0; r < ranks; ++r) {
      displs[static_cast<size_t>(r)] = total;
      total += lens[static_cast<size_t>(r)];
    }
  std::vector<char> all(static_cast<size_t>(total));
  MPI_Gatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(), MPI_CHAR, 0,
              MPI_COMM_WORLD);
  return all;
}

class MpiRankExchange final : public RankExchange {
 public:
  MpiRankExchange() {
    int initialised = 0;
    MPI_Initialized(&initialised);
    if (!initialised) {
      PreferSharedMemoryPml();
      MPI_Init(nullptr, nullptr);
    }
    int r = 0, n = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    rank_ = static_cast<uint32_t>(r);
    ranks_ = static_cast<uint32_t>(n);
  }
  ~MpiRankExchange() override { MPI_Finalize(); }
  uint32_t Ranks() const override { return ranks_; }
  uint32_t Rank() const override { return rank_; }

  // One message a window from every rank to every other, point to point:
  // a header (the sender's next event, flows finished, events counted, stop)
  // and then, per local partition with frames for a partition of the
  // receiver, a segment: that outbox's frames, INT stacks and RCM
  // notifications, each copied whole. Every rank posts its sends, then
  // receives from each other rank in rank order (so the inboxes fill in the
  // same order on every run) with a matched probe that gives the size; the
  // buffers are kept between windows. One message latency a window, and a
  // bulk copy per outbox, where an all-gather of the sizes, an all-to-all and
  // a copy per frame cost more (bench/NOTES.md, fourteenth session). MPI
  // keeps the messages of one pair of ranks in order, and each window sends
  // exactly one, so the k-th message from a rank is its k-th window's.
  void ExchangeWindow(const std::vector<std::unique_ptr<Simulation>>& replicas,
                      uint32_t first_partition, uint32_t base, Time& next, uint64_t& finished,
                      uint64_t& events, bool& stop) override {
    const auto threads = static_cast<uint32_t>(replicas.size());
    first_ = first_partition;
    const WindowHeader mine{next, finished, events, stop ? 1u : 0u};
    out_.resize(ranks_);
    for (uint32_t r = 0; r < ranks_; ++r) {
      out_[r].clear();
      if (r != rank_) Append(out_[r], mine);
    }
    for (const auto& sim : replicas) {
      std::vector<CrossOutbox>& outbox = sim->fabric().outbox;
      const auto parts = static_cast<uint32_t>(outbox.size() / 2);
      for (uint32_t d = 0; d < parts; ++d) {
        const uint32_t rank = d / threads;
        CrossOutbox& box = outbox[base + d];
        if (rank == rank_ || box.frames.empty()) continue;
        std::vector<char>& out = out_[rank];
        Append(out, SegmentHeader{d, static_cast<uint32_t>(box.frames.size()),
                                  static_cast<uint32_t>(box.int_stacks.size()),
                                  static_cast<uint32_t>(box.notes.size())});
        AppendAll(out, box.frames);
        AppendAll(out, box.int_stacks);
        AppendAll(out, box.notes);
        box.Clear();
      }
    }
    sends_.clear();
    for (uint32_t r = 0; r < ranks_; ++r) {
      if (r == rank_) continue;
      if (out_[r].size() > static_cast<size_t>(INT_MAX))
        throw std::runtime_error(fmt::format(
            "rank {}: {} bytes of frames for rank {} in one window; MPI sends at most {}", rank_,
            out_[r].size(), r, INT_MAX));
      MPI_Request& req = sends_.emplace_back();
      MPI_Isend(out_[r].data(), static_cast<int>(out_[r].size()), MPI_CHAR, static_cast<int>(r),
                kWindowTag, MPI_COMM_WORLD, &req);
    }
    inbox_.resize(threads);
    for (auto& in : inbox_) in.Clear();
    for (uint32_t r = 0; r < ranks_; ++r) {
      if (r == rank_) continue;
      MPI_Message message;
      MPI_Status status;
      MPI_Mprobe(static_cast<int>(r), kWindowTag, MPI_COMM_WORLD, &message, &status);
      int bytes = 0;
      MPI_Get_count(&status, MPI_CHAR, &bytes);
      recv_.resize(static_cast<size_t>(bytes));
      MPI_Mrecv(recv_.data(), bytes, MPI_CHAR, &message, MPI_STATUS_IGNORE);
      const char* at = recv_.data();
      const char* end = at + recv_.size();
      const auto theirs = Read<WindowHeader>(at);
      next = std::min(next, theirs.next);
      finished += theirs.finished;
      events += theirs.events;
      stop |= theirs.stop != 0;
      while (at < end) TakeSegment(at);
    }
    MPI_Waitall(static_cast<int>(sends_.size()), sends_.data(), MPI_STATUSES_IGNORE);
  }

  // Appends one segment of a window's message (ExchangeWindow) to its
  // partition's inbox. Segments from several partitions of the sending rank
  // can share an inbox: their frames' side indices move past the side data
  // already there.
  void TakeSegment(const char*& at) {
    const auto seg = Read<SegmentHeader>(at);
    CrossOutbox& in = inbox_[seg.part - first_];
    const size_t first_frame = in.frames.size();
    const auto int_base = static_cast<uint32_t>(in.int_stacks.size());
    const auto note_base = static_cast<uint32_t>(in.notes.size());
    ReadAll(at, seg.frames, in.frames);
    ReadAll(at, seg.int_stacks, in.int_stacks);
    ReadAll(at, seg.notes, in.notes);
    if (int_base == 0 && note_base == 0) return;
    for (size_t i = first_frame; i < in.frames.size(); ++i) {
      CrossFrame& c = in.frames[i];
      if (c.side == CrossFrame::kNoSide) continue;
      Packet pkt;
      std::memcpy(&pkt, c.pkt.data(), sizeof pkt);
      c.side += pkt.type == PktType::kRcmNotify ? note_base : int_base;
    }
  }

  const CrossOutbox& Inbox(uint32_t part) const override {
    static const CrossOutbox kNone;
    const uint32_t i = part - first_;
    return i < inbox_.size() ? inbox_[i] : kNone;
  }

  std::vector<DeadlockSample> AllDeadlockSamples(const std::vector<DeadlockSample>& mine) override {
    std::vector<char> buf;
    for (const DeadlockSample& s : mine) {
      Append(buf, static_cast<uint32_t>(s.vertices.size()));
      for (const auto& [port, prio] : s.vertices) {
        Append(buf, port);
        Append(buf, prio);
      }
      Append(buf, static_cast<uint32_t>(s.holds.size()));
      for (const auto& h : s.holds) Append(buf, h);
    }
    const int len = static_cast<int>(buf.size());
    std::vector<int> lens(ranks_), displs(ranks_);
    MPI_Allgather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, MPI_COMM_WORLD);
    int total = 0;
    for (uint32_t r = 0; r < ranks_; ++r) {
      displs[r] = total;
      total += lens[r];
    }
    std::vector<char> all(static_cast<size_t>(total));
    MPI_Allgatherv(buf.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(), MPI_CHAR,
                   MPI_COMM_WORLD);
    std::vector<DeadlockSample> out;
    const char* at = all.data();
    const char* end = at + all.size();
    while (at < end) {
      DeadlockSample& s = out.emplace_back();
      for (auto n = Read<uint32_t>(at); n > 0; --n) {
        const auto port = Read<uint32_t>(at);
        s.vertices.emplace_back(port, Read<int>(at));
      }
      for (auto n = Read<uint32_t>(at); n > 0; --n)
        s.holds.push_back(Read<std::array<uint32_t, 3>>(at));
    }
    return out;
  }

  [[noreturn]] void AbortJob(int status) override {
    MPI_Abort(MPI_COMM_WORLD, status);
    std::_Exit(status);  // MPI_Abort does not return; if it did, this rank still ends
  }

  int BroadcastFromRankZero(int value) override {
    MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return value;
  }

  Time MinTime(Time t) override {
    int64_t v = t;
    MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
    return v;
  }

  void MergeInto(Simulation& merged, const Partitioning& partitioning, uint32_t first_partition,
                 uint32_t threads, uint64_t& events, Time& end, uint64_t& in_network,
                 uint64_t& in_network_payload) override {
    Fabric& f = merged.fabric();
    auto mine = [&](uint32_t node) {
      return partitioning.node_part[node] - first_partition < threads;
    };
    // Flows this rank owns (1: the sender's side, 2: the receiver's),
    // behind their count. (Ports are not merged: see PartitionedRun::Merge.)
    std::vector<char> buf;
    std::vector<char> flows;
    uint32_t num_flows = 0;
    const FabricLayout& layout = *f.layout;
    for (const Flow& fl : f.flows) {
      const bool src = mine(layout.host_nodes[fl.src]);
      const bool dst = mine(layout.host_nodes[fl.dst]);
      if (!src && !dst) continue;
      ++num_flows;
      Append(flows, static_cast<uint8_t>((src ? 1 : 0) | (dst ? 2 : 0)));
      Append(flows, fl);
    }
    Append(buf, num_flows);
    buf.insert(buf.end(), flows.begin(), flows.end());
    // The ops log (this rank's partitions' entries, merged already).
    Append(buf, static_cast<uint32_t>(f.ops.events.size()));
    for (const OpsEvent& e : f.ops.events) {
      Append(buf, e.time);
      Append(buf, e.node);
      Append(buf, e.port);
      Append(buf, e.priority);
      Append(buf, e.event_key);
      Append(buf, static_cast<uint32_t>(e.event.size()));
      buf.insert(buf.end(), e.event.begin(), e.event.end());
    }
    // The PFC trace (this rank's partitions' entries, merged already).
    Append(buf, static_cast<uint32_t>(f.pfc_trace.size()));
    for (const PfcTraceEntry& e : f.pfc_trace) Append(buf, e);
    // The queue-length dumps (this rank's partitions', merged already).
    Append(buf, static_cast<uint32_t>(f.qlen_dumps.size()));
    for (const QlenDumpLine& l : f.qlen_dumps) {
      Append(buf, l.time);
      Append(buf, l.node);
      Append(buf, l.port);
      Append(buf, static_cast<uint32_t>(l.counts.size()));
      for (uint32_t c : l.counts) Append(buf, c);
    }
    const std::vector<char> all =
        GatherBytes(buf, static_cast<int>(ranks_), static_cast<int>(rank_));
    // Sums and maxima.
    static_assert(sizeof(Counters) % sizeof(uint64_t) == 0);
    const int words = static_cast<int>(sizeof(Counters) / sizeof(uint64_t));
    MPI_Reduce(rank_ == 0 ? MPI_IN_PLACE : &f.counters, &f.counters, words, MPI_UINT64_T, MPI_SUM,
               0, MPI_COMM_WORLD);
    uint64_t sums[6] = {events,
                        in_network,
                        in_network_payload,
                        f.flows_finished,
                        f.ops.watchdog_triggers,
                        f.ops.watchdog_restores};
    MPI_Allreduce(MPI_IN_PLACE, sums, 6, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    events = sums[0];
    in_network = sums[1];
    in_network_payload = sums[2];
    f.flows_finished = static_cast<uint32_t>(sums[3]);
    f.ops.watchdog_triggers = sums[4];
    f.ops.watchdog_restores = sums[5];
    int64_t last = end;
    MPI_Allreduce(MPI_IN_PLACE, &last, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    end = last;
    if (rank_ != 0) return;
    const char* at = all.data();
    const char* stop = at + all.size();
    std::vector<OpsEvent> log;
    std::vector<PfcTraceEntry> trace;
    std::vector<QlenDumpLine> qlen;
    while (at < stop) {  // one rank's part after another
      for (auto n = Read<uint32_t>(at); n > 0; --n) {
        const auto sides = Read<uint8_t>(at);
        const Flow fl = Read<Flow>(at);
        Flow& into = f.flows[fl.id];
        if (sides & 1) {
          const Flow responder = into;
          into = fl;
          CopyResponder(responder, into);
        }
        if (sides & 2) CopyResponder(fl, into);
      }
      for (auto n = Read<uint32_t>(at); n > 0; --n) {
        OpsEvent e;
        e.time = Read<Time>(at);
        e.node = Read<uint32_t>(at);
        e.port = Read<int>(at);
        e.priority = Read<int>(at);
        e.event_key = Read<uint64_t>(at);
        const auto len = Read<uint32_t>(at);
        // Names are a handful of literals: kept here for the views to point at.
        e.event = *names_.emplace(at, len).first;
        at += len;
        log.push_back(e);
      }
      for (auto n = Read<uint32_t>(at); n > 0; --n) trace.push_back(Read<PfcTraceEntry>(at));
      for (auto n = Read<uint32_t>(at); n > 0; --n) {
        QlenDumpLine l;
        l.time = Read<Time>(at);
        l.node = Read<uint32_t>(at);
        l.port = Read<uint16_t>(at);
        l.counts.resize(Read<uint32_t>(at));
        for (uint32_t& c : l.counts) c = Read<uint32_t>(at);
        qlen.push_back(std::move(l));
      }
    }
    std::stable_sort(log.begin(), log.end(), OpsEventBefore);
    f.ops.events = std::move(log);
    std::sort(trace.begin(), trace.end(), PfcTraceBefore);
    f.pfc_trace = std::move(trace);
    std::sort(qlen.begin(), qlen.end(), QlenDumpBefore);
    f.qlen_dumps = std::move(qlen);
  }

 private:
  // What a rank tells every other after each window (ExchangeWindow).
  struct WindowHeader {
    Time next;
    uint64_t finished;
    uint64_t events;
    uint64_t stop;
  };
  // Where one outbox's contents start in a window's message.
  struct SegmentHeader {
    uint32_t part;  // the receiving partition
    uint32_t frames;
    uint32_t int_stacks;
    uint32_t notes;
  };
  static constexpr int kWindowTag = 1;
  uint32_t rank_ = 0, ranks_ = 1, first_ = 0;
  std::vector<CrossOutbox> inbox_;
  std::vector<std::vector<char>> out_;  // per destination rank: this window's message
  std::vector<char> recv_;              // the message being read
  std::vector<MPI_Request> sends_;
  std::set<std::string> names_;  // ops log event names received from other ranks
};
#endif

}  // namespace

std::unique_ptr<RankExchange> MakeMpiRankExchange() {
  if (LauncherRanks() <= 1) return nullptr;
#ifdef ROCESIM_HAVE_MPI
  return std::make_unique<MpiRankExchange>();
#else
  throw std::runtime_error(
      "running under an MPI launcher, but this rocesim was built without MPI; install "
      "libopenmpi-dev and rebuild (scripts/install-deps.sh)");
#endif
}

}  // namespace rocesim
