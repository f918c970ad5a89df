// A growable FIFO ring of small POD entries (power-of-two capacity, never
// shrinks): a wire of a very long link keeps its frames' full arrival times
// here (net/wire.h).
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>
#include <utility>

namespace rocesim {

template <typename T>
class Ring {
  static_assert(std::is_trivially_copyable_v<T>, "ring entries are moved with memcpy");

 public:
  Ring() = default;
  Ring(Ring&& o) noexcept { *this = std::move(o); }
  Ring& operator=(Ring&& o) noexcept {
    buf_ = std::move(o.buf_);
    head_ = o.head_;
    count_ = o.count_;
    mask_ = o.mask_;
    o.head_ = o.count_ = 0;
    o.mask_ = UINT32_MAX;
    return *this;
  }

  bool Empty() const { return count_ == 0; }
  uint32_t Size() const { return count_; }
  // The oldest entry (the ring must not be empty).
  T& Front() { return buf_[head_]; }
  const T& Front() const { return buf_[head_]; }
  // The i-th oldest entry, i < Size().
  const T& operator[](uint32_t i) const { return buf_[(head_ + i) & mask_]; }

  void PushBack(const T& v) {
    // mask_ + 1 is the capacity; it wraps to 0 before the first allocation.
    if (count_ == mask_ + 1) [[unlikely]]
      Grow();
    buf_[(head_ + count_) & mask_] = v;
    ++count_;
  }
  T PopFront() {
    const T v = buf_[head_];
    DropFront();
    return v;
  }
  // Removes the oldest entry without reading it.
  void DropFront() {
    head_ = (head_ + 1) & mask_;
    --count_;
  }

 private:
  static constexpr uint32_t kFirstCapacity = 8;

  // Called when full (or before the first entry): doubles the capacity,
  // unrolling the entries to start at index 0.
  [[gnu::noinline]] void Grow() {
    const uint32_t old_capacity = mask_ + 1;  // 0 before the first allocation
    const uint32_t capacity = old_capacity == 0 ? kFirstCapacity : 2 * old_capacity;
    std::unique_ptr<T[]> bigger(new T[capacity]);
    if (count_ > 0) {
      const uint32_t to_end = old_capacity - head_;
      std::memcpy(bigger.get(), buf_.get() + head_, sizeof(T) * to_end);
      std::memcpy(bigger.get() + to_end, buf_.get(), sizeof(T) * head_);
    }
    buf_ = std::move(bigger);
    head_ = 0;
    mask_ = capacity - 1;
  }

  std::unique_ptr<T[]> buf_;
  uint32_t head_ = 0;
  uint32_t count_ = 0;
  uint32_t mask_ = UINT32_MAX;  // capacity - 1 (UINT32_MAX: no storage yet)
};

}  // namespace rocesim
