// Writing a whole file and knowing it got there: the open, the write and the
// close are all checked (a full disk fails only when the buffers are
// flushed), so no output is silently empty or cut short (issue #19).
#pragma once

#include <fmt/format.h>

#include <cstddef>
#include <fstream>
#include <string>
#include <string_view>

namespace rocesim {

// Writes `text` to `path` (replacing it); throws std::runtime_error naming the
// file and the system's reason on any failure.
void WriteFileChecked(const std::string& path, std::string_view text);

// A file written piece by piece (one too large to hold whole in memory),
// checked as WriteFileChecked is: the constructor replaces `path` with an
// empty file, and it, Append, FlushIfOver and Close throw
// std::runtime_error naming the file and the system's reason. Rows are
// formatted into Text() and go out once it holds `bytes` (FlushIfOver),
// the rest at Close. A writer destroyed unclosed (an exception on the way)
// leaves what it wrote.
class CheckedFileWriter {
 public:
  // What a writer of rows holds before it writes them out.
  static constexpr size_t kChunkBytes = size_t{1} << 20;

  explicit CheckedFileWriter(std::string path);
  void Append(std::string_view text);
  fmt::memory_buffer& Text() { return text_; }
  void FlushIfOver(size_t bytes = kChunkBytes) {
    if (text_.size() >= bytes) FlushText();
  }
  void Close();

 private:
  void FlushText();
  [[noreturn]] void Fail() const;
  std::string path_;
  std::ofstream out_;
  fmt::memory_buffer text_;
};

}  // namespace rocesim
