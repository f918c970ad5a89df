#include "apps/mpi_rank_exchange.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <set>
#include <stdexcept>
#include <string>
#include <type_traits>

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
    if (!initialised) MPI_Init(nullptr, nullptr);
    int r = 0, n = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    rank_ = static_cast<uint32_t>(r);
    ranks_ = static_cast<uint32_t>(n);
  }
  ~MpiRankExchange() override { MPI_Finalize(); }
  uint32_t Ranks() const override { return ranks_; }
  uint32_t Rank() const override { return rank_; }

  // Two collectives a window: an all-gather of every rank's byte count per
  // destination and its (next, finished, events), then, only when some rank
  // has frames for another, the all-to-all of the frames themselves.
  void ExchangeWindow(const std::vector<std::unique_ptr<Simulation>>& replicas,
                      uint32_t first_partition, uint32_t base, Time& next, uint64_t& finished,
                      uint64_t& events, bool& stop) override {
    const auto threads = static_cast<uint32_t>(replicas.size());
    first_ = first_partition;
    std::vector<std::vector<char>> out(ranks_);
    for (const auto& sim : replicas) {
      std::vector<CrossOutbox>& outbox = sim->fabric().outbox;
      const auto parts = static_cast<uint32_t>(outbox.size() / 2);
      for (uint32_t d = 0; d < parts; ++d) {
        const uint32_t rank = d / threads;
        if (rank == rank_) continue;
        const CrossOutbox& box = outbox[base + d];
        for (const CrossFrame& c : box.frames) {
          Append(out[rank], d);
          Append(out[rank], c);
          if (c.side == CrossFrame::kNoSide) continue;
          Packet pkt;
          std::memcpy(&pkt, c.pkt.data(), sizeof pkt);
          if (pkt.type == PktType::kRcmNotify) {
            Append(out[rank], box.notes[c.side]);
          } else {
            Append(out[rank], box.int_stacks[c.side]);
          }
        }
        outbox[base + d].Clear();
      }
    }
    // Per rank: next, finished, events, stop, then its byte count for each rank.
    const size_t row = 4 + ranks_;
    std::vector<int64_t> mine(row), all(row * ranks_);
    mine[0] = next;
    mine[1] = static_cast<int64_t>(finished);
    mine[2] = static_cast<int64_t>(events);
    mine[3] = stop ? 1 : 0;
    for (uint32_t r = 0; r < ranks_; ++r) mine[4 + r] = static_cast<int64_t>(out[r].size());
    MPI_Allgather(mine.data(), static_cast<int>(row), MPI_INT64_T, all.data(),
                  static_cast<int>(row), MPI_INT64_T, MPI_COMM_WORLD);
    next = kTimeMax;
    finished = events = 0;
    stop = false;
    bool any_frames = false;
    std::vector<int> send_counts(ranks_), recv_counts(ranks_), send_displs(ranks_),
        recv_displs(ranks_);
    for (uint32_t r = 0; r < ranks_; ++r) {
      const int64_t* theirs = &all[r * row];
      next = std::min(next, theirs[0]);
      finished += static_cast<uint64_t>(theirs[1]);
      events += static_cast<uint64_t>(theirs[2]);
      stop |= theirs[3] != 0;
      for (uint32_t d = 0; d < ranks_; ++d) any_frames |= theirs[4 + d] > 0;
      recv_counts[r] = static_cast<int>(theirs[4 + rank_]);
      send_counts[r] = static_cast<int>(out[r].size());
    }
    inbox_.resize(threads);
    for (auto& in : inbox_) in.Clear();
    if (!any_frames) return;
    std::vector<char> send;
    int total = 0;
    for (uint32_t r = 0; r < ranks_; ++r) {
      send_displs[r] = static_cast<int>(send.size());
      send.insert(send.end(), out[r].begin(), out[r].end());
      recv_displs[r] = total;
      total += recv_counts[r];
    }
    std::vector<char> recv(static_cast<size_t>(total));
    MPI_Alltoallv(send.data(), send_counts.data(), send_displs.data(), MPI_CHAR, recv.data(),
                  recv_counts.data(), recv_displs.data(), MPI_CHAR, MPI_COMM_WORLD);
    const char* at = recv.data();
    const char* end = at + recv.size();
    while (at < end) {
      const auto d = Read<uint32_t>(at);
      CrossOutbox& in = inbox_[d - first_];
      CrossFrame c = Read<CrossFrame>(at);
      if (c.side != CrossFrame::kNoSide) {
        Packet pkt;
        std::memcpy(&pkt, c.pkt.data(), sizeof pkt);
        if (pkt.type == PktType::kRcmNotify) {
          c.side = static_cast<uint32_t>(in.notes.size());
          in.notes.push_back(Read<RcmNotification>(at));
        } else {
          c.side = static_cast<uint32_t>(in.int_stacks.size());
          in.int_stacks.push_back(Read<IntStack>(at));
        }
      }
      in.frames.push_back(c);
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
  uint32_t rank_ = 0, ranks_ = 1, first_ = 0;
  std::vector<CrossOutbox> inbox_;
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
