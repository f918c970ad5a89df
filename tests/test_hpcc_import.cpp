// `rocesim import-hpcc`: the HPCC simulator's reference config
// (bench/hpcc/hpcc_config_k8_dcqcn_ws30.txt, from ../shared/bench) becomes a
// scenario that loads and carries every key setting (issue: workloads,
// topologies and results "compatible with the HPCC simulator").
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "scenario/hpcc_config_import.h"
#include "scenario/scenario_reader.h"
#include "tests/sim_test_support.h"

namespace rocesim {
namespace test_hpcc_import {
namespace {

const std::string kConfig =
    std::string(ROCESIM_SOURCE_DIR) + "/bench/hpcc/hpcc_config_k8_dcqcn_ws30.txt";

Scenario ImportAndLoad(const std::string& config, std::string* text = nullptr) {
  const std::string out = test::TestTempDir() + "imported.yaml";
  const std::string yaml = ImportHpccConfig(config, out);
  std::ofstream(out) << yaml;
  if (text) *text = yaml;
  return LoadScenario(out, {}, std::nullopt);
}

// A copy of the reference config in the test's temporary directory with
// another topology file (of bench/hpcc/) and CC_MODE line; the paths become
// absolute so the flow file is still found. Returns its path.
std::string VariantOfReference(const std::string& topology, const std::string& cc_mode_line) {
  std::ifstream in(kConfig);
  std::stringstream text;
  text << in.rdbuf();
  std::string config = text.str();
  const std::string dir = std::string(ROCESIM_SOURCE_DIR) + "/bench/hpcc/";
  const auto replace = [&](const std::string& from, const std::string& to) {
    config.replace(config.find(from), from.size(), to);
  };
  replace("TOPOLOGY_FILE fattree_k8.txt", "TOPOLOGY_FILE " + dir + topology);
  replace("FLOW_FILE flow_k8", "FLOW_FILE " + dir + "flow_k8");
  replace("CC_MODE 1", cc_mode_line);
  const std::string path = test::TestTempDir() + "variant_config.txt";
  std::ofstream(path) << config;
  return path;
}

TEST(HpccImport, ReferenceConfigCarriesEveryKeySetting) {
  std::string text;
  const Scenario sc = ImportAndLoad(kConfig, &text);
  EXPECT_EQ(sc.duration, 2020 * kMillisecond);
  EXPECT_EQ(sc.topology.kind, TopologyKind::kFile);
  EXPECT_EQ(sc.topology.file_hosts, 128);
  EXPECT_EQ(sc.topology.ifg_bytes, 0);
  EXPECT_EQ(sc.sw.buffer_bytes, 32'000'000);
  EXPECT_DOUBLE_EQ(sc.sw.alpha, 1.0 / 8);
  ASSERT_EQ(sc.sw.ecn.by_rate.size(), 2u);
  EXPECT_EQ(sc.sw.ecn.by_rate[0].rate_bps, 100'000'000'000);
  EXPECT_EQ(sc.sw.ecn.by_rate[0].kmin_bytes, 400'000);
  EXPECT_EQ(sc.sw.ecn.by_rate[0].kmax_bytes, 1'600'000);
  EXPECT_DOUBLE_EQ(sc.sw.ecn.by_rate[0].pmax, 0.2);
  EXPECT_EQ(sc.sw.ecn.by_rate[1].rate_bps, 400'000'000'000);
  EXPECT_EQ(sc.sw.ecn.by_rate[1].kmax_bytes, 6'400'000);
  EXPECT_EQ(sc.host.mtu_bytes, 1000);
  EXPECT_EQ(sc.host.ack_every, 1);
  EXPECT_EQ(sc.host.cc, CcKind::kDcqcn);
  const DcqcnParams& d = sc.host.dcqcn;
  EXPECT_EQ(d.mode, DcqcnMode::kAckEcnEcho);
  EXPECT_EQ(d.alpha_interval, 1 * kMicrosecond);
  EXPECT_EQ(d.decrease_interval, 4 * kMicrosecond);
  EXPECT_EQ(d.increase_timer, 300 * kMicrosecond);
  EXPECT_DOUBLE_EQ(d.g, 0.00390625);
  EXPECT_EQ(d.fast_recovery_stages, 1);
  EXPECT_EQ(d.rate_ai_bps, 20'000'000);
  EXPECT_EQ(d.rate_hai_bps, 200'000'000);
  EXPECT_EQ(d.min_rate_bps, 1'000'000'000);
  EXPECT_FALSE(d.clamp_target_rate);
  ASSERT_EQ(sc.traffic.size(), 1u);
  EXPECT_EQ(sc.traffic[0].flows.size(), 2681u);
  // Output-only keys are listed, not silently dropped.
  EXPECT_NE(text.find("TRACE_OUTPUT_FILE"), std::string::npos);
  EXPECT_TRUE(sc.sw.alpha_by_rate.empty()) << "k=8: every port at the NICs' 100G";
}

// The reference config names an FCT and a PFC output file: rocesim writes
// those formats (output.hpcc_compat) and says under which names, instead of
// listing the keys as not imported.
TEST(HpccImport, FctAndPfcOutputsTurnOnHpccCompat) {
  std::string text;
  const Scenario sc = ImportAndLoad(kConfig, &text);
  EXPECT_TRUE(sc.output.hpcc_compat);
  const size_t listed = text.find("# Not imported");
  ASSERT_NE(listed, std::string::npos);
  // The list: the comment lines from its heading on.
  std::string not_imported;
  std::istringstream lines(text.substr(listed));
  for (std::string l; std::getline(lines, l) && l.starts_with("#");) not_imported += l + "\n";
  EXPECT_EQ(not_imported.find("FCT_OUTPUT_FILE"), std::string::npos) << not_imported;
  EXPECT_EQ(not_imported.find("PFC_OUTPUT_FILE"), std::string::npos) << not_imported;
  EXPECT_NE(text.find("FCT_OUTPUT_FILE k8_dcqcn_ws30_fct.txt -> fct.txt"), std::string::npos)
      << text;
  EXPECT_NE(text.find("PFC_OUTPUT_FILE"), std::string::npos);
}

// QLEN_MON_FILE and its window (ns) become output.hpcc_qlen: qlen.txt in
// that simulator's format, sampled every 100 ns with a dump every 100 ms.
TEST(HpccImport, QlenMonitorBecomesHpccQlen) {
  std::string text;
  const Scenario sc = ImportAndLoad(kConfig, &text);
  ASSERT_TRUE(sc.output.hpcc_qlen.enabled);
  EXPECT_EQ(sc.output.hpcc_qlen.start, 9 * kSecond);
  EXPECT_EQ(sc.output.hpcc_qlen.end, 9 * kSecond + kNanosecond);
  EXPECT_EQ(sc.output.hpcc_qlen.interval, 100 * kNanosecond);
  EXPECT_EQ(sc.output.hpcc_qlen.dump_interval, 100 * kMillisecond);
  const std::string header = text.substr(0, text.find("\nname:"));
  EXPECT_EQ(header.find("QLEN_MON"), std::string::npos) << header;
  EXPECT_NE(text.find("QLEN_MON_FILE k8_dcqcn_ws30_qlen.txt -> qlen.txt"), std::string::npos);
}

// The HPCC simulator's PFC threshold doubles alpha per doubling of a port's
// rate over the NICs': fat320's 400G switch ports get 1/2 (1/8 at 100G).
TEST(HpccImport, AlphaDoublesWithPortRate) {
  const Scenario sc = ImportAndLoad(VariantOfReference("fat320.txt", "CC_MODE 1"));
  EXPECT_DOUBLE_EQ(sc.sw.alpha, 1.0 / 8);
  ASSERT_EQ(sc.sw.alpha_by_rate.size(), 1u);
  EXPECT_EQ(sc.sw.alpha_by_rate[0].rate_bps, 400'000'000'000);
  EXPECT_DOUBLE_EQ(sc.sw.alpha_by_rate[0].alpha, 0.5);
}

// HPCC mode: the simulator's INT header travels in every data packet.
TEST(HpccImport, HpccModeCarriesIntBytes) {
  const Scenario sc = ImportAndLoad(VariantOfReference("fattree_k8.txt", "CC_MODE 3"));
  EXPECT_EQ(sc.host.cc, CcKind::kHpcc);
  EXPECT_EQ(sc.host.hpcc.int_bytes, 42);
}

TEST(HpccImport, UnsupportedSettingsAreErrorsNamingTheLine) {
  const std::string bad = test::TestTempDir() + "bad_config.txt";
  std::ofstream(bad) << "TOPOLOGY_FILE t.txt\nFLOW_FILE f.txt\nCC_MODE 10\n";
  try {
    ImportHpccConfig(bad, test::TestTempDir() + "x.yaml");
    FAIL() << "expected an error";
  } catch (const HpccImportError& e) {
    EXPECT_NE(std::string(e.what()).find("bad_config.txt:3: CC_MODE"), std::string::npos)
        << e.what();
  }
  std::ofstream(bad)
      << "TOPOLOGY_FILE t.txt\nFLOW_FILE f.txt\nCC_MODE 1\nERROR_RATE_PER_LINK 0.01\n";
  EXPECT_THROW(ImportHpccConfig(bad, test::TestTempDir() + "x.yaml"), HpccImportError);
  EXPECT_THROW(ImportHpccConfig(test::TestTempDir() + "missing.txt", "x.yaml"), HpccImportError);
}

}  // namespace
}  // namespace test_hpcc_import
}  // namespace rocesim
