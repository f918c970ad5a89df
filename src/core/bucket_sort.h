// The sort inside the event queue (core/event_queue.h): one calendar
// bucket's events, all of whose times share `time >> kOffsetBits`, put in
// (time, scheduling order) order. The input is in scheduling order, so the
// sort must be stable.
//
// A bucket holds ~5 events on the k8 benchmark and ~16 (up to ~70) on fat320,
// in random time order: insertion sort mispredicts about once per event and
// a counting pass serialises on read-modify-writes of its counters
// (bench/NOTES.md, fifth session). Instead each event gets a 16-bit key, its
// time's offset in the bucket above its position in the input, so keys are
// distinct and ordering by key is the stable order; an event's rank is the
// number of keys below its own, counted eight lanes at a time with SSE2
// compares (part of every x86-64 CPU), sixteen with AVX2 where the CPU has it
// and the bucket holds more than eight, with no data-dependent branch; the
// event is then written straight to its rank. Larger buckets (rare) fall back
// to std::stable_sort.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "core/event.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

namespace rocesim {

namespace bucket_sort_detail {

constexpr size_t kRankSortMax = 64;  // a position takes 6 bits of the key
constexpr int kPositionBits = 6;

#if defined(__SSE2__)
// rank[i] = number of keys[j], j < n, below keys[i], for i < 8 * V (keys
// padded to 8 * V with the largest key).
template <int V>
inline void CountRanksSse2Vectors(const int16_t* keys, size_t n, uint16_t* rank) {
  __m128i k[V];
  __m128i r[V];
  for (int v = 0; v < V; ++v) {
    k[v] = _mm_load_si128(reinterpret_cast<const __m128i*>(keys) + v);
    r[v] = _mm_setzero_si128();
  }
  for (size_t j = 0; j < n; ++j) {
    const __m128i kj = _mm_set1_epi16(keys[j]);
    // A lane whose key exceeds keys[j] compares as -1: subtracting counts it.
    for (int v = 0; v < V; ++v) r[v] = _mm_sub_epi16(r[v], _mm_cmpgt_epi16(k[v], kj));
  }
  for (int v = 0; v < V; ++v) _mm_store_si128(reinterpret_cast<__m128i*>(rank) + v, r[v]);
}

// The ranks of keys[0, n), n <= kRankSortMax, eight keys a compare.
inline void CountRanksSse2(const int16_t* keys, size_t n, uint16_t* rank) {
  switch ((n + 7) / 8) {
    case 1:
      return CountRanksSse2Vectors<1>(keys, n, rank);
    case 2:
      return CountRanksSse2Vectors<2>(keys, n, rank);
    case 3:
      return CountRanksSse2Vectors<3>(keys, n, rank);
    case 4:
      return CountRanksSse2Vectors<4>(keys, n, rank);
    case 5:
      return CountRanksSse2Vectors<5>(keys, n, rank);
    case 6:
      return CountRanksSse2Vectors<6>(keys, n, rank);
    case 7:
      return CountRanksSse2Vectors<7>(keys, n, rank);
    default:
      return CountRanksSse2Vectors<8>(keys, n, rank);
  }
}
#endif

#if defined(__x86_64__) && defined(__GNUC__)
// The same with AVX2, sixteen keys a compare (keys padded to 16 * V); used
// for buckets of 9 to 64 events when the CPU has it, with identical results.
template <int V>
[[gnu::target("avx2")]] inline void CountRanksAvx2Vectors(const int16_t* keys, size_t n,
                                                          uint16_t* rank) {
  __m256i k[V];
  __m256i r[V];
  for (int v = 0; v < V; ++v) {
    k[v] = _mm256_load_si256(reinterpret_cast<const __m256i*>(keys) + v);
    r[v] = _mm256_setzero_si256();
  }
  for (size_t j = 0; j < n; ++j) {
    const __m256i kj = _mm256_set1_epi16(keys[j]);
    for (int v = 0; v < V; ++v) r[v] = _mm256_sub_epi16(r[v], _mm256_cmpgt_epi16(k[v], kj));
  }
  for (int v = 0; v < V; ++v) _mm256_store_si256(reinterpret_cast<__m256i*>(rank) + v, r[v]);
}

// The ranks of keys[0, n), n <= kRankSortMax, sixteen keys a compare (only
// where kHaveAvx2).
inline void CountRanksAvx2(const int16_t* keys, size_t n, uint16_t* rank) {
  switch ((n + 15) / 16) {
    case 1:
      return CountRanksAvx2Vectors<1>(keys, n, rank);
    case 2:
      return CountRanksAvx2Vectors<2>(keys, n, rank);
    case 3:
      return CountRanksAvx2Vectors<3>(keys, n, rank);
    default:
      return CountRanksAvx2Vectors<4>(keys, n, rank);
  }
}
inline const bool kHaveAvx2 = __builtin_cpu_supports("avx2");
#endif

inline void CountRanks(const int16_t* keys, size_t n, uint16_t* rank) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (n > 8 && kHaveAvx2) return CountRanksAvx2(keys, n, rank);
#endif
#if defined(__SSE2__)
  CountRanksSse2(keys, n, rank);
#else
  for (size_t i = 0; i < n; ++i) {
    uint16_t below = 0;
    for (size_t j = 0; j < n; ++j) below += keys[j] < keys[i];
    rank[i] = below;
  }
#endif
}

}  // namespace bucket_sort_detail

// Writes src[0, n) to dst[0, n) sorted by time, equal times in their order in
// src. Every src[i].time >> kOffsetBits must be the same; src and dst must
// not overlap.
template <int kOffsetBits>
inline void SortBucketByTime(const Event* src, size_t n, Event* dst) {
  using namespace bucket_sort_detail;
  static_assert(kOffsetBits + kPositionBits <= 16, "a key is 16 bits");
  if (n > kRankSortMax) [[unlikely]] {
    std::copy(src, src + n, dst);
    std::stable_sort(dst, dst + n, [](const Event& a, const Event& b) { return a.time < b.time; });
    return;
  }
  constexpr uint32_t kOffsetMask = (1u << kOffsetBits) - 1;
  // Keys as signed 16-bit lanes: flipping the top bit keeps the unsigned order.
  // Padded with the largest key (a few wide stores, and no lane is read uninitialised).
  alignas(32) std::array<int16_t, kRankSortMax> keys;
  keys.fill(std::numeric_limits<int16_t>::max());
  alignas(32) std::array<uint16_t, kRankSortMax> rank;
  for (size_t i = 0; i < n; ++i) {
    const uint32_t key = (static_cast<uint32_t>(src[i].time) & kOffsetMask) << kPositionBits | i;
    keys[i] = static_cast<int16_t>(static_cast<uint16_t>(key ^ 0x8000u));
  }
  CountRanks(keys.data(), n, rank.data());
  for (size_t i = 0; i < n; ++i) dst[rank[i]] = src[i];
}

}  // namespace rocesim
