// The Builder and the collective algorithms (see collectives.h for each
// algorithm and its source).
#include "workload/collective_builder.h"

#include <algorithm>
#include <map>

#include "core/rng.h"
#include "workload/generators.h"

namespace rocesim::collective_detail {

namespace {
// Chunks per message of `bytes` (at least 1 byte each). The rounding up
// avoids bytes + chunk - 1, which overflows for a chunk near INT64_MAX.
int64_t Chunks(int64_t bytes, int64_t chunk) {
  if (chunk <= 0 || bytes <= 1) return 1;
  return std::clamp<int64_t>(bytes / chunk + (bytes % chunk != 0 ? 1 : 0), 1, bytes);
}

int Depth(int heap_index) {
  int d = 0;
  for (int i = heap_index + 1; i > 1; i >>= 1) ++d;
  return d;
}
}  // namespace

Builder::Builder(const TrafficSpec& t, size_t index, int hosts, bool track_phases,
                 bool track_iterations)
    : t_(t), index_(index), track_phases_(track_phases), track_iterations_(track_iterations) {
  gate_.assign(static_cast<size_t>(hosts), kNone);
  not_before_.assign(gate_.size(), t.start);
  phase_.resize(gate_.size());
  iteration_.resize(gate_.size());
}

uint32_t Builder::Flow(int conn, int src, int dst, int64_t bytes, std::vector<uint32_t> after) {
  FlowSpec f = EntryFlow(t_, src, dst, bytes, not_before_[src], t_.tag);
  f.after = std::move(after);
  std::erase(f.after, kNone);
  if (gate_[src] != kNone) f.after.push_back(gate_[src]);
  f.sport = Sport(conn, src, dst);
  const auto id = static_cast<uint32_t>(plan_.flows.size());
  // A connection sends its messages in order (FlowSpec::after_sent).
  const uint64_t key =
      uint64_t(space_) << 60 | uint64_t(conn) << 48 | uint64_t(src) << 24 | uint64_t(dst);
  const auto [last, fresh] = last_on_connection_.try_emplace(key, id);
  if (!fresh) {
    f.after_sent = last->second;
    last->second = id;
  }
  plan_.flows.push_back(std::move(f));
  plan_.flow_step.push_back(static_cast<uint16_t>(std::min(step_, 0xFFFF)));
  // What a join may later wait for: only kept when one will.
  for (int h : {src, dst}) {
    if (track_phases_) phase_[h].push_back(id);
    if (track_iterations_) iteration_[h].push_back(id);
  }
  max_step_ = std::max(max_step_, step_);
  return id;
}

void Builder::GateOnPhase(const std::vector<int>& ranks, Time delay, bool whole_iteration) {
  for (int h : ranks) {
    std::vector<uint32_t>& done = whole_iteration ? iteration_[h] : phase_[h];
    if (!done.empty()) gate_[h] = Join(h, std::move(done), delay);
    done.clear();
    phase_[h].clear();
  }
}

uint32_t Builder::Join(int host, std::vector<uint32_t> after, Time delay) {
  plan_.joins.push_back(JoinSpec{host, std::move(after), delay});
  return kJoinBit | static_cast<uint32_t>(plan_.joins.size() - 1);
}

std::vector<uint32_t> Builder::TakePhase(int host) {
  return std::exchange(phase_[host], {});
}

CollectivePlan Builder::Finish() {
  const auto flows = static_cast<uint32_t>(plan_.flows.size());
  auto fix = [&](std::vector<uint32_t>& after) {
    for (uint32_t& a : after)
      if (a & kJoinBit) a = flows + (a & ~kJoinBit);
  };
  for (FlowSpec& f : plan_.flows) fix(f.after);
  for (JoinSpec& j : plan_.joins) fix(j.after);
  return std::move(plan_);
}

// One UDP source port per (entry, connection space, connection, source,
// destination).
uint16_t Builder::Sport(int conn, int src, int dst) const {
  uint64_t s = index_;
  if (space_ != 0) s = SplitMix64(s) ^ static_cast<uint64_t>(space_);
  s = SplitMix64(s) ^ static_cast<uint64_t>(conn);
  s = SplitMix64(s) ^ static_cast<uint64_t>(src);
  s = SplitMix64(s) ^ static_cast<uint64_t>(dst);
  return static_cast<uint16_t>(49152 + SplitMix64(s) % 16384);
}

// Ring steps [from, to) over `r` on `bytes`: at step k position p sends
// segment (p - k) mod n to p + 1, chunk j waiting for chunk j of step k - 1
// into p. [0, n-1) is a reduce-scatter, [n-1, 2n-2) an all-gather.
void Ring(Builder& b, const std::vector<int>& r, int conn, int64_t bytes, int64_t chunk, int from,
          int to, int step0) {
  const int n = static_cast<int>(r.size());
  const int64_t q = std::min(Chunks((bytes + n - 1) / n, chunk), bytes / n);
  std::vector<uint32_t> prev(static_cast<size_t>(n * q), kNone), cur(prev.size());
  for (int k = from; k < to; ++k) {
    b.SetStep(step0 + k - from);
    for (int p = 0; p < n; ++p) {
      const int64_t seg = Split(bytes, n, ((p - k) % n + n) % n);
      for (int64_t j = 0; j < q; ++j)
        cur[p * q + j] =
            b.Flow(conn, r[p], r[(p + 1) % n], Split(seg, q, j), {prev[((p - 1 + n) % n) * q + j]});
    }
    prev.swap(cur);
  }
}

// The pipelined chain root (r[0]) -> r[1] -> ... carrying all `bytes`.
void Chain(Builder& b, const std::vector<int>& r, int conn, int64_t bytes, int64_t chunk,
           int step0) {
  const int64_t q = Chunks(bytes, chunk);
  std::vector<uint32_t> prev(static_cast<size_t>(q), kNone);
  for (size_t p = 0; p + 1 < r.size(); ++p) {
    b.SetStep(step0 + static_cast<int>(p));
    for (int64_t j = 0; j < q; ++j)
      prev[j] = b.Flow(conn, r[p], r[p + 1], Split(bytes, q, j), {prev[j]});
  }
}

// The double binary tree: tree 0 is the complete binary tree in heap order
// over positions 0..n-1, tree 1 its mirror (heap index i at position
// n-1-i), so that the inner nodes of one are leaves of the other.
void DoubleTree(Builder& b, const std::vector<int>& r, int conn, int64_t bytes, int64_t chunk) {
  const int n = static_cast<int>(r.size());
  const int depth = Depth(n - 1);
  for (int tree = 0; tree < 2; ++tree) {
    const auto at = [&](int i) { return r[tree == 0 ? i : n - 1 - i]; };
    const int64_t data = Split(bytes, 2, tree);
    const int64_t q = Chunks(data, chunk);
    const int c = 2 * conn + tree;
    std::vector<uint32_t> up(static_cast<size_t>(n * q), kNone), down(up.size(), kNone);
    const auto children_up = [&](int i, int64_t j) {
      std::vector<uint32_t> v;
      for (int ch = 2 * i + 1; ch <= 2 * i + 2 && ch < n; ++ch) v.push_back(up[ch * q + j]);
      return v;
    };
    // Reduce: a node sends chunk j up once its children's chunk j is in.
    for (int i = n - 1; i >= 1; --i) {
      b.SetStep(depth - Depth(i));
      for (int64_t j = 0; j < q; ++j)
        up[i * q + j] = b.Flow(c, at(i), at((i - 1) / 2), Split(data, q, j), children_up(i, j));
    }
    // Broadcast: the root sends chunk j down once it has reduced it; every
    // other node forwards what its parent sent.
    for (int i = 0; i < n; ++i)
      for (int ch = 2 * i + 1; ch <= 2 * i + 2 && ch < n; ++ch) {
        b.SetStep(depth + Depth(ch) - 1);
        for (int64_t j = 0; j < q; ++j)
          down[ch * q + j] =
              b.Flow(c, at(i), at(ch), Split(data, q, j),
                     i == 0 ? children_up(0, j) : std::vector<uint32_t>{down[i * q + j]});
      }
  }
}

// Recursive halving (reduce-scatter) and / or doubling (all-gather) over n =
// 2^k positions; each step waits for the step before into the rank.
void HalvingDoubling(Builder& b, const std::vector<int>& r, int conn, int64_t bytes, bool halve,
                     bool dbl) {
  const int n = static_cast<int>(r.size());
  std::vector<uint32_t> in(static_cast<size_t>(n), kNone), next(in.size());
  int step = 0;
  auto exchange = [&](int distance) {
    b.SetStep(step++);
    const auto part = static_cast<int64_t>(static_cast<__int128>(bytes) * distance / n);
    for (int p = 0; p < n; ++p)
      next[p ^ distance] = b.Flow(conn, r[p], r[p ^ distance], part, {in[p]});
    in.swap(next);
  };
  if (halve)
    for (int d = n / 2; d >= 1; d /= 2) exchange(d);
  if (dbl)
    for (int d = 1; d < n; d *= 2) exchange(d);
}

// One message per ordered pair: position p sends Split(bytes, n, q) to q
// (AllToAll, ReduceScatter) or its own piece Split(bytes, n, p) (AllGather).
void Direct(Builder& b, const std::vector<int>& r, int conn, int64_t bytes, bool own_piece) {
  const int n = static_cast<int>(r.size());
  b.SetStep(0);
  for (int p = 0; p < n; ++p)
    for (int q = 0; q < n; ++q)
      if (p != q) b.Flow(conn, r[p], r[q], Split(bytes, n, own_piece ? p : q), {});
}

// Hierarchical AllReduce: ring reduce-scatter inside each server, a ring
// AllReduce across servers among the GPUs of equal local index (each on the
// segment it owns), ring all-gather inside each server. Every channel runs
// each phase before any starts the next (a rank's phase ends at a join).
void Hierarchical(Builder& b, const std::vector<int>& r, int channels, int64_t size, int64_t chunk,
                  int gpus_per_server) {
  std::map<int, std::vector<int>> by_server;  // server -> its ranks, in rank order
  for (int h : r) by_server[h / gpus_per_server].push_back(h);
  std::vector<std::vector<int>> servers;
  for (auto& [s, ranks] : by_server) servers.push_back(std::move(ranks));
  const int k = static_cast<int>(servers.front().size());
  const int m = static_cast<int>(servers.size());
  int step0 = 0;
  if (k > 1) {
    for (int ch = 0; ch < channels; ++ch)
      for (const auto& local : servers)
        Ring(b, local, ch, Split(size, channels, ch), chunk, 0, k - 1, step0);
    b.GateOnPhase(r, 0, false);
    step0 += k - 1;
  }
  if (m > 1) {
    // After the reduce-scatter, local rank l holds segment (l + 1) mod k.
    for (int ch = 0; ch < channels; ++ch)
      for (int l = 0; l < k; ++l) {
        std::vector<int> rail;
        for (const auto& local : servers) rail.push_back(local[l]);
        Ring(b, rail, ch, Split(Split(size, channels, ch), k, (l + 1) % k), chunk, 0, 2 * (m - 1),
             step0);
      }
    b.GateOnPhase(r, 0, false);
    step0 += 2 * (m - 1);
  }
  if (k > 1)
    for (int ch = 0; ch < channels; ++ch)
      for (const auto& local : servers)
        Ring(b, local, ch, Split(size, channels, ch), chunk, k - 1, 2 * k - 2, step0);
}

void EmitCollective(Builder& b, CollectiveOp op, CollectiveAlgorithm algorithm,
                    const std::vector<int>& r, int64_t size, int channels, int64_t chunk,
                    int gpus_per_server, int conn0) {
  const int n = static_cast<int>(r.size());
  if (algorithm == CollectiveAlgorithm::kHierarchical) {
    Hierarchical(b, r, channels, size, chunk, gpus_per_server);
    return;
  }
  for (int ch = 0; ch < channels; ++ch) {
    const int64_t bytes = Split(size, channels, ch);
    const int conn = conn0 + ch;
    switch (algorithm) {
      case CollectiveAlgorithm::kRing:
        if (op == CollectiveOp::kBroadcast) {
          Chain(b, r, conn, bytes, chunk, 0);
        } else {
          const int from = op == CollectiveOp::kAllGather ? n - 1 : 0;
          const int to = op == CollectiveOp::kReduceScatter ? n - 1 : 2 * n - 2;
          Ring(b, r, conn, bytes, chunk, op == CollectiveOp::kAllReduce ? 0 : from,
               op == CollectiveOp::kAllReduce ? 2 * n - 2 : to, 0);
        }
        break;
      case CollectiveAlgorithm::kTree:
        DoubleTree(b, r, conn, bytes, chunk);
        break;
      case CollectiveAlgorithm::kHalvingDoubling:
        HalvingDoubling(b, r, conn, bytes, op != CollectiveOp::kAllGather,
                        op != CollectiveOp::kReduceScatter);
        break;
      case CollectiveAlgorithm::kDirect:
        Direct(b, r, conn, bytes, op == CollectiveOp::kAllGather);
        break;
      case CollectiveAlgorithm::kHierarchical:
        break;
    }
  }
}

}  // namespace rocesim::collective_detail
