// Likely mistakes in a valid scenario: settings the reader accepts that
// almost certainly do not do what their author meant (README "Warnings").
// `rocesim run` prints them to stderr as it starts; summary.json lists them,
// with the end-of-run ones, as `warnings`. Each is one line, a pure function
// of the scenario (and of the run's counters), so serial, threaded and MPI
// runs list the same.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "scenario/scenario.h"

namespace rocesim {

// Before the run: congestion control that reacts to ECN marks while nothing
// marks, flows that start at or after `duration`, LDCP (built for lossy
// fabrics) under PFC.
std::vector<std::string> ScenarioWarnings(const Scenario& sc);

// After the run: flows sent on a priority PFC does not protect while PFC is
// on for others, when the run dropped `lossy_drops` packets to full buffers or
// WRED (the drops PFC would have prevented). Empty when there is nothing to say.
std::vector<std::string> RunWarnings(const Scenario& sc, uint64_t lossy_drops);

}  // namespace rocesim
