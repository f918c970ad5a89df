// The event queue: a calendar queue of 1.024 ns buckets over a 4.2 us
// horizon, backed by a 4-ary heap for events further out (DESIGN.md §5).
//
// A packet-level fabric schedules almost every event a serialization time or
// a link delay ahead, so most pushes land in the near horizon: prepending to
// an unsorted bucket is O(1), and only the bucket being drained is sorted.
// Timers further out (retransmission, congestion-control timers, flow
// arrivals) wait in the overflow heap and join their bucket when the cursor
// reaches it. Events come out in exact (time, seq) order — the same order as
// a single heap — so results do not depend on the queue's shape.
//
// Buckets are singly linked lists threaded through one slab of nodes with a
// LIFO free list, not a vector each: a push then writes the node freed last
// (still in cache) and one 4-byte head in a 16 KB array, instead of growing
// one of 4,096 separately allocated vectors that are mostly cold.
//
// The tie-break needs no per-event counter in the ring: a bucket's list
// holds its events in scheduling order (reversed), and every event of that
// bucket still in the overflow heap was scheduled before any of them (it was
// scheduled while the bucket lay beyond the horizon, and the cursor only
// moves forward). So the drained bucket is [its overflow events in (time,
// seq) order] + [its ring events in scheduling order], stably sorted by time;
// and an event scheduled into the bucket being drained is the latest of all,
// so it goes after every event of its time. Only the overflow heap stores a
// sequence number (SeqEvent), and ring events are 16 bytes.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/dary_heap.h"
#include "core/event.h"

namespace rocesim {

class EventQueue {
 public:
  static constexpr int kBucketBits = 10;    // bucket width 2^10 ps = 1.024 ns
  static constexpr size_t kBuckets = 4096;  // horizon 4096 buckets = 4.19 us

  void Push(Time time, EventKind kind, uint32_t target, uint32_t arg = 0) {
    const Event e{time, target, arg, kind};
    const uint64_t seq = next_seq_++;
    ++size_;
    const int64_t b = time >> kBucketBits;
    if (b <= cursor_) {
      PushCurrent(e);
    } else if (b < cursor_ + static_cast<int64_t>(kBuckets)) {
      const size_t slot = static_cast<size_t>(b) & kMask;
      uint32_t n = free_;
      if (n != kNil) {
        free_ = nodes_[n].next;
      } else {
        n = static_cast<uint32_t>(nodes_.size());
        nodes_.emplace_back();
      }
      nodes_[n] = Node{e, head_[slot]};
      head_[slot] = n;
      occupied_[slot >> 6] |= uint64_t{1} << (slot & 63);
    } else {
      overflow_.Push(SeqEvent{e, seq});
    }
  }
  bool Empty() const { return size_ == 0; }
  size_t Size() const { return size_; }
  // The earliest event (the queue must not be empty). May move the cursor to
  // the next non-empty bucket, which is invisible to the caller.
  const Event& Top() {
    if (read_ == current_.size()) AdvanceCursor();
    return current_[read_];
  }
  Event Pop() {
    if (read_ == current_.size()) AdvanceCursor();
    --size_;
    return current_[read_++];
  }
  uint64_t Scheduled() const { return next_seq_; }

 private:
  static constexpr size_t kMask = kBuckets - 1;
  // An event for the bucket being drained (rare: most events are scheduled
  // at least a frame time ahead) goes into its sorted place.
  // It was scheduled after everything in the bucket: after all of its time.
  void PushCurrent(const Event& e) {
    auto it =
        std::upper_bound(current_.begin() + static_cast<std::ptrdiff_t>(read_), current_.end(), e,
                         [](const Event& a, const Event& b) { return a.time < b.time; });
    current_.insert(it, e);
  }

  // Moves the cursor to the earliest non-empty bucket (from the ring or the
  // overflow heap) and makes its events the current heap.
  void AdvanceCursor() {
    int64_t next = NextOccupied();
    if (!overflow_.Empty()) next = std::min(next, overflow_.Top().event.time >> kBucketBits);
    cursor_ = next;
    current_.clear();
    read_ = 0;
    // First the bucket's overflow events (scheduled before its ring events).
    while (!overflow_.Empty() && (overflow_.Top().event.time >> kBucketBits) == next)
      current_.push_back(overflow_.Pop().event);
    const size_t slot = static_cast<size_t>(next) & kMask;
    if (occupied_[slot >> 6] >> (slot & 63) & 1) {
      occupied_[slot >> 6] &= ~(uint64_t{1} << (slot & 63));
      const size_t first = current_.size();
      uint32_t n = head_[slot];
      head_[slot] = kNil;
      while (n != kNil) {
        Node& node = nodes_[n];
        current_.push_back(node.event);
        const uint32_t after = node.next;
        node.next = free_;
        free_ = n;
        n = after;
      }
      std::reverse(current_.begin() + static_cast<std::ptrdiff_t>(first), current_.end());
    }
    SortByTimeStable();
  }

  // A bucket holds a handful of events: an insertion sort (stable, so equal
  // times keep their scheduling order), falling back to std::stable_sort for
  // the rare crowded bucket.
  void SortByTimeStable() {
    const size_t n = current_.size();
    if (n > 32) {
      std::stable_sort(current_.begin(), current_.end(),
                       [](const Event& a, const Event& b) { return a.time < b.time; });
      return;
    }
    for (size_t i = 1; i < n; ++i) {
      const Event e = current_[i];
      size_t j = i;
      while (j > 0 && current_[j - 1].time > e.time) {
        current_[j] = current_[j - 1];
        --j;
      }
      current_[j] = e;
    }
  }

  // The absolute index of the first occupied ring bucket after the cursor,
  // or INT64_MAX. Ring buckets only hold indices in (cursor_, cursor_ + kBuckets).
  int64_t NextOccupied() const {
    const size_t start = static_cast<size_t>(cursor_ + 1) & kMask;
    for (size_t i = 0; i <= kWords; ++i) {
      const size_t word = ((start >> 6) + i) % kWords;
      uint64_t bits = occupied_[word];
      if (i == 0) bits &= ~uint64_t{0} << (start & 63);            // at or after start
      if (i == kWords) bits &= (uint64_t{1} << (start & 63)) - 1;  // wrapped: before start
      if (bits == 0) continue;
      const size_t slot = word * 64 + static_cast<size_t>(std::countr_zero(bits));
      return cursor_ + 1 + static_cast<int64_t>((slot - start) & kMask);
    }
    return INT64_MAX;
  }

  static constexpr size_t kWords = kBuckets / 64;
  static constexpr uint32_t kNil = UINT32_MAX;
  struct Node {
    Event event;
    uint32_t next;
  };
  static std::array<uint32_t, kBuckets> EmptyHeads() {
    std::array<uint32_t, kBuckets> h;
    h.fill(kNil);
    return h;
  }
  std::vector<Node> nodes_;                             // every ring bucket's events
  uint32_t free_ = kNil;                                // free list through Node::next
  std::array<uint32_t, kBuckets> head_ = EmptyHeads();  // per ring bucket: first node
  std::array<uint64_t, kWords> occupied_{};
  std::vector<Event> current_;  // the bucket at `cursor_`, sorted; [read_, end) pending
  size_t read_ = 0;
  int64_t cursor_ = 0;  // absolute bucket index of current_
  DaryHeap overflow_;   // events beyond the horizon
  size_t size_ = 0;
  uint64_t next_seq_ = 0;
};

}  // namespace rocesim
