#include "apps/error_report.h"

#include <fmt/format.h>

#include <cstdio>
#include <new>

#include "core/dir_lock.h"
#include "net/fabric_layout.h"
#include "scenario/hpcc_config_import.h"
#include "scenario/scenario_reader.h"
#include "sim/partition.h"
#include "stats/invariants.h"
#include "topo/hpcc_topology_file.h"

namespace rocesim {

std::string ErrorText(const std::exception& e) {
  if (dynamic_cast<const std::bad_alloc*>(&e) != nullptr)
    return "out of memory (std::bad_alloc): the run needs more memory than this process may use "
           "(the machine's, a cgroup's limit, ulimit -v); a shorter run's summary.json "
           "(run.peak_rss_bytes) shows how much it takes";
  return e.what();
}

ErrorReport DescribeError(const std::exception_ptr& error) {
  auto say = [](int status, const std::exception& e, const char* after = "") {
    return ErrorReport{status, fmt::format("rocesim: error: {}{}\n", ErrorText(e), after)};
  };
  try {
    std::rethrow_exception(error);
  } catch (const JobEnded& e) {
    return {e.status, ""};
  } catch (const ScenarioError& e) {
    return say(2, e);
  } catch (const TopologyFileError& e) {
    return say(2, e);
  } catch (const HpccImportError& e) {
    return say(2, e);
  } catch (const BuildError& e) {
    return say(2, e);
  } catch (const PartitionError& e) {
    return say(2, e);
  } catch (const InvariantError& e) {
    return say(3, e, " (a bug in rocesim)");
  } catch (const ResultsDirError& e) {
    return say(2, e);
  } catch (const std::exception& e) {
    return say(1, e);
  } catch (...) {
    return {1, "rocesim: error: an unknown failure\n"};
  }
}

int ReportError(const std::exception_ptr& error) {
  const ErrorReport r = DescribeError(error);
  if (!r.line.empty()) {
    std::fputs(r.line.c_str(), stderr);
    std::fflush(stderr);
  }
  return r.status;
}

}  // namespace rocesim
