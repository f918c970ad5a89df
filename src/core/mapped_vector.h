// A growable array of trivially copyable elements in one anonymous mapping.
// It grows by remapping (the kernel moves the pages, nothing is copied), and
// it can give the pages of a prefix back to the kernel once that prefix has
// been read for the last time: a partitioned run's merge walks the
// partitions' flow tables front to back (sim/partitioned_run.cpp), so the
// merged table does not add to the run's peak memory.
//
// An element whose page was released reads as zero bytes; reading one is a
// bug in the caller, not undefined behaviour.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

namespace rocesim {

template <typename T>
class MappedVector {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                "pages move and vanish under the elements");

 public:
  MappedVector() = default;
  MappedVector(const MappedVector&) = delete;
  MappedVector& operator=(const MappedVector&) = delete;
  MappedVector(MappedVector&& o) noexcept { *this = std::move(o); }
  MappedVector& operator=(MappedVector&& o) noexcept {
    if (this != &o) {
      Unmap();
      data_ = std::exchange(o.data_, nullptr);
      size_ = std::exchange(o.size_, 0);
      capacity_ = std::exchange(o.capacity_, 0);
      released_ = std::exchange(o.released_, 0);
    }
    return *this;
  }
  ~MappedVector() { Unmap(); }

  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }
  bool empty() const { return size_ == 0; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }

  // Room for `n` elements without remapping (address space only until written).
  void reserve(size_t n) {
    if (n <= capacity_) return;
    const size_t bytes = Bytes(n);
    void* p = data_ == nullptr ? mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
                               : mremap(data_, Bytes(capacity_), bytes, MREMAP_MAYMOVE);
    if (p == MAP_FAILED) throw std::bad_alloc();
    data_ = static_cast<T*>(p);
    capacity_ = bytes / sizeof(T);
  }
  // Appends a value-initialised element.
  T& emplace_back() {
    if (size_ == capacity_) reserve(capacity_ < 1024 ? 1024 : capacity_ * 2);
    return *new (data_ + size_++) T();
  }

  // Gives back the pages that hold only elements [0, n): they must not be
  // read again (they read as zeros).
  void ReleaseFront(size_t n) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t bytes = n * sizeof(T) / page * page;
    if (bytes > released_) {
      madvise(reinterpret_cast<char*>(data_) + released_, bytes - released_, MADV_DONTNEED);
      released_ = bytes;
    }
  }

 private:
  // Whole pages: mremap and munmap work on them.
  static size_t Bytes(size_t n) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    return (n * sizeof(T) + page - 1) / page * page;
  }
  void Unmap() {
    if (data_ != nullptr) munmap(data_, Bytes(capacity_));
    data_ = nullptr;
    size_ = capacity_ = released_ = 0;
  }

  T* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
  size_t released_ = 0;  // bytes at the front given back (ReleaseFront)
};

}  // namespace rocesim
