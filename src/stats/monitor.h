// Periodic time series of the fabric, written as CSV while the run goes:
//   queues.csv  time_ps,node,port,priority,bytes      every non-empty switch queue
//               (egress queues; a CIOQ switch's output queues)
//   input_queues.csv time_ps,node,port,priority,bytes   CIOQ switches only
//               (seed 002 §4.1): every non-empty input queue, the bytes of
//               all VOQs of that (input port, priority)
//   ports.csv   time_ps,node,port,tx_bytes,utilization,pause_sent,pause_received,paused_mask
//               per port with traffic or pause activity in the interval
//               (counts are per interval; utilization = tx_bytes x 8 over the
//               interval at the port's rate; paused_mask has bit p set while
//               priority p of that port's transmitter is paused)
//   counters.csv time_ps,node,port,kind,tx_bytes,pause_sent,pause_received,
//               paused_time_ps,ecn_marks,cnps_sent,cnps_received,drops,drops_<cause>...
//               per port (kind switch or host) with any of them non-zero in
//               the interval (seed 003 §6.2: monitoring pause frames sent and
//               received per port and server is what traced the storm).
//               paused_time_ps: time the port's transmitter spent paused in
//               the interval, summed over priorities; drops: frames dropped
//               on arrival at that port (ingress), by cause (stats/counters.h)
//   rates.csv   time_ps,flow,rate_bps,window_bytes,snd_una,snd_nxt
//               per flow that has started and not finished (the QP's rate
//               limiter and window as congestion control set them)
// Only rows that carry information are written, and only for the nodes the
// scenario lists (monitors.nodes), so long runs stay compact. Within a
// sample, rows follow node, port (and priority) or flow order: the order
// MergeMonitorFiles restores when partitions' files are merged.
#pragma once

#include <array>
#include <cstdio>
#include <string>
#include <vector>

#include "net/port.h"
#include "scenario/scenario.h"
#include "stats/counters.h"
#include "stats/port_drops.h"

namespace rocesim {

struct Fabric;

class Monitor {
 public:
  // num_nodes: to turn monitors.nodes into a per-node filter; input_queues:
  // the fabric has CIOQ switches (input_queues.csv is written).
  Monitor(const MonitorConfig& cfg, const std::string& dir, size_t num_nodes, bool input_queues);
  ~Monitor();
  Monitor(const Monitor&) = delete;
  Monitor& operator=(const Monitor&) = delete;

  void Sample(const Fabric& f);
  void Finish(const Fabric& f);
  // A partition of a partitioned run samples only its own nodes (`local`,
  // per node) and the flows its hosts send (`local_flows`, per flow); its
  // files are merged with the other partitions' afterwards (MergeMonitorFiles).
  void RestrictTo(const std::vector<uint8_t>& local, std::vector<uint8_t> local_flows);

 private:
  void SampleFlows(const Fabric& f);
  void SampleInputQueues(const Fabric& f);
  // paused: picoseconds the port's priorities spent paused in the interval (summed).
  // A port's counts at one sample.
  struct PortSample {
    uint64_t tx_bytes = 0;
    PortCounters c;
  };
  void WriteCounters(const Fabric& f, const Port& p, bool is_switch, const PortSample& now,
                     const PortSample& last, Time paused, PortId port, size_t k);
  static Time PausedSoFar(const Port& p, Time now);

  std::string dir_;  // where the files are (for error messages)
  std::FILE* queues_ = nullptr;
  std::FILE* ports_ = nullptr;
  std::FILE* rates_ = nullptr;
  std::FILE* counters_ = nullptr;
  std::FILE* input_queues_ = nullptr;  // CIOQ fabrics only
  bool started_ = false;               // the first sample was taken
  // Per sampled port (sampled_[k]): the previous sample's values.
  std::vector<PortId> sampled_;
  std::vector<PortSample> last_;
  std::vector<Time> last_paused_;
  std::vector<PortDrops::ByCause> last_drops_;
  std::vector<bool> watched_;         // per node
  std::vector<uint8_t> local_flows_;  // per flow: sampled here (empty: all)
  Time interval_ = 0;
};

// The time-series files a monitor may write, with the number of leading
// integer fields that order their rows (time first).
struct MonitorFile {
  const char* name;
  int key_fields;
};
inline constexpr MonitorFile kMonitorFiles[] = {{"queues.csv", 4},
                                                {"input_queues.csv", 4},
                                                {"ports.csv", 3},
                                                {"counters.csv", 3},
                                                {"rates.csv", 2}};

// Merges the monitor files the partitions of a partitioned run wrote into
// `part_dirs` into `dir`, each one's rows in the serial run's order, and
// removes `part_dirs`.
void MergeMonitorFiles(const std::vector<std::string>& part_dirs, const std::string& dir);

}  // namespace rocesim
