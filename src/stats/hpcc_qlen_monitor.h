// The HPCC ns-3 simulator's queue-length monitor (its QLEN_MON_FILE, written
// by monitor_buffer in scratch/third.cc), for scripts that read that file:
// every `interval` from `start` until the first sample at or after `end`,
// each switch port's egress bytes (all priorities together) are counted into
// a histogram of 1 KB (1,000-byte) buckets, kept from the window's start;
// at every sample whose time is a multiple of `dump_interval` the histograms
// so far are written:
//   time: <ns>
//   <switch node> <port> <count of samples in [0,1) KB> <in [1,2) KB> ...
// one line per switch port, by node then port; port is the port's local
// index + 1 (ns-3's device 0 is the loopback), as in pfc.txt. A CIOQ
// switch's egress bytes are its output queues'.
// One addition: a window whose last sample is not a multiple of
// `dump_interval` (a run shorter than that simulator's 100 ms) also gets a
// dump at that last sample, so its distribution is never lost.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/time.h"
#include "net/port.h"
#include "scenario/scenario.h"

namespace rocesim {

struct Fabric;

// One port's histogram as dumped at `time`.
struct QlenDumpLine {
  Time time = 0;
  uint32_t node = 0;
  uint16_t port = 0;  // local index
  std::vector<uint32_t> counts;
};

// Orders dump lines as the file lists them (time, node, port): partitions'
// lines merged and sorted by it read as the serial run's.
inline bool QlenDumpBefore(const QlenDumpLine& a, const QlenDumpLine& b) {
  if (a.time != b.time) return a.time < b.time;
  if (a.node != b.node) return a.node < b.node;
  return a.port < b.port;
}

class HpccQlenMonitor {
 public:
  // Samples the switch ports of `local` nodes (per node; empty: every node).
  HpccQlenMonitor(const OutputConfig::HpccQlen& cfg, const Fabric& f,
                  const std::vector<uint8_t>& local);

  // Takes the sample due now, appending a dump to `out` when one falls due;
  // returns the time of the next sample, or kTimeMax after the last.
  Time Sample(const Fabric& f, std::vector<QlenDumpLine>& out);
  // At the end of the run: the dump of a last sample that no dump covered.
  void Finish(const Fabric& f, std::vector<QlenDumpLine>& out);

 private:
  void Dump(const Fabric& f, Time t, std::vector<QlenDumpLine>& out) const;

  OutputConfig::HpccQlen cfg_;
  std::vector<PortId> ports_;                     // sampled switch ports, by node then local index
  std::vector<std::vector<uint32_t>> histogram_;  // per sampled port
  Time last_sample_ = -1;
  bool last_dumped_ = true;
};

// Writes qlen.txt to `path` from dump lines in QlenDumpBefore order, a
// megabyte at a time; throws std::runtime_error naming the file on any
// failure (core/checked_write.h).
void WriteHpccQlen(const std::vector<QlenDumpLine>& lines, const std::string& path);

}  // namespace rocesim
