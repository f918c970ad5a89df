// Writing a whole file and knowing it got there: the open, the write and the
// close are all checked (a full disk fails only when the buffers are
// flushed), so no output is silently empty or cut short (issue #19).
#pragma once

#include <string>
#include <string_view>

namespace rocesim {

// Writes `text` to `path` (replacing it); throws std::runtime_error naming the
// file and the system's reason on any failure.
void WriteFileChecked(const std::string& path, std::string_view text);

}  // namespace rocesim
