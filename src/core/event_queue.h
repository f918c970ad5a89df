// The event queue: a calendar queue of 1.024 ns buckets over a 4.2 us
// horizon, backed by a 4-ary heap for events further out (DESIGN.md §5).
//
// A packet-level fabric schedules almost every event a serialization time or
// a link delay ahead, so most pushes land in the near horizon: prepending to
// an unsorted bucket is O(1), and only the bucket being drained is sorted.
// Timers further out (retransmission, congestion-control timers, flow
// arrivals) wait in the overflow heap and join their bucket when the cursor
// reaches it. Events come out in exact canonical (time, kind, arg, target)
// order, so results depend neither on the queue's shape nor on the order in
// which events were scheduled.
//
// The near tier (the next 512 buckets, 524 ns: most events are a frame
// time, 21-84 ns, ahead) keeps each bucket's first 32 events in a fixed
// array: a push is a store at a computed address, and a drain reads
// contiguous lines that the hardware streams in. Farther buckets, and a near
// bucket's events past its array, are singly linked lists threaded through
// one slab of nodes with a LIFO free list (a push writes the node freed
// last, still in cache). Walking a list is a chain of dependent cache misses,
// which is why the near tier holds arrays (bench/NOTES.md, fifth session).
//
// Same-time events come out in canonical order (core/event.h: by kind, arg
// and target), not in scheduling order, so that a partitioned run, whose
// partitions each schedule a part of the events, agrees with the serial one.
// A bucket's events are gathered (overflow heap, far list, near array, near
// spill), stably sorted by time (core/bucket_sort.h, which keys on the time
// alone), and then one insertion pass orders each run of equal times by the
// event's tail (OrderTies): runs are short and usually of length one, so the
// pass is a compare per event. A bucket of at most 8 events (most of them)
// skips both: each event's place is counted directly on (time, tail). An
// event scheduled into the bucket being drained goes into its canonical place
// among the pending ones. Only the overflow heap stores a sequence number
// (SeqEvent), and ring events are 16 bytes.
//
// The drain gathers the bucket back to front into a scratch array, then the
// sort writes it into the end of `current_`; an event pushed into the
// bucket being drained shifts the sorted events before it one slot to the
// left, into the room that pops leave at the front. Push's common case is
// inline; everything rare (the bucket being drained, the overflow heap,
// growing) is out of line.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/bucket_sort.h"
#include "core/dary_heap.h"
#include "core/event.h"

namespace rocesim {

class EventQueue {
 public:
  static constexpr int kBucketBits = 10;    // bucket width 2^10 ps = 1.024 ns
  static constexpr size_t kBuckets = 4096;  // horizon 4096 buckets = 4.19 us

  [[gnu::always_inline]] void Push(Time time, EventKind kind, uint32_t target, uint32_t arg = 0) {
    const uint64_t tail = EventTail(target, arg, kind);
    ++size_;
    ++pushes_;
    const int64_t b = time >> kBucketBits;
    // One unsigned compare each: the bucket lies in (cursor_, cursor_ +
    // kNearBuckets), the near tier, or else in (cursor_, cursor_ + kBuckets).
    const uint64_t ahead = static_cast<uint64_t>(b - cursor_ - 1);
    const size_t slot = static_cast<size_t>(b) & kMask;
    if (ahead < kNearBuckets - 1) [[likely]] {
      const size_t near = static_cast<size_t>(b) & kNearMask;
      const uint8_t count = near_count_[near];
      if (count < kNearCapacity) [[likely]] {
        StoreEvent(&near_[near].events[count], time, tail);
        near_count_[near] = static_cast<uint8_t>(count + 1);
      } else {
        PushList(near_spill_head_[near], time, tail);
      }
      occupied_[slot >> 6] |= uint64_t{1} << (slot & 63);
    } else if (ahead < kBuckets - 1) {
      PushList(head_[slot], time, tail);
      occupied_[slot >> 6] |= uint64_t{1} << (slot & 63);
    } else {
      PushOutsideRing(Event{time, target, arg, kind}, b);
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
  // The event `d` places after the next one to pop, if it is already sorted
  // in the bucket being drained (else null): a look-ahead for prefetching.
  const Event* PeekAhead(size_t d) const {
    return read_ + d < current_.size() ? &current_[read_ + d] : nullptr;
  }

 private:
  static constexpr size_t kMask = kBuckets - 1;
  static constexpr size_t kWords = kBuckets / 64;
  static constexpr uint32_t kNil = UINT32_MAX;
  // The near tier (see the top of the file): its buckets, and the events
  // each keeps in an array before spilling into a list.
  static constexpr size_t kNearBuckets = 512;
  static constexpr size_t kNearMask = kNearBuckets - 1;
  static constexpr size_t kNearCapacity = 32;
  static constexpr size_t kGatherStart = 128;  // grows on demand
  // Buckets of at most this many events skip the rank sort (SmallSortCanonical).
  static constexpr size_t kSmallBucket = 8;
  // Prepends the event (time, tail) to the node list at `head` (lists hold
  // newest first).
  [[gnu::always_inline]] void PushList(uint32_t& head, Time time, uint64_t tail) {
    uint32_t n = free_;
    if (n != kNil) [[likely]] {
      free_ = nodes_[n].next;
    } else {
      n = NewNode();
    }
    StoreEvent(&nodes_[n].event, time, tail);
    nodes_[n].next = head;
    head = n;
  }
  // Lays the list at `head` out in scheduling order in front of gather_[at]
  // (walking it newest first, back to front), frees its nodes and empties it.
  void DrainList(uint32_t& head, size_t& at) {
    uint32_t n = head;
    head = kNil;
    while (n != kNil) {
      if (at == 0) [[unlikely]]
        MakeRoom(at, 1);
      Node& node = nodes_[n];
      gather_[--at] = node.event;
      const uint32_t after = node.next;
      node.next = free_;
      free_ = n;
      n = after;
    }
  }
  // Grows gather_ so that at least `k` free slots lie before `at`, keeping
  // what is gathered in [at, end) at its end.
  [[gnu::noinline]] void MakeRoom(size_t& at, size_t k) {
    const size_t gathered = gather_.size() - at;
    std::vector<Event> bigger(std::max(gathered + k, 2 * gather_.size()));
    std::copy(gather_.begin() + static_cast<std::ptrdiff_t>(at), gather_.end(),
              bigger.end() - static_cast<std::ptrdiff_t>(gathered));
    gather_.swap(bigger);
    at = gather_.size() - gathered;
  }

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
  // at least a frame time ahead) goes into its canonical place among the
  // pending events.
  void PushCurrent(const Event& e) {
    if (read_ == 0) Grow(current_.size() + 1);
    auto at = std::upper_bound(current_.begin() + static_cast<std::ptrdiff_t>(read_),
                               current_.end(), e, EventBefore);
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
  // overflow heap): gathers its events in scheduling order at the end of
  // gather_, then sorts them into the end of current_ (every event of
  // current_ has been popped when this is called).
  [[gnu::noinline]] void AdvanceCursor() {
    int64_t next = NextOccupied();
    if (!overflow_.Empty()) next = std::min(next, overflow_.Top().event.time >> kBucketBits);
    cursor_ = next;
    size_t at = gather_.size();  // filled back to front, so latest-scheduled first
    const size_t slot = static_cast<size_t>(next) & kMask;
    if (occupied_[slot >> 6] >> (slot & 63) & 1) {
      occupied_[slot >> 6] &= ~(uint64_t{1} << (slot & 63));
      const size_t near = static_cast<size_t>(next) & kNearMask;
      // The common case, a bucket wholly in its near array: sorted from there.
      if (near_spill_head_[near] == kNil && head_[slot] == kNil &&
          (overflow_.Empty() || (overflow_.Top().event.time >> kBucketBits) != next)) {
        SortIntoCurrent(near_[near].events.data(), near_count_[near]);
        near_count_[near] = 0;
        return;
      }
      // Latest first: the near tier's spill, its array, then the far list
      // (pushed while the bucket lay beyond the near tier, so before any of
      // the near tier's events).
      DrainList(near_spill_head_[near], at);
      if (const size_t count = near_count_[near]) {
        near_count_[near] = 0;
        if (at < count) MakeRoom(at, count);
        at -= count;
        std::copy_n(near_[near].events.begin(), count,
                    gather_.begin() + static_cast<std::ptrdiff_t>(at));
      }
      DrainList(head_[slot], at);
    }
    // The bucket's overflow events were scheduled before its ring events: in
    // front of them, in (time, seq) order.
    if (!overflow_.Empty() && (overflow_.Top().event.time >> kBucketBits) == next) {
      spill_.clear();
      while (!overflow_.Empty() && (overflow_.Top().event.time >> kBucketBits) == next)
        spill_.push_back(overflow_.Pop().event);
      if (at < spill_.size()) MakeRoom(at, spill_.size());
      at -= spill_.size();
      std::copy(spill_.begin(), spill_.end(), gather_.begin() + static_cast<std::ptrdiff_t>(at));
    }
    SortIntoCurrent(gather_.data() + at, gather_.size() - at);
  }

  // Lays the drained bucket's events src[0, n) (in scheduling order) out
  // sorted at the end of current_, all of whose events have been popped.
  void SortIntoCurrent(const Event* src, size_t n) {
    if (n == 1) {  // a sparse fabric's usual bucket (current_ is never empty)
      read_ = current_.size() - 1;
      current_[read_] = src[0];
      return;
    }
    if (current_.size() < n) current_.resize(std::max(n, 2 * current_.size()));
    read_ = current_.size() - n;
    Event* dst = current_.data() + read_;
    if (n <= kSmallBucket) {
      SmallSortCanonical(src, n, dst);
      return;
    }
    SortBucketByTime<kBucketBits>(src, n, dst);
    OrderTies(dst, n);
  }

  // Writes src[0, n) to dst[0, n) in canonical order: each event's rank is
  // the number of events that precede it, counted with branch-free 128-bit
  // compares of (time, tail). For the few events of a sparse bucket (a
  // partition of a parallel run drains about twice as many buckets per event
  // as the serial run) this is cheaper than the rank sort's fixed cost of
  // keys, ranks and a tie pass, and unlike an insertion sort it has no
  // data-dependent branch to mispredict (bench/NOTES.md, fourteenth
  // session). Equal keys are the same event; an earlier one counts as
  // preceding, so the ranks are a permutation.
  static void SmallSortCanonical(const Event* src, size_t n, Event* dst) {
    std::array<unsigned __int128, kSmallBucket> key;
    for (size_t i = 0; i < n; ++i)
      key[i] =
          static_cast<unsigned __int128>(static_cast<uint64_t>(src[i].time)) << 64 | TailOf(src[i]);
    for (size_t i = 0; i < n; ++i) {
      size_t rank = 0;
      for (size_t j = 0; j < i; ++j) rank += key[j] <= key[i];
      for (size_t j = i + 1; j < n; ++j) rank += key[j] < key[i];
      dst[rank] = src[i];
    }
  }

  // Orders each run of equal times in the time-sorted e[0, n) by the events'
  // tails: the canonical same-time order (core/event.h). An insertion pass,
  // which costs one compare per event when no two times tie.
  static void OrderTies(Event* e, size_t n) {
    for (size_t i = 1; i < n; ++i) {
      if (e[i].time != e[i - 1].time || TailOf(e[i - 1]) <= TailOf(e[i])) [[likely]]
        continue;
      const Event moving = e[i];
      const uint64_t tail = TailOf(moving);
      size_t j = i;
      do {
        e[j] = e[j - 1];
        --j;
      } while (j > 0 && e[j - 1].time == moving.time && TailOf(e[j - 1]) > tail);
      e[j] = moving;
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

  struct Node {
    Event event;
    uint32_t next;
  };
  static std::array<uint32_t, kBuckets> EmptyHeads() {
    std::array<uint32_t, kBuckets> h;
    h.fill(kNil);
    return h;
  }
  static std::array<uint32_t, kNearBuckets> EmptyNearHeads() {
    std::array<uint32_t, kNearBuckets> h;
    h.fill(kNil);
    return h;
  }
  std::vector<Node> nodes_;                             // every ring bucket's events
  uint32_t free_ = kNil;                                // free list through Node::next
  std::array<uint32_t, kBuckets> head_ = EmptyHeads();  // per ring bucket: first node
  // Near tier, per bucket index mod kNearBuckets: its events in scheduling
  // order, their count, and the list of those beyond kNearCapacity.
  struct alignas(64) NearBucket {
    std::array<Event, kNearCapacity> events;
  };
  std::vector<NearBucket> near_ = std::vector<NearBucket>(kNearBuckets);
  std::array<uint8_t, kNearBuckets> near_count_{};
  std::array<uint32_t, kNearBuckets> near_spill_head_ = EmptyNearHeads();
  std::array<uint64_t, kWords> occupied_{};
  // The bucket at `cursor_`, sorted, in [read_, end); what is before read_ is free.
  std::vector<Event> current_ = std::vector<Event>(kGatherStart);
  // AdvanceCursor's scratch: the bucket's events in scheduling order, at its end.
  std::vector<Event> gather_ = std::vector<Event>(kGatherStart);
  size_t read_ = kGatherStart;  // nothing pending yet
  std::vector<Event> spill_;    // AdvanceCursor's scratch for overflow events
  int64_t cursor_ = 0;          // absolute bucket index of current_
  DaryHeap overflow_;           // events beyond the horizon
  size_t size_ = 0;
  uint64_t pushes_ = 0;
};

}  // namespace rocesim
