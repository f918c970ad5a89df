#include "core/checked_write.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <utility>

namespace rocesim {

void WriteFileChecked(const std::string& path, std::string_view text) {
  CheckedFileWriter out(path);
  out.Append(text);
  out.Close();
}

CheckedFileWriter::CheckedFileWriter(std::string path)
    : path_(std::move(path)), out_(path_, std::ios::binary) {
  if (!out_) Fail();
}

void CheckedFileWriter::Append(std::string_view text) {
  out_.write(text.data(), static_cast<std::streamsize>(text.size()));
  if (!out_) Fail();
}

void CheckedFileWriter::FlushText() {
  Append(std::string_view(text_.data(), text_.size()));
  text_.clear();
}

void CheckedFileWriter::Close() {
  FlushText();
  out_.close();
  if (!out_) Fail();
}

void CheckedFileWriter::Fail() const {
  throw std::runtime_error("cannot write " + path_ + ": " + std::strerror(errno));
}

}  // namespace rocesim
