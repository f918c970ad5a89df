#include "fuzz/partitioned_against_serial.h"

#include <filesystem>
#include <optional>
#include <stdexcept>

#include "net/fabric_layout.h"
#include "scenario/scenario_reader.h"
#include "sim/partition.h"
#include "sim/run_to_directory.h"
#include "stats/invariants.h"
#include "stats/results_diff.h"

namespace rocesim::fuzz {

namespace {

namespace fs = std::filesystem;

// Not the reader's own error, so the fuzzer saves the input as a finding.
struct PartitionedRunDiffers : std::logic_error {
  using std::logic_error::logic_error;
};

// What one run into a fresh `dir` came to.
struct Outcome {
  bool refused = false;               // the fabric cannot be built or cut
  std::optional<std::string> broken;  // the invariant it broke (results written)
};

Outcome RunInto(const Scenario& scenario, uint32_t threads, uint32_t partitions,
                const fs::path& dir) {
  fs::remove_all(dir);
  fs::create_directories(dir);
  Outcome out;
  try {
    RunToDirectory(scenario, threads, dir.string(), nullptr, partitions);
  } catch (const InvariantError& e) {
    out.broken = e.what();
  } catch (const BuildError&) {
    out.refused = true;
  } catch (const PartitionError&) {
    out.refused = true;
  } catch (const ScenarioError&) {
    out.refused = true;
  }
  return out;
}

}  // namespace

void ExpectPartitionedRunAsSerial(const Scenario& scenario, uint32_t partitions,
                                  const std::string& scratch_dir) {
  const fs::path serial_dir = fs::path(scratch_dir) / "serial";
  const fs::path partitioned_dir = fs::path(scratch_dir) / "partitioned";
  const Outcome serial = RunInto(scenario, 1, 1, serial_dir);
  const Outcome partitioned =
      serial.refused ? Outcome{} : RunInto(scenario, 2, partitions, partitioned_dir);
  if (!serial.refused && !partitioned.refused) {
    if (serial.broken.has_value() != partitioned.broken.has_value())
      throw PartitionedRunDiffers(
          "an invariant broke in the " + std::string(serial.broken ? "serial" : "partitioned") +
          " run only: " + (serial.broken ? *serial.broken : *partitioned.broken));
    if (const std::optional<std::string> diff =
            FirstResultsDifference(serial_dir.string(), partitioned_dir.string()))
      throw PartitionedRunDiffers("the partitioned run's results are not the serial run's: " +
                                  *diff);
  }
  // Alike, or refused: nothing to look at. (A finding leaves both
  // directories behind, until the next input's runs replace them.)
  fs::remove_all(scratch_dir);
}

}  // namespace rocesim::fuzz
