// `rocesim import-aicb WORKLOAD.txt -o scenario.yaml`: a scenario that runs a
// SimAI workload file (as Alibaba's AICB generates them; format in
// workload/simai_workload.h) on a rail-optimized RoCE fabric sized to the
// job: all_gpus GPUs in servers of `gpus_per_server`, each GPU with its own
// 400 Gb/s NIC on its rail, NVLink inside a server, DCQCN. The workload is
// read (and checked) once here so that its errors surface before a scenario
// is written; the scenario names it relative to its own directory.
#pragma once

#include <string>

namespace rocesim {

struct AicbImportOptions {
  int gpus = 0;             // 0: the file's all_gpus (required when the file has none)
  int gpus_per_server = 8;  // GPUs (and NICs) per server
  int iterations = 1;
};

// Returns the scenario text; throws SimaiWorkloadError for a bad file and
// std::invalid_argument for options that do not fit it.
std::string ImportAicbWorkload(const std::string& workload_path, const std::string& output_path,
                               const AicbImportOptions& options);

}  // namespace rocesim
