// The packet capture's bytes (stats/roce_frame_encoder.h, stats/pcap_writer.h)
// against values computed by hand from the standards: RFC 791's checksum,
// the IBA BTH and AETH layouts, 802.1Qbb's pause frame and the pcap file
// and record headers with nanosecond timestamps.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "stats/pcap_writer.h"
#include "stats/roce_frame_encoder.h"

namespace rocesim {
namespace test_pcap_format {
namespace {

std::vector<uint8_t> Bytes(const std::array<uint8_t, 64>& a, size_t from, size_t n) {
  return {a.begin() + static_cast<long>(from), a.begin() + static_cast<long>(from + n)};
}

TEST(Ipv4Checksum, MatchesTheWorkedExample) {
  // 45 00 00 73 00 00 40 00 40 11 [b8 61] c0 a8 00 01 c0 a8 00 c7: the
  // checksum of this header is 0xb861 (one's complement sum by hand:
  // 4500+0073+0000+4000+4011+c0a8+0001+c0a8+00c7 = 0x2479c -> 0x479e, ~ = 0xb861).
  uint8_t h[20] = {0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
                   0x00, 0x00, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7};
  EXPECT_EQ(Ipv4Checksum(h, 20), 0xb861);
  h[10] = 0xb8;
  h[11] = 0x61;
  EXPECT_EQ(Ipv4Checksum(h, 20), 0);  // a header holding its checksum sums to 0
}

FrameHeaders DataFrame() {
  FrameHeaders h;
  h.frame_bytes = 1024 + 54 + 4;  // payload + Eth/IP/UDP/BTH + ICRC (FCS not captured)
  h.src_mac = {0x02, 0, 0, 1, 0, 0};
  h.dst_mac = {0x02, 0, 0, 4, 0, 1};
  h.src_ip = 0x0A000002;  // 10.0.0.2
  h.dst_ip = 0x0A000001;
  h.dscp = 26;
  h.ecn = 0b11;
  h.ttl = 63;
  h.udp_src_port = 0xC123;
  h.opcode = kOpSendOnly;
  h.dest_qp = 0x000102;
  h.psn = 0x123456;
  h.ack_request = true;
  return h;
}

TEST(RoceFrameEncoder, DataFrameHeaders) {
  std::array<uint8_t, 64> out;
  ASSERT_EQ(EncodeFrameHeaders(DataFrame(), out), 54u);
  // Ethernet: destination, source, type IPv4.
  EXPECT_EQ(Bytes(out, 0, 14),
            (std::vector<uint8_t>{0x02, 0, 0, 4, 0, 1, 0x02, 0, 0, 1, 0, 0, 0x08, 0x00}));
  // IPv4: TOS = 26 << 2 | CE = 0x6b; total length 1082 - 14 = 1068 = 0x042c;
  // DF; TTL 63; UDP; checksum by hand:
  // 0x456b+0x042c+0x0000+0x4000+0x3f11+0x0a00+0x0002+0x0a00+0x0001 = 0xdcab, ~ = 0x2354.
  EXPECT_EQ(Bytes(out, 14, 20),
            (std::vector<uint8_t>{0x45, 0x6b, 0x04, 0x2c, 0x00, 0x00, 0x40, 0x00, 0x3f, 0x11,
                                  0x23, 0x54, 0x0a, 0x00, 0x00, 0x02, 0x0a, 0x00, 0x00, 0x01}));
  // UDP: ports 0xc123 -> 4791 (0x12b7), length 1068 - 20 = 1048, checksum 0.
  EXPECT_EQ(Bytes(out, 34, 8),
            (std::vector<uint8_t>{0xc1, 0x23, 0x12, 0xb7, 0x04, 0x18, 0x00, 0x00}));
  // BTH: opcode 0x04, flags 0, P_Key ffff, FECN/BECN 0, QPN 000102, A set, PSN 123456.
  EXPECT_EQ(Bytes(out, 42, 12), (std::vector<uint8_t>{0x04, 0x00, 0xff, 0xff, 0x00, 0x00, 0x01,
                                                      0x02, 0x80, 0x12, 0x34, 0x56}));
}

TEST(RoceFrameEncoder, AckNakAndCnp) {
  std::array<uint8_t, 64> out;
  FrameHeaders h = DataFrame();
  h.frame_bytes = 62;
  h.opcode = kOpAcknowledge;
  h.ack_request = false;
  h.psn = 0xFFFFFF;  // 24 bits: an ACK of PSN -1 wraps
  h.has_aeth = true;
  h.aeth_syndrome = kAethNakPsnSequenceError;
  h.msn = 0x0a0b0c;
  ASSERT_EQ(EncodeFrameHeaders(h, out), 58u);
  EXPECT_EQ(Bytes(out, 42, 16),
            (std::vector<uint8_t>{0x11, 0x00, 0xff, 0xff, 0x00, 0x00, 0x01, 0x02, 0x00, 0xff, 0xff,
                                  0xff, 0x60, 0x0a, 0x0b, 0x0c}));
  // CNP (seed 000 §4): opcode 0x81, BECN set, PSN 0; its 16 reserved bytes
  // and the ICRC follow as zeros.
  h = DataFrame();
  h.frame_bytes = 74;
  h.opcode = kOpCnp;
  h.becn = true;
  h.ack_request = false;
  h.psn = 0;
  h.ecn = 0b01;
  ASSERT_EQ(EncodeFrameHeaders(h, out), 54u);
  EXPECT_EQ(out[15], 26 << 2 | 0b01);
  EXPECT_EQ(Bytes(out, 42, 12), (std::vector<uint8_t>{0x81, 0x00, 0xff, 0xff, 0x40, 0x00, 0x01,
                                                      0x02, 0x00, 0x00, 0x00, 0x00}));
  for (size_t i = 54; i < out.size(); ++i) EXPECT_EQ(out[i], 0);
}

TEST(RoceFrameEncoder, PfcPauseFrame) {
  FrameHeaders h;
  h.kind = FrameKind::kPfcPause;
  h.frame_bytes = 60;
  h.src_mac = {0x02, 0, 0, 4, 0, 2};
  h.class_enable = 1u << 3;
  h.quanta[3] = 0xFFFF;
  std::array<uint8_t, 64> out;
  ASSERT_EQ(EncodeFrameHeaders(h, out), 60u);
  std::vector<uint8_t> expect = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x01,  // MAC control address
                                 0x02, 0x00, 0x00, 0x04, 0x00, 0x02,  // source
                                 0x88, 0x08,                          // MAC control
                                 0x01, 0x01,                          // PFC opcode
                                 0x00, 0x08};                         // class-enable: priority 3
  for (int p = 0; p < 8; ++p) {
    expect.push_back(p == 3 ? 0xff : 0);
    expect.push_back(p == 3 ? 0xff : 0);
  }
  expect.resize(60, 0);  // padded to the 60-byte minimum (the FCS makes 64)
  EXPECT_EQ(Bytes(out, 0, 60), expect);
}

uint32_t Le32(const std::string& s, size_t at) {
  uint32_t v;
  std::memcpy(&v, s.data() + at, 4);
  return v;
}

TEST(PcapWriter, FileAndRecordHeaders) {
  const std::string path =
      ::testing::TempDir() + "rocesim_pcap_writer_" + std::to_string(::getpid()) + ".pcap";
  {
    PcapWriter w(path, 64);
    const uint8_t head[3] = {1, 2, 3};
    // 2.5 s + 7 ns + 999 ps: whole nanoseconds are kept.
    w.Write(2 * kSecond + 500 * kMillisecond + 7 * kNanosecond + 999, head, 3, 1082);
    w.Write(kNanosecond, head, 3, 60);
    w.Finish();
  }
  std::ifstream in(path, std::ios::binary);
  const std::string s{std::istreambuf_iterator<char>(in), {}};
  std::filesystem::remove(path);
  ASSERT_EQ(s.size(), 24u + 16 + 64 + 16 + 60);
  EXPECT_EQ(Le32(s, 0), 0xa1b23c4du);
  EXPECT_EQ(Le32(s, 4), 0x00040002u);                              // version 2.4
  EXPECT_EQ(Le32(s, 16), 64u);                                     // snaplen
  EXPECT_EQ(Le32(s, 20), 1u);                                      // Ethernet
  EXPECT_EQ(Le32(s, 24), 2u);                                      // seconds
  EXPECT_EQ(Le32(s, 28), 500000007u);                              // nanoseconds
  EXPECT_EQ(Le32(s, 32), 64u);                                     // incl_len: capped by snaplen
  EXPECT_EQ(Le32(s, 36), 1082u);                                   // orig_len: the frame's length
  EXPECT_EQ(s.substr(40, 4), std::string("\x01\x02\x03\x00", 4));  // data, then zeros
  EXPECT_EQ(Le32(s, 104 + 4), 1u);
  EXPECT_EQ(Le32(s, 104 + 8), 60u);
  EXPECT_EQ(Le32(s, 104 + 12), 60u);
}

}  // namespace
}  // namespace test_pcap_format
}  // namespace rocesim
