#include "scenario/aicb_import.h"

#include <fmt/format.h>

#include <filesystem>
#include <numeric>
#include <stdexcept>

#include "workload/simai_workload.h"

namespace rocesim {

std::string ImportAicbWorkload(const std::string& workload_path, const std::string& output_path,
                               const AicbImportOptions& o) {
  const SimaiWorkload w = ReadSimaiWorkload(workload_path);
  int gpus = o.gpus > 0 ? o.gpus : w.all_gpus;
  if (gpus == 0)
    throw std::invalid_argument(fmt::format(
        "{} does not say how many GPUs it runs on (no all_gpus: on line 1); give --gpus N",
        workload_path));
  if (w.all_gpus > 0 && gpus != w.all_gpus)
    throw std::invalid_argument(fmt::format("--gpus {} but {} runs on {} GPUs (all_gpus)", gpus,
                                            workload_path, w.all_gpus));
  if (o.gpus_per_server < 1) throw std::invalid_argument("--gpus-per-server: expected 1 or more");
  // One server holds a small job whole; otherwise whole servers.
  const int per_server = std::min(o.gpus_per_server, gpus);
  if (gpus % per_server != 0)
    throw std::invalid_argument(
        fmt::format("{} GPUs do not fill servers of {} (--gpus-per-server)", gpus, per_server));
  const int servers = gpus / per_server;
  // Rail groups of up to 16 servers, equal blocks (a divisor of servers).
  const int per_group = std::gcd(servers, 16);

  namespace fs = std::filesystem;
  const fs::path out_dir = fs::absolute(fs::path(output_path)).parent_path();
  const std::string file =
      fs::relative(fs::absolute(fs::path(workload_path)), out_dir).generic_string();
  const std::string name = fs::path(output_path).stem().string();
  return fmt::format(
      R"(# Imported from the SimAI workload file {file} by `rocesim import-aicb`:
# {loop}, {layers} layer lines, tensor parallel {tp}, expert parallel {ep},
# data parallel {dp}, on {gpus} GPUs. Each GPU has its own 400 Gb/s RDMA NIC
# on rail leaf i of its rail group ({per_group} servers per group); the GPUs
# of a server share NVLink. Edit the fabric, congestion control or the
# entry's algorithm / channels / chunk (docs/scenario.md "Training jobs").
# Run it:  rocesim run {out}
name: {name}
seed: 1
duration: 100s  # an upper bound: the run ends when the last iteration does

topology:
  type: {topology}
  {size_key}: {size}
  gpus_per_server: {per_server}{rail}
  host_link: {{rate: 400Gbps, delay: 1us}}{fabric}
  nvlink: {{rate: 3.6Tbps, latency: 1us}}

switch:
  buffer: 64MB
  ecn: {{kmin: 400KB, kmax: 1600KB, pmax: 0.2}}

host:
  mtu: 4000
  cc: dcqcn

traffic:
  - type: aicb_workload
    tag: training
    file: {file}
    algorithm: ring
    channels: 1
    iterations: {iterations}
)",
      fmt::arg("file", file), fmt::arg("loop", w.loop_name), fmt::arg("layers", w.layers.size()),
      fmt::arg("tp", w.tp), fmt::arg("ep", w.ep), fmt::arg("dp", gpus / w.tp),
      fmt::arg("gpus", gpus), fmt::arg("per_group", per_group), fmt::arg("out", output_path),
      fmt::arg("name", name), fmt::arg("topology", servers > 1 ? "rail" : "star"),
      fmt::arg("size_key", servers > 1 ? "servers" : "hosts"),
      fmt::arg("size", servers > 1 ? servers : gpus), fmt::arg("per_server", per_server),
      fmt::arg("rail", servers > 1 ? fmt::format("\n  servers_per_rail_group: {}\n  spines: {}",
                                                 per_group, per_server)
                                   : ""),
      fmt::arg("fabric", servers > 1 ? "\n  fabric_link: {rate: 400Gbps, delay: 1us}" : ""),
      fmt::arg("iterations", o.iterations));
}

}  // namespace rocesim
