#include "core/checked_write.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace rocesim {

void WriteFileChecked(const std::string& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary);
  if (out) out.write(text.data(), static_cast<std::streamsize>(text.size()));
  if (out) out.close();
  if (!out) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
}

}  // namespace rocesim
