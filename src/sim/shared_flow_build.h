// What the replicas of a partitioned run build alike from the workload, built
// once: the first replica to claim it builds it, the others wait for it and
// share it. On a collective of 718,848 messages that is a 40 MB dependency
// graph, and 70 MB of temporaries and a path walk per message for its ideal
// schedule, that each replica would otherwise spend at once (they are built
// in parallel).
//
// The builder never waits for anything, so a replica waiting here always
// gets the product, or the builder's failure (rethrown to every replica).
#pragma once

#include <atomic>
#include <exception>
#include <future>
#include <memory>
#include <utility>
#include <vector>

#include "core/time.h"
#include "sim/flow_labels.h"
#include "transport/flow_dependencies.h"
#include "transport/flow_table.h"

namespace rocesim {

class SharedFlowBuild {
 public:
  struct Product {
    std::shared_ptr<const FlowDependencies::Graph> deps;  // null: nothing waits
    std::vector<Time> ideals;  // per collective entry (Simulation::CollectiveEntry::ideal)
    std::shared_ptr<const std::vector<FlowEnds>> ends;  // every flow's (FlowTable::SharedEnds)
    std::shared_ptr<const FlowLabels> labels;           // every flow's
  };

  // Whether the caller is the one to build it: the first to ask is.
  bool Claim() { return !claimed_.exchange(true); }
  // The builder: what it built, or why it could not.
  void Give(Product p) {
    given_ = true;
    promise_.set_value(std::move(p));
  }
  void Fail(std::exception_ptr e) {
    if (!given_) promise_.set_exception(std::move(e));
  }
  // The others: waits for the product (throws the builder's failure).
  const Product& Take() const { return future_.get(); }

 private:
  std::atomic<bool> claimed_{false};
  bool given_ = false;  // the builder's own
  std::promise<Product> promise_;
  std::shared_future<Product> future_ = promise_.get_future().share();
};

}  // namespace rocesim
