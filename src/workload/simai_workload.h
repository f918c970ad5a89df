// Reader for SimAI workload files (issue "AI training on RoCE fabrics"), the
// text format that Alibaba's AICB generator writes for the SimAI simulator
// (AICB workload_generator/SimAI_training_workload_generator.py; SimAI
// astra-sim-alibabacloud/astra-sim/workload/Workload.cc reads it):
//
//   line 1  the training loop and its parallelism, e.g.
//           HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 8 ep: 1
//           pp: 1 vpp: 32 ga: 4 all_gpus: 64 checkpoints: 0
//           checkpoint_initiates: 0 pp_comm: 0
//   line 2  the number of layer lines that follow
//   then    one line per layer, 12 fields separated by tabs or spaces:
//             name  placeholder(-1)
//             forward compute (ns)   forward comm type   forward comm bytes
//             input-gradient compute (ns)   its comm type   its bytes
//             weight-gradient compute (ns)  its comm type   its bytes
//             weight-update time (ns)
//
// Compute times are SimAI ticks, nanoseconds in its ns-3 backend (AICB's
// measured A100 layers read ~0.5 ms as 539986). A comm type is NONE or
// ALLREDUCE, ALLGATHER, REDUCESCATTER, ALLTOALL (or BROADCAST), optionally
// suffixed _EP or _DP_EP for the group it runs in; unsuffixed, the forward
// and input-gradient comms run in the tensor-parallel group and the
// weight-gradient comm in the data-parallel group (Workload.cc).
//
// Read: the loops DATA, HYBRID_TRANSFORMER, HYBRID_TRANSFORMER_FWD_IN_BCKWD
// (without activation checkpoints: AICB writes `checkpoints: 0`, and SimAI's
// reader never marks a layer for recomputation anyway) and MICRO; pipeline
// parallelism pp: 1 only (SimAI accounts pipeline bubbles analytically, not
// as traffic). Anything else — another loop, pp > 1, checkpoints, an unknown
// comm type, a wrong field count — is an error naming the file, line and
// field, where SimAI would read a default or stop.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/time.h"

namespace rocesim {

class SimaiWorkloadError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class SimaiLoop {
  kData,         // DATA: weight-gradient comms only
  kTransformer,  // HYBRID_TRANSFORMER and HYBRID_TRANSFORMER_FWD_IN_BCKWD
  kMicro,        // MICRO: a list of collectives (AICB's micro tests)
};

enum class SimaiCommType { kNone, kAllReduce, kAllGather, kReduceScatter, kAllToAll, kBroadcast };
// The group a comm runs in (SimAI's MockNccl::GroupType).
enum class SimaiGroup { kTensor, kData, kExpert, kDataExpert };

struct SimaiComm {
  SimaiCommType type = SimaiCommType::kNone;
  SimaiGroup group = SimaiGroup::kTensor;
  int64_t bytes = 0;
};

struct SimaiLayer {
  std::string name;
  int line = 0;  // in the file, for messages
  Time forward_compute = 0;
  SimaiComm forward;
  Time input_grad_compute = 0;
  SimaiComm input_grad;
  Time weight_grad_compute = 0;
  SimaiComm weight_grad;
  Time weight_update = 0;  // read, not simulated (SimAI does not wait for it either)
};

struct SimaiWorkload {
  std::string path;
  SimaiLoop loop = SimaiLoop::kTransformer;
  std::string loop_name;  // as written on line 1
  int tp = 1;             // model_parallel_NPU_group
  int ep = 1;             // ep / expert_parallel_npu_group
  int pp = 1;
  int ga = 1;        // gradient accumulation steps (AICB repeats the layers that often)
  int all_gpus = 0;  // 0: not in the file (older AICB versions)
  std::vector<SimaiLayer> layers;
};

SimaiWorkload ReadSimaiWorkload(const std::string& path);
// `name` is what messages call the text (its file).
SimaiWorkload ParseSimaiWorkload(std::string_view text, const std::string& name);

std::string_view SimaiCommTypeName(SimaiCommType t);

}  // namespace rocesim
