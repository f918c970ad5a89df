#include "stats/roce_frame_encoder.h"

#include <algorithm>

namespace rocesim {

namespace {
uint8_t* Put16(uint8_t* at, uint32_t v) {
  at[0] = static_cast<uint8_t>(v >> 8);
  at[1] = static_cast<uint8_t>(v);
  return at + 2;
}
uint8_t* Put24(uint8_t* at, uint32_t v) {
  at[0] = static_cast<uint8_t>(v >> 16);
  return Put16(at + 1, v);
}
uint8_t* Put32(uint8_t* at, uint32_t v) {
  return Put16(Put16(at, v >> 16), v);
}

uint8_t* PutEthernet(uint8_t* at, const MacAddress& dst, const MacAddress& src, uint16_t type) {
  at = std::copy(dst.begin(), dst.end(), at);
  at = std::copy(src.begin(), src.end(), at);
  return Put16(at, type);
}
}  // namespace

uint16_t Ipv4Checksum(const uint8_t* header, size_t len) {
  uint32_t sum = 0;
  for (size_t i = 0; i + 1 < len; i += 2)
    sum += static_cast<uint32_t>(header[i] << 8 | header[i + 1]);
  if (len % 2) sum += static_cast<uint32_t>(header[len - 1] << 8);
  while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
  return static_cast<uint16_t>(~sum);
}

size_t EncodeFrameHeaders(const FrameHeaders& h, std::array<uint8_t, 64>& out) {
  out.fill(0);
  uint8_t* at = out.data();
  if (h.kind == FrameKind::kPfcPause) {
    // 802.1Qbb: to the MAC control multicast address; opcode, class-enable
    // vector, then the eight quanta; padded to the 60-byte minimum.
    static constexpr MacAddress kMacControl{0x01, 0x80, 0xC2, 0x00, 0x00, 0x01};
    at = PutEthernet(at, kMacControl, h.src_mac, kEtherTypeMacControl);
    at = Put16(at, 0x0101);
    at = Put16(at, h.class_enable);
    for (const uint16_t q : h.quanta) at = Put16(at, q);
    return 60;
  }
  if (h.kind == FrameKind::kOther) {
    PutEthernet(at, h.dst_mac, h.src_mac, kEtherTypeLocalExperimental);
    return 14;
  }
  at = PutEthernet(at, h.dst_mac, h.src_mac, kEtherTypeIpv4);
  // IPv4: no options, don't fragment, ID 0 (RFC 6864 allows it with DF).
  uint8_t* ip = at;
  const uint32_t ip_bytes = h.frame_bytes > 14 ? h.frame_bytes - 14 : 0;
  *at++ = 0x45;
  *at++ = static_cast<uint8_t>(h.dscp << 2 | (h.ecn & 3));
  at = Put16(at, ip_bytes);
  at = Put16(at, 0);       // identification
  at = Put16(at, 0x4000);  // DF, fragment offset 0
  *at++ = h.ttl;
  *at++ = 17;  // UDP
  uint8_t* checksum = at;
  at = Put16(at, 0);
  at = Put32(at, h.src_ip);
  at = Put32(at, h.dst_ip);
  Put16(checksum, Ipv4Checksum(ip, 20));
  // UDP, checksum 0.
  at = Put16(at, h.udp_src_port);
  at = Put16(at, kRoceUdpPort);
  at = Put16(at, ip_bytes > 20 ? ip_bytes - 20 : 0);
  at = Put16(at, 0);
  // BTH: opcode; SE, M, PadCnt, TVer all 0; P_Key; FECN/BECN; DestQP; A; PSN.
  *at++ = h.opcode;
  *at++ = 0;
  at = Put16(at, 0xFFFF);
  *at++ = h.becn ? 0x40 : 0;
  at = Put24(at, h.dest_qp & 0xFFFFFF);
  *at++ = h.ack_request ? 0x80 : 0;
  at = Put24(at, h.psn & 0xFFFFFF);
  if (h.has_aeth) {
    *at++ = h.aeth_syndrome;
    at = Put24(at, h.msn & 0xFFFFFF);
  }
  return static_cast<size_t>(at - out.data());
}

}  // namespace rocesim
