// Tests of the switch's shared-buffer admission (net/switch_mmu.h) against
// hand-computed sequences: DESIGN.md §3 "Ingress admission by dynamic threshold:
// a (port, priority) may take shared buffer while alpha * unallocated >
// allocated (seed 003)", seed 003 §6.2 (alpha 1/16 worked, 1/64 paused far
// earlier), PFC XOFF/XON with headroom and xon offset (DESIGN.md §3 PFC).
//
// The small configuration used throughout: buffer 100000 B, 2 ports, reserved
// 1000 B per (port, priority) for all 8 priorities, headroom 5000 B per port for
// the one lossless priority 3, xon_offset 2000 B. Carve-out = 2*8*1000 + 2*5000 =
// 26000, so the shared pool P = 74000.
#include <gtest/gtest.h>

#include <array>
#include <vector>

#include "net/switch_mmu.h"

namespace rocesim {
namespace test_switch_mmu {
namespace {

constexpr int kLossless = 3;
constexpr int kLossy = 0;

SwitchConfig SmallConfig(double alpha) {
  SwitchConfig cfg;
  cfg.buffer_bytes = 100000;
  cfg.alpha = alpha;
  cfg.reserved_bytes = 1000;
  cfg.pfc.xon_offset_bytes = 2000;
  return cfg;
}

std::array<bool, kNumPriorities> LosslessSet(std::initializer_list<int> prios) {
  std::array<bool, kNumPriorities> l{};
  for (int p : prios) l[p] = true;
  return l;
}

SwitchMmu MakeMmu(const SwitchConfig& cfg, std::vector<int64_t> headroom = {5000, 5000},
                  std::initializer_list<int> lossless = {kLossless}) {
  SwitchMmu mmu;
  mmu.Init(cfg, headroom, LosslessSet(lossless));
  return mmu;
}

// Admits `bytes`-sized packets on (port, prio) until one is refused; returns how
// many were admitted and the refusal.
int AdmitUntilRefused(SwitchMmu& mmu, int port, int prio, int64_t bytes, Admission* refusal) {
  for (int n = 0; n < 100000; ++n) {
    const Admission a = mmu.Admit(port, prio, bytes);
    if (a != Admission::kAdmitted) {
      *refusal = a;
      return n;
    }
  }
  ADD_FAILURE() << "never refused";
  return -1;
}

// alpha per ingress link speed (switch.alpha_by_rate, as the HPCC
// simulator's threshold doubles with the port rate): port 0 at 100G with
// alpha 1/8, port 1 at 400G with 1/2, an unlisted speed keeps switch.alpha.
// Alone, a PG is admitted to shared buffer while S < alpha (74000 - S).
TEST(SwitchMmu, AlphaByRateSetsEachPortsThreshold) {
  SwitchConfig cfg = SmallConfig(1.0 / 16);
  cfg.alpha_by_rate = {{100'000'000'000, 1.0 / 8}, {400'000'000'000, 0.5}};
  EXPECT_EQ(SwitchMmu::AlphaFor(cfg, 100'000'000'000), 1.0 / 8);
  EXPECT_EQ(SwitchMmu::AlphaFor(cfg, 25'000'000'000), 1.0 / 16);
  SwitchMmu mmu;
  mmu.Init(cfg, {5000, 5000}, LosslessSet({kLossless}), {100'000'000'000, 400'000'000'000});
  EXPECT_DOUBLE_EQ(mmu.Threshold(0), 74000.0 / 8);
  EXPECT_DOUBLE_EQ(mmu.Threshold(1), 74000.0 / 2);
  Admission refusal{};
  // 1 reserved packet, then shared while S < alpha (74000 - S): 1/8 admits
  // S = 0 .. 8000 (8000 < 8250), 9 shared packets; then 5 headroom packets.
  EXPECT_EQ(AdmitUntilRefused(mmu, 0, kLossless, 1000, &refusal), 1 + 9 + 5);
  for (int i = 0; i < 15; ++i) mmu.Release(0, kLossless, 1000);
  // 1/2 admits S = 0 .. 24000 (24000 < 25000): 25 shared packets.
  EXPECT_EQ(AdmitUntilRefused(mmu, 1, kLossless, 1000, &refusal), 1 + 25 + 5);
}

TEST(SwitchMmu, SharedPoolCarveOut) {
  EXPECT_EQ(MakeMmu(SmallConfig(0.5)).SharedPoolBytes(), 74000);
  // Two lossless priorities, unequal headroom: 100000 - 16000 - 2*(5000+7000).
  EXPECT_EQ(MakeMmu(SmallConfig(0.5), {5000, 7000}, {3, 4}).SharedPoolBytes(), 60000);
  // No lossless priority: no headroom carved.
  EXPECT_EQ(MakeMmu(SmallConfig(0.5), {5000, 5000}, {}).SharedPoolBytes(), 84000);
  // Too small a buffer for the carve-outs: negative (the builder reports it).
  SwitchConfig tiny = SmallConfig(0.5);
  tiny.buffer_bytes = 20000;
  EXPECT_EQ(MakeMmu(tiny).SharedPoolBytes(), -6000);
}

// alpha 1/2, one PG filling alone with 1000-byte packets. Shared use S is
// admitted while 0.5 * (74000 - S) > S, i.e. for S = 0, 1000, ..., 24000, so the
// PG ends with S = 25000 after 1 reserved + 25 shared packets. Then 5 packets
// fill the 5000-byte headroom and the 32nd is a headroom drop.
TEST(SwitchMmu, ReservedThenSharedThenHeadroomThenDrop) {
  SwitchMmu mmu = MakeMmu(SmallConfig(0.5));
  ASSERT_EQ(mmu.Admit(0, kLossless, 1000), Admission::kAdmitted);
  EXPECT_EQ(mmu.PgShared(0, kLossless), 0) << "first 1000 bytes are reserved";
  EXPECT_EQ(mmu.SharedUsed(), 0);
  EXPECT_EQ(mmu.PgBytes(0, kLossless), 1000);
  EXPECT_FALSE(mmu.ShouldPause(0, kLossless));

  for (int i = 1; i <= 25; ++i) {
    EXPECT_FALSE(mmu.ShouldPause(0, kLossless)) << "before shared packet " << i;
    ASSERT_EQ(mmu.Admit(0, kLossless, 1000), Admission::kAdmitted) << "shared packet " << i;
    EXPECT_EQ(mmu.PgShared(0, kLossless), 1000 * i);
    EXPECT_EQ(mmu.PgHeadroom(0, kLossless), 0);
  }
  EXPECT_EQ(mmu.SharedUsed(), 25000);
  EXPECT_DOUBLE_EQ(mmu.Threshold(0), 24500.0);  // 0.5 * (74000 - 25000)
  EXPECT_TRUE(mmu.ShouldPause(0, kLossless)) << "25000 >= 24500: XOFF due";

  for (int i = 1; i <= 5; ++i) {
    ASSERT_EQ(mmu.Admit(0, kLossless, 1000), Admission::kAdmitted) << "headroom packet " << i;
    EXPECT_EQ(mmu.PgHeadroom(0, kLossless), 1000 * i);
    EXPECT_EQ(mmu.PgShared(0, kLossless), 25000) << "headroom does not take shared buffer";
    EXPECT_TRUE(mmu.ShouldPause(0, kLossless));
  }
  EXPECT_EQ(mmu.SharedUsed(), 25000);
  EXPECT_EQ(mmu.TotalBytes(), 31000);
  EXPECT_EQ(mmu.PgBytes(0, kLossless), 31000);

  EXPECT_EQ(mmu.Admit(0, kLossless, 1000), Admission::kDropHeadroom);
  EXPECT_EQ(mmu.Admit(0, kLossless, 64), Admission::kDropHeadroom) << "headroom is exactly full";
  EXPECT_EQ(mmu.TotalBytes(), 31000) << "a drop changes nothing";
  EXPECT_EQ(mmu.PgHeadroom(0, kLossless), 5000);
}

TEST(SwitchMmu, LossyPriorityDropsAtTheThreshold) {
  SwitchMmu mmu = MakeMmu(SmallConfig(0.5));
  Admission refusal{};
  // Same arithmetic as above: 1 reserved + 25 shared, then no headroom.
  EXPECT_EQ(AdmitUntilRefused(mmu, 1, kLossy, 1000, &refusal), 26);
  EXPECT_EQ(refusal, Admission::kDropShared);
  EXPECT_EQ(mmu.PgHeadroom(1, kLossy), 0);
  EXPECT_EQ(mmu.TotalBytes(), 26000);
}

// A second PG sees the unallocated pool the first left: with port 0 prio 3 at
// S0 = 25000, port 1 prio 0 may take shared while 0.5 * (49000 - S1) > S1, i.e.
// S1 = 0..16000, ending at 17000 after 1 reserved + 17 shared packets.
TEST(SwitchMmu, PriorityGroupsShareTheUnallocatedPool) {
  SwitchMmu mmu = MakeMmu(SmallConfig(0.5));
  Admission refusal{};
  for (int i = 0; i < 26; ++i) ASSERT_EQ(mmu.Admit(0, kLossless, 1000), Admission::kAdmitted);
  EXPECT_EQ(AdmitUntilRefused(mmu, 1, kLossy, 1000, &refusal), 18);
  EXPECT_EQ(refusal, Admission::kDropShared);
  EXPECT_EQ(mmu.PgShared(1, kLossy), 17000);
  EXPECT_EQ(mmu.SharedUsed(), 42000);
  EXPECT_DOUBLE_EQ(mmu.Threshold(0), 16000.0);  // 0.5 * (74000 - 42000)
  // Port 1's reserve for another priority is still there.
  EXPECT_EQ(mmu.Admit(1, 5, 1000), Admission::kAdmitted);
  EXPECT_EQ(mmu.SharedUsed(), 42000);
}

// A packet that straddles the reserve takes only its excess from shared.
TEST(SwitchMmu, PacketStraddlingTheReserve) {
  SwitchMmu mmu = MakeMmu(SmallConfig(0.5));
  ASSERT_EQ(mmu.Admit(0, kLossless, 600), Admission::kAdmitted);
  EXPECT_EQ(mmu.SharedUsed(), 0);
  ASSERT_EQ(mmu.Admit(0, kLossless, 600), Admission::kAdmitted);
  EXPECT_EQ(mmu.PgShared(0, kLossless), 200);
  EXPECT_EQ(mmu.SharedUsed(), 200);
  mmu.Release(0, kLossless, 600);
  EXPECT_EQ(mmu.PgShared(0, kLossless), 0);
  EXPECT_EQ(mmu.SharedUsed(), 0);
  EXPECT_EQ(mmu.PgBytes(0, kLossless), 600);
}

// From the full state of ReservedThenShared... (reserved 1000, shared 25000,
// headroom 5000): headroom drains first; XON only once headroom is empty and
// S + 2000 <= 0.5 * (74000 - S), i.e. S <= 23333 -> at S = 23000.
TEST(SwitchMmu, ReleaseDrainsHeadroomFirstAndResumesBelowOffset) {
  SwitchMmu mmu = MakeMmu(SmallConfig(0.5));
  for (int i = 0; i < 31; ++i) ASSERT_EQ(mmu.Admit(0, kLossless, 1000), Admission::kAdmitted);
  ASSERT_EQ(mmu.PgHeadroom(0, kLossless), 5000);

  mmu.Release(0, kLossless, 1000);
  EXPECT_EQ(mmu.PgHeadroom(0, kLossless), 4000);
  EXPECT_EQ(mmu.PgShared(0, kLossless), 25000);
  EXPECT_FALSE(mmu.ShouldResume(0, kLossless)) << "headroom not empty";

  mmu.Release(0, kLossless, 4000);
  EXPECT_EQ(mmu.PgHeadroom(0, kLossless), 0);
  EXPECT_EQ(mmu.PgShared(0, kLossless), 25000);
  EXPECT_FALSE(mmu.ShouldResume(0, kLossless)) << "27000 > 24500";

  mmu.Release(0, kLossless, 1000);  // S = 24000, threshold 25000
  EXPECT_EQ(mmu.SharedUsed(), 24000);
  EXPECT_FALSE(mmu.ShouldPause(0, kLossless));
  EXPECT_FALSE(mmu.ShouldResume(0, kLossless)) << "26000 > 25000: hysteresis";

  mmu.Release(0, kLossless, 1000);  // S = 23000, threshold 25500
  EXPECT_TRUE(mmu.ShouldResume(0, kLossless)) << "25000 <= 25500";

  mmu.Release(0, kLossless, 23500);  // all shared and half the reserve
  EXPECT_EQ(mmu.PgShared(0, kLossless), 0);
  EXPECT_EQ(mmu.SharedUsed(), 0);
  EXPECT_EQ(mmu.PgBytes(0, kLossless), 500);
  EXPECT_TRUE(mmu.ShouldResume(0, kLossless));
  mmu.Release(0, kLossless, 500);
  EXPECT_EQ(mmu.TotalBytes(), 0);
  EXPECT_EQ(mmu.PgBytes(0, kLossless), 0);
}

TEST(SwitchMmu, ReleaseSpanningHeadroomAndShared) {
  SwitchMmu mmu = MakeMmu(SmallConfig(0.5));
  for (int i = 0; i < 31; ++i) ASSERT_EQ(mmu.Admit(0, kLossless, 1000), Admission::kAdmitted);
  mmu.Release(0, kLossless, 5500);
  EXPECT_EQ(mmu.PgHeadroom(0, kLossless), 0);
  EXPECT_EQ(mmu.PgShared(0, kLossless), 24500);
  EXPECT_EQ(mmu.SharedUsed(), 24500);
  EXPECT_EQ(mmu.TotalBytes(), 25500);
}

// With a huge alpha the pool itself is the limit: reserved 0, pool 90000,
// 1400-byte packets: 64 fit (89600), the 65th would need 91000 > 90000.
TEST(SwitchMmu, PoolCapsAdmissionWhenAlphaIsLarge) {
  SwitchConfig cfg = SmallConfig(1000);
  cfg.reserved_bytes = 0;
  SwitchMmu mmu = MakeMmu(cfg);
  ASSERT_EQ(mmu.SharedPoolBytes(), 90000);
  Admission refusal{};
  EXPECT_EQ(AdmitUntilRefused(mmu, 0, kLossy, 1400, &refusal), 64);
  EXPECT_EQ(refusal, Admission::kDropShared);
  EXPECT_EQ(mmu.SharedUsed(), 89600);
  EXPECT_LE(mmu.SharedUsed(), mmu.SharedPoolBytes());
}

// Seed 003 §6.2: alpha 1/64 instead of 1/16 gives a congested ingress far less
// shared buffer, so PFC triggers much sooner. One PG, pool 74000:
//   1/16: S admitted while (74000 - S) / 16 > S -> S = 0..4000 -> 1 + 5 packets
//   1/64: S admitted while (74000 - S) / 64 > S -> S = 0, 1000 -> 1 + 2 packets
int PacketsBeforePause(double alpha) {
  SwitchMmu mmu = MakeMmu(SmallConfig(alpha));
  int n = 0;
  while (!mmu.ShouldPause(0, kLossless)) {
    EXPECT_EQ(mmu.Admit(0, kLossless, 1000), Admission::kAdmitted);
    EXPECT_EQ(mmu.PgHeadroom(0, kLossless), 0);
    ++n;
  }
  return n;
}

TEST(SwitchMmu, Alpha64PausesSoonerThanAlpha16) {
  EXPECT_EQ(PacketsBeforePause(1.0 / 16), 6);
  EXPECT_EQ(PacketsBeforePause(1.0 / 64), 3);
}

// The incast of seed 003: 16 ingress ports fill round-robin. Each PG settles
// near the fixed point S = alpha * (P - 16 S), S = alpha P / (1 + 16 alpha):
// P = 12e6 - 17 * 100000 = 10.3e6 -> 321875 at 1/16, 128750 at 1/64.
double IncastSharePerPort(double alpha) {
  SwitchConfig cfg;
  cfg.buffer_bytes = 12'000'000;
  cfg.alpha = alpha;
  cfg.reserved_bytes = 0;
  SwitchMmu mmu;
  mmu.Init(cfg, std::vector<int64_t>(17, 100000), LosslessSet({kLossless}));
  EXPECT_EQ(mmu.SharedPoolBytes(), 10'300'000);
  std::vector<bool> paused(16, false);
  int paused_count = 0;
  while (paused_count < 16) {
    for (int p = 0; p < 16; ++p) {
      if (paused[p]) continue;
      EXPECT_EQ(mmu.Admit(p, kLossless, 1000), Admission::kAdmitted);
      if (mmu.ShouldPause(p, kLossless)) {
        paused[p] = true;
        ++paused_count;
      }
    }
  }
  // A PG whose threshold fell while others grew learns it on its next arrival,
  // which lands in headroom (and would trigger its XOFF): at most one packet.
  for (int p = 0; p < 16; ++p) EXPECT_LE(mmu.PgHeadroom(p, kLossless), 1000);
  return static_cast<double>(mmu.SharedUsed()) / 16;
}

TEST(SwitchMmu, IncastShareFollowsAlpha) {
  EXPECT_NEAR(IncastSharePerPort(1.0 / 16), 321875, 2000);
  EXPECT_NEAR(IncastSharePerPort(1.0 / 64), 128750, 2000);
}

// Switch::Forward's cut-through onto an idle port relies on PassesThrough
// saying exactly when admitting a frame and releasing it at once would change
// nothing observable: admitted into the shared buffer, no XOFF due with it
// counted, no XOFF outstanding. Checked against the real sequence (Admit,
// ShouldPause, Release) at every fill level of a lossless and a lossy PG,
// including the reserve boundary, the threshold and headroom.
TEST(SwitchMmu, PassesThroughMatchesAdmitThenRelease) {
  for (const int prio : {kLossless, kLossy}) {
    SwitchMmu mmu = MakeMmu(SmallConfig(0.5));
    int checked_true = 0, checked_false = 0;
    for (int fill = 0; fill < 40; ++fill) {
      for (const int64_t bytes : {64, 700, 1000, 1500}) {
        SwitchMmu probe = mmu;
        const bool predicted = probe.PassesThrough(0, prio, bytes);
        const int64_t total = probe.TotalBytes(), shared = probe.SharedUsed();
        const int64_t pg = probe.PgBytes(0, prio), headroom = probe.PgHeadroom(0, prio);
        const bool xoff_before = probe.Xoff(0, prio) != 0;
        const bool admitted = probe.Admit(0, prio, bytes) == Admission::kAdmitted;
        const bool pause_due = prio == kLossless && probe.ShouldPause(0, prio);
        const bool admitted_shared = admitted && probe.PgHeadroom(0, prio) == headroom;
        EXPECT_EQ(predicted, admitted_shared && !pause_due && !xoff_before)
            << "prio " << prio << " fill " << fill << " bytes " << bytes;
        if (predicted) {
          probe.Release(0, prio, bytes);
          EXPECT_EQ(probe.TotalBytes(), total);
          EXPECT_EQ(probe.SharedUsed(), shared);
          EXPECT_EQ(probe.PgBytes(0, prio), pg);
          ++checked_true;
        } else {
          ++checked_false;
        }
      }
      // Grow the PG by one frame (and mark XOFF when it is due, as the switch would).
      if (mmu.Admit(0, prio, 1000) != Admission::kAdmitted) break;
      if (prio == kLossless && mmu.ShouldPause(0, prio)) mmu.Xoff(0, prio) = 1;
    }
    EXPECT_GT(checked_true, 0) << "prio " << prio;
    EXPECT_GT(checked_false, 0) << "prio " << prio;
  }
}

}  // namespace
}  // namespace test_switch_mmu
}  // namespace rocesim
