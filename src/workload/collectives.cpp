// Collective algorithms as dependent flows (see collectives.h for each
// algorithm and its source).
#include "workload/collectives.h"

#include <algorithm>
#include <bit>

#include "workload/collective_builder.h"

namespace rocesim {

CollectivePlan ExpandCollective(const TrafficSpec& t, size_t index) {
  using namespace collective_detail;
  const CollectiveSpec& c = t.collective;
  int hosts = 0;
  for (int h : t.hosts) hosts = std::max(hosts, h + 1);
  Builder b(t, index, hosts, c.algorithm == CollectiveAlgorithm::kHierarchical, c.iterations > 1);
  for (int it = 0; it < c.iterations; ++it) {
    CollectiveInstance inst;
    inst.iteration = it;
    inst.first_flow = b.FlowCount();
    b.ResetSteps();
    EmitCollective(b, c.op, c.algorithm, t.hosts, t.size_bytes, c.channels, c.chunk_bytes,
                   c.gpus_per_server, 0);
    inst.end_flow = b.FlowCount();
    inst.steps = b.MaxStep() + 1;
    b.plan().instances.push_back(inst);
    // The next iteration of each rank starts `compute` after it finished this one.
    if (it + 1 < c.iterations) b.GateOnPhase(t.hosts, c.compute, true);
  }
  return b.Finish();
}

double EstimateCollectiveMessages(CollectiveOp op, CollectiveAlgorithm a, int n, int64_t bytes,
                                  int channels, int64_t chunk) {
  double steps = 0;
  switch (a) {
    case CollectiveAlgorithm::kRing:
      steps = op == CollectiveOp::kAllReduce ? 2.0 * (n - 1) : n - 1;
      break;
    case CollectiveAlgorithm::kTree:
      steps = 4;  // two trees, up and down: 4 (n - 1) messages
      break;
    case CollectiveAlgorithm::kHalvingDoubling:
      steps = 2 * std::bit_width(unsigned(n));
      break;
    case CollectiveAlgorithm::kDirect:
    case CollectiveAlgorithm::kHierarchical:
      steps = n;
      break;
  }
  const double chunks =
      chunk > 0
          ? std::max(1.0, static_cast<double>(bytes) / channels / n / static_cast<double>(chunk))
          : 1.0;
  return steps * n * chunks * channels;
}

double BusBandwidthFactor(CollectiveOp op, int n) {
  switch (op) {
    case CollectiveOp::kAllReduce:
      return 2.0 * (n - 1) / n;
    case CollectiveOp::kAllGather:
    case CollectiveOp::kReduceScatter:
    case CollectiveOp::kAllToAll:
      return static_cast<double>(n - 1) / n;
    case CollectiveOp::kBroadcast:
      return 1;
  }
  return 1;
}

std::string_view CollectiveOpName(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::kAllReduce:
      return "allreduce";
    case CollectiveOp::kAllGather:
      return "allgather";
    case CollectiveOp::kReduceScatter:
      return "reducescatter";
    case CollectiveOp::kAllToAll:
      return "alltoall";
    case CollectiveOp::kBroadcast:
      return "broadcast";
  }
  return "?";
}

std::string_view CollectiveAlgorithmName(CollectiveAlgorithm a) {
  switch (a) {
    case CollectiveAlgorithm::kRing:
      return "ring";
    case CollectiveAlgorithm::kTree:
      return "tree";
    case CollectiveAlgorithm::kHalvingDoubling:
      return "halving_doubling";
    case CollectiveAlgorithm::kDirect:
      return "direct";
    case CollectiveAlgorithm::kHierarchical:
      return "hierarchical";
  }
  return "?";
}

bool CollectiveSupports(CollectiveOp op, CollectiveAlgorithm a) {
  switch (a) {
    case CollectiveAlgorithm::kRing:
      return op != CollectiveOp::kAllToAll;
    case CollectiveAlgorithm::kTree:
    case CollectiveAlgorithm::kHierarchical:
      return op == CollectiveOp::kAllReduce;
    case CollectiveAlgorithm::kHalvingDoubling:
      return op == CollectiveOp::kAllReduce || op == CollectiveOp::kAllGather ||
             op == CollectiveOp::kReduceScatter;
    case CollectiveAlgorithm::kDirect:
      return op == CollectiveOp::kAllToAll || op == CollectiveOp::kAllGather ||
             op == CollectiveOp::kReduceScatter;
  }
  return false;
}

}  // namespace rocesim
