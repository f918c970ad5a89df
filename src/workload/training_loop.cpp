// SimAI's training loops as dependent flows (see training_loop.h).
#include "workload/training_loop.h"

#include <algorithm>
#include <array>
#include <utility>
#include <vector>

#include "workload/collective_builder.h"

namespace rocesim {

namespace {
using collective_detail::Builder;
using collective_detail::kNone;

constexpr int kGroupKinds = 4;
int GroupIndex(SimaiGroup g) {
  return static_cast<int>(g);
}

CollectiveOp OpOf(SimaiCommType t) {
  switch (t) {
    case SimaiCommType::kAllGather:
      return CollectiveOp::kAllGather;
    case SimaiCommType::kReduceScatter:
      return CollectiveOp::kReduceScatter;
    case SimaiCommType::kAllToAll:
      return CollectiveOp::kAllToAll;
    case SimaiCommType::kBroadcast:
      return CollectiveOp::kBroadcast;
    case SimaiCommType::kAllReduce:
    case SimaiCommType::kNone:
      break;
  }
  return CollectiveOp::kAllReduce;
}

// The comms of layer `l` that `loop` issues (the rest are read, not run):
// a transformer loop's forward, input-gradient and weight-gradient comms;
// DATA's and MICRO's weight-gradient comm.
std::vector<const SimaiComm*> IssuedComms(SimaiLoop loop, const SimaiLayer& l) {
  if (loop == SimaiLoop::kTransformer) return {&l.forward, &l.input_grad, &l.weight_grad};
  return {&l.weight_grad};
}

// Whether comm `c` moves anything among `ranks` ranks: it is not NONE and
// runs in groups of two or more (a group of one is skipped).
bool MovesData(const SimaiComm& c, const SimaiWorkload& w, int ranks) {
  return c.type != SimaiCommType::kNone && SimaiGroupSize(c.group, ranks, w.tp, w.ep) >= 2;
}

CollectiveAlgorithm AlgorithmOf(CollectiveOp op, CollectiveAlgorithm allreduce) {
  if (op == CollectiveOp::kAllReduce) return allreduce;
  return op == CollectiveOp::kAllToAll ? CollectiveAlgorithm::kDirect : CollectiveAlgorithm::kRing;
}

// Every message carries a byte (training_loop.h "Simplifications").
int64_t CommBytes(const SimaiComm& c, int channels, int n) {
  return std::max<int64_t>(c.bytes, int64_t{2} * channels * n);
}

// Each rank's program: what its next operation waits for (the builder's
// gate), and compute it has done since (not yet a join).
class Ranks {
 public:
  Ranks(Builder& b, const TrafficSpec& t)
      : b_(b), t_(t), pending_(t.hosts.size(), 0), not_before_(t.hosts.size(), t.start) {}

  int Host(int rank) const { return t_.hosts[rank]; }
  void Compute(int rank, Time d) { pending_[rank] += d; }

  // The rank's next operation also waits for `node` (done at the rank), after
  // the compute so far.
  void Wait(int rank, uint32_t node) {
    if (node == kNone) return;
    Settle(rank);
    const int h = Host(rank);
    std::vector<uint32_t> after = {node};
    if (b_.Gate(h) != kNone) after.push_back(b_.Gate(h));
    b_.SetGate(h, b_.Join(h, std::move(after), 0));
  }

  // The compute so far becomes what the rank's next messages wait for.
  void Settle(int rank) {
    const int h = Host(rank);
    if (b_.Gate(h) == kNone) {
      // Nothing done yet to count from: the compute delays its start.
      not_before_[rank] += pending_[rank];
      b_.SetNotBefore(h, not_before_[rank]);
    } else if (pending_[rank] > 0) {
      b_.SetGate(h, b_.Join(h, {b_.Gate(h)}, pending_[rank]));
    }
    pending_[rank] = 0;
  }

 private:
  Builder& b_;
  const TrafficSpec& t_;
  std::vector<Time> pending_;
  std::vector<Time> not_before_;  // the rank's clock while nothing waits before it
};

class Expansion {
 public:
  Expansion(const TrafficSpec& t, size_t index)
      : t_(t),
        w_(*t.training.workload),
        n_(static_cast<int>(t.hosts.size())),
        b_(t, index, *std::max_element(t.hosts.begin(), t.hosts.end()) + 1, true, false),
        ranks_(b_, t) {
    for (int g = 0; g < kGroupKinds; ++g)
      groups_[g] = SimaiGroups(static_cast<SimaiGroup>(g), n_, w_.tp, w_.ep);
    weight_grad_done_.assign(w_.layers.size(), std::vector<uint32_t>(n_, kNone));
  }

  CollectivePlan Run() {
    const int iterations = t_.collective.iterations;
    for (int it = 0; it < iterations; ++it) {
      CollectiveInstance inst;
      inst.iteration = it;
      inst.first_flow = b_.FlowCount();
      op_ = 0;
      last_iteration_ = it + 1 == iterations;
      switch (w_.loop) {
        case SimaiLoop::kTransformer:
          Transformer();
          break;
        case SimaiLoop::kData:
          Data();
          break;
        case SimaiLoop::kMicro:
          Micro();
          break;
      }
      inst.end_flow = b_.FlowCount();
      inst.steps = std::max(op_, 1);
      b_.plan().instances.push_back(inst);
    }
    return b_.Finish();
  }

 private:
  void Transformer() {
    const int layers = static_cast<int>(w_.layers.size());
    for (int i = 0; i < layers; ++i) {
      const SimaiLayer& l = w_.layers[i];
      for (int r = 0; r < n_; ++r) {
        ranks_.Wait(r, std::exchange(weight_grad_done_[i][r], kNone));
        ranks_.Compute(r, l.forward_compute);
      }
      Issue(l.forward, true, -1);
    }
    for (int i = layers - 1; i >= 0; --i) {
      const SimaiLayer& l = w_.layers[i];
      for (int r = 0; r < n_; ++r) ranks_.Compute(r, l.input_grad_compute);
      Issue(l.input_grad, true, -1);
      for (int r = 0; r < n_; ++r) ranks_.Compute(r, l.weight_grad_compute);
      Issue(l.weight_grad, false, i);
    }
  }

  void Data() {
    const int layers = static_cast<int>(w_.layers.size());
    for (int i = 0; i < layers; ++i)
      for (int r = 0; r < n_; ++r) {
        ranks_.Wait(r, std::exchange(weight_grad_done_[i][r], kNone));
        ranks_.Compute(r, w_.layers[i].forward_compute);
      }
    for (int i = layers - 1; i >= 0; --i) {
      const SimaiLayer& l = w_.layers[i];
      for (int r = 0; r < n_; ++r) ranks_.Compute(r, l.weight_grad_compute);
      Issue(l.weight_grad, false, i);
      if (i > 0)
        for (int r = 0; r < n_; ++r) ranks_.Compute(r, l.input_grad_compute);
    }
  }

  void Micro() {
    for (const SimaiLayer& l : w_.layers) {
      for (int r = 0; r < n_; ++r) ranks_.Compute(r, l.weight_grad_compute);
      Issue(l.weight_grad, true, -1);
    }
  }

  // One comm in every group of its kind. Blocking: each member's next
  // operation waits for its part of it. Otherwise, with `layer` >= 0 and
  // another iteration to come, that layer's next forward pass does.
  void Issue(const SimaiComm& c, bool blocking, int layer) {
    if (!MovesData(c, w_, n_)) return;
    const int kind = GroupIndex(c.group);
    const std::vector<std::vector<int>>& groups = groups_[kind];
    const CollectiveSpec& spec = t_.collective;
    const CollectiveOp op = OpOf(c.type);
    const CollectiveAlgorithm algorithm = AlgorithmOf(op, spec.algorithm);
    b_.PinStep(op_++);
    b_.SetConnectionSpace(kind + 1);
    std::vector<int> hosts;
    for (const std::vector<int>& g : groups) {
      hosts.clear();
      for (int r : g) {
        ranks_.Settle(r);
        hosts.push_back(ranks_.Host(r));
      }
      collective_detail::EmitCollective(b_, op, algorithm, hosts,
                                        CommBytes(c, spec.channels, static_cast<int>(g.size())),
                                        spec.channels, spec.chunk_bytes, spec.gpus_per_server, 0);
    }
    for (const std::vector<int>& g : groups)
      for (int r : g) {
        const int h = ranks_.Host(r);
        std::vector<uint32_t> part = b_.TakePhase(h);
        if (blocking) {
          // The rank's own earlier work too: a rank that only receives must
          // not run ahead of itself.
          if (b_.Gate(h) != kNone) part.push_back(b_.Gate(h));
          b_.SetGate(h, b_.Join(h, std::move(part), 0));
        } else if (layer >= 0 && !last_iteration_) {
          weight_grad_done_[layer][r] = b_.Join(h, std::move(part), 0);
        }
      }
  }

  const TrafficSpec& t_;
  const SimaiWorkload& w_;
  int n_;
  Builder b_;
  Ranks ranks_;
  std::array<std::vector<std::vector<int>>, kGroupKinds> groups_;
  // Per layer and rank: the join its next forward pass waits for.
  std::vector<std::vector<uint32_t>> weight_grad_done_;
  int op_ = 0;
  bool last_iteration_ = false;
};

}  // namespace

std::vector<std::vector<int>> SimaiGroups(SimaiGroup g, int ranks, int tp, int ep) {
  const int dp = ranks / tp;
  std::vector<std::vector<int>> out;
  switch (g) {
    case SimaiGroup::kTensor:
      for (int base = 0; base < ranks; base += tp) {
        auto& grp = out.emplace_back();
        for (int i = 0; i < tp; ++i) grp.push_back(base + i);
      }
      break;
    case SimaiGroup::kData:
      for (int idx = 0; idx < tp; ++idx) {
        auto& grp = out.emplace_back();
        for (int k = 0; k < dp; ++k) grp.push_back(idx + k * tp);
      }
      break;
    case SimaiGroup::kExpert:
      for (int idx = 0; idx < tp; ++idx)
        for (int c = 0; c < dp / ep; ++c) {
          auto& grp = out.emplace_back();
          for (int j = 0; j < ep; ++j) grp.push_back(idx + (c * ep + j) * tp);
        }
      break;
    case SimaiGroup::kDataExpert:
      for (int idx = 0; idx < tp; ++idx)
        for (int j = 0; j < ep; ++j) {
          auto& grp = out.emplace_back();
          for (int m = 0; m < dp / ep; ++m) grp.push_back(idx + (m * ep + j) * tp);
        }
      break;
  }
  return out;
}

int SimaiGroupSize(SimaiGroup g, int ranks, int tp, int ep) {
  switch (g) {
    case SimaiGroup::kTensor:
      return tp;
    case SimaiGroup::kData:
      return ranks / tp;
    case SimaiGroup::kExpert:
      return ep;
    case SimaiGroup::kDataExpert:
      return ranks / tp / ep;
  }
  return 0;
}

CollectivePlan ExpandTraining(const TrafficSpec& t, size_t index) {
  return Expansion(t, index).Run();
}

double EstimateTrainingMessages(const TrafficSpec& t) {
  const SimaiWorkload& w = *t.training.workload;
  const CollectiveSpec& spec = t.collective;
  const int n = static_cast<int>(t.hosts.size());
  double per_iteration = 0;
  for (const SimaiLayer& l : w.layers)
    for (const SimaiComm* c : IssuedComms(w.loop, l)) {
      if (!MovesData(*c, w, n)) continue;
      const int size = SimaiGroupSize(c->group, n, w.tp, w.ep);
      const CollectiveOp op = OpOf(c->type);
      per_iteration += static_cast<double>(n / size) *
                       EstimateCollectiveMessages(op, AlgorithmOf(op, spec.algorithm), size,
                                                  CommBytes(*c, spec.channels, size), spec.channels,
                                                  spec.chunk_bytes);
    }
  return per_iteration * spec.iterations;
}

bool TrainingMovesData(const TrafficSpec& t) {
  const SimaiWorkload& w = *t.training.workload;
  const int n = static_cast<int>(t.hosts.size());
  for (const SimaiLayer& l : w.layers)
    for (const SimaiComm* c : IssuedComms(w.loop, l))
      if (MovesData(*c, w, n)) return true;
  return false;
}

}  // namespace rocesim
