// Training iterations from a SimAI workload file (workload/simai_workload.h)
// as dependent flows: a `type: aicb_workload` traffic entry. Every rank (a
// GPU and its NIC; rank i is the entry's i-th host) runs SimAI's training
// loop (astra-sim Workload.cc) on its own clock, one operation after the
// other:
//
//   HYBRID_TRANSFORMER(_FWD_IN_BCKWD), per iteration:
//     forward,  layer 0 .. L-1: wait until this layer's weight-gradient comm
//               of the previous iteration is done at the rank; forward
//               compute; forward comm (blocking: the rank goes on once its
//               part of the collective is done)
//     backward, layer L-1 .. 0: input-gradient compute; input-gradient comm
//               (blocking); weight-gradient compute; weight-gradient comm
//               (non-blocking: it overlaps what follows)
//   DATA: forward computes only; backward L-1 .. 0: weight-gradient compute,
//     its comm (non-blocking), then the input-gradient compute (not for
//     layer 0).
//   MICRO: each line's weight-gradient comm in turn, blocking. (SimAI runs
//     only the first line's, `passes` times at once; AICB writes the lines
//     as a sweep of sizes, which is what this runs.)
//
// Groups, as Megatron lays ranks out at pp = 1 (tp = model_parallel_NPU_group,
// dp = ranks / tp): the tensor-parallel group of rank r is the tp
// consecutive ranks holding r; its data-parallel group the dp ranks with r's
// index r mod tp; an expert group `ep` consecutive members of the
// data-parallel group; a data-expert group the dp / ep members of the
// data-parallel group at r's position within its expert group. A comm in a
// group of one rank moves nothing and is skipped.
//
// Each comm runs in every group of its kind at once, by the algorithms of
// workload/collectives.h: AllReduce by the entry's `algorithm` (ring, tree or
// halving_doubling), AllGather and ReduceScatter by ring, AllToAll direct,
// Broadcast by chain from the group's first rank. Each group kind is its own
// communicator: its connections (QPs, source ports) are its own.
//
// Simplifications (README "Model notes"): a comm smaller than 2 x channels x
// group size bytes is sent as that many (every message carries a byte); the
// weight-update time is read but not waited for (as in SimAI); compute a
// rank does before its first comm delays that comm's messages (their start)
// rather than a completion of the rank's own, so a rank that only receives in
// its first comm (a broadcast's last rank) may finish it before its compute.
#pragma once

#include <cstddef>
#include <vector>

#include "workload/collectives.h"
#include "workload/simai_workload.h"

namespace rocesim {

// The members of each group of kind `g` (each in rank order), for `ranks`
// ranks in groups of tensor-parallel size `tp` and expert size `ep`. Ranks
// must be a multiple of tp, and ranks / tp of ep.
std::vector<std::vector<int>> SimaiGroups(SimaiGroup g, int ranks, int tp, int ep);
// The size of each of those groups.
int SimaiGroupSize(SimaiGroup g, int ranks, int tp, int ep);

// Expands training entry `index` (t.kind == kTraining): one instance per
// iteration, its steps the comms in the order the ranks issue them.
CollectivePlan ExpandTraining(const TrafficSpec& t, size_t index);

// Whether any comm the entry's loop issues runs in a group of two ranks or
// more: a job whose comms all run in groups of one (a DATA loop whose
// data-parallel groups hold one rank each, say) moves nothing over the
// network, and the reader refuses it.
bool TrainingMovesData(const TrafficSpec& t);

// About how many messages (flows) ExpandTraining makes: the reader refuses
// an entry far beyond memory before building it.
double EstimateTrainingMessages(const TrafficSpec& t);

}  // namespace rocesim
