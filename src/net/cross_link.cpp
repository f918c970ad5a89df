// Frames that cross a cut link of a partitioned run (sim/partitioned_run.h).
// The sending replica's port serialises the frame as always (Fabric::Launch:
// busy time, bytes sent) and then hands it over here instead of onto its
// wire; at the next window boundary the partition owning the far end puts it
// onto its own copy of that port's wire, where it lands at the same
// picosecond, through the same kLinkArrive event, as in a serial run. Every
// window ends before any frame launched in it can land (the window is at
// most the smallest link delay), so a frame always arrives in time.
#include <algorithm>

#include "net/fabric.h"

namespace rocesim {

void Fabric::SendAcross(PortId port, PktId id, Time arrive) {
  CrossFrame& c = outbox[outbox_base + port_partition[port]].emplace_back();
  c.arrive = arrive;
  c.port = port;
  outbox_min_arrive = std::min(outbox_min_arrive, arrive);
  c.pkt = pool[id];
  if (c.pkt.type == PktType::kRcmNotify) {
    c.note = rcm_notes_[c.pkt.psn];
    FreeControlFrame(id);
    return;
  }
  if (int_enabled && id < int_stacks.size()) {
    c.has_int = true;
    c.int_stack = int_stacks[id];
  }
  pool.Free(id);
}

void Fabric::ReceiveAcross(const CrossFrame& c) {
  const PktId id = pool.Alloc();
  Packet& pkt = pool[id];
  pkt = c.pkt;
  pkt.next = kNoPkt;
  if (pkt.type == PktType::kRcmNotify) {
    uint32_t slot;
    if (rcm_free_notes_.empty()) {
      slot = static_cast<uint32_t>(rcm_notes_.size());
      rcm_notes_.push_back(c.note);
    } else {
      slot = rcm_free_notes_.back();
      rcm_free_notes_.pop_back();
      rcm_notes_[slot] = c.note;
    }
    pkt.psn = slot;
  } else if (c.has_int) {
    IntOf(id) = c.int_stack;
  }
  Port& p = ports[c.port];
  const bool wire_was_empty = p.wire.Empty();
  p.wire.Push(id, c.arrive);
  if (wire_was_empty) ScheduleArrival(c.arrive, c.port, id);
}

}  // namespace rocesim
