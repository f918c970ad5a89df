// Terminals behind stderr, here or at the MPI launcher (launcher_terminal.h).
#include "sim/launcher_terminal.h"

#include <unistd.h>

#include <array>
#include <cstdlib>
#include <string>

namespace rocesim {

bool NamesTerminal(std::string_view path) {
  return path.starts_with("/dev/pts/") || path.starts_with("/dev/tty") || path == "/dev/console";
}

bool LauncherWritesRankFiles(const char* output_filename) {
  return output_filename != nullptr && output_filename[0] != '\0';
}

bool StderrReachesTerminal(bool under_launcher) {
  if (isatty(STDERR_FILENO) != 0) return true;
  if (!under_launcher) return false;
  if (LauncherWritesRankFiles(std::getenv("OMPI_MCA_orte_output_filename"))) return false;
  const std::string link = "/proc/" + std::to_string(getppid()) + "/fd/2";
  std::array<char, 256> target{};
  const ssize_t n = readlink(link.c_str(), target.data(), target.size() - 1);
  return n > 0 && NamesTerminal(std::string_view(target.data(), static_cast<size_t>(n)));
}

}  // namespace rocesim
