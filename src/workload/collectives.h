// Collective communication as flows with dependencies (issue "AI training on
// RoCE fabrics"): a `type: collective` traffic entry is one job running
// `iterations` instances of one operation over its ranks (hosts, one GPU and
// its RDMA NIC each). Each instance expands into the point-to-point messages
// its algorithm sends, each waiting (transport/flow_dependencies.h) for the
// data it forwards or reduces to have arrived at its source rank:
//
//   ring              NCCL's ring: rank p sends to rank p+1. AllReduce is a
//                     reduce-scatter then an all-gather, 2(n-1) steps of S/n
//                     bytes (Patarasuk & Yuan 2009; NCCL docs
//                     "Performance: algbw and busbw"); AllGather and
//                     ReduceScatter are one half (n-1 steps of S/n); Broadcast
//                     is the pipelined chain root -> ... -> last (n-1 hops of
//                     S). Step k's message from p waits for step k-1's
//                     message into p.
//   tree              NCCL's double binary tree for AllReduce (Sanders,
//                     Speck & Träff 2009; NCCL 2.4): two binary trees, the
//                     second the mirror of the first, so that a rank is inner
//                     in one and a leaf in the other; each carries half the
//                     data, reduced up to the root and broadcast back down.
//   halving_doubling  Rabenseifner's AllReduce for n a power of two: recursive
//                     halving (reduce-scatter: log2 n steps exchanging S/2,
//                     S/4, ... with the rank at distance n/2, n/4, ...), then
//                     recursive doubling (all-gather) back up. AllGather and
//                     ReduceScatter are its halves.
//   direct            one message per pair: AllToAll (S/n from every rank to
//                     every other: the MoE dispatch), AllGather, ReduceScatter.
//   hierarchical      AllReduce inside each GPU server first (ring
//                     reduce-scatter over its NVLink domain), then across
//                     servers (a ring AllReduce of S/g among the GPUs with the
//                     same local index: one per rail), then inside again
//                     (ring all-gather) — NCCL's 2D / hierarchical scheme.
//
// `channels` runs the algorithm c times side by side on S/c each, as NCCL
// opens several rings or trees; each (channel, source, destination) is one
// connection with its own UDP source port, shared by all its messages, so
// channels spread over ECMP paths while a connection keeps to one path.
// `chunk` pipelines ring, tree and broadcast steps: each step's data moves
// as chunk-sized messages, and chunk j of a step waits only for chunk j of
// the step before.
//
// Simplifications (README "Model notes"): messages of one connection are
// separate QPs that may overlap in time rather than one QP's in-order work
// queue (a rank's next chunk can start while its previous one is still
// leaving, sharing the NIC round-robin, as concurrent NCCL channels do); the
// reduction itself costs no time; iteration i+1 of a rank starts `compute`
// after that rank has finished iteration i (its sends acknowledged, its
// receives complete).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "scenario/scenario.h"

namespace rocesim {

// One instance (iteration) of a job's collective, its flows a contiguous
// range of the entry's flows.
struct CollectiveInstance {
  int iteration = 0;
  uint32_t first_flow = 0;  // entry-local flow indices [first_flow, end_flow)
  uint32_t end_flow = 0;
  int steps = 0;  // algorithm steps (flows carry theirs in CollectivePlan::flow_step)
};

struct CollectivePlan {
  std::vector<FlowSpec> flows;
  std::vector<JoinSpec> joins;
  std::vector<CollectiveInstance> instances;
  std::vector<uint16_t> flow_step;  // per flow: its step within its instance
};

// Expands collective entry `index` (t.kind == kCollective, ranks t.hosts in
// rank order, validated by the scenario reader). Hosts of one GPU server
// (t.collective.gpus_per_server consecutive host ids) are what hierarchical
// groups.
CollectivePlan ExpandCollective(const TrafficSpec& t, size_t index);

// About how many messages one instance of `op` makes over `n` ranks (the
// readers refuse collectives far beyond memory before building them).
double EstimateCollectiveMessages(CollectiveOp op, CollectiveAlgorithm a, int n, int64_t bytes,
                                  int channels, int64_t chunk);

// NCCL's bus-bandwidth factor (busbw = algbw x factor): AllReduce 2(n-1)/n;
// AllGather, ReduceScatter and AllToAll (n-1)/n; Broadcast 1.
double BusBandwidthFactor(CollectiveOp op, int ranks);

std::string_view CollectiveOpName(CollectiveOp op);
std::string_view CollectiveAlgorithmName(CollectiveAlgorithm a);
// Which algorithms carry which operation (the scenario reader's check).
bool CollectiveSupports(CollectiveOp op, CollectiveAlgorithm a);

}  // namespace rocesim
