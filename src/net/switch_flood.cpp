// The switch's rare forwarding paths: an expired IP TTL, and unknown unicast
// (SIGCOMM'16 "RDMA over Commodity Ethernet at Scale" §4.2, the PFC deadlock
// found in a test cluster; seed 003 §6.3 "Deadlock ... did happen").
//
// A ToR routing a packet to one of its servers looks up the server's MAC in
// its ARP table (entries time out after 4 hours) and the port of that MAC in
// its MAC table (learned from the server's frames, timed out after 5
// minutes). For a server that died, the ARP entry outlives the MAC entry, and
// a commodity switch floods such a packet out of every port but the one it
// came in on — lossless packets too, in their lossless class. The copies sent
// up to the Leaf switches (a leaf_spine's spines) come back down (they route
// the destination's subnet to this ToR) and are flooded again: up-down
// routing is broken, the copies loop until their TTL runs out, and together
// with ordinary traffic they can close a cycle of PFC pauses that never
// releases (examples/deadlock-flooding.yaml). The paper's fix is to drop
// lossless packets whose MAC is unknown instead (switch.unknown_unicast: drop).
//
// Modelled: every switch hop decrements the TTL and drops the packet at 0
// (cause ttl_expired). A switch with a missing MAC entry (fault
// mac_entry_loss, src/ops/mac_entry_loss.h) floods a packet for that host out
// of every port but the ingress whose link is up, each copy in the packet's
// own class and through the normal drop rules, admission, queues and PFC of
// its egress. The packet is charged to its ingress (port, priority) once, split
// among its copies, each share released as its copy leaves (a real switch
// keeps the one stored packet until its last copy has left: its ingress
// fills faster). In drop mode a lossless packet is dropped (cause
// unknown_mac) and a lossy one still flooded. Copies are new frames from the
// pool (counted as `replicated` in the conservation block); a copy that
// reaches a live host it is not addressed to is discarded by that NIC's MAC
// filter (cause wrong_host), so it never counts as a delivery of its flow.
#include <algorithm>

#include "net/fabric.h"
#include "net/switch.h"

namespace rocesim {

void Switch::SetMacEntryMissing(uint32_t host, bool missing) {
  const auto it = std::lower_bound(missing_macs_.begin(), missing_macs_.end(), host);
  const bool present = it != missing_macs_.end() && *it == host;
  if (missing && !present) missing_macs_.insert(it, host);
  if (!missing && present) missing_macs_.erase(it);
  slow_ttl_ = missing_macs_.empty() ? 0 : 0xFF;
}

bool Switch::MacEntryMissing(uint32_t host) const {
  return std::binary_search(missing_macs_.begin(), missing_macs_.end(), host);
}

void Switch::ReceiveUnusual(Fabric& f, PortId in, PktId id, int prio) {
  const Packet& pkt = f.pool[id];
  if (pkt.ttl == 0) {
    f.CountDrop(id, DropCause::kTtlExpired, in);
    return;
  }
  if (!MacEntryMissing(pkt.dst)) {
    ForwardTo(f, in, id, prio, f.routing.SelectPort(f, node_, pkt), 0);
    return;
  }
  if (cfg_->unknown_unicast == UnknownUnicast::kDrop && lossless_[prio]) {
    f.CountDrop(id, DropCause::kUnknownMac, in);
    return;
  }
  Flood(f, in, id, prio);
}

void Switch::Flood(Fabric& f, PortId in, PktId id, int prio) {
  const Node& node = f.nodes[node_];
  flood_ports_.clear();
  for (uint16_t l = 0; l < node.num_ports; ++l) {
    const PortId out = first_port_ + l;
    if (out != in && !f.ports[out].link_down) flood_ports_.push_back(out);
  }
  if (flood_ports_.empty()) {  // nowhere to flood to: the packet is lost here
    f.CountDrop(id, DropCause::kUnknownMac, in);
    return;
  }
  // The packet is charged to its ingress (port, priority) once, in shares:
  // copy i is admitted with size / n (the original with the remainder too)
  // and releases its share when it leaves. (A frame too large for the share
  // field, beyond any Ethernet MTU, is charged in full by every copy.)
  const auto n = static_cast<uint32_t>(flood_ports_.size());
  const uint32_t size = f.pool[id].size;
  const bool shared = size <= 0xFFFF;
  const auto copy_uncharged = static_cast<uint16_t>(shared ? size - size / n : 0);
  const auto original_uncharged = static_cast<uint16_t>(shared ? (n - 1) * (size / n) : 0);
  // The copies first, from the untouched original; the original takes the last port.
  for (uint32_t i = 0; i + 1 < n; ++i) {
    const PktId c = f.pool.Alloc();
    Packet& copy = f.pool[c];  // the pool's storage is stable: `id` stays valid
    copy = f.pool[id];
    copy.next = kNoPkt;
    if (f.int_enabled) f.IntOf(c) = f.IntOf(id);
    f.counters.replicated_frames++;
    if (copy.type == PktType::kData) f.counters.replicated_payload_bytes += copy.payload;
    ForwardTo(f, in, c, prio, flood_ports_[i], copy_uncharged);
  }
  ForwardTo(f, in, id, prio, flood_ports_.back(), original_uncharged);
}

}  // namespace rocesim
