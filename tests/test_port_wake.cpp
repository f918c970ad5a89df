// A port's wake-ups (Fabric::ArmWake / OnPortWake, net/port.h): an earlier
// wake displaces a pending one from wake_at while its event stays queued;
// the port remembers it in wake_after, so re-arming that time when the
// earlier wake has fired schedules no second event (a NIC's cut-through
// ACKs and CNPs used to leave 1.6% of k8's events as duplicate no-op wakes).
// Checked by counting the events the queue has been given.
#include <gtest/gtest.h>

#include "sim_test_support.h"

namespace rocesim {
namespace {

// A two-host star, built and not run, whose only flow starts long after the
// times used here: the host port has nothing to send and a wake finds
// nothing to do.
struct IdleHostPort {
  Simulation sim{ParseScenarioText(R"(
topology: {type: star, hosts: 2, host_link: {rate: 100Gbps, delay: 1us}}
traffic:
  - type: flows
    flows: [{src: 0, dst: 1, size: 1KB, start: 1ms}]
)",
                                   "test.yaml", "", {}, std::nullopt)};
  Fabric& f = sim.fabric();
  PortId port = f.nics[0].port();

  uint64_t Scheduled() const { return f.events.Scheduled(); }
  void FireWakeAt(Time t) {
    f.now = t;
    f.OnPortWake(port);
  }
};

TEST(PortWake, ADisplacedWakeIsNotScheduledAgain) {
  IdleHostPort h;
  h.f.now = 0;
  const uint64_t before = h.Scheduled();
  h.f.ArmWake(h.port, 2000);
  h.f.ArmWake(h.port, 1000);  // displaces 2000, whose event stays queued
  EXPECT_EQ(h.Scheduled(), before + 2);
  h.FireWakeAt(1000);
  EXPECT_EQ(h.f.ports[h.port].wake_at, 2000);
  h.f.ArmWake(h.port, 2000);  // the queued event already covers it
  h.f.ArmWake(h.port, 2500);  // and anything later
  EXPECT_EQ(h.Scheduled(), before + 2);
  h.FireWakeAt(2000);
  EXPECT_EQ(h.f.ports[h.port].wake_at, kTimeMax);
  h.f.ArmWake(h.port, 3000);  // nothing pending: a new event
  EXPECT_EQ(h.Scheduled(), before + 3);
  EXPECT_EQ(h.f.ports[h.port].wake_at, 3000);
}

// Only the latest displaced wake is remembered: an older one stays queued
// untracked, so re-arming its time costs one extra event but never leaves a
// time without a wake.
TEST(PortWake, AnOlderDisplacedWakeMayBeScheduledTwiceButIsNeverLost) {
  IdleHostPort h;
  h.f.now = 0;
  const uint64_t before = h.Scheduled();
  h.f.ArmWake(h.port, 3000);
  h.f.ArmWake(h.port, 2000);
  h.f.ArmWake(h.port, 1000);
  EXPECT_EQ(h.Scheduled(), before + 3);
  h.FireWakeAt(1000);
  EXPECT_EQ(h.f.ports[h.port].wake_at, 2000);
  h.f.ArmWake(h.port, 2500);  // covered by the wake at 2000
  EXPECT_EQ(h.Scheduled(), before + 3);
  h.FireWakeAt(2000);
  EXPECT_EQ(h.f.ports[h.port].wake_at, kTimeMax);
  h.f.ArmWake(h.port, 3000);  // 3000's first event is untracked: a second one
  EXPECT_EQ(h.Scheduled(), before + 4);
  h.FireWakeAt(3000);  // either of the two: the first resets the port
  EXPECT_EQ(h.f.ports[h.port].wake_at, kTimeMax);
  h.FireWakeAt(3000);  // the other is a no-op
  EXPECT_EQ(h.f.ports[h.port].wake_at, kTimeMax);
  EXPECT_EQ(h.Scheduled(), before + 4);
}

// An earlier wake that fires while a later one is tracked leaves the later
// one in place (an untracked event firing before wake_at changes nothing).
TEST(PortWake, AnUntrackedWakeFiringEarlyKeepsTheTrackedOne) {
  IdleHostPort h;
  h.f.now = 0;
  h.f.ArmWake(h.port, 3000);
  h.f.ArmWake(h.port, 2000);
  h.f.ArmWake(h.port, 1000);
  h.FireWakeAt(1000);  // tracks 2000 now; 3000 is queued, untracked
  h.FireWakeAt(2000);
  h.f.ArmWake(h.port, 4000);
  EXPECT_EQ(h.f.ports[h.port].wake_at, 4000);
  h.FireWakeAt(3000);  // the untracked event: 4000 stays tracked
  EXPECT_EQ(h.f.ports[h.port].wake_at, 4000);
}

}  // namespace
}  // namespace rocesim
