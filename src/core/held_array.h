// A fixed-size array, indexed like a vector, in which only some elements
// exist: those Hold() constructed. A partition of a parallel run
// (sim/partitioned_run.h) numbers ports like the whole fabric does, so that
// frames and events name the same port everywhere, but holds only its own
// nodes' ports and the far ends of its cut links. The storage is one
// anonymous mapping of the whole array: the kernel backs a page only once an
// element on it is written, so the ports a partition does not hold cost
// address space, not memory. A serial run holds every element.
//
// Reading an element that is not held is a bug (the partition does not own
// it); debug builds assert on it.
#pragma once

#include <sys/mman.h>

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <new>
#include <utility>
#include <vector>

#include "core/huge_pages.h"

namespace rocesim {

template <typename T>
class HeldArray {
 public:
  HeldArray() = default;
  HeldArray(const HeldArray&) = delete;
  HeldArray& operator=(const HeldArray&) = delete;
  HeldArray(HeldArray&& o) noexcept { *this = std::move(o); }
  HeldArray& operator=(HeldArray&& o) noexcept {
    if (this != &o) {
      Release();
      data_ = std::exchange(o.data_, nullptr);
      size_ = std::exchange(o.size_, 0);
      held_ = std::move(o.held_);
      o.held_.clear();
    }
    return *this;
  }
  ~HeldArray() { Release(); }

  // `n` slots, none held (any held before are destroyed). `every_slot`: all
  // will be held (a serial run), so every page will be touched and the array
  // asks for huge pages before any is (core/huge_pages.h). A partition's
  // array does not: a 2 MB page would back the slots around the few it holds
  // (k=32 in 8 partitions: 56% more memory).
  void Reset(size_t n, bool every_slot = false) {
    Release();
    if (n == 0) return;
    void* p = mmap(nullptr, Bytes(n), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    if (every_slot) AdviseHugePages(p, Bytes(n));
    data_ = static_cast<T*>(p);
    size_ = n;
    held_.assign(n, 0);
  }
  // `n` slots, every one held.
  void ResetAllHeld(size_t n) {
    Reset(n, true);
    for (size_t i = 0; i < n; ++i) Hold(i);
  }
  // Constructs element `i` (default) unless it is held already.
  T& Hold(size_t i) {
    if (!held_[i]) {
      new (data_ + i) T();
      held_[i] = 1;
    }
    return data_[i];
  }
  bool Held(size_t i) const { return i < size_ && held_[i] != 0; }

  T& operator[](size_t i) {
    assert(Held(i));
    return data_[i];
  }
  const T& operator[](size_t i) const {
    assert(Held(i));
    return data_[i];
  }
  // Slots, held or not: ids run 0 .. size() - 1.
  size_t size() const { return size_; }

  // Iteration visits the held elements only, in index order.
  template <typename A, typename E>
  class Iter {
   public:
    Iter(A* a, size_t i) : a_(a), i_(i) { Skip(); }
    E& operator*() const { return a_->data_[i_]; }
    Iter& operator++() {
      ++i_;
      Skip();
      return *this;
    }
    bool operator==(const Iter& o) const { return i_ == o.i_; }

   private:
    void Skip() {
      while (i_ < a_->size_ && !a_->held_[i_]) ++i_;
    }
    A* a_;
    size_t i_;
  };
  Iter<HeldArray, T> begin() { return {this, 0}; }
  Iter<HeldArray, T> end() { return {this, size_}; }
  Iter<const HeldArray, const T> begin() const { return {this, 0}; }
  Iter<const HeldArray, const T> end() const { return {this, size_}; }

 private:
  static size_t Bytes(size_t n) { return n * sizeof(T); }
  void Release() {
    if (!data_) return;
    for (size_t i = 0; i < size_; ++i)
      if (held_[i]) data_[i].~T();
    munmap(data_, Bytes(size_));
    data_ = nullptr;
    size_ = 0;
    held_.clear();
  }

  T* data_ = nullptr;
  size_t size_ = 0;
  std::vector<uint8_t> held_;  // per slot: constructed
};

}  // namespace rocesim
