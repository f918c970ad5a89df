// `rocesim import-hpcc CONFIG -o scenario.yaml`: turns the key settings of an
// HPCC ns-3 simulator config file (whitespace-separated `KEY value` lines,
// bench/README.md) into a rocesim scenario, so a user of that simulator can
// move an experiment over in one command. Mapped: topology and flow files,
// CC mode and its DCQCN / HPCC / TIMELY / DCTCP parameters, KMIN/KMAX/PMAX
// maps, buffer size, payload size, ACK interval, stop time. Keys with no
// rocesim meaning (trace and output files, PINT, ...) are listed in a
// comment at the top of the scenario; settings rocesim cannot honour yet
// (link error rates, go-back-0) are errors.
#pragma once

#include <stdexcept>
#include <string>

namespace rocesim {

class HpccImportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Returns the scenario text. File paths in it are written relative to
// `output_path`'s directory.
std::string ImportHpccConfig(const std::string& config_path, const std::string& output_path);

}  // namespace rocesim
