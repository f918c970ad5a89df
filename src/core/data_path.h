// Where rocesim finds the files it ships beside its binary (the built-in
// flow-size CDFs, the report scripts, the validation suite): relative to the
// running binary first, so an installed or moved copy works without the
// source tree it was built from; the source path compiled in is only the
// last resort.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace rocesim {

// The directories that may hold `tree` (the source tree's name: "data/cdf",
// "python", "validation"), in lookup order:
//   1. $ROCESIM_DATA_DIR/<installed>            (an explicit override),
//   2. <exe dir>/../share/rocesim/<installed>   (an install: bin/rocesim),
//   3. <exe dir>/../<tree>                      (build/rocesim in a source tree),
//   4. <source_dir>/<tree>                      (the tree it was built from).
// `installed` is the name under share/rocesim ("cdf", "python", "validation");
// empty arguments leave their candidate out.
std::vector<std::string> DataDirCandidates(std::string_view tree, std::string_view installed,
                                           const std::string& exe_path, const std::string& env_dir,
                                           const std::string& source_dir);

// The first candidate that holds `file`; if none does, the last candidate's
// path for it (so that an error names where it was looked for).
std::string FindDataFile(const std::vector<std::string>& candidates, std::string_view file);

// The running binary's path (/proc/self/exe), or "" if unknown.
std::string ExecutablePath();

// FindDataFile over DataDirCandidates for this process: its binary, the
// ROCESIM_DATA_DIR environment variable and the compiled-in source path.
std::string DataFile(std::string_view tree, std::string_view installed, std::string_view file);

}  // namespace rocesim
