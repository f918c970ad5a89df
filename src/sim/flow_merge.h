// After a partitioned run: one table of the flows from the partitions' own
// (sim/partitioned_run.h). A partition holds the flows its hosts send or
// receive (transport/flow_table.h); the merged flow is the sender's
// partition's (what the flow is, and its requester's side) with the
// responder's side from the receiver's.
#pragma once

#include <cstdint>
#include <vector>

#include "transport/flow_table.h"

namespace rocesim {

// `tables`: this rank's partitions' tables; `host_table[h]`: the index in
// `tables` of the partition that holds host h, or -1 when another rank's
// does. Returns every flow when every host is here, else the flows with an
// end here (MPI: RankExchange::MergeInto brings the rest to rank 0).
//
// The walk goes in id order and gives back each table's memory behind it
// (FlowTable::ReleaseFront), so the merged table does not raise the run's
// peak: the tables must not be read afterwards.
FlowTable MergeFlows(const std::vector<FlowTable*>& tables, const std::vector<int>& host_table);

}  // namespace rocesim
