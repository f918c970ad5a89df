#include "stats/invariants.h"

#include <fmt/format.h>

#include "net/fabric.h"
#include "scenario/scenario.h"

namespace rocesim {
namespace {

InvariantBreak Break(std::string_view name, std::string detail) {
  return {std::string(name), std::move(detail)};
}

// A port's queues: no count negative, each queue's bytes and frames those
// of the frames on its list.
std::string CheckPort(const Fabric& f, PortId id, const Port& p) {
  if (p.counters.paused_time < 0) return fmt::format("port {}: paused time negative", id);
  for (int q = 0; q < kNumPriorities; ++q) {
    const PacketFifo& fifo = p.queue[q];
    int64_t bytes = 0;
    uint32_t frames = 0;
    for (PktId pkt = fifo.head; pkt != kNoPkt; pkt = f.pool[pkt].next) {
      bytes += f.pool[pkt].size;
      ++frames;
    }
    if (bytes != fifo.bytes || frames != fifo.count || fifo.bytes < 0)
      return fmt::format("port {} queue {}: counts {} B in {} frames, holds {} B in {}", id, q,
                         fifo.bytes, fifo.count, bytes, frames);
    if (((p.nonempty >> q) & 1) != (frames > 0 ? 1 : 0))
      return fmt::format("port {} queue {}: non-empty bit disagrees with its {} frames", id, q,
                         frames);
  }
  return {};
}

}  // namespace

std::optional<InvariantBreak> CheckFabricState(const Fabric& f) {
  for (PortId id = 0; id < f.ports.size(); ++id) {
    if (!f.ports.Held(id)) continue;
    const Port& p = f.ports[id];
    if (!f.nodes[p.node].is_switch) continue;  // a NIC's queues are its send state
    if (std::string e = CheckPort(f, id, p); !e.empty())
      return Break("counts_consistent", std::move(e));
  }
  for (const Switch& s : f.switches) {
    if (!f.ports.Held(s.first_port())) continue;  // another partition's
    if (std::string e = s.mmu().CheckCounts(); !e.empty())
      return Break("counts_consistent", fmt::format("switch node {}: {}", s.node(), e));
    if (std::string e = s.mmu().CheckXoffs(); !e.empty())
      return Break("pauses_answered", fmt::format("switch node {}: {}", s.node(), e));
  }
  for (const CioqSwitch& s : f.cioq_switches) {
    if (!f.ports.Held(s.first_port())) continue;
    if (std::string e = s.CheckCounts(f.pool); !e.empty())
      return Break("counts_consistent", fmt::format("switch node {}: {}", s.node(), e));
    if (std::string e = s.CheckXoffs(); !e.empty())
      return Break("pauses_answered", fmt::format("switch node {}: {}", s.node(), e));
  }
  return std::nullopt;
}

std::optional<InvariantBreak> CheckTotals(const Scenario& s, const Counters& c,
                                          uint64_t in_network_frames,
                                          uint64_t in_network_payload_bytes) {
  if (c.injected_frames + c.replicated_frames !=
      c.delivered_frames + c.dropped_frames + in_network_frames)
    return Break("frames_conserved",
                 fmt::format("injected {} + replicated {} != delivered {} + dropped {} + in "
                             "network {}",
                             c.injected_frames, c.replicated_frames, c.delivered_frames,
                             c.dropped_frames, in_network_frames));
  if (c.injected_payload_bytes + c.replicated_payload_bytes !=
      c.delivered_payload_bytes + c.dropped_payload_bytes + in_network_payload_bytes)
    return Break(
        "payload_conserved",
        fmt::format("injected {} B + replicated {} B != delivered {} B + dropped {} B + "
                    "in network {} B",
                    c.injected_payload_bytes, c.replicated_payload_bytes, c.delivered_payload_bytes,
                    c.dropped_payload_bytes, in_network_payload_bytes));
  // Without a drop, a fault or adaptive routing every path delivers in order.
  const bool can_reorder =
      c.dropped_frames > 0 || !s.faults.empty() || (s.sw.rcm.enabled && s.sw.rcm.sar);
  if (c.naks_sent > 0 && !can_reorder)
    return Break("in_order_delivery",
                 fmt::format("{} NAKs (sequence gaps) with no drop, fault or adaptive routing",
                             c.naks_sent));
  if (c.rcm_notifications_at_hosts > 0 || c.rcm_sar_harmful_rerouted > 0)
    return Break("rcm_contained",
                 fmt::format("{} RCM notifications reached hosts, {} harmful "
                             "flows rerouted",
                             c.rcm_notifications_at_hosts, c.rcm_sar_harmful_rerouted));
  return std::nullopt;
}

}  // namespace rocesim
