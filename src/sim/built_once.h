// Something several replicas of a partitioned run would build alike, built
// by one: the first to claim it builds it and gives it (or its failure), the
// others wait for it and share it. The flows' shared build
// (sim/shared_flow_build.h) and a link_down's recomputed routes
// (sim/shared_routes.h) are built this way.
//
// The builder must never wait for anything before it gives, so a replica
// waiting here always gets the product, or the builder's failure (rethrown
// to every replica).
#pragma once

#include <atomic>
#include <exception>
#include <future>
#include <utility>

namespace rocesim {

template <class T>
class BuiltOnce {
 public:
  using Product = T;

  // Whether the caller is the one to build it: the first to ask is.
  bool Claim() { return !claimed_.exchange(true); }
  // The builder: what it built, or why it could not.
  void Give(T p) {
    given_ = true;
    promise_.set_value(std::move(p));
  }
  void Fail(std::exception_ptr e) {
    if (!given_) promise_.set_exception(std::move(e));
  }
  // The others (and the builder): waits for the product (throws the
  // builder's failure).
  const T& Take() const { return future_.get(); }

 private:
  std::atomic<bool> claimed_{false};
  bool given_ = false;  // the builder's own
  std::promise<T> promise_;
  std::shared_future<T> future_ = promise_.get_future().share();
};

}  // namespace rocesim
