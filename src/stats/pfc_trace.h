// The PFC trace of a run (output.hpcc_compat): one entry per pause frame a
// port received, as the HPCC simulator traces them (its QbbPfc trace fires
// where a PFC frame lands, not where it is sent). pfc.txt is written from it
// (stats/hpcc_compat_writer.h); its count is summary.json's
// pfc.pause_frames_received.
#pragma once

#include <cstdint>
#include <tuple>

#include "core/time.h"

namespace rocesim {

struct PfcTraceEntry {
  Time time = 0;
  uint32_t node = 0;  // the node whose port received the frame
  uint16_t port = 0;  // its local port index
  uint8_t priority = 0;
  uint8_t pause = 0;  // 1: XOFF (quanta > 0), 0: XON
};

// A total order on every field: partitions' traces merged and sorted by it
// read the same as the serial run's, whatever order same-time frames landed
// in (entries equal under it are equal).
inline bool PfcTraceBefore(const PfcTraceEntry& a, const PfcTraceEntry& b) {
  return std::tie(a.time, a.node, a.port, a.priority, a.pause) <
         std::tie(b.time, b.node, b.port, b.priority, b.pause);
}

}  // namespace rocesim
