#include "workload/simai_workload.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>
#include <utility>

#include "core/text_fields.h"
#include "core/units.h"

namespace rocesim {

namespace {

[[noreturn]] void Fail(const std::string& name, int line, std::string_view msg) {
  throw SimaiWorkloadError(fmt::format("{}:{}: {}", name, line, msg));
}

// A non-negative integer field, named in the message.
int64_t Integer(const std::string& name, int line, std::string_view field, std::string_view text) {
  int64_t v = 0;
  if (!ParseInt64(text, v) || v < 0)
    Fail(name, line, fmt::format("{}: expected a non-negative integer, got \"{}\"", field, text));
  return v;
}

// `type` with its group suffix; `default_group` is the unsuffixed one.
SimaiComm Comm(const std::string& name, int line, std::string_view field, std::string_view type,
               int64_t bytes, SimaiGroup default_group) {
  SimaiComm c;
  c.bytes = bytes;
  c.group = default_group;
  std::string_view base = type;
  for (const auto& [suffix, group] :
       {std::pair{std::string_view("_DP_EP"), SimaiGroup::kDataExpert},
        std::pair{std::string_view("_EP"), SimaiGroup::kExpert}}) {
    if (base.size() > suffix.size() && base.ends_with(suffix)) {
      base.remove_suffix(suffix.size());
      c.group = group;
      break;
    }
  }
  static const std::pair<std::string_view, SimaiCommType> kTypes[] = {
      {"NONE", SimaiCommType::kNone},           {"ALLREDUCE", SimaiCommType::kAllReduce},
      {"ALLGATHER", SimaiCommType::kAllGather}, {"REDUCESCATTER", SimaiCommType::kReduceScatter},
      {"ALLTOALL", SimaiCommType::kAllToAll},   {"BROADCAST", SimaiCommType::kBroadcast}};
  for (const auto& [text, t] : kTypes)
    if (base == text && (t != SimaiCommType::kNone || base == type)) {
      c.type = t;
      if (t == SimaiCommType::kNone)
        c.bytes = 0;
      else if (bytes == 0)
        Fail(name, line, fmt::format("{}: {} of 0 bytes", field, type));
      return c;
    }
  Fail(name, line,
       fmt::format("{}: unknown comm type \"{}\" (NONE, ALLREDUCE, ALLGATHER, REDUCESCATTER, "
                   "ALLTOALL or BROADCAST, optionally with _EP or _DP_EP)",
                   field, type));
}

// Line 1: the loop, then `key: value` pairs.
void ReadHeader(SimaiWorkload& w, const std::string& name, std::string_view line) {
  const std::vector<std::string_view> tok = SplitFields(line);
  if (tok.empty())
    Fail(name, 1, "expected the training loop (e.g. HYBRID_TRANSFORMER_FWD_IN_BCKWD)");
  w.loop_name = std::string(tok[0]);
  if (tok[0] == "DATA") {
    w.loop = SimaiLoop::kData;
  } else if (tok[0] == "HYBRID_TRANSFORMER" || tok[0] == "HYBRID_TRANSFORMER_FWD_IN_BCKWD") {
    w.loop = SimaiLoop::kTransformer;
  } else if (tok[0] == "MICRO") {
    w.loop = SimaiLoop::kMicro;
  } else {
    Fail(
        name, 1,
        fmt::format("training loop \"{}\" is not imported; rocesim reads DATA, HYBRID_TRANSFORMER, "
                    "HYBRID_TRANSFORMER_FWD_IN_BCKWD and MICRO",
                    tok[0]));
  }
  for (size_t i = 1; i < tok.size(); ++i) {
    std::string_view key = tok[i];
    if (key.ends_with(':')) key.remove_suffix(1);
    if (i + 1 >= tok.size()) Fail(name, 1, fmt::format("{}: missing its value", key));
    const int64_t v = Integer(name, 1, key, tok[++i]);
    auto positive = [&](int& field) {
      if (v < 1 || v > 1'000'000)
        Fail(name, 1, fmt::format("{}: expected 1 or more, got {}", key, v));
      field = static_cast<int>(v);
    };
    if (key == "model_parallel_NPU_group") {
      positive(w.tp);
    } else if (key == "ep" || key == "expert_parallel_npu_group") {
      positive(w.ep);
    } else if (key == "pp") {
      positive(w.pp);
      if (w.pp != 1)
        Fail(name, 1,
             fmt::format("pp: pipeline parallelism ({} stages) is not imported: SimAI accounts "
                         "pipeline bubbles analytically rather than as traffic; generate the "
                         "workload with pipeline_model_parallel 1",
                         w.pp));
    } else if (key == "ga") {
      positive(w.ga);
    } else if (key == "all_gpus") {
      positive(w.all_gpus);
    } else if (key == "vpp" || key == "pp_comm") {
      // Pipeline details, meaningless at pp: 1.
    } else if (key == "checkpoints" || key == "checkpoint_initiates") {
      if (v != 0)
        Fail(name, 1,
             fmt::format("{}: activation checkpointing ({} layers) is not imported; AICB writes 0",
                         key, v));
    } else {
      Fail(name, 1, fmt::format("unknown key \"{}\"", tok[i - 1]));
    }
  }
}

}  // namespace

SimaiWorkload ParseSimaiWorkload(std::string_view text, const std::string& name) {
  SimaiWorkload w;
  w.path = name;
  std::vector<std::string_view> lines;
  for (size_t at = 0; at <= text.size();) {
    const size_t end = std::min(text.find('\n', at), text.size());
    lines.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  if (lines.empty() || SplitFields(lines[0]).empty())
    Fail(name, 1,
         "expected the training loop (e.g. HYBRID_TRANSFORMER_FWD_IN_BCKWD), got an empty line");
  ReadHeader(w, name, lines[0]);
  const std::vector<std::string_view> count =
      lines.size() > 1 ? SplitFields(lines[1]) : std::vector<std::string_view>{};
  if (count.size() != 1) Fail(name, 2, "expected the number of layer lines");
  const int64_t layers = Integer(name, 2, "layer count", count[0]);
  if (layers < 1) Fail(name, 2, "layer count: expected at least one layer");
  static constexpr const char* kFields[] = {"name",
                                            "placeholder",
                                            "forward compute",
                                            "forward comm",
                                            "forward comm bytes",
                                            "input-gradient compute",
                                            "input-gradient comm",
                                            "input-gradient comm bytes",
                                            "weight-gradient compute",
                                            "weight-gradient comm",
                                            "weight-gradient comm bytes",
                                            "weight-update time"};
  size_t at = 2;
  for (int64_t i = 0; i < layers; ++i) {
    while (at < lines.size() && SplitFields(lines[at]).empty()) ++at;
    if (at >= lines.size())
      Fail(name, static_cast<int>(lines.size()),
           fmt::format("the file ends after {} of the {} layer lines that line 2 announces", i,
                       layers));
    const int line = static_cast<int>(at) + 1;
    const std::vector<std::string_view> f = SplitFields(lines[at++]);
    if (f.size() != 12)
      Fail(name, line,
           fmt::format("expected 12 fields (name, placeholder, then compute, comm type and bytes "
                       "for forward, input gradient and weight gradient, then update time), got {}",
                       f.size()));
    SimaiLayer l;
    l.name = std::string(f[0]);
    l.line = line;
    int64_t v[12] = {};
    for (int k : {2, 4, 5, 7, 8, 10, 11}) {
      v[k] = Integer(name, line, kFields[k], f[k]);
      // Bounds that keep every time in picoseconds and every sum of bytes
      // far from overflow: 1,000 s of compute, kMaxFlowBytes (1 TiB) per comm.
      const bool bytes = k == 4 || k == 7 || k == 10;
      const int64_t limit = bytes ? kMaxFlowBytes : int64_t{1'000'000'000'000};
      if (v[k] > limit)
        Fail(name, line,
             fmt::format("{}: {} is more than {} {}", kFields[k], v[k], limit,
                         bytes ? "bytes" : "ns"));
    }
    const SimaiGroup model = SimaiGroup::kTensor;
    l.forward_compute = v[2] * kNanosecond;
    l.forward = Comm(name, line, kFields[3], f[3], v[4], model);
    l.input_grad_compute = v[5] * kNanosecond;
    l.input_grad = Comm(name, line, kFields[6], f[6], v[7], model);
    l.weight_grad_compute = v[8] * kNanosecond;
    l.weight_grad = Comm(name, line, kFields[9], f[9], v[10], SimaiGroup::kData);
    l.weight_update = v[11] * kNanosecond;
    w.layers.push_back(std::move(l));
  }
  for (; at < lines.size(); ++at)
    if (!SplitFields(lines[at]).empty())
      Fail(name, static_cast<int>(at) + 1,
           fmt::format("more layer lines than the {} that line 2 announces", layers));
  return w;
}

SimaiWorkload ReadSimaiWorkload(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SimaiWorkloadError(fmt::format("{}: cannot open the workload file", path));
  std::ostringstream text;
  text << in.rdbuf();
  return ParseSimaiWorkload(text.str(), path);
}

std::string_view SimaiCommTypeName(SimaiCommType t) {
  switch (t) {
    case SimaiCommType::kNone:
      return "NONE";
    case SimaiCommType::kAllReduce:
      return "ALLREDUCE";
    case SimaiCommType::kAllGather:
      return "ALLGATHER";
    case SimaiCommType::kReduceScatter:
      return "REDUCESCATTER";
    case SimaiCommType::kAllToAll:
      return "ALLTOALL";
    case SimaiCommType::kBroadcast:
      return "BROADCAST";
  }
  return "?";
}

}  // namespace rocesim
