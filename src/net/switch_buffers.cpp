#include "net/switch_buffers.h"

#include <fmt/format.h>

#include "net/switch_mmu.h"

namespace rocesim {

int64_t PfcHeadroomBytes(const PortLink& p, const PfcConfig& pfc, int max_frame) {
  if (pfc.headroom_bytes >= 0) return pfc.headroom_bytes;
  return static_cast<int64_t>(2 * static_cast<__int128>(p.delay) * p.rate_bps / (8 * kSecond)) +
         3 * max_frame;
}

std::vector<int64_t> SwitchHeadroom(const FabricLayout& l, uint32_t n, const PfcConfig& pfc,
                                    int max_frame) {
  const Node& node = l.nodes[n];
  std::vector<int64_t> headroom(node.num_ports);
  for (uint16_t i = 0; i < node.num_ports; ++i)
    headroom[i] = PfcHeadroomBytes(l.ports[node.first_port + i], pfc, max_frame);
  return headroom;
}

namespace {
// A CIOQ switch's queues (seed 002 §4.1) must each hold a full frame, and a
// lossless input queue must keep at least one below its PFC headroom, or it
// would pause its upstream for good.
void CheckCioqQueues(const FabricLayout& l, uint32_t n, const Scenario& sc,
                     const std::vector<int64_t>& headroom, int frame) {
  const SwitchConfig& sw = sc.sw;
  const CioqConfig& c = sw.cioq;
  if (c.output_queue_bytes < frame)
    FailBuild(sc, "switch.cioq.output_queue_bytes",
              fmt::format("{} bytes cannot hold one full frame ({} bytes: host.mtu + "
                          "host.header_bytes)",
                          c.output_queue_bytes, frame));
  if (c.input_queue_bytes < frame)
    FailBuild(sc, "switch.cioq.input_queue_bytes",
              fmt::format("{} bytes cannot hold one full frame ({} bytes: host.mtu + "
                          "host.header_bytes)",
                          c.input_queue_bytes, frame));
  if (!sw.pfc.enabled || sw.pfc.priorities.empty()) return;
  const Node& node = l.nodes[n];
  for (uint16_t i = 0; i < node.num_ports; ++i) {
    if (c.input_queue_bytes - headroom[i] >= frame) continue;
    const PortLink& p = l.ports[node.first_port + i];
    FailBuild(sc, "switch.cioq.input_queue_bytes",
              fmt::format("{} bytes leave less than one frame ({} bytes) below the PFC headroom "
                          "of {} bytes of port {} of switch node {} ({} b/s, {} ps delay); a "
                          "lossless input queue needs at least {} bytes",
                          c.input_queue_bytes, frame, headroom[i], i, n, p.rate_bps, p.delay,
                          headroom[i] + frame));
  }
}
}  // namespace

void CheckSwitchBuffers(const FabricLayout& l, const Scenario& sc) {
  const SwitchConfig& sw = sc.sw;
  const int frame = sc.host.mtu_bytes + sc.host.header_bytes;
  const int max_frame = MaxFrameBytes(sc);
  const std::array<bool, kNumPriorities> lossless = SwitchMmu::Lossless(sw);
  for (uint32_t n = 0; n < l.nodes.size(); ++n) {
    if (!l.nodes[n].is_switch) continue;
    const std::vector<int64_t> headroom = SwitchHeadroom(l, n, sw.pfc, max_frame);
    if (sw.architecture == SwitchArchitecture::kCioq) {
      CheckCioqQueues(l, n, sc, headroom, frame);
      continue;
    }
    if (const int64_t carved = SwitchMmu::CarvedBytes(sw, headroom, lossless);
        carved > sw.buffer_bytes)
      FailBuild(sc, "switch.buffer",
                fmt::format("{} bytes is too small for switch node {}: its reserved and PFC "
                            "headroom carve-outs need {} bytes",
                            sw.buffer_bytes, n, carved));
  }
}

}  // namespace rocesim
