#include "sim/flow_merge.h"

#include <algorithm>

namespace rocesim {

FlowTable MergeFlows(const std::vector<FlowTable*>& tables, const std::vector<int>& host_table) {
  const bool every =
      std::all_of(host_table.begin(), host_table.end(), [](int t) { return t >= 0; });
  std::vector<uint8_t> host_held(host_table.size());
  for (size_t h = 0; h < host_table.size(); ++h) host_held[h] = host_table[h] >= 0 ? 1 : 0;
  FlowTable out = every ? FlowTable() : FlowTable(std::move(host_held));
  if (tables.empty()) return out;
  const uint32_t count = tables[0]->Count();
  out.Reserve(count);
  // Per table: how many of its held flows the walk has passed.
  std::vector<size_t> passed(tables.size(), 0);
  constexpr uint32_t kReleaseEvery = 4096;
  for (uint32_t id = 0; id < count; ++id) {
    const FlowEnds e = tables[0]->Ends(id);  // every partition knows every flow's ends
    const int s = host_table[e.src];
    const int d = host_table[e.dst];
    Flow fl;
    if (s >= 0) {
      fl = (*tables[s])[id];
      if (d >= 0 && d != s) CopyResponder((*tables[d])[id], fl);
    } else if (d >= 0) {
      fl = (*tables[d])[id];  // the receiver's side only: the sender's rank sends the rest
    } else {                  // neither end here: its ends, for the table's record
      fl.id = id;
      fl.src = e.src;
      fl.dst = e.dst;
      fl.packets = e.packets;
      fl.sport = e.sport;
    }
    out.Add(fl);
    if (s >= 0) ++passed[s];
    if (d >= 0 && d != s) ++passed[d];
    if (id % kReleaseEvery == kReleaseEvery - 1)
      for (size_t t = 0; t < tables.size(); ++t) tables[t]->ReleaseFront(passed[t]);
  }
  return out;
}

}  // namespace rocesim
