#include "stats/hpcc_compat_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <vector>

#include "core/checked_write.h"

namespace rocesim {
namespace {

constexpr Time kPsPerNs = 1000;

}  // namespace

uint32_t HpccNodeIp(uint32_t node) {
  return 0x0b000001u + (node / 256) * 0x10000u + (node % 256) * 0x100u;
}

void WriteHpccFct(const Simulation& sim, const std::string& path) {
  const Fabric& f = sim.fabric();
  // The HPCC simulator writes a line as each flow completes.
  std::vector<const Flow*> done;
  for (const Flow& fl : f.flows)
    if (fl.Finished()) done.push_back(&fl);
  std::sort(done.begin(), done.end(), [](const Flow* a, const Flow* b) {
    return a->finish < b->finish || (a->finish == b->finish && a->id < b->id);
  });
  CheckedFileWriter file(path);
  auto out = std::back_inserter(file.Text());
  for (const Flow* fl : done) {
    fmt::format_to(
        out, "{:08x} {:08x} {} {} {} {} {} {}\n", HpccNodeIp(f.layout->host_nodes[fl->src]),
        HpccNodeIp(f.layout->host_nodes[fl->dst]), fl->sport, fl->hpcc_dport, fl->size_bytes,
        fl->start / kPsPerNs, (fl->finish - fl->start) / kPsPerNs, fl->ideal_fct / kPsPerNs);
    file.FlushIfOver();
  }
  file.Close();
}

void WriteHpccPfc(const Simulation& sim, const std::string& path) {
  const Fabric& f = sim.fabric();
  CheckedFileWriter file(path);
  auto out = std::back_inserter(file.Text());
  for (const PfcTraceEntry& e : f.pfc_trace) {
    fmt::format_to(out, "{} {} {} {} {}\n", e.time / kPsPerNs, e.node,
                   f.nodes[e.node].is_switch ? 1 : 0, e.port + 1, e.pause);
    file.FlushIfOver();
  }
  file.Close();
}

void WriteHpccCompatFiles(const Simulation& sim, const std::string& dir) {
  if (sim.scenario().output.hpcc_compat) {
    WriteHpccFct(sim, dir + "/fct.txt");
    WriteHpccPfc(sim, dir + "/pfc.txt");
  }
  if (sim.scenario().output.hpcc_qlen.enabled)
    WriteHpccQlen(sim.fabric().qlen_dumps, dir + "/qlen.txt");
}

}  // namespace rocesim
