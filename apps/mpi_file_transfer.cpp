#include "apps/mpi_file_transfer.h"

#ifdef ROCESIM_HAVE_MPI
#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include "apps/mpi_messages.h"

namespace rocesim {

namespace fs = std::filesystem;

namespace {

constexpr uint64_t kEnd = UINT64_MAX;
constexpr size_t kChunk = size_t{8} << 20;

// A header: `size`, then `text` (a relative path, or the end's error).
void SendHeader(uint64_t size, const std::string& text) {
  std::vector<char> msg(sizeof size + text.size());
  std::memcpy(msg.data(), &size, sizeof size);
  std::memcpy(msg.data() + sizeof size, text.data(), text.size());
  MPI_Send(msg.data(), static_cast<int>(msg.size()), MPI_CHAR, 0, kFilesTag, MPI_COMM_WORLD);
}

}  // namespace

void SendFilesToRankZero(const std::string& root) {
  // Listed with error codes, never exceptions: a rank that threw here
  // would leave rank 0 waiting for its end message.
  std::vector<fs::path> files;
  std::error_code ec;
  if (!root.empty() && fs::is_directory(root, ec)) {
    for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec))
      if (it->is_regular_file(ec)) files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  std::string error;
  if (ec) error = fmt::format("cannot list {}: {}", root, ec.message());
  std::vector<char> chunk(kChunk);
  for (const fs::path& path : files) {
    std::ifstream in(path, std::ios::binary);
    const auto size = static_cast<uint64_t>(fs::file_size(path, ec));
    if (!in || ec) {
      if (error.empty())
        error = fmt::format("cannot read {}: {}", path.string(), std::strerror(errno));
      continue;
    }
    SendHeader(size, path.lexically_relative(root).string());
    for (uint64_t left = size; left > 0;) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(left, kChunk));
      // A read that fails part-way still sends the size announced (zeros),
      // keeping both sides in step; the end message then says what failed.
      if (!in.read(chunk.data(), static_cast<std::streamsize>(n))) {
        std::fill(chunk.begin(), chunk.end(), '\0');
        if (error.empty())
          error = fmt::format("cannot read {}: {}", path.string(), std::strerror(errno));
      }
      MPI_Send(chunk.data(), static_cast<int>(n), MPI_CHAR, 0, kFilesTag, MPI_COMM_WORLD);
      left -= n;
    }
  }
  SendHeader(kEnd, error);
}

std::string ReceiveFilesFromRank(int from, const std::string& root) {
  std::string error;
  std::vector<char> buf;
  for (;;) {
    ReceiveWhole(from, kFilesTag, buf);
    uint64_t size = 0;
    std::memcpy(&size, buf.data(), sizeof size);
    const std::string text(buf.begin() + sizeof size, buf.end());
    if (size == kEnd) {
      if (!text.empty() && error.empty()) error = fmt::format("rank {}: {}", from, text);
      return error;
    }
    const fs::path path = fs::path(root) / text;
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    std::ofstream out(path, std::ios::binary);
    // The first failure's errno, kept before MPI's calls overwrite it (EIO
    // if the stream set none).
    int err = 0;
    auto failed = [&] {
      if (err == 0) err = errno != 0 ? errno : EIO;
    };
    if (!out) failed();
    for (uint64_t left = size; left > 0;) {
      ReceiveWhole(from, kFilesTag, buf);
      if (out && !out.write(buf.data(), static_cast<std::streamsize>(buf.size()))) failed();
      left -= std::min<uint64_t>(left, buf.size());
    }
    if (out) {
      out.close();  // a full disk fails here, at the flush
      if (!out) failed();
    }
    if (err != 0 && error.empty())
      error = fmt::format("cannot write {} (rank {}'s file): {}", path.string(), from,
                          std::strerror(err));
  }
}

}  // namespace rocesim
#endif
