#include "stats/pcap_writer.h"

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace rocesim {

PcapWriter::PcapWriter(const std::string& path, uint32_t snaplen) : path_(path), snaplen_(snaplen) {
  file_ = std::fopen(path.c_str(), "wb");
  if (!file_) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
  struct {
    uint32_t magic = kPcapMagicNanoseconds;
    uint16_t major = 2;
    uint16_t minor = 4;
    int32_t thiszone = 0;
    uint32_t sigfigs = 0;
    uint32_t snaplen;
    uint32_t linktype = kPcapLinkTypeEthernet;
  } header;
  static_assert(sizeof(header) == 24);
  header.snaplen = snaplen;
  std::fwrite(&header, sizeof(header), 1, file_);
}

PcapWriter::~PcapWriter() {
  if (file_) std::fclose(file_);
}

void PcapWriter::Write(Time t, const uint8_t* data, uint32_t data_len, uint32_t orig_len) {
  const uint32_t incl = orig_len < snaplen_ ? orig_len : snaplen_;
  const int64_t ns = t / kNanosecond;
  const uint32_t record[4] = {static_cast<uint32_t>(ns / 1000000000),
                              static_cast<uint32_t>(ns % 1000000000), incl, orig_len};
  std::fwrite(record, sizeof(record), 1, file_);
  const uint32_t from_data = data_len < incl ? data_len : incl;
  std::fwrite(data, 1, from_data, file_);
  static constexpr uint8_t kZeros[4096] = {};
  for (uint32_t left = incl - from_data; left > 0;) {
    const uint32_t n = left < sizeof(kZeros) ? left : static_cast<uint32_t>(sizeof(kZeros));
    std::fwrite(kZeros, 1, n, file_);
    left -= n;
  }
}

void PcapWriter::Finish() {
  if (std::fflush(file_) != 0 || std::ferror(file_))
    throw std::runtime_error("cannot write " + path_ + ": " + std::strerror(errno));
}

}  // namespace rocesim
