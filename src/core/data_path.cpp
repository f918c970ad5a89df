#include "core/data_path.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace rocesim {

namespace fs = std::filesystem;

std::vector<std::string> DataDirCandidates(std::string_view tree, std::string_view installed,
                                           const std::string& exe_path, const std::string& env_dir,
                                           const std::string& source_dir) {
  std::vector<std::string> out;
  if (!env_dir.empty()) out.push_back((fs::path(env_dir) / installed).string());
  if (!exe_path.empty()) {
    const fs::path prefix = fs::path(exe_path).parent_path().parent_path();
    out.push_back((prefix / "share" / "rocesim" / installed).string());
    out.push_back((prefix / tree).string());
  }
  if (!source_dir.empty()) out.push_back((fs::path(source_dir) / tree).string());
  return out;
}

std::string FindDataFile(const std::vector<std::string>& candidates, std::string_view file) {
  std::error_code ec;
  for (const std::string& dir : candidates) {
    const fs::path path = fs::path(dir) / file;
    if (fs::is_regular_file(path, ec)) return path.string();
  }
  return candidates.empty() ? std::string(file) : (fs::path(candidates.back()) / file).string();
}

std::string ExecutablePath() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.string();
}

std::string DataFile(std::string_view tree, std::string_view installed, std::string_view file) {
  const char* env = std::getenv("ROCESIM_DATA_DIR");
  return FindDataFile(DataDirCandidates(tree, installed, ExecutablePath(),
                                        env != nullptr ? env : "", ROCESIM_SOURCE_DIR),
                      file);
}

}  // namespace rocesim
