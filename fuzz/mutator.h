// Deterministic mutations of text inputs for rocesim's fuzzer (issue
// "Trustworthy at any input"): the byte-level edits of a mutation fuzzer
// (flip, insert, erase, duplicate), line edits that keep most of a
// structured file intact (drop, repeat, swap lines), token swaps into
// values parsers get wrong (negative, zero, huge, NaN, empty, invalid
// UTF-8, deep nesting) and splices of two corpus inputs. Seeded, so a run
// with the same seed and corpus repeats exactly.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace rocesim::fuzz {

class Mutator {
 public:
  explicit Mutator(uint64_t seed) : rng_(seed) {}

  // `base` with 1-4 mutations; `other` (another corpus input) for splices.
  std::string Mutate(const std::string& base, const std::string& other);

 private:
  size_t Below(size_t n) {
    return n == 0 ? 0 : std::uniform_int_distribution<size_t>(0, n - 1)(rng_);
  }
  void MutateOnce(std::string& s, const std::string& other);
  std::mt19937_64 rng_;
};

}  // namespace rocesim::fuzz
