#include "stats/hpcc_qlen_monitor.h"

#include <fmt/format.h>

#include <iterator>

#include "core/checked_write.h"
#include "net/fabric.h"

namespace rocesim {

HpccQlenMonitor::HpccQlenMonitor(const OutputConfig::HpccQlen& cfg, const Fabric& f,
                                 const std::vector<uint8_t>& local)
    : cfg_(cfg) {
  // Ports are numbered node by node in local order (net/fabric_layout.h).
  for (PortId i = 0; i < f.ports.size(); ++i) {
    if (!f.ports.Held(i)) continue;  // another partition's
    const Port& p = f.ports[i];
    if (!f.nodes[p.node].is_switch || (!local.empty() && !local[p.node])) continue;
    ports_.push_back(i);
  }
  histogram_.resize(ports_.size());
}

Time HpccQlenMonitor::Sample(const Fabric& f, std::vector<QlenDumpLine>& out) {
  for (size_t k = 0; k < ports_.size(); ++k) {
    const Port& p = f.ports[ports_[k]];
    int64_t bytes = 0;
    for (int q = 0; q < kNumPriorities; ++q) bytes += p.queue[q].bytes;
    const auto kb = static_cast<size_t>(bytes / 1000);
    std::vector<uint32_t>& h = histogram_[k];
    if (h.size() <= kb) h.resize(kb + 1, 0);
    ++h[kb];
  }
  last_sample_ = f.now;
  last_dumped_ = f.now % cfg_.dump_interval == 0;
  if (last_dumped_) Dump(f, f.now, out);
  // As that simulator: sample again while now is before the end.
  return f.now < cfg_.end ? f.now + cfg_.interval : kTimeMax;
}

void HpccQlenMonitor::Finish(const Fabric& f, std::vector<QlenDumpLine>& out) {
  if (last_sample_ >= 0 && !last_dumped_) Dump(f, last_sample_, out);
  last_dumped_ = true;
}

void HpccQlenMonitor::Dump(const Fabric& f, Time t, std::vector<QlenDumpLine>& out) const {
  for (size_t k = 0; k < ports_.size(); ++k) {
    const Port& p = f.ports[ports_[k]];
    out.push_back({t, p.node, p.local, histogram_[k]});
  }
}

void WriteHpccQlen(const std::vector<QlenDumpLine>& lines, const std::string& path) {
  CheckedFileWriter file(path);
  auto out = std::back_inserter(file.Text());
  Time shown = -1;
  for (const QlenDumpLine& l : lines) {
    if (l.time != shown) {
      fmt::format_to(out, "time: {}\n", l.time / kNanosecond);
      shown = l.time;
    }
    fmt::format_to(out, "{} {}", l.node, l.port + 1);
    for (uint32_t c : l.counts) fmt::format_to(out, " {}", c);
    fmt::format_to(out, "\n");
    file.FlushIfOver();
  }
  file.Close();
}

}  // namespace rocesim
