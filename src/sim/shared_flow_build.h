// What the replicas of a partitioned run build alike from the workload, built
// once: the first replica to claim it builds it, the others wait for it and
// share it. On a collective of 718,848 messages that is a 40 MB dependency
// graph, and 70 MB of temporaries and a path walk per message for its ideal
// schedule, that each replica would otherwise spend at once (they are built
// in parallel). Built as sim/built_once.h says.
#pragma once

#include <memory>
#include <vector>

#include "core/time.h"
#include "sim/built_once.h"
#include "sim/flow_labels.h"
#include "transport/flow_dependencies.h"
#include "transport/flow_table.h"

namespace rocesim {

struct SharedFlowProduct {
  std::shared_ptr<const FlowDependencies::Graph> deps;  // null: nothing waits
  std::vector<Time> ideals;  // per collective entry (Simulation::CollectiveEntry::ideal)
  std::shared_ptr<const std::vector<FlowEnds>> ends;  // every flow's (FlowTable::SharedEnds)
  std::shared_ptr<const FlowLabels> labels;           // every flow's
};

using SharedFlowBuild = BuiltOnce<SharedFlowProduct>;

}  // namespace rocesim
