// A private directory for one process's temporary files: created fresh
// (mkdtemp) under $TMPDIR, else /tmp, and removed with everything in it when
// the object goes (or at Remove, before a process ends without unwinding).
//
// Used by the ranks of an MPI run other than rank 0: they write their
// partitions' time series and packet captures here, on their own machine,
// and send them to rank 0 after the run (RankExchange::CollectFiles), so
// that a job whose machines share no filesystem still gives rank 0 every
// file and leaves nothing behind.
#pragma once

#include <string>

namespace rocesim {

class ScratchDir {
 public:
  // Creates TMPDIR/PREFIXXXXXXX; throws std::runtime_error naming the
  // directory it could not create.
  explicit ScratchDir(const std::string& prefix);
  ~ScratchDir() { Remove(); }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::string& path() const { return path_; }
  // Removes the directory and everything in it now (errors ignored: it is
  // scratch); later calls do nothing.
  void Remove();

 private:
  std::string path_;
};

}  // namespace rocesim
