// A frame on the fabric, allocated from PacketPool and referred to by a 32-bit
// index. A frame sits in exactly one place at a time (a NIC queue, a switch
// egress queue, a wire), so one intrusive `next` link serves every FIFO.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/chunked_vector.h"
#include "core/time.h"

namespace rocesim {

using PktId = uint32_t;
constexpr PktId kNoPkt = 0xFFFFFFFF;

// kRcmNotify: seed 002's congestion notification, a link-local control frame
// between neighbour switches (src/net/cioq_rcm.h); like kPause it is not host
// traffic and never reaches a host.
enum class PktType : uint8_t { kData, kAck, kNak, kCnp, kPause, kRcmNotify };

// RFC 3168 ECN codepoints in the IP header (seed 000 §5).
enum Ecn : uint8_t { kNotEct = 0b00, kEct1 = 0b01, kEct0 = 0b10, kCe = 0b11 };

// The IP TTL a host writes (Linux's net.ipv4.ip_default_ttl). Every switch
// hop decrements it and drops the packet at 0 (cause ttl_expired), which is
// what eventually kills flooded copies looping through a Clos (SIGCOMM'16
// §4.2, src/net/switch_flood.cpp); no fault-free path comes near 64 hops.
constexpr uint8_t kDefaultTtl = 64;

struct alignas(64) Packet {
  PktId next = kNoPkt;  // intrusive FIFO link: a queue's, or a wire's (net/wire.h)
  PktType type = PktType::kData;
  uint8_t priority = 0;  // queue class at the current hop (from DSCP at switches)
  uint8_t dscp = 0;
  uint8_t ecn = kNotEct;
  bool ecn_echo = false;  // ACK: the acknowledged data packet carried CE
  // IP TTL, in what was padding: a frame stays 64 bytes, one cache line.
  uint8_t ttl = kDefaultTtl;
  uint16_t in_port = 0;  // ingress port index at the current switch (buffer release)
  uint16_t sport = 0;    // UDP source port (ECMP entropy, per QP)
  // Bytes of `size` not charged to the ingress buffer of the switch queueing
  // it: a flooded copy carries only its share of the packet
  // (src/net/switch_flood.cpp); 0 everywhere else, reset when it leaves.
  uint16_t uncharged = 0;
  uint32_t size = 0;     // frame bytes on the wire, preamble/IFG excluded
  uint32_t payload = 0;  // RDMA payload bytes (data packets)
  uint32_t flow = 0;     // flow / QP id
  uint32_t src = 0;      // source host
  uint32_t dst = 0;      // destination host
  uint32_t psn = 0;      // data: PSN; ACK/NAK: next expected PSN; pause: quanta
  // The flow route this frame follows (net/flow_routes.h), or UINT32_MAX.
  uint32_t route = UINT32_MAX;
  // On a wire (net/wire.h): the low 32 bits of the arrival time of the frame
  // launched after this one on the same wire, which `next` names.
  uint32_t wire_next_arrive = 0;
  Time sent = 0;          // NIC transmit timestamp (echoed in ACKs for RTT)
  uint64_t flow_key = 0;  // five-tuple key for ECMP (Routing::FlowKey)
};

static_assert(sizeof(Packet) == 64, "a frame is one cache line");

class PacketPool {
 public:
  PktId Alloc() {
    const PktId id = AllocForOverwrite();
    slots_[id] = Packet{};
    return id;
  }
  // As Alloc, but leaves the slot's bytes as they are: for a caller that
  // overwrites the whole frame at once (a frame taken in from another
  // partition, net/cross_link.cpp), clearing it first is a wasted store.
  PktId AllocForOverwrite() {
    ++live_;
    if (!free_.empty()) {
      const PktId id = free_.back();
      free_.pop_back();
      return id;
    }
    slots_.EmplaceBack();
    return static_cast<PktId>(slots_.size() - 1);
  }
  void Free(PktId id) {
    --live_;
    free_.push_back(id);
  }
  // Starts bringing in, for writing, the slot that the `k`-th Alloc from now
  // will return if nothing is freed in between (a hint; no effect without one).
  void PrefetchAlloc(size_t k) const {
    if (k < free_.size()) __builtin_prefetch(&slots_[free_[free_.size() - 1 - k]], 1);
  }
  Packet& operator[](PktId id) { return slots_[id]; }
  const Packet& operator[](PktId id) const { return slots_[id]; }
  size_t Live() const { return live_; }
  size_t Capacity() const { return slots_.size(); }

 private:
  ChunkedVector<Packet> slots_;  // stable: handlers hold references across Alloc
  // Free slots, the last freed on top. A stack of ids rather than a list
  // threaded through the slots: taking the next free slot reads no packet,
  // so a burst of allocations (a window's frames taken in from another
  // partition) does not walk a chain of cache misses.
  std::vector<PktId> free_;
  size_t live_ = 0;
};

// FIFO of packets threaded through Packet::next.
struct PacketFifo {
  PktId head = kNoPkt;
  PktId tail = kNoPkt;
  uint32_t count = 0;
  int64_t bytes = 0;

  bool Empty() const { return head == kNoPkt; }
  void Push(PacketPool& pool, PktId id) {
    Packet& p = pool[id];
    p.next = kNoPkt;
    if (tail == kNoPkt) {
      head = id;
    } else {
      pool[tail].next = id;
    }
    tail = id;
    ++count;
    bytes += p.size;
  }
  PktId Pop(PacketPool& pool) {
    PktId id = head;
    Packet& p = pool[id];
    head = p.next;
    if (head == kNoPkt) tail = kNoPkt;
    --count;
    bytes -= p.size;
    return id;
  }
};

}  // namespace rocesim
