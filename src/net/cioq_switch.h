// A combined input-and-output-queued (CIOQ) switch, the architecture of seed
// 002 §4.1 ("input-and-output queuing architecture, with virtual input queues
// (VOQ) at the input port and one output queue (OQ) at the output port. Each
// queue in the switch is 100 KB in size"), which regional congestion
// mitigation (seed 002 §3) needs: its congestion detection watches input and
// output queues (§3.2, Fig. 4), its window-based control schedules at the
// crossbar (§3.4), and the victim-flow experiment (§4.2, Fig. 7) is about the
// head-of-line blocking between an input queue and its upstream under PFC.
//
// A frame's path through the switch:
//  1. Input (Receive): classified by DSCP, routed (Route: the one place an
//     output port is chosen, where switch-level adaptive routing will plug
//     in), appended to the VOQ of (input, output, priority). The input
//     queue of (input, priority) — all its VOQs together — holds at most
//     `cioq.input_queue_bytes`. A lossless priority sends PFC XOFF upstream
//     once its input queue, after the crossbar has taken what it can,
//     reaches input_queue_bytes minus the port's PFC headroom (sized as for
//     the shared buffer: two link delays at line rate plus three frames) and
//     XON once it is `pfc.xon_offset` below that (or empty); XOFF is renewed
//     like the shared-buffer switch's (PfcSender).
//     A lossy frame that does not fit is dropped (buffer_full); a lossless
//     one only if the headroom overflows (headroom_overflow, never when
//     sized).
//  2. Crossbar (Transfer): whenever an output queue (output, priority) has
//     room for the frame at the head of a requesting VOQ, the frame moves.
//     PickInput chooses which input goes next — round robin over the inputs
//     with a frame for that output and priority. This is the arbitration
//     hook: seed 002 §3.4's window-based regional congestion control
//     replaces the choice there. WRED drop of non-ECT data (ecn.wred_drop)
//     applies as a frame enters its output queue.
//  3. Output (Dequeue): the output queues are Port::queue[prio] of the output
//     port, each bounded by `cioq.output_queue_bytes`, served exactly as the
//     shared-buffer switch serves its egress queues (net/egress.h: strict
//     control class, DWRR, RED/ECN at dequeue, INT, PFC from downstream);
//     the space a departing frame frees is refilled from the VOQs at once.
//
// Simplifications (also in the README model notes):
//  - The crossbar's speedup is taken as large enough that a transfer takes
//    no time: a frame moves the instant its output queue has room, and the
//    crossbar never limits the switch's throughput. Only the arbitration
//    order between inputs is modelled.
//  - A VOQ head that does not fit into its output queue waits there; the
//    arbiter does not skip to a smaller frame of another input.
//  - There is no shared memory: every queue is its own fixed-size buffer.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/packet.h"
#include "net/cioq_rcm.h"
#include "net/egress.h"
#include "net/pfc_sender.h"
#include "net/port.h"
#include "net/red.h"
#include "scenario/scenario.h"
#include "stats/counters.h"

namespace rocesim {

struct Fabric;

class CioqSwitch {
 public:
  // headroom_per_port: the PFC headroom of each lossless input queue of each
  // port; red: ECN parameters per local port; max_frame_bytes: DWRR unit.
  void Init(uint32_t node, PortId first_port, const SwitchConfig& cfg,
            const std::vector<int64_t>& headroom_per_port, const std::vector<RedParams>& red,
            int max_frame_bytes, uint64_t seed);

  void Receive(Fabric& f, PortId in, PktId pkt);
  // Next frame to transmit on `out` (kNoPkt if none is eligible now).
  PktId Dequeue(Fabric& f, PortId out);
  void OnPfcRefresh(Fabric& f, PortId port, int prio);
  // Drops every frame bound for output queue `prio` of `out`, queued there or
  // still in a VOQ (a triggered PFC watchdog with action drop, a link down).
  void DrainQueue(Fabric& f, PortId out, int prio, DropCause cause);
  // The deadlock detector's `break`: drops frames from the head of output
  // queue `prio` of `out` (the crossbar refilling it from the VOQs) until
  // the input the first of them came from is no longer pausing its upstream
  // (or nothing is left for that output queue).
  void BreakHead(Fabric& f, PortId out, int prio);

  // Arbitration hook of the crossbar: the local input port whose VOQ head for
  // (local output `out`, `prio`) moves to the output queue next, or -1 when
  // no input has a frame for it. Today round robin over the requesting
  // inputs, starting just past the last input granted.
  int PickInput(int out, int prio) const;
  // The first requesting input in the same round-robin order for which
  // `ok(input)` holds, or -1 (RCC's bypass of harmful heads, net/cioq_rcm.h).
  template <class Pred>
  int PickInputIf(int out, int prio, Pred&& ok) const {
    const int start = rr_next_[Oq(out, prio)];
    for (int k = 0; k < num_ports_; ++k) {
      const int in = (start + k) % num_ports_;
      if ((requests_[Oq(out, prio) * words_ + static_cast<size_t>(in / 64)] >> (in % 64) & 1) &&
          ok(in))
        return in;
    }
    return -1;
  }

  // Inspection (monitors, deadlock detector, tests, RCM detection).
  uint32_t node() const { return node_; }
  PortId first_port() const { return first_port_; }
  // Regional congestion mitigation (seed 002 §3), null unless switch.rcm.enabled.
  const CioqRcm* rcm() const { return rcm_.get(); }
  int num_ports() const { return num_ports_; }
  // Bytes in the input queue of (local port `in`, `prio`): all its VOQs.
  int64_t InputQueueBytes(int in, int prio) const { return in_bytes_[Pg(in, prio)]; }
  // Does the VOQ of (local input, local output, priority) hold a frame?
  bool VoqNonEmpty(int in, int out, int prio) const {
    return voq_[Voq(in, out, prio)].head != kNoPkt;
  }
  // The frame at the head of that VOQ (kNoPkt when empty).
  PktId VoqHead(int in, int out, int prio) const { return voq_[Voq(in, out, prio)].head; }
  // Invariants (stats/invariants.h): an input-queue count that disagrees
  // with its VOQs, else empty; an XOFF outstanding on an empty input queue
  // (its resume was never sent), else empty.
  std::string CheckCounts(const PacketPool& pool) const;
  std::string CheckXoffs() const;
  // Is the input queue of (local port, priority) pausing its upstream?
  bool Xoff(int in, int prio) const { return xoff_[Pg(in, prio)] != 0; }
  // The input-queue level at which a lossless priority of local port `in`
  // pauses its upstream: input_queue_bytes minus that port's headroom.
  int64_t XoffThreshold(int in) const { return xoff_at_[static_cast<size_t>(in)]; }
  // Every frame in a VOQ of this switch, in a fixed order (conservation).
  template <class Fn>
  void ForEachQueued(const PacketPool& pool, Fn&& fn) const {
    for (const VoqFifo& v : voq_)
      for (PktId id = v.head; id != kNoPkt; id = pool[id].next) fn(id);
  }

 private:
  // A VOQ: a FIFO threaded through Packet::next (its bytes are accounted per
  // input queue, not per VOQ), kept small: a switch has ports^2 x 8 of them.
  struct VoqFifo {
    PktId head = kNoPkt;
    PktId tail = kNoPkt;
  };

  size_t Pg(int in, int prio) const {
    return static_cast<size_t>(in) * kNumPriorities + static_cast<size_t>(prio);
  }
  // VOQs are laid out by (output, priority), then input: the arbiter of one
  // output queue reads one contiguous run.
  size_t Oq(int out, int prio) const {
    return static_cast<size_t>(out) * kNumPriorities + static_cast<size_t>(prio);
  }
  size_t Voq(int in, int out, int prio) const {
    return Oq(out, prio) * static_cast<size_t>(num_ports_) + static_cast<size_t>(in);
  }
  std::span<const uint64_t> Requests(int out, int prio) const {
    return {requests_.data() + Oq(out, prio) * words_, words_};
  }
  void SetRequest(int in, int out, int prio, bool on);

  // The output port a frame leaves by, chosen as it enters its VOQ. The only
  // routing call of the switch: adaptive routing hooks in here.
  PortId Route(Fabric& f, const Packet& pkt, int prio);
  // Moves VOQ heads into output queue (out, prio) while it has room for them;
  // true if any moved.
  bool Transfer(Fabric& f, int out, int prio);
  // The crossbar moved the head of input `in`'s VOQ to (out, prio): the
  // arbiter's state update (the round-robin pointer moves past `in`).
  void OnGranted(int out, int prio, int in);
  PktId PopVoq(Fabric& f, int in, int out, int prio);
  void CheckResume(Fabric& f, int in, int prio);

  uint32_t node_ = 0;
  PortId first_port_ = 0;
  int num_ports_ = 0;
  const SwitchConfig* cfg_ = nullptr;
  int64_t input_queue_bytes_ = 0;
  int64_t output_queue_bytes_ = 0;
  std::array<bool, kNumPriorities> lossless_{};
  EgressPolicy egress_;
  PfcSender pfc_;
  std::vector<int64_t> xoff_at_;    // per local port: the lossless XOFF level
  std::vector<int64_t> in_bytes_;   // per (input, priority): input queue occupancy
  std::vector<uint8_t> xoff_;       // per (input, priority): XOFF sent, not yet resumed
  std::vector<VoqFifo> voq_;        // per (output, priority, input)
  size_t words_ = 0;                // 64-bit words of one request bitset
  std::vector<uint64_t> requests_;  // per (output, priority): inputs with a non-empty VOQ
  std::vector<uint16_t> rr_next_;   // per (output, priority): where the next search starts
  // Seed 002 §3, only with switch.rcm.enabled; every call is behind `if (rcm_)`.
  // It refers back to this switch: Fabric sizes cioq_switches before Init, and
  // a switch is never moved afterwards.
  std::unique_ptr<CioqRcm> rcm_;
};

}  // namespace rocesim
