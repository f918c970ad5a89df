#include "core/scratch_dir.h"

#include <fmt/format.h>
#include <stdlib.h>  // mkdtemp (POSIX)

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <vector>

namespace rocesim {

ScratchDir::ScratchDir(const std::string& prefix) {
  const char* tmp = std::getenv("TMPDIR");
  const std::string base = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
  const std::string pattern = (std::filesystem::path(base) / (prefix + "XXXXXX")).string();
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  if (mkdtemp(name.data()) == nullptr)
    throw std::runtime_error(
        fmt::format("cannot create a scratch directory {}: {}", pattern, std::strerror(errno)));
  path_ = name.data();
}

void ScratchDir::Remove() {
  if (path_.empty()) return;
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
  path_.clear();
}

}  // namespace rocesim
