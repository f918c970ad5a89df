// Scenario reader: the `faults` list (injected failures, src/ops/, seed 003
// §6.2; mac_entry_loss, SIGCOMM'16 §4.2) and the PFC watchdog blocks
// `switch.watchdog` / `host.watchdog` (seed 003 §4.3), and host.rx_buffer (slow
// receiver, §4.4). Faults are validated here and scheduled as events when the
// simulation is built.
#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "scenario/yaml_fields.h"

namespace rocesim::scenario_detail {

void Reader::ReadWatchdog(const Field& f, WatchdogConfig& w, bool is_switch) const {
  const Map m = is_switch ? ReadMap(f, {"enabled", "detect", "restore", "poll", "action"})
                          : ReadMap(f, {"enabled", "detect", "restore", "poll"});
  if (auto v = m.Get("enabled")) w.enabled = Bool(*v);
  if (auto v = m.Get("detect")) w.detect = TimeValue(*v, 1);
  if (auto v = m.Get("restore")) w.restore = TimeValue(*v, 1);
  if (auto v = m.Get("poll")) {
    w.poll = TimeValue(*v, 1);
  } else {
    w.poll = std::min(WatchdogConfig{}.poll, w.detect);
  }
  if (auto v = m.Get("action"))
    w.action = OneOf(*v, {"drop", "forward"}) == "drop" ? WatchdogConfig::Action::kDrop
                                                        : WatchdogConfig::Action::kForward;
}

void Reader::ReadRxBuffer(const Field& f, RxBufferConfig& b) const {
  const Map m = ReadMap(f, {"size", "xoff", "xon"});
  if (auto v = m.Get("size")) b.size_bytes = Size(*v, 1);
  if (auto v = m.Get("xoff")) b.xoff_bytes = Size(*v, 1);
  if (auto v = m.Get("xon")) b.xon_bytes = Size(*v, 0);
  if (b.xoff_bytes > b.size_bytes)
    Fail(m.Get("xoff") ? *m.Get("xoff") : f,
         fmt::format("expected xoff <= size, got xoff = {} bytes and size = {} bytes", b.xoff_bytes,
                     b.size_bytes));
  if (b.xon_bytes > b.xoff_bytes)
    Fail(m.Get("xon") ? *m.Get("xon") : f,
         fmt::format("expected xon <= xoff, got xon = {} bytes and xoff = {} bytes", b.xon_bytes,
                     b.xoff_bytes));
}

FaultSpec Reader::ReadFault(const Field& f) const {
  const Map m = ReadMap(f, {"type", "host", "priority", "at", "until", "rate", "period", "stall",
                            "a", "b", "node", "port", "convergence", "probability", "every_nth"});
  const std::string type = OneOf(
      Require(m, "type",
              " (one of nic_pause_storm, slow_receiver, link_down, packet_loss, mac_entry_loss)"),
      {"nic_pause_storm", "slow_receiver", "link_down", "packet_loss", "mac_entry_loss"});
  const bool on_link = type == "link_down" || type == "packet_loss";
  const std::string_view link_types = on_link ? std::string_view(type) : "link_down or packet_loss";
  CheckTypedKeys(m, type,
                 {{"host", on_link ? "nic_pause_storm, slow_receiver or mac_entry_loss" : type},
                  {"priority", "nic_pause_storm"},
                  {"rate", "slow_receiver"},
                  {"period", "slow_receiver"},
                  {"stall", "slow_receiver"},
                  {"a", link_types},
                  {"b", link_types},
                  {"node", link_types},
                  {"port", link_types},
                  {"convergence", "link_down"},
                  {"probability", "packet_loss"},
                  {"every_nth", "packet_loss"}});
  FaultSpec s;
  s.kind = type == "nic_pause_storm" ? FaultKind::kNicPauseStorm
           : type == "slow_receiver" ? FaultKind::kSlowReceiver
           : type == "link_down"     ? FaultKind::kLinkDown
           : type == "packet_loss"   ? FaultKind::kPacketLoss
                                     : FaultKind::kMacEntryLoss;
  if (on_link) {
    // Node ids are checked against the topology when the fabric is built.
    if (m.Get("a") || m.Get("b")) {
      if (m.Get("node") || m.Get("port"))
        Fail(f, "link_down: expected either `a` and `b` or `node` and `port`, not both");
      s.node_a = IntField(Require(m, "a", " (with b: the nodes the link joins)"), 0);
      s.node_b = IntField(Require(m, "b", " (with a: the nodes the link joins)"), 0);
      if (s.node_a == s.node_b) Fail(*m.Get("b"), "expected a node other than `a`");
    } else {
      s.node_a = IntField(Require(m, "node", " (or `a` and `b`: the nodes the link joins)"), 0);
      s.port = IntField(Require(m, "port", " (the node's local port index)"), 0);
    }
    if (auto v = m.Get("convergence")) s.convergence = TimeValue(*v, 0);
    if (s.kind == FaultKind::kPacketLoss) {
      const auto prob = m.Get("probability");
      const auto nth = m.Get("every_nth");
      if (prob.has_value() == nth.has_value())
        Fail(f, "packet_loss: expected exactly one of `probability` and `every_nth`");
      if (prob) s.probability = Fraction(*prob, 0, false, 1);
      if (nth) s.every_nth = static_cast<uint32_t>(IntField(*nth, 1));
    }
  } else {
    s.host = HostId(Require(m, "host"));
  }
  if (auto v = m.Get("priority")) s.priority = IntField(*v, 0, kNumPriorities - 1);
  if (s.kind == FaultKind::kSlowReceiver) {
    if (auto v = m.Get("rate")) s.rate_bps = Rate(*v);
    const auto period = m.Get("period");
    const auto stall = m.Get("stall");
    if (period.has_value() != stall.has_value())
      Fail(period ? *period : *stall, "expected `period` and `stall` together");
    if (period) {
      s.period = TimeValue(*period, 1);
      s.stall = TimeValue(*stall, 1);
      if (s.stall >= s.period)
        Fail(*stall, fmt::format("expected a stall shorter than the period, got \"{}\"",
                                 stall->node.Scalar()));
    }
    if (!m.Get("rate") && !period)
      Fail(f,
           "slow_receiver: expected `rate` (the receive pipeline's rate) or `period` and "
           "`stall`");
  }
  s.at = TimeValue(Require(m, "at"), 0);
  if (auto v = m.Get("until")) {
    s.until = TimeValue(*v, 0);
    if (s.until <= s.at)
      Fail(*v, fmt::format("expected a time after `at`, got \"{}\"", v->node.Scalar()));
  }
  return s;
}

}  // namespace rocesim::scenario_detail
