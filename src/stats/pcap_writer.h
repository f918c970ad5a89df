// A pcap file (the classic libpcap format) with nanosecond timestamps: magic
// 0xa1b23c4d, version 2.4, link type 1 (Ethernet, frames without FCS).
// Records are written in native byte order, as libpcap does; readers tell
// the order from the magic.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "core/time.h"

namespace rocesim {

inline constexpr uint32_t kPcapMagicNanoseconds = 0xa1b23c4d;
inline constexpr uint32_t kPcapLinkTypeEthernet = 1;

class PcapWriter {
 public:
  // Creates `path` and writes the file header; throws std::runtime_error
  // naming the path when it cannot.
  PcapWriter(const std::string& path, uint32_t snaplen);
  ~PcapWriter();
  PcapWriter(const PcapWriter&) = delete;
  PcapWriter& operator=(const PcapWriter&) = delete;

  // One frame at time `t` (picoseconds; the record keeps whole nanoseconds)
  // whose bytes on the wire number `orig_len`: the first min(orig_len,
  // snaplen) are recorded, `data` (data_len bytes) followed by zeros.
  void Write(Time t, const uint8_t* data, uint32_t data_len, uint32_t orig_len);
  // Flushes; throws naming the path if anything failed to reach the file.
  void Finish();

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
  uint32_t snaplen_;
};

}  // namespace rocesim
