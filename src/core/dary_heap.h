// A 4-ary min-heap of events by (time, seq), `seq` being the event queue's
// scheduling counter: shallow (log4 n levels) and cache-friendly (the four
// children of a node share a cache line or two).
#pragma once

#include <cstddef>
#include <vector>

#include "core/event.h"

namespace rocesim {

// An event with its scheduling number, ordered by (time, seq) as one
// 128-bit key: a single wide compare on the hot path.
struct SeqEvent {
  Event event;
  uint64_t seq;

  unsigned __int128 Key() const {
    return static_cast<unsigned __int128>(static_cast<uint64_t>(event.time)) << 64 | seq;
  }
  bool Before(const SeqEvent& o) const { return Key() < o.Key(); }
};

class DaryHeap {
 public:
  void Push(const SeqEvent& e) {
    heap_.push_back(e);
    SiftUp(heap_.size() - 1);
  }
  bool Empty() const { return heap_.empty(); }
  size_t Size() const { return heap_.size(); }
  const SeqEvent& Top() const { return heap_.front(); }
  SeqEvent Pop() {
    SeqEvent top = heap_.front();
    SeqEvent last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) SiftDown(last);
    return top;
  }

 private:
  static constexpr size_t kArity = 4;

  void SiftUp(size_t i) {
    SeqEvent e = heap_[i];
    while (i > 0) {
      size_t parent = (i - 1) / kArity;
      if (!e.Before(heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = e;
  }
  // Places `e` (the former last element) starting from the root.
  void SiftDown(const SeqEvent& e) {
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

  std::vector<SeqEvent> heap_;
};

}  // namespace rocesim
