#include "cc/cc_factory.h"

namespace rocesim {

std::string_view CcName(CcKind kind) {
  switch (kind) {
    case CcKind::kNone:
      return "none";
    case CcKind::kDcqcn:
      return "dcqcn";
    case CcKind::kTimely:
      return "timely";
    case CcKind::kDctcp:
      return "dctcp";
    case CcKind::kHpcc:
      return "hpcc";
  }
  return "?";
}

std::unique_ptr<CongestionControl> MakeCongestionControl(CcKind kind, const HostConfig& host) {
  switch (kind) {
    case CcKind::kNone:
      return nullptr;
    case CcKind::kDcqcn:
      return std::make_unique<Dcqcn>(host.dcqcn);
    case CcKind::kTimely:
      return std::make_unique<Timely>(host.timely);
    case CcKind::kDctcp:
      return std::make_unique<Dctcp>(host.dctcp);
    case CcKind::kHpcc:
      return std::make_unique<Hpcc>(host.hpcc);
  }
  return nullptr;
}

bool UsesCnps(CcKind kind, const HostConfig& host) {
  switch (kind) {
    case CcKind::kNone:
      return true;  // the NP is on by default, as on RoCE NICs
    case CcKind::kDcqcn:
      return host.dcqcn.mode == DcqcnMode::kCnp;
    case CcKind::kTimely:
    case CcKind::kDctcp:
    case CcKind::kHpcc:
      return false;  // they read delay, ECN-echo or INT instead
  }
  return true;
}

}  // namespace rocesim
