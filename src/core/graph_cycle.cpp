#include "core/graph_cycle.h"

namespace rocesim {

std::vector<uint32_t> FindCycle(uint32_t nodes,
                                const std::vector<std::pair<uint32_t, uint32_t>>& edges) {
  // Successors as CSR, and how many predecessors each node still waits for.
  std::vector<uint32_t> first(nodes + 1, 0), succ(edges.size()), left(nodes, 0);
  for (const auto& [p, s] : edges) {
    ++first[p + 1];
    ++left[s];
  }
  for (uint32_t n = 0; n < nodes; ++n) first[n + 1] += first[n];
  std::vector<uint32_t> at(first.begin(), first.end() - 1);
  for (const auto& [p, s] : edges) succ[at[p]++] = s;
  std::vector<uint32_t> ready;
  for (uint32_t n = 0; n < nodes; ++n)
    if (left[n] == 0) ready.push_back(n);
  uint32_t ordered = 0;
  while (!ready.empty()) {
    const uint32_t n = ready.back();
    ready.pop_back();
    ++ordered;
    for (uint32_t i = first[n]; i < first[n + 1]; ++i)
      if (--left[succ[i]] == 0) ready.push_back(succ[i]);
  }
  if (ordered == nodes) return {};
  // Every node left waits for another node left: walk those back until a
  // node repeats, which lies on a cycle.
  std::vector<uint32_t> back(nodes, UINT32_MAX);
  for (const auto& [p, s] : edges)
    if (left[p] != 0 && left[s] != 0) back[s] = p;
  uint32_t n = 0;
  while (left[n] == 0) ++n;
  std::vector<uint8_t> seen(nodes, 0);
  for (; !seen[n]; n = back[n]) seen[n] = 1;
  std::vector<uint32_t> cycle;
  for (uint32_t m = n; cycle.empty() || m != n; m = back[m]) cycle.push_back(m);
  return cycle;
}

}  // namespace rocesim
