// `rocesim import-hpcc CONFIG -o SCENARIO.yaml`: writes a scenario that runs
// an HPCC ns-3 simulator experiment (src/scenario/hpcc_config_import.h).
// `rocesim import-aicb WORKLOAD.txt -o SCENARIO.yaml`: one that runs a SimAI
// workload file (src/scenario/aicb_import.h).
#include <fmt/format.h>

#include <filesystem>
#include <fstream>

#include "apps/commands.h"
#include "core/checked_write.h"
#include "scenario/aicb_import.h"
#include "scenario/hpcc_config_import.h"
#include "workload/simai_workload.h"

namespace rocesim {

int ImportHpccCommand(const std::string& config, const std::string& out) {
  const std::string yaml = ImportHpccConfig(config, out);
  const std::filesystem::path dir = std::filesystem::path(out).parent_path();
  if (!dir.empty()) std::filesystem::create_directories(dir);
  WriteFileChecked(out, yaml);
  fmt::print("wrote {}; run it with: rocesim run {}\n", out, out);
  return 0;
}

int ImportAicbCommand(const std::string& workload, const std::string& out,
                      const AicbImportOptions& options) {
  std::string yaml;
  try {
    yaml = ImportAicbWorkload(workload, out, options);
  } catch (const SimaiWorkloadError& e) {
    fmt::print(stderr, "rocesim: error: {}\n", e.what());
    return 2;
  } catch (const std::invalid_argument& e) {
    fmt::print(stderr, "rocesim: error: {}\n", e.what());
    return 2;
  }
  const std::filesystem::path dir = std::filesystem::path(out).parent_path();
  if (!dir.empty()) std::filesystem::create_directories(dir);
  WriteFileChecked(out, yaml);
  fmt::print("wrote {}; run it with: rocesim run {}\n", out, out);
  return 0;
}

}  // namespace rocesim
