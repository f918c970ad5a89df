#include "core/setup_progress.h"

#include <utility>

namespace rocesim {
namespace {
SetupListener& Listener() {
  static SetupListener listener;
  return listener;
}
}  // namespace

void SetSetupListener(SetupListener listener) {
  Listener() = std::move(listener);
}

void ReportSetup(std::string_view step, uint64_t done, uint64_t total) {
  if (Listener()) Listener()(step, done, total);
}

bool SetupListened() {
  return static_cast<bool>(Listener());
}

}  // namespace rocesim
