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
    case CcKind::kLdcp:
      return "ldcp";
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
    case CcKind::kLdcp:
      return std::make_unique<Ldcp>(host.ldcp);
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
    case CcKind::kLdcp:
      // The window variant reads ECN-echo on ACKs (seed 001 §2.2); the event-API
      // variant decreases per CNP (§3.2).
      return host.ldcp.variant == LdcpVariant::kEventApi;
  }
  return true;
}

}  // namespace rocesim
