// A growable array whose elements never move: storage comes in fixed chunks,
// so a reference to an element stays valid while more are added. Packets and
// their INT stacks live here because handlers keep references to the packet
// they are processing while they allocate new ones (ACKs, CNPs, pauses).
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

namespace rocesim {

template <typename T, unsigned kChunkBits = 12>
class ChunkedVector {
 public:
  static constexpr size_t kChunk = size_t{1} << kChunkBits;

  T& operator[](size_t i) { return chunks_[i >> kChunkBits][i & (kChunk - 1)]; }
  const T& operator[](size_t i) const { return chunks_[i >> kChunkBits][i & (kChunk - 1)]; }
  size_t size() const { return size_; }
  // Grows to at least `n` default-constructed elements.
  void GrowTo(size_t n) {
    while (chunks_.size() * kChunk < n) chunks_.push_back(std::make_unique<T[]>(kChunk));
    if (n > size_) size_ = n;
  }
  T& EmplaceBack() {
    GrowTo(size_ + 1);
    return (*this)[size_ - 1];
  }

 private:
  std::vector<std::unique_ptr<T[]>> chunks_;
  size_t size_ = 0;
};

}  // namespace rocesim
