// A run owns its results directory (issue #20): it writes into a hidden
// staging directory beside it, `.NAME.partial`, renamed to NAME only when every
// file is complete, so a directory never mixes two runs' files and a killed
// run never leaves one that looks finished. The lock `.NAME.lock`
// (core/dir_lock.h) keeps a second run from writing it at the same time.
//
//   ResultsDir out("results/x", force);   // refuses now, before simulating
//   ... write everything into out.staging() ...
//   out.Commit();                         // results/x is the new results
//
// Without Commit (an error), the staging directory is removed and an existing
// NAME is left as it was.
#pragma once

#include <memory>
#include <string>

#include "core/dir_lock.h"

namespace rocesim {

class ResultsDir {
 public:
  // Takes the lock, checks that `dir` may be written (an existing non-empty
  // directory only with `force`, and then only one that looks like a results
  // directory: never a home directory by a typo), removes what a killed run
  // left beside it, and creates a fresh staging directory that takes a file
  // (so a read-only or full disk fails now, not after the simulation).
  // Throws ResultsDirError (exit status 2) when refused.
  ResultsDir(const std::string& dir, bool force);
  ~ResultsDir();
  ResultsDir(const ResultsDir&) = delete;
  ResultsDir& operator=(const ResultsDir&) = delete;

  // Where the run writes.
  const std::string& staging() const { return staging_; }
  // Moves the staging directory to `dir`; with `force`, the old directory is
  // removed only now that the new results are complete.
  void Commit();

 private:
  std::string dir_;
  std::string staging_;
  std::unique_ptr<DirLock> lock_;
  bool committed_ = false;
};

}  // namespace rocesim
