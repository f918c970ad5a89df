// The validated scenario: every setting a run needs, in simulator units
// (picoseconds, bytes, bits per second). Parsed from YAML by scenario_reader.cpp;
// the builder (src/sim/builder.cpp) turns it into a Simulation. Defaults here are
// the documented defaults of the scenario file format (README "Scenario file").
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cc/dcqcn.h"
#include "cc/dctcp.h"
#include "cc/hpcc.h"
#include "cc/ldcp.h"
#include "cc/timely.h"
#include "core/time.h"
#include "rcm/rcm_params.h"

namespace rocesim {

constexpr int kNumPriorities = 8;

enum class TopologyKind { kStar, kDumbbell, kLeafSpine, kFatTree, kFile, kRail };

struct TopologyConfig {
  TopologyKind kind = TopologyKind::kStar;
  // star: `hosts` hosts on one switch.
  int hosts = 2;
  // dumbbell (seed 000 congestion spreading): two switches joined by one link,
  // `hosts_left` on switch 0 and `hosts_right` on switch 1.
  int hosts_left = 1;
  int hosts_right = 1;
  // leaf_spine: `leaves` leaves with `hosts_per_leaf` each, every leaf linked to
  // every spine with `links_per_spine` parallel links (spines and
  // links_per_spine also for rail).
  int leaves = 2;
  int spines = 2;
  int hosts_per_leaf = 2;
  int links_per_spine = 1;
  // fat_tree: k-ary 3-tier fat tree (k even): k^3/4 hosts.
  int k = 4;
  // rail: a rail-optimized fabric (NVIDIA DGX SuperPOD; topo/topology.h):
  // `servers` GPU servers of gpus_per_server GPUs, each GPU with
  // its own NIC (one host). The servers form rail groups of
  // `servers_per_rail_group`; in each group GPU i of every server is cabled
  // to the group's rail-i leaf, and every leaf to every spine (`spines`,
  // `links_per_spine` as in leaf_spine). The reader requires `servers` and
  // sets servers_per_rail_group to servers when absent (one rail group);
  // builders read 0 the same way.
  int servers = 2;
  int servers_per_rail_group = 0;
  // file: a topology in the HPCC simulator's format (bench/README.md).
  std::string file;
  // file: number of hosts in `file` (nodes minus switches), filled by the reader.
  int file_hosts = 0;

  // GPU servers, for any topology: hosts are grouped into servers of
  // gpus_per_server consecutive host ids (host h is GPU h % G of server
  // h / G). G divides the host count. All GPUs of a server share its
  // NVLink-like domain, so a parallel run keeps a server's hosts in one
  // partition (sim/partition.h).
  int gpus_per_server = 1;
  // The intra-server domain (net/nvlink.h): each GPU's fixed bandwidth per
  // direction and the latency of one transfer. 3.6 Tb/s is NVLink 4's 450 GB/s per
  // direction per GPU on an H100 (NVIDIA H100 datasheet: 900 GB/s
  // bidirectional); 1 us is our choice, not a measured figure.
  int64_t nvlink_rate_bps = 3'600'000'000'000;
  Time nvlink_latency = 1 * kMicrosecond;

  // Link parameters per tier. Host links connect hosts to their switch; fabric
  // links connect switches (leaf-spine, edge-agg) and core links agg-core.
  int64_t host_rate_bps = 100'000'000'000;
  Time host_delay = 1 * kMicrosecond;
  int64_t fabric_rate_bps = 100'000'000'000;
  Time fabric_delay = 1 * kMicrosecond;
  int64_t core_rate_bps = 100'000'000'000;
  Time core_delay = 1 * kMicrosecond;
  // The window of the canonical synchronisation scheme (sim/partitioned_run.h,
  // Simulation::Advance); 0 = auto, the shortest link between switches
  // (SyncWindow in net/fabric_layout.h). A partitioning never cuts a link
  // shorter than the window, so a longer one (a fabric's core links, where
  // the pods' links are shorter) means fewer windows and fewer ways to cut.
  Time sync_window = 0;
  // Preamble + inter-frame gap added to every frame on the wire (Ethernet: 20 B).
  int ifg_bytes = 20;
  // Probability that a frame is lost on a link (random bit errors), for every
  // link of a generated topology; a topology file gives its own per link.
  double error_rate = 0;
};

// ECN thresholds for egress ports of one link speed.
struct EcnRateThresholds {
  int64_t rate_bps = 0;
  int64_t kmin_bytes = 0;
  int64_t kmax_bytes = 0;
  double pmax = 0;
};

// Where a switch decides an ECN mark: as the packet leaves its egress queue,
// on the queue it leaves behind (the HPCC simulator), or as it joins it, on
// the queue it finds (DCTCP's paper, ns-2, most switch ASICs).
enum class EcnMarkPoint { kDequeue, kEnqueue };

struct EcnConfig {
  bool enabled = true;
  EcnMarkPoint mark_on = EcnMarkPoint::kDequeue;
  // RED on the instantaneous egress queue (seed 000 §7, seed 001 §2.1).
  int64_t kmin_bytes = 5 * 1000;
  int64_t kmax_bytes = 200 * 1000;
  double pmax = 0.01;
  // Non-ECT data packets are dropped when the egress queue exceeds this (0 = off).
  int64_t wred_drop_bytes = 0;
  // buf_max (seed 001 §2.1): any packet arriving at an egress queue already
  // holding this many bytes is dropped (0 = no per-queue cap; the shared
  // buffer's dynamic threshold still applies).
  int64_t buf_max_bytes = 0;
  // Overrides kmin/kmax/pmax on egress ports of a listed link speed.
  std::vector<EcnRateThresholds> by_rate;
};

struct PfcConfig {
  bool enabled = true;
  // Priorities that are lossless (PFC-protected).
  std::vector<int> priorities = {3};
  // Pause quanta carried by XOFF frames (units of 512 bit times); 0xFFFF max.
  int quanta = 0xFFFF;
  // XON is sent once the (port, priority) shared use falls this far below the
  // XOFF threshold (and its headroom is empty).
  int64_t xon_offset_bytes = 2 * 1024;
  // Headroom per lossless (port, priority); negative means "auto": two link
  // delays of line-rate data plus three maximum frames (in flight + response).
  int64_t headroom_bytes = -1;
};

// PFC storm watchdog (seed 003 §4.3, §6.2 incident 1). At a switch egress
// (port, priority) that stays paused, non-empty, for `detect`, it stops
// honouring the peer's pauses on that queue and either drops its lossless
// traffic or forwards it regardless (`action`); at a NIC that has sent pauses
// continuously for `detect`, it stops sending them. Either re-arms after
// `restore`.
struct WatchdogConfig {
  enum class Action { kDrop, kForward };
  bool enabled = false;
  Time detect = 200 * kMillisecond;
  Time restore = 200 * kMillisecond;
  // The watchdog looks at its queues every `poll` (SONiC pfcwd's polling
  // interval), on a grid from time 0: a stall is caught between `detect` and
  // `detect + poll` after it began. Unset: SONiC's 200 ms, or `detect` when
  // that is shorter.
  Time poll = 200 * kMillisecond;
  Action action = Action::kDrop;  // switch only
};

// What a switch does with a packet routed to a directly attached host whose
// MAC-table entry is gone while its ARP entry remains (SIGCOMM'16 §4.2: a
// dead server's MAC entry times out after 5 minutes, its ARP entry after 4
// hours). Commodity switches flood it out of every port but the ingress, in
// its class; the paper's fix drops lossless packets instead (lossy ones are
// still flooded). src/net/switch_flood.cpp.
enum class UnknownUnicast { kFlood, kDrop };

// Which switch model every switch of the scenario runs.
enum class SwitchArchitecture {
  // Output-queued with one shared buffer and ingress admission (DESIGN.md §3,
  // src/net/switch.h): the HPCC simulator's Broadcom-style model.
  kSharedBuffer,
  // Combined input-and-output queued: VOQs at each input, one output queue
  // per (output port, priority), PFC from the input queues (seed 002 §4.1,
  // src/net/cioq_switch.h).
  kCioq,
};

// Queue bounds of the CIOQ switch. Seed 002 §4.1: "Each queue in the switch
// is 100 KB in size" (KB decimal, as everywhere in rocesim).
struct CioqConfig {
  // Per (input port, priority): the bytes all of its VOQs may hold together.
  // A lossless priority pauses its upstream at this minus the PFC headroom.
  int64_t input_queue_bytes = 100'000;
  // Per (output port, priority): the output queue the crossbar fills.
  int64_t output_queue_bytes = 100'000;
};

// Regional congestion mitigation (seed 002 §3) in every CIOQ switch
// (src/net/cioq_rcm.h). Off by default: a scenario without `switch.rcm`
// runs exactly as before.
struct RcmConfig {
  bool enabled = false;
  RcmParams params;  // defaults and their sources: src/rcm/rcm_params.h
  // Switch-level adaptive routing (§3.4 SAR); RCC alone when false.
  bool sar = true;
  // A flow's output port at a switch is remembered while its frames keep
  // arriving there; SAR decides again (as for a new flow, §3.4 "non-congested
  // or new flows") only after the flow was idle this long at that switch.
  // 100 us (ours): longer than the queueing a frame can meet on a 5-hop path
  // of 100 KB queues at 100 Gb/s (2 x 5 x 8 us), so a re-decided flow cannot
  // overtake its own earlier frames.
  Time sar_idle = 100 * kMicrosecond;
};

struct SwitchConfig {
  SwitchArchitecture architecture = SwitchArchitecture::kSharedBuffer;
  CioqConfig cioq;  // architecture kCioq only
  RcmConfig rcm;    // architecture kCioq only
  // Shared-buffer architecture only: buffer, alpha, reserved.
  int64_t buffer_bytes = 32'000'000;
  // Dynamic threshold (seed 003 §6.2): a (port, priority) may take shared
  // buffer while alpha * unallocated > allocated.
  double alpha = 1.0 / 16;
  // Overrides alpha on ingress ports of a listed link speed (the HPCC
  // simulator doubles alpha each time the port rate doubles: 1/8 at 100G,
  // 1/2 at 400G).
  struct AlphaByRate {
    int64_t rate_bps = 0;
    double alpha = 0;
  };
  std::vector<AlphaByRate> alpha_by_rate;
  // Guaranteed buffer per ingress (port, priority) before the shared pool.
  int64_t reserved_bytes = 4 * 1024;
  PfcConfig pfc;
  EcnConfig ecn;
  // DSCP -> priority map; default dscp / 8 (class selector).
  std::array<uint8_t, 64> dscp_to_priority{};
  // Priorities served strictly before all others (control traffic).
  std::vector<int> strict_priorities = {6};
  // DWRR weights of the other priorities (quantum = weight * MTU).
  std::array<int, kNumPriorities> dwrr_weights{1, 1, 1, 1, 1, 1, 1, 1};
  uint64_t ecmp_seed = 0;  // mixed with the switch id into the ECMP hash
  WatchdogConfig watchdog;
  UnknownUnicast unknown_unicast = UnknownUnicast::kFlood;
};

struct RxBufferConfig {
  int64_t size_bytes = 256 * 1024;
  int64_t xoff_bytes = 192 * 1024;
  int64_t xon_bytes = 128 * 1024;
};

// How a requester recovers from a NAK or timeout (seed 003 §4.2).
enum class LossRecovery {
  kGoBackN,  // resend from the first unacknowledged PSN
  kGoBack0,  // restart the whole message from PSN 0; the responder discards its partial message
};

enum class CcKind { kNone, kDcqcn, kTimely, kDctcp, kHpcc, kLdcp };

// A cap on every QP's bytes in flight on top of its congestion control
// (the HPCC paper's DCQCN+w and TIMELY+w baselines): none, or one BDP of the
// QP's path (its NIC's line rate x its base RTT).
enum class WindowCap { kNone, kBdp };

struct HostConfig {
  int mtu_bytes = 1000;                // RDMA payload per packet
  int header_bytes = 62;               // Eth 14 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4 + FCS 4
  int ack_every = 1;                   // coalesce: ACK every n-th packet (and the last)
  Time ack_delay = 10 * kMicrosecond;  // a coalesced ACK waits at most this long
  Time rto = 1 * kMillisecond;
  Time cnp_interval = 50 * kMicrosecond;  // NP: at most one CNP per QP per interval
  int control_priority = 6;               // ACK / NAK / CNP
  // DSCP a host writes for priority p is p * 8 unless overridden.
  std::array<uint8_t, kNumPriorities> dscp_of_priority{0, 8, 16, 24, 32, 40, 48, 56};
  bool ecn_capable = true;
  WindowCap window = WindowCap::kNone;
  // Congestion control of every flow unless a traffic entry overrides it, and
  // each algorithm's parameters (src/cc/*.h document every knob).
  CcKind cc = CcKind::kNone;
  DcqcnParams dcqcn = DcqcnPaperPreset();
  // The NIC echoes the send time of the packet an ACK answers, and sends each
  // segment as a line-rate burst, so one packet's serialization is what a
  // sample must lose to measure from the segment's start (seed 004).
  TimelyParams timely = [] {
    TimelyParams p;
    p.serialization = TimelyParams::Serialization::kPacket;
    return p;
  }();
  DctcpParams dctcp;
  HpccParams hpcc;
  LdcpParams ldcp;
  WatchdogConfig watchdog;  // `action` unused at the NIC
  // The NIC's receive buffer, used when its pipeline is slower than the link
  // (slow_receiver fault, seed 003 §4.4): XOFF to the ToR at `xoff_bytes`,
  // XON at `xon_bytes`, drop beyond `size_bytes`.
  RxBufferConfig rx_buffer;
  LossRecovery loss_recovery = LossRecovery::kGoBackN;
};

// A flow's `start_rate: fair`: the sender's line rate / (its active QPs + 1)
// when the flow starts (the TIMELY paper's start).
constexpr int64_t kFairStartRate = -1;

// The destination port the HPCC simulator's traffic generator gives ordinary
// flows (incast flows get 200).
inline constexpr uint16_t kHpccDefaultDport = 100;

struct FlowSpec {
  int src = 0;
  int dst = 0;
  int64_t size_bytes = 0;
  Time start = 0;
  int priority = 3;
  // The destination port an HPCC flow file gives the flow: that simulator's
  // analysis scripts select flows by it (fct_analysis.py -t: 100 ordinary,
  // 200 incast), so fct.txt (output.hpcc_compat) writes it back. rocesim's
  // frames carry RoCEv2's UDP port 4791 whatever it is.
  uint16_t hpcc_dport = kHpccDefaultDport;
  std::string tag;
  std::optional<CcKind> cc;  // overrides host.cc for this flow
  // Where the QP and its congestion control start (0: the algorithm's own
  // start, line rate for most; kFairStartRate), and an open-loop cap on its
  // sending rate whatever congestion control says (0: none).
  int64_t start_rate_bps = 0;
  int64_t max_rate_bps = 0;
  // Dependencies (transport/flow_dependencies.h): the flow starts `delay`
  // after every flow (or join) it waits for has completed at its source host,
  // and not before `start`. `after` holds node indices local to its traffic
  // entry: a flow's index in the entry's flow list, or flows.size() + j for
  // the entry's j-th join.
  std::vector<uint32_t> after;
  // The message before this one on its connection (entry-local flow index;
  // UINT32_MAX: none): it starts only once that one's last packet has left,
  // as a QP sends its work requests in order.
  uint32_t after_sent = UINT32_MAX;
  Time delay = 0;
  // The QP's UDP source port (0: one per flow, QpSourcePort): flows that are
  // messages of one connection (a collective's channel) share their port and
  // so their ECMP path.
  uint16_t sport = 0;
};

// A dependency-only node: it completes, at host `host`, as soon as every
// node it waits for has completed there (a rank finishing a phase of a
// collective), so a step that waits for many flows names one join instead.
struct JoinSpec {
  int host = 0;
  std::vector<uint32_t> after;  // as FlowSpec::after
  Time delay = 0;               // it completes this long after the last of them
};

// Collective operations and the algorithms that carry them
// (workload/collectives.h).
enum class CollectiveOp { kAllReduce, kAllGather, kReduceScatter, kAllToAll, kBroadcast };
enum class CollectiveAlgorithm { kRing, kTree, kHalvingDoubling, kDirect, kHierarchical };

struct CollectiveSpec {
  CollectiveOp op = CollectiveOp::kAllReduce;
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::kRing;
  int channels = 1;         // parallel rings / trees / QPs per peer
  int64_t chunk_bytes = 0;  // pipelining unit (0: one message per step)
  int iterations = 1;
  Time compute = 0;         // the gap between iterations, per rank
  int gpus_per_server = 1;  // the topology's (hierarchical groups by server)
  // A job that follows another (`after: TAG`, an earlier collective entry):
  // each of its ranks that is also a rank of that job starts `after_compute`
  // after it finished that job's last iteration.
  std::string after_tag;
  Time after_compute = 0;
};

struct SimaiWorkload;  // workload/simai_workload.h

// A training job from a SimAI workload file (workload/training_loop.h): the
// file as read; its iterations, channels, chunk and AllReduce algorithm are
// the entry's CollectiveSpec's.
struct TrainingSpec {
  std::shared_ptr<const SimaiWorkload> workload;
  std::string file;  // as the scenario names it
};

enum class TrafficKind {
  kFlows,        // explicit list (also type flow_file)
  kIncast,       // senders -> receiver, optionally repeated every `period`
  kPoisson,      // Poisson arrivals at a target load, sizes from a CDF
  kHotspot,      // Poisson, a fraction of each host's flows to a fixed hot set (seed 002 §4.2)
  kPermutation,  // each host -> a distinct host (random derangement)
  kAllToAll,     // every host -> every other host
  kMicroburst,   // one line-rate flow of fixed duration (seed 002 §4.2)
  kCollective,   // a job's collective operations (workload/collectives.h)
  kTraining,     // a training job from a SimAI workload file (workload/training_loop.h)
};

// One point of a flow-size CDF (workload/flow_size_cdf.h).
struct CdfPoint {
  double size_bytes = 0;
  double percent = 0;  // cumulative, 0..100
};

// A traffic entry. kFlows carries its flows; every other kind is a generator
// expanded into flows when the fabric is built (workload/generators.h), from
// its own random stream of the scenario seed.
struct TrafficSpec {
  TrafficKind kind = TrafficKind::kFlows;
  std::vector<FlowSpec> flows;  // kFlows
  // kFlows read from a file: "flow_file" or "dependency_file", and the
  // file's absolute path ("" for an inline list).
  std::string file_type;
  std::string file;
  // kIncast: every sender sends size_bytes to receiver at start (+ i * period,
  // i < count).
  std::vector<int> senders;
  int receiver = 0;
  Time period = 0;
  int count = 1;
  // kIncast, kPermutation, kAllToAll: bytes per flow; kMicroburst: filled in
  // from the source's link rate at expansion.
  int64_t size_bytes = 0;
  Time start = 0;
  int priority = 3;
  std::optional<CcKind> cc;    // overrides host.cc for these flows (not kFlows)
  std::string tag = "incast";  // the tag of its flows (kHotspot: unused)
  // Every flow's start rate and rate cap (FlowSpec; kFlows: a flow's own
  // values win).
  int64_t start_rate_bps = 0;
  int64_t max_rate_bps = 0;

  // kPoisson, kHotspot, kPermutation, kAllToAll: participating hosts (empty = all).
  std::vector<int> hosts;
  // kPoisson, kHotspot: arrivals in [start, start + span) at `load` of each
  // host's link rate, sizes from `cdf` (named `cdf_name`: built-in name or path).
  double load = 0;
  Time span = 0;
  std::string cdf_name;
  std::string cdf_source;  // the built-in name, or the file's absolute path
  std::vector<CdfPoint> cdf;
  // kPoisson: destinations uniform within the sender's group of `group_size`
  // consecutive participating hosts (0 = one group of all).
  int group_size = 0;
  // kHotspot: fraction of flows to the hot set, and the hot set's share of the hosts.
  double hot_fraction = 0.15;
  double hot_hosts_fraction = 0.125;
  // kMicroburst: src -> dst for `duration` at the source's line rate.
  int src = 0;
  int dst = 0;
  Time duration = 0;
  // kCollective: the operation over ranks `hosts` (in rank order) of
  // size_bytes, from `start`.
  CollectiveSpec collective;
  // kTraining: the workload over ranks `hosts` (rank i = hosts[i]); its
  // iterations, channels, chunk and algorithm in `collective`.
  TrainingSpec training;
};

// PFC deadlock detection (src/ops/deadlock.h, seed 003 §4.1).
struct DeadlockConfig {
  bool enabled = false;
  Time threshold = 1 * kMillisecond;  // a cycle of paused queues held this long
  bool break_cycle = false;           // `break`: drop to release it
};

// The shortest monitors.interval the reader accepts.
constexpr Time kMinMonitorInterval = 100 * kNanosecond;

// Packet captures (stats/port_capture.h): one pcap file per listed port,
// pcap/<node>-p<port>.pcap, of the frames the port sends and receives.
struct PcapPort {
  int node = 0;
  int port = 0;       // the node's local port index (as in ports.csv)
  std::string where;  // "file:line:col: monitors.pcap.ports.i", for errors found at build
};
// The largest snapshot length pcap tools accept (libpcap's MAXIMUM_SNAPLEN),
// and the default: whole frames, as tcpdump keeps (Wireshark's InfiniBand
// dissector reports a RoCE frame cut short by the snapshot as malformed).
inline constexpr uint32_t kMaxPcapSnaplen = 262144;
inline constexpr uint32_t kDefaultPcapSnaplen = kMaxPcapSnaplen;
struct PcapConfig {
  std::vector<PcapPort> ports;  // empty: no capture
  Time start = 0;
  Time end = kTimeMax;
  uint32_t snaplen = kDefaultPcapSnaplen;  // bytes kept per frame (64 to 262144)
};

struct MonitorConfig {
  // Queue occupancy, port throughput and PFC state, and every running flow's
  // rate, sampled every `interval` (0 = off) within [start, end].
  Time interval = 0;
  Time start = 0;
  Time end = kTimeMax;
  // Nodes whose ports and queues are recorded (node ids as in queues.csv);
  // empty = all.
  std::vector<int> nodes;
  DeadlockConfig deadlock;
  PcapConfig pcap;  // independent of interval
};

// Injected faults (src/ops/, seed 003 §6.2). Each runs from `at` to `until`.
enum class FaultKind {
  // The host's NIC stops receiving (drops what arrives) and sends PFC XOFF on
  // `priority` continuously, renewed before expiry (seed 003 §6.2 incident 1).
  kNicPauseStorm,
  // The NIC's receive pipeline runs at `rate_bps` (0: line rate) and stalls
  // for `stall` at the start of every `period` (0: never), so its receive
  // buffer fills and it pauses its ToR (seed 003 §4.4).
  kSlowReceiver,
  // A link stops carrying frames (those in flight are lost); routes are
  // recomputed `convergence` later, and again when it comes back at `until`.
  kLinkDown,
  // The data frames a port sends onto its link are lost with `probability`
  // or every `every_nth` one (seed 003 §4.2).
  kPacketLoss,
  // The host's server is dead (its NIC takes no frames and sends none) and
  // its ToR's MAC-table entry for it has timed out while the ARP entry
  // remains, so the ToR treats packets to it as unknown unicast
  // (switch.unknown_unicast; SIGCOMM'16 §4.2). `until`: the server is back.
  kMacEntryLoss,
};

struct FaultSpec {
  FaultKind kind = FaultKind::kNicPauseStorm;
  int host = 0;
  int priority = 3;  // kNicPauseStorm
  Time at = 0;
  Time until = kTimeMax;
  int64_t rate_bps = 0;  // kSlowReceiver
  Time period = 0;
  Time stall = 0;
  // kLinkDown: the link between nodes a and b (the first, if parallel), or
  // local port `port` of node `node` (a = node, b = -1).
  int node_a = -1;
  int node_b = -1;
  int port = -1;
  Time convergence = 0;
  // kPacketLoss (on the link as for kLinkDown; a -> b is the direction).
  double probability = 0;
  uint32_t every_nth = 0;
};

struct OutputConfig {
  std::string dir;  // empty: results/<name>
  // Also write the HPCC ns-3 simulator's output formats (fct.txt, pfc.txt:
  // stats/hpcc_compat_writer.h), so analysis scripts written for that
  // simulator (its fct_analysis.py and the like) read rocesim results unchanged.
  bool hpcc_compat = false;
  // The HPCC simulator's queue-length monitor (its QLEN_MON_FILE, scratch/
  // third.cc): qlen.txt (stats/hpcc_qlen_monitor.h). Off unless the
  // `output.hpcc_qlen` section is given.
  struct HpccQlen {
    bool enabled = false;
    Time start = 0;
    Time end = kTimeMax;                      // default: the end of the run
    Time interval = 100 * kNanosecond;        // that simulator's qlen_mon_interval
    Time dump_interval = 100 * kMillisecond;  // its qlen_dump_interval
  } hpcc_qlen;
};

struct Scenario {
  std::string name = "unnamed";
  std::string source_file;  // the YAML file it came from
  uint64_t seed = 1;
  Time duration = 10 * kMillisecond;
  TopologyConfig topology;
  SwitchConfig sw;
  HostConfig host;
  std::vector<TrafficSpec> traffic;
  MonitorConfig monitors;
  std::vector<FaultSpec> faults;
  OutputConfig output;
  std::string yaml_as_run;  // the scenario after --set overrides, re-emitted
  // Where the file (or --set) gave each field, "file:line:col" or "file
  // (from --set ...)", by dotted path ("switch.buffer", "faults.0"), so that
  // what only building the fabric finds wrong can point at it (Locate).
  std::map<std::string, std::string, std::less<>> field_locations;

  // The location of `path`, or of its nearest ancestor the file wrote (a
  // field left at its default is pointed at by its section); the file's
  // name when none was written.
  std::string Locate(std::string_view path) const {
    for (std::string_view p = path; !p.empty();) {
      if (auto it = field_locations.find(p); it != field_locations.end()) return it->second;
      const size_t dot = p.rfind('.');
      p = dot == std::string_view::npos ? std::string_view{} : p.substr(0, dot);
    }
    return source_file;
  }
};

}  // namespace rocesim
