// Scenario reader: a `type: collective` traffic entry (workload/collectives.h)
// — the operation, its algorithm, its ranks and how its data is cut.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <map>
#include <string>
#include <vector>

#include "core/units.h"
#include "scenario/yaml_fields.h"
#include "workload/collectives.h"

namespace rocesim::scenario_detail {

namespace {
// More flows than this is a scenario mistake (or a machine's whole memory:
// a flow takes about 0.5 KB), refused before anything is built.
constexpr double kMaxJobFlows = 50e6;
}  // namespace

Field Reader::ReadRanks(const Map& m, TrafficSpec& t) const {
  // Ranks: hosts in rank order, or whole GPU servers.
  const std::optional<Field> ranks = m.Get("ranks");
  const std::optional<Field> servers = m.Get("servers");
  if (ranks && servers)
    FailNoPath({m.Find("servers")->key_node, "", servers->origin},
               fmt::format("{}: give either ranks or servers, not both", servers->path));
  std::optional<Field> where = ranks ? ranks : servers;
  if (ranks) {
    t.hosts = ReadSenders(*ranks);
  } else if (servers) {
    const int num_servers = hosts_ / gpus_per_server_;
    for (int s : ReadSenders(*servers)) {
      if (s >= num_servers)
        Fail(*servers, fmt::format("server {} does not exist: the topology has {} servers of {} "
                                   "GPUs (topology.gpus_per_server)",
                                   s, num_servers, gpus_per_server_));
      for (int g = 0; g < gpus_per_server_; ++g) t.hosts.push_back(s * gpus_per_server_ + g);
    }
  } else {
    for (int h = 0; h < hosts_; ++h) t.hosts.push_back(h);
  }
  const Field at = where ? *where : m.self;
  {
    std::vector<bool> seen(static_cast<size_t>(hosts_), false);
    for (int h : t.hosts) {
      if (seen[h]) Fail(at, fmt::format("host {} is a rank twice", h));
      seen[h] = true;
    }
  }
  return at;
}

void Reader::RefuseTooManyMessages(const Map& m, std::string_view what, double messages) const {
  if (messages > kMaxJobFlows)
    Fail(m.self, fmt::format("this {} expands into about {:.3g} messages (flows), more than the "
                             "{:.0f} million rocesim accepts; use a larger chunk, fewer "
                             "iterations or fewer channels",
                             what, messages, kMaxJobFlows / 1e6));
}

void Reader::ReadCollective(const Map& m, TrafficSpec& t) const {
  CollectiveSpec& c = t.collective;
  const Field op_field =
      Require(m, "op", " (allreduce, allgather, reducescatter, alltoall or broadcast)");
  const std::string op =
      OneOf(op_field, {"allreduce", "allgather", "reducescatter", "alltoall", "broadcast"});
  const std::map<std::string, CollectiveOp> ops = {{"allreduce", CollectiveOp::kAllReduce},
                                                   {"allgather", CollectiveOp::kAllGather},
                                                   {"reducescatter", CollectiveOp::kReduceScatter},
                                                   {"alltoall", CollectiveOp::kAllToAll},
                                                   {"broadcast", CollectiveOp::kBroadcast}};
  c.op = ops.at(op);
  c.algorithm =
      c.op == CollectiveOp::kAllToAll ? CollectiveAlgorithm::kDirect : CollectiveAlgorithm::kRing;
  if (auto v = m.Get("algorithm")) {
    const std::map<std::string, CollectiveAlgorithm> algorithms = {
        {"ring", CollectiveAlgorithm::kRing},
        {"tree", CollectiveAlgorithm::kTree},
        {"halving_doubling", CollectiveAlgorithm::kHalvingDoubling},
        {"direct", CollectiveAlgorithm::kDirect},
        {"hierarchical", CollectiveAlgorithm::kHierarchical}};
    c.algorithm =
        algorithms.at(OneOf(*v, {"ring", "tree", "halving_doubling", "direct", "hierarchical"}));
    if (!CollectiveSupports(c.op, c.algorithm)) {
      std::vector<std::string_view> fit;
      for (const auto& [name, a] : algorithms)
        if (CollectiveSupports(c.op, a)) fit.push_back(name);
      Fail(*v, fmt::format("{} does not carry {}; {} runs on {}",
                           CollectiveAlgorithmName(c.algorithm), op, op, fmt::join(fit, ", ")));
    }
  }

  const Field at = ReadRanks(m, t);
  const int n = static_cast<int>(t.hosts.size());
  if (n < 2) Fail(at, fmt::format("a collective needs at least two ranks, got {}", n));

  if (auto v = m.Get("channels")) c.channels = IntField(*v, 1, 64);
  if (auto v = m.Get("chunk")) c.chunk_bytes = Size(*v, 1);
  if (auto v = m.Get("iterations")) c.iterations = IntField(*v, 1, 1'000'000);
  if (auto v = m.Get("compute")) c.compute = TimeValue(*v, 0);
  // `after`: checked against the earlier entries once all are read (Read).
  if (auto v = m.Get("after")) c.after_tag = String(*v);
  if (auto v = m.Get("after_compute")) {
    if (!m.Get("after")) Fail(*v, "applies only with `after` (the job this one follows)");
    c.after_compute = TimeValue(*v, 0);
  }
  const Field size = Require(m, "size", " (the collective's buffer in bytes, e.g. 256MB)");
  t.size_bytes = Size(size, 1, kMaxFlowBytes);
  // Every message carries at least a byte: a tree halves a channel's data,
  // a ring cuts it into one segment per rank.
  const int64_t min_size = int64_t{2} * c.channels * n;
  if (t.size_bytes < min_size)
    Fail(size,
         fmt::format("expected at least {} bytes (2 x channels x ranks = 2 x {} x {}), got {}",
                     min_size, c.channels, n, t.size_bytes));

  if (c.algorithm == CollectiveAlgorithm::kHalvingDoubling && !std::has_single_bit(unsigned(n)))
    Fail(at, fmt::format("halving_doubling needs a power-of-two number of ranks, got {}", n));
  c.gpus_per_server = gpus_per_server_;
  if (c.algorithm == CollectiveAlgorithm::kHierarchical) {
    if (gpus_per_server_ < 2)
      Fail(m.self, "hierarchical needs GPU servers: set topology.gpus_per_server (2 or more)");
    std::map<int, int> per_server;
    for (int h : t.hosts) ++per_server[h / gpus_per_server_];
    for (const auto& [s, count] : per_server)
      if (count != per_server.begin()->second)
        Fail(at, fmt::format("hierarchical needs the same number of ranks in every server: "
                             "server {} has {}, server {} has {}",
                             per_server.begin()->first, per_server.begin()->second, s, count));
  }

  // Refuse a collective that would not fit in memory before building it.
  const double flows =
      EstimateCollectiveMessages(c.op, c.algorithm, n, t.size_bytes, c.channels, c.chunk_bytes) *
      c.iterations;
  RefuseTooManyMessages(m, "collective", flows);
}

}  // namespace rocesim::scenario_detail
