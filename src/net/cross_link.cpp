// Frames that cross a cut link of a partitioned run (sim/partitioned_run.h).
// The sending replica's port serialises the frame as always (Fabric::Launch:
// busy time, bytes sent) and then hands it over here instead of onto its
// wire; at the next window boundary the partition owning the far end puts it
// onto its own copy of that port's wire, where it lands at the same
// picosecond, through the same kLinkArrive event, as in a serial run. Every
// window ends before any frame launched in it can land (the window is at
// most the smallest link delay), so a frame always arrives in time.
#include <algorithm>
#include <cstring>

#include "net/fabric.h"

namespace rocesim {

void Fabric::SendAcross(PortId port, PktId id, Time arrive) {
  CrossOutbox& box = outbox[outbox_base + port_partition[port]];
  CrossFrame& c = box.frames.emplace_back();
  c.arrive = arrive;
  c.port = port;
  outbox_min_arrive = std::min(outbox_min_arrive, arrive);
  const Packet& pkt = pool[id];
  std::memcpy(c.pkt.data(), &pkt, sizeof(Packet));
  if (pkt.type == PktType::kRcmNotify) {
    c.side = static_cast<uint32_t>(box.notes.size());
    box.notes.push_back(rcm_notes_[pkt.psn]);
    FreeControlFrame(id);
    return;
  }
  if (int_enabled && id < int_stacks.size()) {
    c.side = static_cast<uint32_t>(box.int_stacks.size());
    box.int_stacks.push_back(int_stacks[id]);
  }
  pool.Free(id);
}

void Fabric::ReceiveAcross(const CrossFramesView& from) {
  // A window's frames arrive together, each into a pool slot and onto a wire
  // last touched long ago: the slots and ports a few frames ahead are
  // brought in while this one is handled.
  constexpr size_t kAhead = 4;
  const std::span<const CrossFrame> frames = from.frames;
  for (size_t i = 0; i < frames.size(); ++i) {
    if (i + kAhead < frames.size()) {
      pool.PrefetchAlloc(kAhead);
      __builtin_prefetch(&ports[frames[i + kAhead].port].wire);
    }
    const CrossFrame& c = frames[i];
    const PktId id = pool.AllocForOverwrite();
    Packet& pkt = pool[id];
    std::memcpy(&pkt, c.pkt.data(), sizeof(Packet));
    pkt.next = kNoPkt;
    pkt.route = routes.Entering(*this, pkt.flow, pkt.route);
    if (pkt.type == PktType::kRcmNotify) {
      pkt.psn = StoreRcmNote(from.notes[c.side]);
    } else if (c.side != CrossFrame::kNoSide) {
      IntOf(id) = from.int_stacks[c.side];
    }
    Port& p = ports[c.port];
    const bool wire_was_empty = p.wire.Empty();
    p.wire.Push(pool, id, c.arrive);
    if (wire_was_empty) ScheduleArrival(c.arrive, c.port, id);
  }
}

}  // namespace rocesim
