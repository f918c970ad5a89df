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
//
// The drained bucket is laid out at the *end* of `current_`, filled back to
// front while its list is walked (latest-scheduled first), so it lands in
// scheduling order without a reversal pass; an event pushed into it shifts
// the already-sorted events before it one slot to the left, into the room
// that pops leave at the front. Push's common case is inline; everything
// rare (the bucket being drained, the overflow heap, growing) is out of line.
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

  [[gnu::always_inline]] void Push(Time time, EventKind kind, uint32_t target, uint32_t arg = 0) {
    const Event e{time, target, arg, kind};
    ++size_;
    ++pushes_;
    const int64_t b = time >> kBucketBits;
    // One unsigned compare: the bucket lies in (cursor_, cursor_ + kBuckets).
    if (static_cast<uint64_t>(b - cursor_ - 1) < kBuckets - 1) [[likely]] {
      const size_t slot = static_cast<size_t>(b) & kMask;
      uint32_t n = free_;
      if (n != kNil) [[likely]] {
        free_ = nodes_[n].next;
      } else {
        n = NewNode();
      }
      nodes_[n] = Node{e, head_[slot]};
      head_[slot] = n;
      occupied_[slot >> 6] |= uint64_t{1} << (slot & 63);
    } else {
      PushOutsideRing(e, b);
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
  // The simulation loop's step: pops the earliest event into `*e` if there is
  // one at or before `until`.
  [[gnu::always_inline]] bool PopUntil(Time until, Event* e) {
    if (read_ == current_.size()) [[unlikely]] {
      if (size_ == 0) return false;
      AdvanceCursor();
    }
    const Event& top = current_[read_];
    if (top.time > until) return false;
    *e = top;
    ++read_;
    --size_;
    return true;
  }
  uint64_t Scheduled() const { return pushes_; }

 private:
  static constexpr size_t kMask = kBuckets - 1;
  static constexpr size_t kWords = kBuckets / 64;
  static constexpr uint32_t kNil = UINT32_MAX;
  // A bucket of up to 8 events is sorted by insertion alone; up to 64 events
  // are first spread stably over 32 sub-slots of 32 ps by counting (linear,
  // no data-dependent branch) so that the insertion pass finds them nearly in
  // order; more (rare) go to std::stable_sort. Buckets hold ~5 events on the
  // k8 benchmark, ~14 (up to ~30) on fat320 with its 400G links.
  static constexpr size_t kInsertionSortMax = 8;
  static constexpr size_t kCountingSortMax = 64;
  static constexpr int kSubSlotBits = 5;

  [[gnu::noinline]] uint32_t NewNode() {
    nodes_.emplace_back();
    return static_cast<uint32_t>(nodes_.size() - 1);
  }

  [[gnu::noinline]] void PushOutsideRing(const Event& e, int64_t b) {
    if (b <= cursor_) {
      PushCurrent(e);
    } else {
      overflow_.Push(SeqEvent{e, pushes_});
    }
  }

  // An event for the bucket being drained (rare: most events are scheduled
  // at least a frame time ahead) goes into its sorted place. It was
  // scheduled after everything in the bucket: after all of its time.
  void PushCurrent(const Event& e) {
    if (read_ == 0) Grow(current_.size() + 1);
    auto at =
        std::upper_bound(current_.begin() + static_cast<std::ptrdiff_t>(read_), current_.end(), e,
                         [](const Event& a, const Event& b) { return a.time < b.time; });
    // Everything before `at` moves one slot towards the front.
    const auto front = current_.begin() + static_cast<std::ptrdiff_t>(read_);
    std::move(front, at, front - 1);
    *(at - 1) = e;
    --read_;
  }

  // Makes `current_` at least `size` long, keeping its pending events at its end.
  [[gnu::noinline]] void Grow(size_t size) {
    const size_t pending = current_.size() - read_;
    std::vector<Event> bigger(std::max(size, 2 * current_.size() + 16));
    std::copy(current_.begin() + static_cast<std::ptrdiff_t>(read_), current_.end(),
              bigger.end() - static_cast<std::ptrdiff_t>(pending));
    current_.swap(bigger);
    read_ = current_.size() - pending;
  }

  // Moves the cursor to the earliest non-empty bucket (from the ring or the
  // overflow heap) and lays its events out, sorted, at the end of `current_`.
  [[gnu::noinline]] void AdvanceCursor() {
    int64_t next = NextOccupied();
    if (!overflow_.Empty()) next = std::min(next, overflow_.Top().event.time >> kBucketBits);
    cursor_ = next;
    size_t at = current_.size();  // filled back to front, so latest-scheduled first
    const size_t slot = static_cast<size_t>(next) & kMask;
    if (occupied_[slot >> 6] >> (slot & 63) & 1) {
      occupied_[slot >> 6] &= ~(uint64_t{1} << (slot & 63));
      uint32_t n = head_[slot];
      head_[slot] = kNil;
      while (n != kNil) {
        if (at == 0) [[unlikely]] {
          read_ = 0;
          Grow(current_.size() - at + 1);
          at = read_;
        }
        Node& node = nodes_[n];
        current_[--at] = node.event;
        const uint32_t after = node.next;
        node.next = free_;
        free_ = n;
        n = after;
      }
    }
    // The bucket's overflow events were scheduled before its ring events: in
    // front of them, in (time, seq) order.
    if (!overflow_.Empty() && (overflow_.Top().event.time >> kBucketBits) == next) {
      spill_.clear();
      while (!overflow_.Empty() && (overflow_.Top().event.time >> kBucketBits) == next)
        spill_.push_back(overflow_.Pop().event);
      if (at < spill_.size()) {
        read_ = at;
        Grow(current_.size() - at + spill_.size());
        at = read_;
      }
      at -= spill_.size();
      std::copy(spill_.begin(), spill_.end(), current_.begin() + static_cast<std::ptrdiff_t>(at));
    }
    read_ = at;
    SortByTimeStable();
  }

  // [read_, end) holds the bucket in scheduling order: sort it by time,
  // stably (equal times keep their scheduling order).
  void SortByTimeStable() {
    Event* const a = current_.data() + read_;
    const size_t n = current_.size() - read_;
    if (n > kInsertionSortMax) {
      if (n > kCountingSortMax) [[unlikely]] {
        std::stable_sort(a, a + n, [](const Event& x, const Event& y) { return x.time < y.time; });
        return;
      }
      SpreadOverSubSlots(a, n);
    }
    for (size_t i = 1; i < n; ++i) {
      if (a[i - 1].time <= a[i].time) continue;  // already in place (the common case)
      const Event e = a[i];
      size_t j = i;
      do {
        a[j] = a[j - 1];
        --j;
      } while (j > 0 && a[j - 1].time > e.time);
      a[j] = e;
    }
  }

  // Stable counting sort of a[0, n) by the sub-slot of the bucket their time
  // falls in: the same order as sorting by time, but for events of one sub-slot.
  static void SpreadOverSubSlots(Event* a, size_t n) {
    constexpr int kShift = kBucketBits - kSubSlotBits;
    constexpr size_t kSlots = size_t{1} << kSubSlotBits;
    std::array<uint8_t, kSlots + 1> start{};
    for (size_t i = 0; i < n; ++i) ++start[((a[i].time >> kShift) & (kSlots - 1)) + 1];
    for (size_t s = 1; s <= kSlots; ++s) start[s] += start[s - 1];
    std::array<Event, kCountingSortMax> spread;
    for (size_t i = 0; i < n; ++i) spread[start[(a[i].time >> kShift) & (kSlots - 1)]++] = a[i];
    std::copy(spread.begin(), spread.begin() + static_cast<std::ptrdiff_t>(n), a);
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
  // The bucket at `cursor_`, sorted, in [read_, end); what is before read_ is free.
  std::vector<Event> current_;
  size_t read_ = 0;
  std::vector<Event> spill_;  // AdvanceCursor's scratch for overflow events
  int64_t cursor_ = 0;        // absolute bucket index of current_
  DaryHeap overflow_;         // events beyond the horizon
  size_t size_ = 0;
  uint64_t pushes_ = 0;
};

}  // namespace rocesim
