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

#include "apps/mpi_file_transfer.h"
#include "apps/mpi_messages.h"
#include "apps/mpi_node_window.h"
#include "sim/mpi_launch_env.h"
#include "sim/partition.h"
#include "sim/simulation.h"

#ifdef ROCESIM_HAVE_MPI
#include <mpi.h>
#include <unistd.h>
#endif

namespace rocesim {

int LauncherRanks() {
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"})
    if (const char* v = std::getenv(var)) return std::atoi(v);
  return 0;
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
// Writes `v` at `at` (room for it checked by the caller) and moves past it.
template <typename T>
void Put(char*& at, const T& v) {
  std::memcpy(at, &v, sizeof(T));
  at += sizeof(T);
}
// `bytes` rounded up to a multiple of 8.
size_t Padded8(size_t bytes) {
  return (bytes + 7) & ~size_t{7};
}
// The elements of `v`, as bytes, in one copy, then zeros up to a multiple
// of 8 bytes, so that whatever follows can be read in place (TakeMessage).
template <typename T>
void PutAllPadded(char*& at, const std::vector<T>& v) {
  const size_t bytes = v.size() * sizeof(T);
  if (bytes > 0) std::memcpy(at, v.data(), bytes);
  const size_t padded = Padded8(bytes);
  std::memset(at + bytes, 0, padded - bytes);
  at += padded;
}
template <typename T>
T Read(const char*& at) {
  T v;
  std::memcpy(&v, at, sizeof(T));
  at += sizeof(T);
  return v;
}

// Rank 0 calls `take` on every rank's `mine` in rank order, its own first,
// holding one other rank's at a time; the other ranks send theirs. Point to
// point in pieces: a rank's flows can pass the 2 GiB that MPI's int counts
// (and so a collective gather) allow, at about 6 million messages of a
// collective.
template <typename Take>
void GatherParts(const std::vector<char>& mine, int ranks, int rank, Take take) {
  constexpr size_t kPiece = size_t{8} << 20;
  uint64_t len = mine.size();
  std::vector<uint64_t> lens(static_cast<size_t>(ranks));
  MPI_Gather(&len, 1, MPI_UINT64_T, lens.data(), 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (rank != 0) {
    for (size_t at = 0; at < mine.size(); at += kPiece)
      MPI_Send(mine.data() + at, static_cast<int>(std::min(kPiece, mine.size() - at)), MPI_CHAR, 0,
               kMergeTag, MPI_COMM_WORLD);
    return;
  }
  take(mine);
  std::vector<char> part;
  for (int r = 1; r < ranks; ++r) {
    part.resize(static_cast<size_t>(lens[static_cast<size_t>(r)]));
    for (size_t at = 0; at < part.size();) {
      const size_t n = std::min(kPiece, part.size() - at);
      MPI_Recv(part.data() + at, static_cast<int>(n), MPI_CHAR, r, kMergeTag, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
      at += n;
    }
    take(part);
  }
}

class MpiRankExchange final : public RankExchange {
  // What a rank tells every other after each window (ExchangeWindow).
  struct WindowHeader {
    Time next;
    uint64_t finished;
    int64_t bytes_finished;
    uint64_t events;
    uint64_t busiest;
    uint32_t stop;
    uint32_t failed;
  };
  // Where one outbox's contents start in a window's message.
  struct SegmentHeader {
    uint32_t part;  // the receiving partition
    uint32_t frames;
    uint32_t int_stacks;
    uint32_t notes;
  };

 public:
  explicit MpiRankExchange(uint32_t threads) {
    const NodeWindow::Settings settings = NodeWindow::FromEnvironment();
    int initialised = 0;
    MPI_Initialized(&initialised);
    if (!initialised) {
      PreferSharedMemoryPml();
      // FUNNELED: partition threads run beside the main thread,
      // which alone calls MPI.
      int provided = 0;
      MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    }
    int r = 0, n = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    rank_ = static_cast<uint32_t>(r);
    ranks_ = static_cast<uint32_t>(n);
    node_ = NodeWindow::IfEveryRankIsHere(settings, threads);
  }
  ~MpiRankExchange() override {
    node_.reset();  // its window is freed collectively, before MPI ends
    MPI_Finalize();
  }
  uint32_t Ranks() const override { return ranks_; }
  uint32_t Rank() const override { return rank_; }

  // After each window every rank tells every other one message: a header
  // (its next event, flows finished, events counted, stop, failure) and then, per
  // local partition with frames for a partition of another rank, a segment:
  // that outbox's frames, INT stacks and RCM notifications, each copied
  // whole. Readers take the segments for their own partitions, in place,
  // from the senders in rank order (so the inboxes list them in the same
  // order on every run).
  //
  // When every rank runs on this machine the message goes through shared
  // memory (apps/mpi_node_window.h): written once into the rank's slot for
  // this window's parity, one barrier, then read in place by the others;
  // a message too long for its slot goes by MPI message, and the slot says
  // so. Otherwise each pair of ranks exchanges one point-to-point message a
  // window, holding only the receiver's segments: every rank posts its
  // sends, then receives from each other rank in rank order with a matched
  // probe that gives the size. MPI keeps the messages of one pair of ranks
  // in order, and each window sends exactly one, so the k-th message from a
  // rank is its k-th window's. Either way one message latency a window and
  // one bulk copy per outbox, where an all-gather of the sizes, an
  // all-to-all and a copy per frame cost more (bench/NOTES.md, fourteenth
  // session); shared memory also saves MPI's own copy, its rendezvous for
  // long messages and its progress engine (sixteenth session: fat320 with
  // 2 ranks 6.07-6.13 s against 6.23-6.31 s by message).
  void ExchangeWindow(const std::vector<std::unique_ptr<Simulation>>& replicas,
                      uint32_t first_partition, uint32_t base, WindowAgreement& agreed) override {
    const auto threads = static_cast<uint32_t>(replicas.size());
    const auto parity = static_cast<uint32_t>(windows_++ & 1);
    first_ = first_partition;
    threads_ = threads;
    const WindowHeader mine{agreed.start,           agreed.finished, agreed.bytes_finished,
                            agreed.events,          agreed.busiest,  agreed.stop ? 1u : 0u,
                            agreed.failed ? 1u : 0u};
    inbox_.resize(threads);
    for (auto& in : inbox_) in.clear();
    recv_.resize(ranks_);
    sends_.clear();
    if (node_) {
      auto others = [&](uint32_t rank) { return rank != rank_; };
      const size_t bytes = MessageBytes(replicas, base, others);
      NodeWindow::SlotHeader& slot = node_->Header(rank_, parity);
      slot.bytes = bytes;
      longest_ = std::max(longest_, bytes);
      slot.by_message = bytes > node_->Capacity() ? 1 : 0;
      if (slot.by_message) {
        ++by_message_;
        out_.resize(1);
        out_[0].resize(bytes);
        WriteMessage(out_[0].data(), mine, replicas, base, others);
        for (uint32_t r = 0; r < ranks_; ++r)
          if (r != rank_) Send(out_[0], r);
      } else {
        WriteMessage(node_->Payload(rank_, parity), mine, replicas, base, others);
      }
      node_->Barrier();
      for (uint32_t r = 0; r < ranks_; ++r) {
        if (r == rank_) continue;
        const NodeWindow::SlotHeader& theirs = node_->Header(r, parity);
        if (theirs.by_message) {
          Receive(r);
          TakeMessage(recv_[r].data(), recv_[r].size(), agreed);
        } else {
          TakeMessage(node_->Payload(r, parity), theirs.bytes, agreed);
        }
      }
    } else {
      out_.resize(ranks_);
      for (uint32_t r = 0; r < ranks_; ++r) {
        if (r == rank_) continue;
        auto only_r = [r](uint32_t rank) { return rank == r; };
        out_[r].resize(MessageBytes(replicas, base, only_r));
        WriteMessage(out_[r].data(), mine, replicas, base, only_r);
        Send(out_[r], r);
      }
      for (uint32_t r = 0; r < ranks_; ++r) {
        if (r == rank_) continue;
        Receive(r);
        TakeMessage(recv_[r].data(), recv_[r].size(), agreed);
      }
    }
    // Every outbox for another rank is in a message now.
    for (const auto& sim : replicas) {
      std::vector<CrossOutbox>& outbox = sim->fabric().outbox;
      const auto parts = static_cast<uint32_t>(outbox.size() / 2);
      for (uint32_t d = 0; d < parts; ++d)
        if (d / threads != rank_) outbox[base + d].Clear();
    }
    MPI_Waitall(static_cast<int>(sends_.size()), sends_.data(), MPI_STATUSES_IGNORE);
  }

  // The bytes of this window's message holding the segments for the ranks
  // `to` accepts (ExchangeWindow).
  template <typename To>
  size_t MessageBytes(const std::vector<std::unique_ptr<Simulation>>& replicas, uint32_t base,
                      const To& to) const {
    size_t bytes = sizeof(WindowHeader);
    ForEachOutbox(replicas, base, to, [&](uint32_t, const CrossOutbox& box) {
      bytes += sizeof(SegmentHeader) +
               SegmentBytes(box.frames.size(), box.int_stacks.size(), box.notes.size());
    });
    return bytes;
  }
  // Writes that message (MessageBytes long) at `at`.
  template <typename To>
  void WriteMessage(char* at, const WindowHeader& header,
                    const std::vector<std::unique_ptr<Simulation>>& replicas, uint32_t base,
                    const To& to) const {
    Put(at, header);
    ForEachOutbox(replicas, base, to, [&](uint32_t d, const CrossOutbox& box) {
      Put(at, SegmentHeader{d, static_cast<uint32_t>(box.frames.size()),
                            static_cast<uint32_t>(box.int_stacks.size()),
                            static_cast<uint32_t>(box.notes.size())});
      PutAllPadded(at, box.frames);
      PutAllPadded(at, box.int_stacks);
      PutAllPadded(at, box.notes);
    });
  }
  // Calls fn(partition, outbox) for each non-empty outbox, in the set at
  // `base`, of a local partition for a partition of a rank `to` accepts, in
  // the order of the local partitions, then of the receiving ones.
  template <typename To, typename Fn>
  void ForEachOutbox(const std::vector<std::unique_ptr<Simulation>>& replicas, uint32_t base,
                     const To& to, const Fn& fn) const {
    for (const auto& sim : replicas) {
      const std::vector<CrossOutbox>& outbox = sim->fabric().outbox;
      const auto parts = static_cast<uint32_t>(outbox.size() / 2);
      for (uint32_t d = 0; d < parts; ++d)
        if (const CrossOutbox& box = outbox[base + d]; to(d / threads_) && !box.frames.empty())
          fn(d, box);
    }
  }
  // A segment's arrays, each padded to 8 bytes so that the next one, and
  // the next segment, can be read in place (TakeMessage).
  static size_t SegmentBytes(size_t frames, size_t int_stacks, size_t notes) {
    return Padded8(frames * sizeof(CrossFrame)) + Padded8(int_stacks * sizeof(IntStack)) +
           Padded8(notes * sizeof(RcmNotification));
  }

  void Send(const std::vector<char>& message, uint32_t to) {
    if (message.size() > static_cast<size_t>(INT_MAX))
      throw std::runtime_error(
          fmt::format("rank {}: {} bytes of frames for rank {} in one window; MPI sends at most {}",
                      rank_, message.size(), to, INT_MAX));
    MPI_Request& req = sends_.emplace_back();
    MPI_Isend(message.data(), static_cast<int>(message.size()), MPI_CHAR, static_cast<int>(to),
              kWindowTag, MPI_COMM_WORLD, &req);
  }
  // The next window message from rank `from`, into recv_[from].
  void Receive(uint32_t from) { ReceiveWhole(static_cast<int>(from), kWindowTag, recv_[from]); }

  // Folds one rank's window message into the job's agreement, and gives
  // this rank's partitions views of their segments, in place (the message
  // stays put until the next exchange: a received one in recv_, a shared
  // slot until its writer's window after next, which waits for this rank at
  // the next barrier). Segments for other ranks' partitions are skipped: a
  // shared-memory message holds every rank's.
  void TakeMessage(const char* at, size_t bytes, WindowAgreement& agreed) {
    const char* end = at + bytes;
    const auto theirs = Read<WindowHeader>(at);
    agreed.start = std::min(agreed.start, theirs.next);
    agreed.finished += theirs.finished;
    agreed.bytes_finished += theirs.bytes_finished;
    agreed.events += theirs.events;
    agreed.busiest = std::max(agreed.busiest, theirs.busiest);
    agreed.stop |= theirs.stop != 0;
    agreed.failed |= theirs.failed != 0;
    while (at < end) {
      const auto seg = Read<SegmentHeader>(at);
      if (seg.part - first_ >= threads_) {
        at += SegmentBytes(seg.frames, seg.int_stacks, seg.notes);
        continue;
      }
      CrossFramesView& view = inbox_[seg.part - first_].emplace_back();
      view.frames = InPlace<CrossFrame>(at, seg.frames);
      view.int_stacks = InPlace<IntStack>(at, seg.int_stacks);
      view.notes = InPlace<RcmNotification>(at, seg.notes);
    }
  }
  // `n` elements of T at `at` (8-byte aligned: SegmentBytes), and moves past them.
  template <typename T>
  static std::span<const T> InPlace(const char*& at, size_t n) {
    static_assert(alignof(T) <= 8 && std::is_trivially_copyable_v<T>);
    const std::span<const T> view(reinterpret_cast<const T*>(at), n);
    at += Padded8(n * sizeof(T));
    return view;
  }

  std::span<const CrossFramesView> Inbox(uint32_t part) const override {
    const uint32_t i = part - first_;
    if (i >= inbox_.size()) return {};
    return inbox_[i];
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

  std::string CollectFiles(const std::string& root) override {
    std::string error;
    if (rank_ != 0) {
      SendFilesToRankZero(root);
      return error;
    }
    for (uint32_t r = 1; r < ranks_; ++r) {  // every rank's, even after an error
      const std::string e = ReceiveFilesFromRank(static_cast<int>(r), root);
      if (error.empty()) error = e;
    }
    return error;
  }

  [[noreturn]] void AbortJob(int status) override {
    MPI_Abort(MPI_COMM_WORLD, status);
    std::_Exit(status);  // MPI_Abort does not return; if it did, this rank still ends
  }

  std::string Describe() const override {
    if (!node_) return "windows exchanged by MPI message";
    std::string s =
        fmt::format("windows exchanged through shared memory ({} slots)", Bytes(node_->Capacity()));
    s += fmt::format(", the longest {}", Bytes(longest_));
    if (by_message_ > 0)
      s += fmt::format("; {} of them by MPI message: too long for the slot", by_message_);
    return s;
  }

  // "4 MiB", "1 KiB", "300 bytes".
  static std::string Bytes(size_t n) {
    if (n >= (1 << 20) && n % (1 << 20) == 0) return fmt::format("{} MiB", n >> 20);
    if (n >= (1 << 10) && n % (1 << 10) == 0) return fmt::format("{} KiB", n >> 10);
    return fmt::format("{} bytes", n);
  }

  std::vector<uint64_t> GatherAll(std::span<const uint64_t> mine) override {
    std::vector<uint64_t> all(mine.size() * ranks_);
    MPI_Allgather(mine.data(), static_cast<int>(mine.size()), MPI_UINT64_T, all.data(),
                  static_cast<int>(mine.size()), MPI_UINT64_T, MPI_COMM_WORLD);
    return all;
  }

  std::vector<LocalRank> OtherRanksHere() override {
    MPI_Comm node = MPI_COMM_NULL;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int here = 0;
    MPI_Comm_size(node, &here);
    const int64_t mine[2] = {static_cast<int64_t>(rank_), static_cast<int64_t>(::getpid())};
    std::vector<int64_t> all(2 * static_cast<size_t>(here));
    MPI_Allgather(mine, 2, MPI_INT64_T, all.data(), 2, MPI_INT64_T, node);
    MPI_Comm_free(&node);
    std::vector<LocalRank> others;
    for (size_t i = 0; i < all.size(); i += 2)
      if (static_cast<uint32_t>(all[i]) != rank_)
        others.push_back({static_cast<uint32_t>(all[i]), static_cast<int>(all[i + 1])});
    return others;
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
    // behind their count: `merged` holds those with an end here
    // (sim/flow_merge.h). (Ports are not merged: see PartitionedRun::Merge.)
    // Written straight behind a count filled in after, the table's memory
    // given back as it goes (it is not read again on this rank; rank 0
    // builds the whole table below).
    std::vector<char> buf;
    buf.reserve(sizeof(uint32_t) + f.flows.HeldCount() * (1 + sizeof(Flow)) + (1 << 16));
    Append(buf, uint32_t{0});
    uint32_t num_flows = 0;
    size_t passed = 0;  // held flows serialised so far
    const FabricLayout& layout = *f.layout;
    for (const Flow& fl : f.flows) {
      if (++passed % 4096 == 0) f.flows.ReleaseFront(passed - 1);
      const bool src = mine(layout.host_nodes[fl.src]);
      const bool dst = mine(layout.host_nodes[fl.dst]);
      if (!src && !dst) continue;
      ++num_flows;
      Append(buf, static_cast<uint8_t>((src ? 1 : 0) | (dst ? 2 : 0)));
      Append(buf, fl);
    }
    std::memcpy(buf.data(), &num_flows, sizeof num_flows);
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
    // Rank 0: every flow from the parts (the sender's rank gives what the
    // flow is, the receiver's the responder's side), one part at a time.
    std::vector<OpsEvent> log;
    std::vector<PfcTraceEntry> trace;
    std::vector<QlenDumpLine> qlen;
    if (rank_ == 0) {
      const uint32_t count = f.flows.Count();
      f.flows = FlowTable();
      f.flows.Reserve(count);
      for (uint32_t id = 0; id < count; ++id) {
        Flow blank;
        blank.id = id;
        f.flows.Add(blank);
      }
    }
    auto take_part = [&](const std::vector<char>& part) {
      const char* at = part.data();
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
    };
    GatherParts(buf, static_cast<int>(ranks_), static_cast<int>(rank_), take_part);
    buf = {};
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
    std::stable_sort(log.begin(), log.end(), OpsEventBefore);
    f.ops.events = std::move(log);
    std::sort(trace.begin(), trace.end(), PfcTraceBefore);
    f.pfc_trace = std::move(trace);
    std::sort(qlen.begin(), qlen.end(), QlenDumpBefore);
    f.qlen_dumps = std::move(qlen);
  }

 private:
  uint32_t rank_ = 0, ranks_ = 1, first_ = 0, threads_ = 1;
  uint64_t windows_ = 0;              // exchanges so far (the parity of the shared slots)
  uint64_t by_message_ = 0;           // ... of which this rank's went by message: too long
  size_t longest_ = 0;                // the longest window message this rank wrote
  std::unique_ptr<NodeWindow> node_;  // when every rank is on this machine
  std::vector<std::vector<CrossFramesView>> inbox_;  // per local partition: the last window's
  std::vector<std::vector<char>>
      out_;  // per destination rank (or one for all): this window's message
  std::vector<std::vector<char>> recv_;  // per sending rank: its last message, when received
  std::vector<MPI_Request> sends_;
  std::set<std::string> names_;  // ops log event names received from other ranks
};
#endif

}  // namespace

std::unique_ptr<RankExchange> MakeMpiRankExchange(uint32_t threads) {
  if (LauncherRanks() <= 1) return nullptr;
#ifdef ROCESIM_HAVE_MPI
  return std::make_unique<MpiRankExchange>(threads);
#else
  throw std::runtime_error(
      "running under an MPI launcher, but this rocesim was built without MPI; install "
      "libopenmpi-dev and rebuild (scripts/install-deps.sh)");
#endif
}

}  // namespace rocesim
