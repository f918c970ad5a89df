// The event queue: a 4-ary min-heap of small POD events ordered by (time, seq).
// `seq` is a global insertion counter, so events at the same picosecond fire in
// the order they were scheduled: runs are deterministic without any tie-break
// on pointers or hashes (DESIGN.md §5).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/time.h"

namespace rocesim {

// What an event does; `target` and `arg` are interpreted per kind.
enum class EventKind : uint8_t {
  kLinkArrive,  // target: transmitting port; the frame at its wire head arrives
  kPortWake,    // target: port; try to start the next transmission
  kPfcRefresh,  // target: switch port; arg: priority; re-send XOFF if still congested
  kFlowStart,   // target: position in the arrival order (Simulation::start_order_)
  kQpTimeout,   // target: flow id; retransmission timer
  kMonitor,     // periodic sampling
  kCcTimer,     // target: flow id; arg: timer id (congestion-control timers)
  kAckTimer,     // target: flow id; the responder's coalesced-ACK deadline
};

struct Event {
  Time time;
  uint64_t seq;
  uint32_t target;
  uint32_t arg : 24;  // small: a priority or a timer index
  EventKind kind : 8;

  // (time, seq) as one 128-bit key: a single wide compare on the hot path.
  unsigned __int128 Key() const {
    return static_cast<unsigned __int128>(static_cast<uint64_t>(time)) << 64 | seq;
  }
  bool Before(const Event& o) const { return Key() < o.Key(); }
};
static_assert(sizeof(Event) == 24, "events stay small: the heap moves them on every push/pop");

class EventQueue {
 public:
  void Push(Time time, EventKind kind, uint32_t target, uint32_t arg = 0) {
    heap_.push_back(Event{time, next_seq_++, target, arg, kind});
    SiftUp(heap_.size() - 1);
  }
  bool Empty() const { return heap_.empty(); }
  size_t Size() const { return heap_.size(); }
  const Event& Top() const { return heap_.front(); }
  Event Pop() {
    Event top = heap_.front();
    Event last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) SiftDown(last);
    return top;
  }
  uint64_t Scheduled() const { return next_seq_; }

 private:
  static constexpr size_t kArity = 4;

  void SiftUp(size_t i) {
    Event e = heap_[i];
    while (i > 0) {
      size_t parent = (i - 1) / kArity;
      if (!e.Before(heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = e;
  }
  // Places `e` (the former last element) starting from the root.
  void SiftDown(const Event& e) {
    const size_t n = heap_.size();
    size_t i = 0;
    for (;;) {
      size_t first = i * kArity + 1;
      if (first >= n) break;
      size_t best = first;
      size_t end = first + kArity < n ? first + kArity : n;
      for (size_t c = first + 1; c < end; ++c)
        if (heap_[c].Before(heap_[best])) best = c;
      if (!heap_[best].Before(e)) break;
      heap_[i] = heap_[best];
      i = best;
    }
    heap_[i] = e;
  }

  std::vector<Event> heap_;
  uint64_t next_seq_ = 0;
};

}  // namespace rocesim
