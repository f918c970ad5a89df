// `rocesim run` puts its heap on transparent huge pages by starting itself
// again with glibc.malloc.hugetlb=1 (apps/huge_page_heap.h), and says so
// under -v; ROCESIM_NO_HUGE_PAGES=1 or a tunable the user set leaves the
// pages alone. The results are the same either way.
#include <gtest/gtest.h>

#include <string>

#include "core/huge_pages.h"
#include "tests/cli_test_support.h"

namespace rocesim {
namespace {

class HugePagesCli : public test::CliTest {
 protected:
  std::string RunVerbose(const std::string& name, const std::string& env) {
    const test::CliRun r = test::RunRocesimCli(
        "run '" + test::ExamplePath("quickstart.yaml") + "' -v -o '" + dir_ + name + "'",
        dir_ + name + ".log", env);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return r.output;
  }
};

TEST_F(HugePagesCli, ARunRestartsWithItsHeapOnHugePagesUnlessToldNot) {
  if (!HugePagesWanted()) GTEST_SKIP() << "transparent huge pages are off here";
  const std::string on = RunVerbose("on", "env -u GLIBC_TUNABLES -u ROCESIM_NO_HUGE_PAGES ");
  EXPECT_NE(on.find("rocesim: heap on transparent huge pages (glibc.malloc.hugetlb=1)"),
            std::string::npos)
      << on;
  const std::string off = RunVerbose("off", "env ROCESIM_NO_HUGE_PAGES=1 ");
  EXPECT_NE(off.find("rocesim: heap and ports on 4 KB pages (ROCESIM_NO_HUGE_PAGES set"),
            std::string::npos)
      << off;
  const std::string user = RunVerbose("user", "env GLIBC_TUNABLES=glibc.malloc.hugetlb=0 ");
  EXPECT_NE(user.find("rocesim: heap on 4 KB pages (GLIBC_TUNABLES sets glibc.malloc.hugetlb=0)"),
            std::string::npos)
      << user;
  ExpectSameResults("on", "off");
  ExpectSameResults("on", "user");
}

}  // namespace
}  // namespace rocesim
