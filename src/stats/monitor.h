// Periodic time series of the fabric, written as CSV while the run goes:
//   queues.csv  time_ps,node,port,priority,bytes      every non-empty switch queue
//   ports.csv   time_ps,node,port,tx_bytes,pause_sent,pause_received,paused_mask
//               per port with traffic or pause activity in the interval
//               (counts are per interval; paused_mask has bit p set while
//               priority p of that port's transmitter is paused)
// Only rows that carry information are written, so long runs stay compact.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "net/port.h"
#include "scenario/scenario.h"

namespace rocesim {

struct Fabric;

class Monitor {
 public:
  Monitor(const MonitorConfig& cfg, const std::string& dir);
  ~Monitor();
  Monitor(const Monitor&) = delete;
  Monitor& operator=(const Monitor&) = delete;

  void Sample(const Fabric& f);
  void Finish(const Fabric& f);

 private:
  std::FILE* queues_ = nullptr;
  std::FILE* ports_ = nullptr;
  std::vector<PortCounters> last_;
};

}  // namespace rocesim
