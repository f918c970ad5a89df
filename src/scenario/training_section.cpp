// Scenario reader: a `type: aicb_workload` traffic entry (workload/training_loop.h)
// — a SimAI workload file, the ranks that run it and how its collectives run.
#include <fmt/format.h>

#include <bit>
#include <memory>
#include <string>

#include "scenario/yaml_fields.h"
#include "workload/simai_workload.h"
#include "workload/training_loop.h"

namespace rocesim::scenario_detail {

void Reader::ReadTraining(const Map& m, TrafficSpec& t) const {
  CollectiveSpec& c = t.collective;
  const Field file = Require(m, "file", " (a SimAI workload file, as AICB writes them)");
  t.training.file = String(file);
  const std::string path = ResolvePath(file);
  t.file = path;
  std::shared_ptr<SimaiWorkload> w;
  try {
    w = std::make_shared<SimaiWorkload>(ReadSimaiWorkload(path));
  } catch (const SimaiWorkloadError& e) {
    Fail(file, e.what());
  }
  t.training.workload = w;

  c.algorithm = CollectiveAlgorithm::kRing;
  if (auto v = m.Get("algorithm")) {
    const std::string a = OneOf(*v, {"ring", "tree", "halving_doubling"});
    c.algorithm = a == "ring"   ? CollectiveAlgorithm::kRing
                  : a == "tree" ? CollectiveAlgorithm::kTree
                                : CollectiveAlgorithm::kHalvingDoubling;
  }
  // Ranks: as a collective's, but by default the first all_gpus hosts.
  Field at = m.self;
  if (!m.Get("ranks") && !m.Get("servers") && w->all_gpus > 0) {
    if (w->all_gpus > hosts_)
      Fail(file, fmt::format("the workload runs on {} GPUs (all_gpus) but the topology has {} "
                             "hosts",
                             w->all_gpus, hosts_));
    for (int h = 0; h < w->all_gpus; ++h) t.hosts.push_back(h);
  } else {
    at = ReadRanks(m, t);
  }
  const int n = static_cast<int>(t.hosts.size());
  if (w->all_gpus > 0 && n != w->all_gpus)
    Fail(at, fmt::format("{} ranks given, but the workload runs on {} GPUs (all_gpus in {})", n,
                         w->all_gpus, t.training.file));
  if (n % w->tp != 0)
    Fail(at, fmt::format("{} ranks do not divide into tensor-parallel groups of {} "
                         "(model_parallel_NPU_group in {})",
                         n, w->tp, t.training.file));
  if ((n / w->tp) % w->ep != 0)
    Fail(at, fmt::format("the data-parallel groups of {} ranks do not divide into expert groups "
                         "of {} (ep in {})",
                         n / w->tp, w->ep, t.training.file));
  if (n < 2) Fail(at, fmt::format("a training job needs at least two ranks, got {}", n));

  if (auto v = m.Get("channels")) c.channels = IntField(*v, 1, 64);
  if (auto v = m.Get("chunk")) c.chunk_bytes = Size(*v, 1);
  if (auto v = m.Get("iterations")) c.iterations = IntField(*v, 1, 1'000'000);
  c.gpus_per_server = gpus_per_server_;

  // Every AllReduce group must suit the algorithm; the sizes moved per
  // iteration are the job's size.
  t.size_bytes = 0;
  for (const SimaiLayer& l : w->layers)
    for (const SimaiComm* comm : {&l.forward, &l.input_grad, &l.weight_grad}) {
      if (comm->type == SimaiCommType::kNone) continue;
      t.size_bytes += comm->bytes;
      const auto size = static_cast<unsigned>(SimaiGroupSize(comm->group, n, w->tp, w->ep));
      if (comm->type == SimaiCommType::kAllReduce && size > 1 &&
          c.algorithm == CollectiveAlgorithm::kHalvingDoubling && !std::has_single_bit(size))
        Fail(*m.Get("algorithm"),
             fmt::format("halving_doubling needs power-of-two groups, but the AllReduce of layer "
                         "\"{}\" ({}:{}) runs in groups of {}",
                         l.name, t.training.file, l.line, size));
    }
  if (!TrainingMovesData(t))
    Fail(file, fmt::format("the workload moves nothing over the network: every comm its {} loop "
                           "runs is NONE or runs in a group of one rank ({} ranks, tensor-parallel "
                           "{}, expert-parallel {}); a network simulator has no traffic to run",
                           w->loop_name, n, w->tp, w->ep));
  RefuseTooManyMessages(m, "training job", EstimateTrainingMessages(t));
}

}  // namespace rocesim::scenario_detail
