// nodes.csv and links.csv of a results directory (README "Results",
// docs/scenario.md "Node and link maps"): which node id is which switch or
// host, and how they are cabled, so that the node and port ids of
// queues.csv, ports.csv, counters.csv, events.csv and faults read as tor3,
// agg1, core7, host12.
//   nodes.csv  node,kind,tier,index,name
//   links.csv  node_a,port_a,node_b,port_b,rate_bps,delay_ps,error_rate
#pragma once

#include <string>

#include "net/fabric_layout.h"

namespace rocesim {

// "node,kind,tier,index,name\n" and one row per node in id order; index
// counts within the tier (a host's index is its host id).
std::string NodesCsv(const FabricLayout& layout);
// One row per link, ordered by the port id of its lower end (node id, then
// port); ports are the nodes' local port indices, as in ports.csv.
std::string LinksCsv(const FabricLayout& layout);
// Writes both into `dir`.
void WriteNodeMap(const FabricLayout& layout, const std::string& dir);

}  // namespace rocesim
