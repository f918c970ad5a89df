// The header bytes of a frame as it would appear on the wire, for packet
// captures (stats/port_capture.h): Ethernet II; for RoCEv2 frames IPv4 (DSCP,
// ECN, TTL, a correct header checksum), UDP to port 4791 and the InfiniBand
// BTH, with an AETH on ACK/NAK (IBTA RoCEv2 Annex A17; IBA vol. 1 §9.2-9.3)
// and the CNP's 16 reserved bytes (seed 000 §4: opcode 0x81, BECN set, PSN 0);
// for PFC the 802.1Qbb MAC control frame (opcode 0x0101, class-enable vector,
// eight per-priority pause quanta).
//
// Simplified: bytes past the headers (payload, the CNP's reserved bytes, the
// ICRC) are zeros; the UDP checksum is 0 (RoCEv2 allows it); P_Key is the
// default 0xFFFF; BTH PadCnt and MigReq are 0; the AETH's MSN is 0.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace rocesim {

using MacAddress = std::array<uint8_t, 6>;

enum class FrameKind : uint8_t { kRoce, kPfcPause, kOther };

// IBA BTH opcodes used here (RC transport).
inline constexpr uint8_t kOpSendFirst = 0x00;
inline constexpr uint8_t kOpSendMiddle = 0x01;
inline constexpr uint8_t kOpSendLast = 0x02;
inline constexpr uint8_t kOpSendOnly = 0x04;
inline constexpr uint8_t kOpAcknowledge = 0x11;
inline constexpr uint8_t kOpCnp = 0x81;
// AETH syndromes: an ACK with no credit count (0b000_11111), and a NAK
// "PSN sequence error" (0b011_00000).
inline constexpr uint8_t kAethAck = 0x1F;
inline constexpr uint8_t kAethNakPsnSequenceError = 0x60;
inline constexpr uint16_t kRoceUdpPort = 4791;
inline constexpr uint16_t kEtherTypeIpv4 = 0x0800;
inline constexpr uint16_t kEtherTypeMacControl = 0x8808;
// IEEE 802 local experimental ethertype: frames with no standard format here
// (seed 002's RCM notifications between switches).
inline constexpr uint16_t kEtherTypeLocalExperimental = 0x88B5;
inline constexpr size_t kFcsBytes = 4;
inline constexpr size_t kMaxHeaderBytes = 14 + 20 + 8 + 12 + 4;

struct FrameHeaders {
  FrameKind kind = FrameKind::kRoce;
  // The frame's length without its FCS (what a capture records): IP and UDP
  // lengths are derived from it.
  uint32_t frame_bytes = 0;
  MacAddress src_mac{};
  MacAddress dst_mac{};
  // kRoce
  uint32_t src_ip = 0;
  uint32_t dst_ip = 0;
  uint8_t dscp = 0;
  uint8_t ecn = 0;
  uint8_t ttl = 64;
  uint16_t udp_src_port = 0;
  uint8_t opcode = kOpSendOnly;
  bool becn = false;
  bool ack_request = false;
  uint32_t dest_qp = 0;  // 24 bits
  uint32_t psn = 0;      // 24 bits
  bool has_aeth = false;
  uint8_t aeth_syndrome = kAethAck;
  uint32_t msn = 0;  // 24 bits
  // kPfcPause: bit p of class_enable: quanta[p] applies.
  uint8_t class_enable = 0;
  std::array<uint16_t, 8> quanta{};
};

// RFC 791 header checksum of `len` bytes (the checksum field zero or not:
// over a header holding its checksum the result is 0).
uint16_t Ipv4Checksum(const uint8_t* header, size_t len);

// Writes the headers of `h` into `out` (zeros beyond them up to the
// returned length) and returns how many bytes it wrote: the headers, at
// most kMaxHeaderBytes, and for a PFC frame its 60 bytes with padding.
size_t EncodeFrameHeaders(const FrameHeaders& h, std::array<uint8_t, 64>& out);

}  // namespace rocesim
