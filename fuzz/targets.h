// The inputs rocesim reads, as fuzz targets (issue "Trustworthy at any
// input"): each takes the bytes of one input and returns when rocesim either
// refused it with its own error (the clean outcome: a message naming the
// file, line and field) or accepted it; anything else — another exception,
// a crash, a hang — is a finding. The scenario target also builds the
// fabric and runs a bounded simulation (small fabrics, a short run).
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace rocesim::fuzz {

struct Target {
  std::string name;
  // Seed inputs: files under the source tree (paths relative to it) whose
  // names end with one of `suffixes`, in these directories.
  std::vector<std::string> corpus_dirs;
  std::vector<std::string> suffixes;
  std::function<void(const std::string& input)> run;
};

// `source_dir`: the source tree (relative paths inside inputs resolve
// against its examples/); `scratch_dir`: where inputs read by path are
// written.
std::vector<Target> Targets(const std::string& source_dir, const std::string& scratch_dir);

}  // namespace rocesim::fuzz
