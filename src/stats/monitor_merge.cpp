// Merging the time-series files of a partitioned run's partitions
// (stats/monitor.h): each partition wrote the rows of its own nodes and
// flows in the serial order, so a k-way merge on the rows' leading integer
// fields (time, node, port, priority; or time, flow) gives the serial file.
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "stats/monitor.h"

namespace rocesim {

namespace {
// The first `n` comma-separated integer fields of a row.
std::vector<long long> RowKey(const std::string& row, int n) {
  std::vector<long long> key;
  const char* at = row.c_str();
  for (int i = 0; i < n && *at; ++i) {
    char* end = nullptr;
    key.push_back(std::strtoll(at, &end, 10));
    at = *end == ',' ? end + 1 : end;
  }
  return key;
}

void MergeOne(const std::vector<std::string>& part_dirs, const std::string& dir,
              const MonitorFile& file) {
  std::vector<std::ifstream> in;
  for (const std::string& d : part_dirs) {
    const std::filesystem::path p = std::filesystem::path(d) / file.name;
    if (std::filesystem::exists(p)) in.emplace_back(p);
  }
  if (in.empty()) return;
  const std::string out_path = (std::filesystem::path(dir) / file.name).string();
  std::ofstream out(out_path, std::ios::binary);
  if (!out) throw std::runtime_error("cannot write " + out_path + ": " + std::strerror(errno));
  std::string header;
  std::vector<std::string> head(in.size());
  std::vector<std::vector<long long>> key(in.size());
  std::vector<bool> live(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    std::getline(in[i], header);  // the same header in every part
    live[i] = static_cast<bool>(std::getline(in[i], head[i]));
    if (live[i]) key[i] = RowKey(head[i], file.key_fields);
  }
  out << header << '\n';
  for (;;) {
    size_t best = in.size();
    for (size_t i = 0; i < in.size(); ++i)
      if (live[i] && (best == in.size() || key[i] < key[best])) best = i;
    if (best == in.size()) break;
    out << head[best] << '\n';
    live[best] = static_cast<bool>(std::getline(in[best], head[best]));
    if (live[best]) key[best] = RowKey(head[best], file.key_fields);
  }
  out.close();  // a full disk fails here, at the flush
  if (!out) throw std::runtime_error("cannot write " + out_path + ": " + std::strerror(errno));
}
}  // namespace

void MergeMonitorFiles(const std::vector<std::string>& part_dirs, const std::string& dir) {
  // Every partition opened its directory before the run: one missing here
  // would leave its rows out of the merged files without a word.
  for (const std::string& d : part_dirs)
    if (!std::filesystem::is_directory(d))
      throw std::runtime_error("the time series of a partition are missing: no directory " + d);
  for (const MonitorFile& file : kMonitorFiles) MergeOne(part_dirs, dir, file);
  for (const std::string& d : part_dirs) std::filesystem::remove_all(d);
}

}  // namespace rocesim
