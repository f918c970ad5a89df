// Packet captures of chosen ports (monitors.pcap): one pcap file per port,
// pcap/<node>-p<port>.pcap in the results directory, holding the frames the
// port transmits (timestamped when their first bit leaves) and the frames it
// receives (timestamped when their last bit has arrived; frames lost on the
// link, by a packet_loss fault or a bit error, are not). Each record is the
// frame as it would appear on the wire (stats/roce_frame_encoder.h), FCS
// excluded: orig_len is the frame's size on the wire less its 4-byte FCS
// (the ICRC counted), incl_len that capped by snaplen, and the bytes past
// the headers are zeros.
//
// Addresses: the port with node n and local index p has MAC
// 02:nn:nn:nn:pp:pp (n in 24 bits, p in 16); host h has IPv4 address
// 10.0.0.0 + h + 1; flow f's QP number is 0x100 + f on both ends. A data
// packet is RC SEND First / Middle / Last / Only by its PSN in the flow's
// message and requests an ACK (BTH A bit) on its last packet.
//
// In a partitioned run the partition owning a port's node writes its file:
// it launches the frames that port sends and lands the frames it receives
// (Fabric::Launch, Fabric::OnLinkArrive), so the records are the serial
// run's. A transmission and an arrival at the same picosecond are written
// transmission first, whatever order the events ran in.
//
// Cost when off: none beyond the link_ops test the launch and landing paths
// already make (Port::kLinkCaptureTx / kLinkCaptureRx).
#pragma once

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "core/packet.h"
#include "net/port.h"
#include "scenario/scenario.h"
#include "stats/pcap_writer.h"

namespace rocesim {

struct Fabric;

class PortCaptures {
 public:
  // Checks cfg's ports against the fabric (ScenarioError naming the
  // scenario line when one does not exist), opens the files of those on
  // nodes with local[node] set (empty: all) under dir/pcap, and marks the
  // ports' links for capture.
  PortCaptures(const PcapConfig& cfg, const std::string& dir, Fabric& f,
               const std::vector<uint8_t>& local);
  ~PortCaptures();

  // Frame `id` is put on `wire_port`'s wire now (received false), or lands
  // from it at the far end now (received true).
  void Record(const Fabric& f, PortId wire_port, PktId id, bool received);
  // Writes what is pending and flushes every file.
  void Finish();

 private:
  struct Pending {
    bool received;
    uint32_t header_len;
    uint32_t orig_len;
    std::array<uint8_t, 64> header;
  };
  struct Capture {
    std::unique_ptr<PcapWriter> writer;
    Time pending_time = 0;
    std::vector<Pending> pending;  // records of pending_time, not written yet
  };
  static void Flush(Capture& c);

  Time start_;
  Time end_;
  std::vector<Capture> captures_;
  std::vector<int32_t> tx_capture_;  // by PortId: the capture of its transmissions, or -1
  std::vector<int32_t> rx_capture_;  // by PortId: the capture its landings reach, or -1
};

}  // namespace rocesim
