// Tests of the terminal check behind the run's live lines
// (sim/launcher_terminal.h): which file-descriptor targets are terminals,
// and that outside a launcher only this process's own stderr counts.
#include <gtest/gtest.h>
#include <unistd.h>

#include "sim/launcher_terminal.h"

namespace rocesim {
namespace test_launcher_terminal {
namespace {

TEST(LauncherTerminal, PseudoTerminalsAndTtysAreTerminals) {
  EXPECT_TRUE(NamesTerminal("/dev/pts/0"));
  EXPECT_TRUE(NamesTerminal("/dev/pts/17"));
  EXPECT_TRUE(NamesTerminal("/dev/tty1"));
  EXPECT_TRUE(NamesTerminal("/dev/console"));
}

TEST(LauncherTerminal, FilesPipesAndSocketsAreNot) {
  EXPECT_FALSE(NamesTerminal("/tmp/run.log"));
  EXPECT_FALSE(NamesTerminal("pipe:[123456]"));
  EXPECT_FALSE(NamesTerminal("socket:[98765]"));
  EXPECT_FALSE(NamesTerminal("/dev/null"));
  EXPECT_FALSE(NamesTerminal(""));
  EXPECT_FALSE(NamesTerminal("/home/u/dev/pts/0"));
}

TEST(LauncherTerminal, AnOutputFilenameMeansRankFiles) {
  EXPECT_TRUE(LauncherWritesRankFiles("/tmp/ranks"));
  EXPECT_TRUE(LauncherWritesRankFiles("/tmp/ranks:nocopy"));
  EXPECT_TRUE(LauncherWritesRankFiles("logs"));
  EXPECT_FALSE(LauncherWritesRankFiles(""));
  EXPECT_FALSE(LauncherWritesRankFiles(nullptr));
}

// ctest gives the tests no terminal: outside a launcher that is the answer,
// whatever the parent (ctest, a shell) writes to.
TEST(LauncherTerminal, OutsideALauncherOnlyOwnStderrCounts) {
  if (isatty(STDERR_FILENO) != 0) GTEST_SKIP() << "stderr is a terminal";
  EXPECT_FALSE(StderrReachesTerminal(false));
}

}  // namespace
}  // namespace test_launcher_terminal
}  // namespace rocesim
