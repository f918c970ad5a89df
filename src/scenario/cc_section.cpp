// Scenario reader: the congestion-control settings of `host` — which
// algorithm (`host.cc`, or `cc:` on a traffic entry) and each algorithm's
// parameter block. A block may start from a named preset; its other keys then
// override the preset's values whatever order they are written in.
#include <fmt/format.h>

#include "scenario/yaml_fields.h"

namespace rocesim::scenario_detail {

CcKind Reader::ReadCcKind(const Field& f) const {
  const std::string name = OneOf(f, {"none", "dcqcn", "timely", "dctcp", "hpcc", "ldcp"});
  if (name == "dcqcn") return CcKind::kDcqcn;
  if (name == "timely") return CcKind::kTimely;
  if (name == "dctcp") return CcKind::kDctcp;
  if (name == "hpcc") return CcKind::kHpcc;
  if (name == "ldcp") return CcKind::kLdcp;
  return CcKind::kNone;
}

void Reader::ReadDcqcn(const Field& f, DcqcnParams& p) const {
  const Map m = ReadMap(f, {"preset", "g", "alpha_interval", "decrease_interval", "increase_timer",
                            "byte_counter", "fast_recovery_stages", "rate_ai", "rate_hai",
                            "min_rate", "clamp_target_rate", "signal", "style"});
  if (auto v = m.Get("preset"))
    p = OneOf(*v, {"paper", "hpcc-sim"}) == "paper" ? DcqcnPaperPreset() : DcqcnHpccSimPreset();
  if (auto v = m.Get("g")) p.g = Fraction(*v, 0, false, 1);
  if (auto v = m.Get("alpha_interval")) p.alpha_interval = TimeValue(*v, 1);
  if (auto v = m.Get("decrease_interval")) p.decrease_interval = TimeValue(*v, 1);
  if (auto v = m.Get("increase_timer")) p.increase_timer = TimeValue(*v, 1);
  if (auto v = m.Get("byte_counter")) p.byte_counter = Size(*v, 0);
  if (auto v = m.Get("fast_recovery_stages")) p.fast_recovery_stages = IntField(*v, 0, 1000);
  if (auto v = m.Get("rate_ai")) p.rate_ai_bps = Rate(*v);
  if (auto v = m.Get("rate_hai")) p.rate_hai_bps = Rate(*v);
  if (auto v = m.Get("min_rate")) p.min_rate_bps = Rate(*v);
  if (auto v = m.Get("clamp_target_rate")) p.clamp_target_rate = Bool(*v);
  if (auto v = m.Get("signal"))
    p.mode = OneOf(*v, {"cnp", "ack_ecn"}) == "cnp" ? DcqcnMode::kCnp : DcqcnMode::kAckEcnEcho;
  if (auto v = m.Get("style"))
    p.style =
        OneOf(*v, {"paper", "hpcc-sim"}) == "paper" ? DcqcnStyle::kPaper : DcqcnStyle::kHpccSim;
  try {
    ValidateDcqcnParams(p);
  } catch (const std::invalid_argument& e) {
    Fail(f, e.what());
  }
}

void Reader::ReadTimely(const Field& f, TimelyParams& p) const {
  const Map m = ReadMap(f, {"preset",
                            "segment",
                            "rtt_serialization",
                            "ewma_alpha",
                            "t_low",
                            "t_high",
                            "hai_thresh",
                            "hai_multiplier",
                            "beta",
                            "max_decrease",
                            "additive_increment",
                            "min_rate",
                            "max_rate",
                            "min_rtt",
                            "patched",
                            "patched_beta",
                            "patched_rtt_ref",
                            "variant",
                            "update",
                            "pacing"});
  if (auto v = m.Get("preset")) {
    const auto serialization = p.serialization;
    const std::string preset = OneOf(*v, {"segment", "per_packet", "patched"});
    p = preset == "segment"      ? TimelyParams{}
        : preset == "per_packet" ? TimelyParams::PerPacket()
                                 : TimelyParams::Patched();
    p.serialization = serialization;
  }
  if (auto v = m.Get("variant"))
    p.variant = OneOf(*v, {"seed", "paper"}) == "paper" ? TimelyParams::Variant::kPaper
                                                        : TimelyParams::Variant::kSeed;
  if (auto v = m.Get("update")) {
    const std::string u = OneOf(*v, {"auto", "ack", "segment", "rtt"});
    p.update = u == "ack"       ? TimelyParams::Update::kAck
               : u == "segment" ? TimelyParams::Update::kSegment
               : u == "rtt"     ? TimelyParams::Update::kRtt
                                : TimelyParams::Update::kAuto;
  }
  if (auto v = m.Get("pacing")) {
    const std::string u = OneOf(*v, {"auto", "packet", "segment"});
    p.pacing = u == "packet"    ? TimelyParams::Pacing::kPacket
               : u == "segment" ? TimelyParams::Pacing::kSegment
                                : TimelyParams::Pacing::kAuto;
  }
  if (auto v = m.Get("segment")) p.segment_bytes = static_cast<uint32_t>(Size(*v, 0, 1 << 30));
  if (auto v = m.Get("rtt_serialization")) {
    const std::string s = OneOf(*v, {"segment", "packet", "none"});
    p.serialization = s == "segment"  ? TimelyParams::Serialization::kSegment
                      : s == "packet" ? TimelyParams::Serialization::kPacket
                                      : TimelyParams::Serialization::kNone;
  }
  if (auto v = m.Get("ewma_alpha")) p.ewma_alpha = Fraction(*v, 0, false, 1);
  if (auto v = m.Get("t_low")) p.t_low = TimeValue(*v, 0);
  if (auto v = m.Get("t_high")) p.t_high = TimeValue(*v, 1);
  if (p.t_high < p.t_low) Fail(f, "expected t_low <= t_high");
  if (auto v = m.Get("hai_thresh")) p.hai_thresh = IntField(*v, 1);
  if (auto v = m.Get("hai_multiplier")) p.hai_multiplier = IntField(*v, 1);
  if (auto v = m.Get("beta")) p.beta = Fraction(*v, 0, false, 1);
  if (auto v = m.Get("max_decrease")) p.max_decrease = Fraction(*v, 0, true, 1);
  if (auto v = m.Get("additive_increment")) p.additive_increment_bps = Rate(*v);
  if (auto v = m.Get("min_rate")) p.min_rate_bps = Rate(*v);
  if (auto v = m.Get("max_rate")) p.max_rate_bps = Rate(*v);
  if (auto v = m.Get("min_rtt")) p.min_rtt = TimeValue(*v, 1);
  if (auto v = m.Get("patched")) p.patched = Bool(*v);
  if (auto v = m.Get("patched_beta")) p.patched_beta = Fraction(*v, 0, false, 1);
  if (auto v = m.Get("patched_rtt_ref")) p.patched_rtt_ref = TimeValue(*v, 1);
}

void Reader::ReadDctcp(const Field& f, DctcpParams& p) const {
  const Map m = ReadMap(f, {"mode", "g", "initial_alpha", "min_window_packets", "max_window",
                            "pace", "min_rate", "rate_ai", "rate_window"});
  if (auto v = m.Get("mode"))
    p.mode = OneOf(*v, {"window", "rate"}) == "window" ? DctcpMode::kWindow : DctcpMode::kRate;
  if (auto v = m.Get("g")) p.g = Fraction(*v, 0, false, 1);
  if (auto v = m.Get("initial_alpha")) p.initial_alpha = Fraction(*v, 0, true, 1);
  if (auto v = m.Get("min_window_packets")) p.min_window_packets = IntField(*v, 1);
  if (auto v = m.Get("max_window")) p.max_window_bytes = Size(*v, 0);
  if (auto v = m.Get("pace")) p.pace = Bool(*v);
  if (auto v = m.Get("min_rate")) p.min_rate_bps = Rate(*v);
  if (auto v = m.Get("rate_ai")) p.rate_ai_bps = Rate(*v);
  if (auto v = m.Get("rate_window")) p.rate_window = Bool(*v);
}

void Reader::ReadHpcc(const Field& f, HpccParams& p) const {
  const Map m = ReadMap(f, {"eta", "max_stage", "rate_ai", "min_rate", "int_bytes"});
  if (auto v = m.Get("int_bytes")) p.int_bytes = IntField(*v, 0, 1024);
  if (auto v = m.Get("eta")) p.eta = Fraction(*v, 0, false, 1);
  if (auto v = m.Get("max_stage")) p.max_stage = IntField(*v, 0, 1000);
  if (auto v = m.Get("rate_ai")) p.rate_ai_bps = Rate(*v);
  if (auto v = m.Get("min_rate")) p.min_rate_bps = Rate(*v);
}

// LDCP (seed 001): the window variant (§2.2, §2.3, §3.1) or the event-API
// variant (§3.2); defaults and their sources in cc/ldcp.h.
void Reader::ReadLdcp(const Field& f, LdcpParams& p) const {
  const Map m = ReadMap(f, {"variant", "alpha", "beta", "gamma", "eta", "initial_window",
                            "fast_start", "max_window", "probe_interval"});
  if (auto v = m.Get("variant"))
    p.variant = OneOf(*v, {"window", "event_api"}) == "window" ? LdcpVariant::kWindow
                                                               : LdcpVariant::kEventApi;
  if (auto v = m.Get("alpha")) p.alpha = Fraction(*v, 0, false, 1);
  if (auto v = m.Get("beta")) p.beta = Fraction(*v, 0, false, 1);
  if (auto v = m.Get("gamma")) p.gamma = Fraction(*v, 0, false, 1);
  if (auto v = m.Get("eta")) p.eta = Fraction(*v, 0, false, 1);
  if (auto v = m.Get("initial_window")) p.initial_window_bytes = Size(*v, 0);
  if (auto v = m.Get("fast_start")) p.fast_start = Bool(*v);
  if (auto v = m.Get("max_window")) p.max_window_bytes = Size(*v, 0);
  if (auto v = m.Get("probe_interval")) p.probe_interval = TimeValue(*v, 0);
  try {
    ValidateLdcpParams(p);
  } catch (const std::invalid_argument& e) {
    Fail(f, e.what());
  }
}

}  // namespace rocesim::scenario_detail
