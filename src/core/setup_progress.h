// Progress of a run's setup (issue #19): building a large fabric is work of
// its own before the first event (a 65,536-host fat tree's forwarding tables
// take seconds, a k=128 one minutes), and a command line that prints nothing
// meanwhile cannot be told from a hung one. The layers that build report
// their steps here; the command line (apps/run_command.cpp) listens and
// draws a line on the terminal. Without a listener a report costs a test.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>

namespace rocesim {

// `step`: what is being built ("forwarding tables"); done of total units.
using SetupListener = std::function<void(std::string_view step, uint64_t done, uint64_t total)>;

// Process-wide, set once by the front end before it builds (not thread-safe
// against a concurrent report; the builds that report run on one thread).
void SetSetupListener(SetupListener listener);
void ReportSetup(std::string_view step, uint64_t done, uint64_t total);
// Whether anyone listens: a builder skips counting otherwise.
bool SetupListened();

}  // namespace rocesim
