// The HPCC ns-3 simulator's output files (output.hpcc_compat: true), written
// beside rocesim's own so that scripts written for that simulator (its
// analysis/fct_analysis.py and the like) read a rocesim run unchanged. The
// formats are those of its scratch/third.cc:
//   fct.txt  one line per completed flow, in completion order:
//            "sip dip sport dport size start_ns fct_ns standalone_fct_ns",
//            sip/dip as 8 hex digits of the host's address 11.x.y.1
//            (0x0b000001 + node/256 * 0x10000 + node%256 * 0x100), dport
//            the flow's port in an HPCC flow file (fct_analysis.py selects
//            flows by it), else 100 (that simulator's traffic generator's
//            port for ordinary flows), standalone fct = rocesim's
//            ideal fct (flows.csv ideal_fct_ps); times truncated to ns.
//   pfc.txt  one line per PFC frame a port received, in time order:
//            "time_ns node node_type if_index type", node_type 0 host /
//            1 switch, if_index the port's local index + 1 (ns-3's device 0
//            is the loopback), type 1 pause / 0 resume.
//   qlen.txt (output.hpcc_qlen) its queue-length monitor's histograms
//            (stats/hpcc_qlen_monitor.h).
#pragma once

#include <string>

#include "sim/simulation.h"

namespace rocesim {

// The IPv4 address the HPCC simulator gives node `node`.
uint32_t HpccNodeIp(uint32_t node);

// Write fct.txt and pfc.txt, a megabyte at a time (a long run's PFC trace
// can be large; the text is never held whole). Throw std::runtime_error
// naming the file on any failure (core/checked_write.h).
void WriteHpccFct(const Simulation& sim, const std::string& path);
void WriteHpccPfc(const Simulation& sim, const std::string& path);
// Writes fct.txt and pfc.txt (output.hpcc_compat) and qlen.txt
// (output.hpcc_qlen) into `dir`.
void WriteHpccCompatFiles(const Simulation& sim, const std::string& dir);

}  // namespace rocesim
