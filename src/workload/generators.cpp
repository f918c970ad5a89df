// Traffic generators (see generators.h for each pattern and its source).
#include "workload/generators.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "core/rng.h"
#include "net/fabric_layout.h"
#include "workload/flow_size_cdf.h"
#include "workload/training_loop.h"

namespace rocesim {

namespace {

// Uniform integer in [0, n).
int UniformIndex(Rng& rng, int n) {
  return std::min(n - 1, static_cast<int>(rng.Uniform() * n));
}

// Exponential with the given mean.
double Exponential(Rng& rng, double mean) {
  return -std::log1p(-rng.Uniform()) * mean;
}

// A uniform member of members[lo, hi) other than members[self].
int OtherInRange(Rng& rng, const std::vector<int>& members, int lo, int hi, int self) {
  int i = lo + UniformIndex(rng, hi - lo - 1);
  if (i >= self) ++i;
  return members[i];
}

// The first `k` entries of a Fisher-Yates shuffle of `v` (k <= v.size()).
void PartialShuffle(Rng& rng, std::vector<int>& v, size_t k) {
  for (size_t i = 0; i < k && i + 1 < v.size(); ++i) {
    const size_t j = i + static_cast<size_t>(UniformIndex(rng, static_cast<int>(v.size() - i)));
    std::swap(v[i], v[j]);
  }
}

std::vector<int> ChooseHotSet(Rng& rng, const TrafficSpec& t, const std::vector<int>& hosts) {
  const size_t n = hosts.size();
  const auto k = static_cast<size_t>(std::clamp<long long>(
      std::llround(t.hot_hosts_fraction * static_cast<double>(n)), 1, static_cast<long long>(n)));
  std::vector<int> shuffled = hosts;
  PartialShuffle(rng, shuffled, k);
  std::vector<int> hot(shuffled.begin(), shuffled.begin() + static_cast<long>(k));
  std::sort(hot.begin(), hot.end());
  return hot;
}

// Poisson arrivals for every participating host; `pick` chooses each flow's
// destination and tag given the sender's position in `hosts`.
template <typename Pick>
void PoissonArrivals(const TrafficSpec& t, Rng& rng, const std::vector<int>& hosts,
                     const std::vector<int64_t>& rate, Pick pick, std::vector<FlowSpec>& out) {
  const FlowSizeCdf cdf(t.cdf);
  const double mean_size = cdf.Mean();
  const double end = static_cast<double>(t.span);
  for (size_t i = 0; i < hosts.size(); ++i) {
    const int src = hosts[i];
    // Mean inter-arrival in picoseconds: mean_size * 8 / (rate * load) seconds.
    const double gap = mean_size * 8 / (static_cast<double>(rate[src]) * t.load) * kSecond;
    for (double at = Exponential(rng, gap); at < end; at += Exponential(rng, gap)) {
      const int64_t size = cdf.Sample(rng);
      const auto [dst, tag] = pick(static_cast<int>(i));
      out.push_back(EntryFlow(t, src, dst, size, t.start + static_cast<Time>(at), *tag));
    }
  }
}

}  // namespace

uint64_t TrafficStream(size_t index) {
  return 0x7AFF1C0000000000ULL + index;
}

std::vector<int64_t> HostLinkRates(const FabricLayout& layout) {
  std::vector<int64_t> rates;
  rates.reserve(layout.host_nodes.size());
  for (uint32_t h = 0; h < layout.host_nodes.size(); ++h)
    rates.push_back(layout.ports[layout.HostPort(h)].rate_bps);
  return rates;
}

FlowSpec EntryFlow(const TrafficSpec& t, int src, int dst, int64_t size, Time start,
                   const std::string& tag) {
  FlowSpec f;
  f.src = src;
  f.dst = dst;
  f.size_bytes = size;
  f.start = start;
  f.priority = t.priority;
  f.tag = tag;
  f.cc = t.cc;
  f.start_rate_bps = t.start_rate_bps;
  f.max_rate_bps = t.max_rate_bps;
  return f;
}

std::vector<int> ParticipatingHosts(const TrafficSpec& t, int hosts) {
  if (!t.hosts.empty()) return t.hosts;
  std::vector<int> all(static_cast<size_t>(hosts));
  std::iota(all.begin(), all.end(), 0);
  return all;
}

std::vector<int> HotspotHosts(const TrafficSpec& t, size_t index, uint64_t seed, int hosts) {
  Rng rng(seed, TrafficStream(index));
  return ChooseHotSet(rng, t, ParticipatingHosts(t, hosts));
}

std::vector<FlowSpec> ExpandTraffic(const TrafficSpec& t, size_t index, uint64_t seed,
                                    const std::vector<int64_t>& rate, int mtu_bytes) {
  const int total_hosts = static_cast<int>(rate.size());
  Rng rng(seed, TrafficStream(index));
  std::vector<FlowSpec> out;
  switch (t.kind) {
    case TrafficKind::kFlows:
      return t.flows;
    case TrafficKind::kCollective:
      return ExpandCollective(t, index).flows;
    case TrafficKind::kTraining:
      return ExpandTraining(t, index).flows;
    case TrafficKind::kIncast:
      for (int i = 0; i < t.count; ++i) {
        for (int s : t.senders) {
          out.push_back(EntryFlow(t, s, t.receiver, t.size_bytes, t.start + i * t.period, t.tag));
        }
      }
      break;
    case TrafficKind::kPoisson: {
      const std::vector<int> hosts = ParticipatingHosts(t, total_hosts);
      const int n = static_cast<int>(hosts.size());
      const int group = t.group_size > 0 ? t.group_size : n;
      PoissonArrivals(
          t, rng, hosts, rate,
          [&](int i) {
            const int lo = i / group * group;
            return std::pair{OtherInRange(rng, hosts, lo, std::min(n, lo + group), i), &t.tag};
          },
          out);
      break;
    }
    case TrafficKind::kHotspot: {
      static const std::string kHot = "hot";
      static const std::string kBackground = "background";
      const std::vector<int> hosts = ParticipatingHosts(t, total_hosts);
      const int n = static_cast<int>(hosts.size());
      const std::vector<int> hot = ChooseHotSet(rng, t, hosts);
      PoissonArrivals(
          t, rng, hosts, rate,
          [&](int i) {
            const int src = hosts[i];
            if (rng.Uniform() < t.hot_fraction) {
              // A hot destination other than the sender (a lone hot host's
              // own hot share goes to the background instead).
              const auto self = std::lower_bound(hot.begin(), hot.end(), src);
              const bool sender_hot = self != hot.end() && *self == src;
              if (!sender_hot)
                return std::pair{hot[UniformIndex(rng, static_cast<int>(hot.size()))], &kHot};
              if (hot.size() > 1) {
                return std::pair{OtherInRange(rng, hot, 0, static_cast<int>(hot.size()),
                                              static_cast<int>(self - hot.begin())),
                                 &kHot};
              }
            }
            return std::pair{OtherInRange(rng, hosts, 0, n, i), &kBackground};
          },
          out);
      break;
    }
    case TrafficKind::kPermutation: {
      const std::vector<int> hosts = ParticipatingHosts(t, total_hosts);
      const int n = static_cast<int>(hosts.size());
      std::vector<int> perm(static_cast<size_t>(n));
      // Uniform random derangement by rejection (about e shuffles on average).
      for (bool fixed_point = true; fixed_point;) {
        std::iota(perm.begin(), perm.end(), 0);
        PartialShuffle(rng, perm, perm.size());
        fixed_point = false;
        for (int i = 0; i < n; ++i) fixed_point = fixed_point || perm[i] == i;
      }
      for (int i = 0; i < n; ++i) {
        out.push_back(EntryFlow(t, hosts[i], hosts[perm[i]], t.size_bytes, t.start, t.tag));
      }
      break;
    }
    case TrafficKind::kAllToAll: {
      const std::vector<int> hosts = ParticipatingHosts(t, total_hosts);
      for (int s : hosts) {
        for (int d : hosts) {
          if (s != d) out.push_back(EntryFlow(t, s, d, t.size_bytes, t.start, t.tag));
        }
      }
      break;
    }
    case TrafficKind::kMicroburst: {
      // Line rate for `duration`: rate * duration / 8 bytes, in whole packets.
      const double bytes = static_cast<double>(rate[t.src]) * ToSeconds(t.duration) / 8;
      const int64_t packets = std::max<int64_t>(1, std::llround(bytes / mtu_bytes));
      out.push_back(EntryFlow(t, t.src, t.dst, packets * mtu_bytes, t.start, t.tag));
      break;
    }
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const FlowSpec& a, const FlowSpec& b) { return a.start < b.start; });
  return out;
}

ExpandedTraffic ExpandTrafficGraph(const TrafficSpec& t, size_t index, uint64_t seed,
                                   const std::vector<int64_t>& host_rate_bps, int mtu_bytes) {
  ExpandedTraffic out;
  if (t.kind == TrafficKind::kCollective || t.kind == TrafficKind::kTraining) {
    CollectivePlan plan =
        t.kind == TrafficKind::kCollective ? ExpandCollective(t, index) : ExpandTraining(t, index);
    out.flows = std::move(plan.flows);
    out.joins = std::move(plan.joins);
    out.collectives = std::move(plan.instances);
    out.flow_step = std::move(plan.flow_step);
    return out;
  }
  out.flows = ExpandTraffic(t, index, seed, host_rate_bps, mtu_bytes);
  return out;
}

std::vector<ExpandedTraffic> ExpandWorkload(const Scenario& scenario,
                                            const std::vector<int64_t>& host_rate_bps) {
  std::vector<ExpandedTraffic> out;
  out.reserve(scenario.traffic.size());
  for (size_t i = 0; i < scenario.traffic.size(); ++i)
    out.push_back(ExpandTrafficGraph(scenario.traffic[i], i, scenario.seed, host_rate_bps,
                                     scenario.host.mtu_bytes));
  return out;
}

std::string_view TrafficKindName(TrafficKind kind) {
  switch (kind) {
    case TrafficKind::kFlows:
      return "flows";
    case TrafficKind::kIncast:
      return "incast";
    case TrafficKind::kPoisson:
      return "poisson";
    case TrafficKind::kHotspot:
      return "hotspot";
    case TrafficKind::kPermutation:
      return "permutation";
    case TrafficKind::kAllToAll:
      return "all_to_all";
    case TrafficKind::kMicroburst:
      return "microburst";
    case TrafficKind::kCollective:
      return "collective";
    case TrafficKind::kTraining:
      return "aicb_workload";
  }
  return "?";
}

TrafficReport ReportTraffic(const TrafficSpec& t, size_t index, uint64_t seed,
                            const std::vector<int64_t>& rate, int mtu_bytes,
                            const EntryTotals* expanded) {
  TrafficReport r;
  r.kind = t.kind;
  const auto count = [&r](const std::vector<FlowSpec>& flows) {
    for (const FlowSpec& f : flows) {
      ++r.flows;
      r.offered_bytes += f.size_bytes;
    }
  };
  if (expanded != nullptr) {
    r.flows = expanded->flows;
    r.offered_bytes = expanded->bytes;
  } else if (t.kind == TrafficKind::kFlows) {
    count(t.flows);  // no copy of long flow lists
  } else {
    count(ExpandTraffic(t, index, seed, rate, mtu_bytes));
  }
  if (t.kind == TrafficKind::kPoisson || t.kind == TrafficKind::kHotspot) {
    double capacity_bps = 0;
    for (int h : ParticipatingHosts(t, static_cast<int>(rate.size()))) {
      capacity_bps += static_cast<double>(rate[h]);
    }
    r.has_load = true;
    r.target_load = t.load;
    r.realised_load = static_cast<double>(r.offered_bytes) * 8 / (capacity_bps * ToSeconds(t.span));
  }
  if (t.kind == TrafficKind::kHotspot) {
    r.hot_hosts = HotspotHosts(t, index, seed, static_cast<int>(rate.size()));
  }
  return r;
}

std::vector<TrafficReport> ReportTraffic(const Scenario& scenario, const std::vector<int64_t>& rate,
                                         const std::vector<EntryTotals>* expanded) {
  std::vector<TrafficReport> out;
  for (size_t i = 0; i < scenario.traffic.size(); ++i) {
    out.push_back(ReportTraffic(scenario.traffic[i], i, scenario.seed, rate,
                                scenario.host.mtu_bytes,
                                expanded != nullptr ? &(*expanded)[i] : nullptr));
  }
  return out;
}

nlohmann::json TrafficSummaryJson(const Scenario& scenario, const std::vector<int64_t>& rate,
                                  const std::vector<EntryTotals>* expanded) {
  nlohmann::json out = nlohmann::json::array();
  const std::vector<TrafficReport> reports = ReportTraffic(scenario, rate, expanded);
  for (size_t i = 0; i < reports.size(); ++i) {
    const TrafficReport& r = reports[i];
    const TrafficSpec& t = scenario.traffic[i];
    nlohmann::json e = {{"index", i},
                        {"type", TrafficKindName(r.kind)},
                        {"flows", r.flows},
                        {"offered_bytes", r.offered_bytes}};
    if (r.kind != TrafficKind::kFlows && r.kind != TrafficKind::kHotspot) e["tag"] = t.tag;
    if (r.has_load) {
      e["cdf"] = t.cdf_name;
      e["cdf_mean_bytes"] = FlowSizeCdf(t.cdf).Mean();
      e["span_s"] = ToSeconds(t.span);
      e["target_load"] = r.target_load;
      e["realised_load"] = r.realised_load;
    }
    if (r.kind == TrafficKind::kHotspot) e["hot_hosts"] = r.hot_hosts;
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace rocesim
