#include "stats/monitor.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "net/fabric.h"

namespace rocesim {

namespace {
std::FILE* OpenCsv(const std::string& path, const char* header) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
  std::fputs(header, f);
  return f;
}
}  // namespace

Monitor::Monitor(const MonitorConfig& cfg, const std::string& dir, size_t num_nodes,
                 bool input_queues)
    : dir_(dir), watched_(num_nodes, cfg.nodes.empty()), interval_(cfg.interval) {
  for (int n : cfg.nodes) watched_.at(static_cast<size_t>(n)) = true;
  queues_ = OpenCsv(dir + "/queues.csv", "time_ps,node,port,priority,bytes\n");
  ports_ =
      OpenCsv(dir + "/ports.csv",
              "time_ps,node,port,tx_bytes,utilization,pause_sent,pause_received,paused_mask\n");
  rates_ = OpenCsv(dir + "/rates.csv", "time_ps,flow,rate_bps,window_bytes,snd_una,snd_nxt\n");
  std::string header =
      "time_ps,node,port,kind,tx_bytes,pause_sent,pause_received,paused_time_ps,ecn_marks,"
      "cnps_sent,cnps_received,drops";
  for (size_t c = 0; c < static_cast<size_t>(DropCause::kCount); ++c)
    header += ",drops_" + std::string(DropCauseName(static_cast<DropCause>(c)));
  header += "\n";
  counters_ = OpenCsv(dir + "/counters.csv", header.c_str());
  if (input_queues)
    input_queues_ = OpenCsv(dir + "/input_queues.csv", "time_ps,node,port,priority,bytes\n");
}

Monitor::~Monitor() {
  if (queues_) std::fclose(queues_);
  if (ports_) std::fclose(ports_);
  if (rates_) std::fclose(rates_);
  if (counters_) std::fclose(counters_);
  if (input_queues_) std::fclose(input_queues_);
}

void Monitor::Sample(const Fabric& f) {
  const bool first = !started_;
  if (first) {
    started_ = true;
    // The ports this monitor writes: watched, and held here (a partition's
    // own). Per-interval counts start from the first sample (the window may
    // open long after the run began).
    for (PortId i = 0; i < f.ports.size(); ++i)
      if (f.ports.Held(i) && watched_[f.ports[i].node]) sampled_.push_back(i);
    last_.reserve(sampled_.size());
    for (const PortId i : sampled_) {
      const Port& p = f.ports[i];
      last_.push_back(PortSample{p.tx_bytes, p.counters});
      last_paused_.push_back(PausedSoFar(p, f.now));
      last_drops_.push_back(f.port_drops.Of(i));
    }
  }
  for (size_t k = 0; k < sampled_.size(); ++k) {
    const PortId i = sampled_[k];
    const Port& p = f.ports[i];
    const bool is_switch = f.nodes[p.node].is_switch;
    if (is_switch && p.queued_frames > 0) {
      for (int q = 0; q < kNumPriorities; ++q)
        if (!p.queue[q].Empty())
          std::fprintf(queues_, "%lld,%u,%u,%d,%lld\n", static_cast<long long>(f.now), p.node,
                       p.local, q, static_cast<long long>(p.queue[q].bytes));
    }
    unsigned mask = 0;
    for (int q = 0; q < kNumPriorities; ++q)
      if (p.Paused(q, f.now)) mask |= 1u << q;
    const PortSample now{p.tx_bytes, p.counters};
    const PortCounters& c = now.c;
    PortSample& last = last_[k];
    const PortCounters& l = last.c;
    if (!first && (now.tx_bytes != last.tx_bytes || c.pause_sent != l.pause_sent ||
                   c.pause_received != l.pause_received || mask != 0)) {
      const uint64_t tx = now.tx_bytes - last.tx_bytes;
      const double utilization =
          static_cast<double>(tx) * 8 * kSecond / (static_cast<double>(interval_) * p.rate_bps);
      std::fprintf(ports_, "%lld,%u,%u,%llu,%.4f,%llu,%llu,%u\n", static_cast<long long>(f.now),
                   p.node, p.local, static_cast<unsigned long long>(tx), utilization,
                   static_cast<unsigned long long>(c.pause_sent - l.pause_sent),
                   static_cast<unsigned long long>(c.pause_received - l.pause_received), mask);
    }
    const Time paused = PausedSoFar(p, f.now);
    if (!first) WriteCounters(f, p, is_switch, now, last, paused - last_paused_[k], i, k);
    last_paused_[k] = paused;
    last = now;
  }
  if (input_queues_) SampleInputQueues(f);
  SampleFlows(f);
}

void Monitor::SampleInputQueues(const Fabric& f) {
  for (const CioqSwitch& s : f.cioq_switches) {
    if (!watched_[s.node()]) continue;
    for (int in = 0; in < s.num_ports(); ++in)
      for (int q = 0; q < kNumPriorities; ++q)
        if (const int64_t bytes = s.InputQueueBytes(in, q); bytes > 0)
          std::fprintf(input_queues_, "%lld,%u,%d,%d,%lld\n", static_cast<long long>(f.now),
                       s.node(), in, q, static_cast<long long>(bytes));
  }
}

Time Monitor::PausedSoFar(const Port& p, Time now) {
  // paused_time counts each pause in full when it arrives; what lies ahead is not past yet.
  Time t = p.counters.paused_time;
  for (int q = 0; q < kNumPriorities; ++q)
    if (p.paused_until[q] > now) t -= p.paused_until[q] - now;
  return t;
}

void Monitor::WriteCounters(const Fabric& f, const Port& p, bool is_switch, const PortSample& now,
                            const PortSample& last, Time paused, PortId port, size_t k) {
  const PortCounters& c = now.c;
  const PortCounters& l = last.c;
  if (now.tx_bytes == last.tx_bytes && c.pause_sent == l.pause_sent &&
      c.pause_received == l.pause_received && paused == 0 && c.ecn_marks == l.ecn_marks &&
      c.cnps_sent == l.cnps_sent && c.cnps_received == l.cnps_received && c.drops == l.drops)
    return;
  auto d = [](uint64_t a, uint64_t b) { return static_cast<unsigned long long>(a - b); };
  std::fprintf(counters_, "%lld,%u,%u,%s,%llu,%llu,%llu,%lld,%llu,%llu,%llu,%llu",
               static_cast<long long>(f.now), p.node, p.local, is_switch ? "switch" : "host",
               d(now.tx_bytes, last.tx_bytes), d(c.pause_sent, l.pause_sent),
               d(c.pause_received, l.pause_received), static_cast<long long>(paused),
               d(c.ecn_marks, l.ecn_marks), d(c.cnps_sent, l.cnps_sent),
               d(c.cnps_received, l.cnps_received), d(c.drops, l.drops));
  PortDrops::ByCause& last_drops = last_drops_[k];
  const PortDrops::ByCause& drops = f.port_drops.Of(port);
  for (size_t i = 0; i < last_drops.size(); ++i) {
    std::fprintf(counters_, ",%llu", d(drops[i], last_drops[i]));
    last_drops[i] = drops[i];
  }
  std::fputc('\n', counters_);
}

void Monitor::RestrictTo(const std::vector<uint8_t>& local, std::vector<uint8_t> local_flows) {
  for (size_t n = 0; n < watched_.size(); ++n) watched_[n] = watched_[n] && local[n];
  local_flows_ = std::move(local_flows);
}

void Monitor::SampleFlows(const Fabric& f) {
  for (const Flow& fl : f.flows) {
    if (fl.start > f.now || fl.Finished()) continue;
    if (!local_flows_.empty() && !local_flows_[fl.id]) continue;
    std::fprintf(rates_, "%lld,%u,%lld,%lld,%u,%u\n", static_cast<long long>(f.now), fl.id,
                 static_cast<long long>(fl.rate_bps), static_cast<long long>(fl.window_bytes),
                 fl.snd_una, fl.snd_nxt);
  }
}

void Monitor::Finish(const Fabric& /*f*/) {
  // Every row reached its file, or the run fails naming it (a full disk
  // shows only when the buffers are flushed).
  const std::pair<std::FILE*, const char*> files[] = {{rates_, "rates.csv"},
                                                      {queues_, "queues.csv"},
                                                      {ports_, "ports.csv"},
                                                      {counters_, "counters.csv"},
                                                      {input_queues_, "input_queues.csv"}};
  for (const auto& [file, name] : files)
    if (file != nullptr && (std::fflush(file) != 0 || std::ferror(file)))
      throw std::runtime_error(
          fmt::format("cannot write {}/{}: {}", dir_, name, std::strerror(errno)));
}

}  // namespace rocesim
