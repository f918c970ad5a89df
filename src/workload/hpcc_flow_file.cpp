#include "workload/hpcc_flow_file.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/text_fields.h"
#include "core/units.h"

namespace rocesim {

namespace {}  // namespace

std::vector<FlowSpec> ParseHpccFlows(std::string_view text, const std::string& name, int hosts) {
  std::vector<FlowSpec> flows;
  int64_t declared = -1;
  int line_no = 0;
  size_t pos = 0;
  auto fail = [&](const std::string& msg) -> void {
    throw FlowFileError(fmt::format("{}:{}: {}", name, line_no, msg));
  };
  while (pos <= text.size()) {
    const size_t end = std::min(text.find('\n', pos), text.size());
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    const auto f = SplitFields(line);
    if (f.empty()) {
      if (end == text.size()) break;
      continue;
    }
    if (declared < 0) {
      if (f.size() != 1 || !ParseInt64(f[0], declared) || declared < 0)
        fail(fmt::format("expected the flow count, got \"{}\"", line));
      continue;
    }
    if (f.size() != 6)
      fail(fmt::format("expected <src> <dst> <priority> <dst port> <size> <start s>, got \"{}\"",
                       line));
    int64_t src = 0, dst = 0, prio = 0, port = 0, size = 0;
    if (!ParseInt64(f[0], src) || src < 0 || src >= hosts)
      fail(fmt::format("src: expected a host id from 0 to {}, got \"{}\"", hosts - 1, f[0]));
    if (!ParseInt64(f[1], dst) || dst < 0 || dst >= hosts)
      fail(fmt::format("dst: expected a host id from 0 to {}, got \"{}\"", hosts - 1, f[1]));
    if (src == dst) fail(fmt::format("dst: expected a host other than src ({})", src));
    if (!ParseInt64(f[2], prio) || prio < 0 || prio > 7)
      fail(fmt::format("priority: expected 0-7, got \"{}\"", f[2]));
    if (!ParseInt64(f[3], port) || port < 0 || port > 65535)
      fail(fmt::format("dst port: expected 0-65535, got \"{}\"", f[3]));
    if (!ParseInt64(f[4], size) || size <= 0 || size > kMaxFlowBytes)
      fail(fmt::format("size: expected a number of bytes from 1 to {}, got \"{}\"", kMaxFlowBytes,
                       f[4]));
    FlowSpec spec;
    spec.src = static_cast<int>(src);
    spec.dst = static_cast<int>(dst);
    spec.priority = static_cast<int>(prio);
    spec.hpcc_dport = static_cast<uint16_t>(port);
    spec.size_bytes = size;
    try {
      spec.start = ParseTime(std::string(f[5]) + "s");
    } catch (const UnitError&) {
      fail(fmt::format("start: expected seconds like 2.000001, got \"{}\"", f[5]));
    }
    flows.push_back(spec);
  }
  if (declared < 0) fail("empty file: expected the flow count on line 1");
  if (static_cast<int64_t>(flows.size()) != declared)
    throw FlowFileError(
        fmt::format("{}: declares {} flows but lists {}", name, declared, flows.size()));
  return flows;
}

std::vector<FlowSpec> ReadHpccFlowFile(const std::string& path, int hosts) {
  std::ifstream in(path);
  if (!in)
    throw FlowFileError(fmt::format("cannot open flow file '{}': {}", path, std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  return ParseHpccFlows(text.str(), path, hosts);
}

}  // namespace rocesim
