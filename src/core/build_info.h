// What build of rocesim this is (summary.json's `run` object, `rocesim
// --version`): the CMake project version and the git commit it was built from.
#pragma once

namespace rocesim {

inline const char* RocesimVersion() {
  return ROCESIM_VERSION;
}
// The commit (12 hex digits, "-dirty" with uncommitted changes), or "unknown"
// when built outside a git checkout. Generated at build time
// (cmake/git_commit.cmake).
const char* GitCommit();

}  // namespace rocesim
