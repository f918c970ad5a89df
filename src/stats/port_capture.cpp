#include "stats/port_capture.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "net/fabric.h"
#include "scenario/scenario_reader.h"
#include "stats/roce_frame_encoder.h"

namespace rocesim {

namespace {
constexpr uint32_t kQpnBase = 0x100;

MacAddress MacOf(const PortLink& l) {
  return {0x02,
          static_cast<uint8_t>(l.node >> 16),
          static_cast<uint8_t>(l.node >> 8),
          static_cast<uint8_t>(l.node),
          static_cast<uint8_t>(l.local >> 8),
          static_cast<uint8_t>(l.local)};
}
uint32_t IpOf(uint32_t host) {
  return 0x0A000000u + ((host + 1) & 0xFFFFFF);
}

FrameHeaders HeadersOf(const Fabric& f, PortId wire_port, const Packet& pkt) {
  const FabricLayout& l = *f.layout;
  const PortLink& from = l.ports[wire_port];
  FrameHeaders h;
  h.frame_bytes = pkt.size > kFcsBytes ? pkt.size - static_cast<uint32_t>(kFcsBytes) : 0;
  h.src_mac = MacOf(from);
  h.dst_mac = MacOf(l.ports[from.peer]);
  switch (pkt.type) {
    case PktType::kPause:
      h.kind = FrameKind::kPfcPause;
      h.class_enable = static_cast<uint8_t>(1u << pkt.priority);
      h.quanta[pkt.priority] = static_cast<uint16_t>(pkt.psn);
      return h;
    case PktType::kRcmNotify:
      h.kind = FrameKind::kOther;
      return h;
    default:
      break;
  }
  h.src_ip = IpOf(pkt.src);
  h.dst_ip = IpOf(pkt.dst);
  h.dscp = pkt.dscp;
  h.ecn = pkt.ecn;
  h.ttl = pkt.ttl;
  h.udp_src_port = pkt.sport;
  h.dest_qp = kQpnBase + pkt.flow;
  switch (pkt.type) {
    case PktType::kData: {
      // Its ends: a capture on a transit switch sees flows its partition
      // does not hold (transport/flow_table.h).
      const uint32_t last = f.flows.Ends(pkt.flow).packets - 1;
      h.opcode = pkt.psn == 0      ? (last == 0 ? kOpSendOnly : kOpSendFirst)
                 : pkt.psn == last ? kOpSendLast
                                   : kOpSendMiddle;
      h.ack_request = pkt.psn == last;
      h.psn = pkt.psn;
      break;
    }
    case PktType::kAck:  // pkt.psn: the next PSN expected; the ACK names the last received
      h.opcode = kOpAcknowledge;
      h.psn = pkt.psn - 1;
      h.has_aeth = true;
      h.aeth_syndrome = kAethAck;
      break;
    case PktType::kNak:  // names the PSN expected
      h.opcode = kOpAcknowledge;
      h.psn = pkt.psn;
      h.has_aeth = true;
      h.aeth_syndrome = kAethNakPsnSequenceError;
      break;
    case PktType::kCnp:
      h.opcode = kOpCnp;
      h.becn = true;
      h.psn = 0;
      break;
    default:
      break;
  }
  return h;
}
}  // namespace

PortCaptures::PortCaptures(const PcapConfig& cfg, const std::string& dir, Fabric& f,
                           const std::vector<uint8_t>& local)
    : start_(cfg.start),
      end_(cfg.end),
      tx_capture_(f.layout->ports.size(), -1),
      rx_capture_(f.layout->ports.size(), -1) {
  const FabricLayout& l = *f.layout;
  for (const PcapPort& p : cfg.ports) {
    if (static_cast<size_t>(p.node) >= l.nodes.size())
      throw ScenarioError(fmt::format("{}: node {} does not exist (the topology has nodes 0 to {})",
                                      p.where, p.node, l.nodes.size() - 1));
    const Node& node = l.nodes[static_cast<size_t>(p.node)];
    if (p.port >= node.num_ports)
      throw ScenarioError(fmt::format("{}: node {} has no port {} (it has ports 0 to {})", p.where,
                                      p.node, p.port, node.num_ports - 1));
  }
  const std::filesystem::path pcap_dir = std::filesystem::path(dir) / "pcap";
  for (const PcapPort& p : cfg.ports) {
    if (!local.empty() && !local[static_cast<size_t>(p.node)]) continue;
    std::filesystem::create_directories(pcap_dir);
    const PortId port =
        l.nodes[static_cast<size_t>(p.node)].first_port + static_cast<PortId>(p.port);
    const PortId peer = l.ports[port].peer;
    const auto index = static_cast<int32_t>(captures_.size());
    Capture& c = captures_.emplace_back();
    c.writer = std::make_unique<PcapWriter>(
        (pcap_dir / fmt::format("{}-p{}.pcap", p.node, p.port)).string(), cfg.snaplen);
    tx_capture_[port] = index;
    rx_capture_[peer] = index;
    f.ports[port].link_ops |= Port::kLinkCaptureTx;
    f.ports[peer].link_ops |= Port::kLinkCaptureRx;
  }
  f.captures = this;
}

PortCaptures::~PortCaptures() = default;

void PortCaptures::Record(const Fabric& f, PortId wire_port, PktId id, bool received) {
  if (f.now < start_ || f.now > end_) return;
  const int32_t index = received ? rx_capture_[wire_port] : tx_capture_[wire_port];
  Capture& c = captures_[static_cast<size_t>(index)];
  if (!c.pending.empty() && c.pending_time != f.now) Flush(c);
  c.pending_time = f.now;
  Pending& r = c.pending.emplace_back();
  r.received = received;
  const FrameHeaders h = HeadersOf(f, wire_port, f.pool[id]);
  r.orig_len = h.frame_bytes;
  r.header_len = static_cast<uint32_t>(EncodeFrameHeaders(h, r.header));
}

void PortCaptures::Flush(Capture& c) {
  // Events of one picosecond may run in another order in a partitioned run:
  // transmissions first, then arrivals (a port sends at most one frame, and
  // receives at most one, at any picosecond).
  std::stable_sort(c.pending.begin(), c.pending.end(),
                   [](const Pending& a, const Pending& b) { return a.received < b.received; });
  for (const Pending& r : c.pending)
    c.writer->Write(c.pending_time, r.header.data(), std::min(r.header_len, r.orig_len),
                    r.orig_len);
  c.pending.clear();
}

void PortCaptures::Finish() {
  for (Capture& c : captures_) {
    Flush(c);
    c.writer->Finish();
  }
}

}  // namespace rocesim
