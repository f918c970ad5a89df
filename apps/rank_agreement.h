// The setup of an MPI job's run, agreed between its ranks. Every rank sets
// the run up on its own -- reads the scenario, rank 0 takes the results
// directory, each builds its partitions and opens its monitor files -- and
// the ranks first meet at the end of the first window. Without a meeting
// before that, a rank that failed a step alone (a file missing on its
// machine, a directory it cannot write) would leave the others waiting for
// it forever, and ranks that set up different runs (a scenario file that
// differs between machines, a --seed or --set given to some ranks only)
// would trade frames that make no sense and end with a broken invariant,
// or with wrong results.
// So every setup step ends with a meeting: one rank says what went wrong,
// once, and every rank exits with the same status.
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace rocesim {

class PartitionedRun;
class RankGroup;
struct Scenario;

// What a job's ranks must run alike: rocesim itself (OnEveryRank's message
// when BuildValues differ).
inline constexpr std::string_view kSameBuildEverywhere =
    "every rank must run the same rocesim build (the same version and git commit)";
// What `rocesim run`'s ranks must be given alike (OnEveryRank's message).
inline constexpr std::string_view kSameRunEverywhere =
    "every rank must read the same scenario and files, with the same --seed and --set";

// Something a rank built that every rank must build alike: what it is, for
// the error, and a value (a count, shown; or a digest, only compared).
struct AgreedValue {
  std::string what;
  uint64_t value = 0;
  bool shown = false;
};

// FNV-1a, 64 bits, for the digests the ranks compare: not to defend
// against anyone.
class Digest {
 public:
  void Add(std::string_view bytes) {
    Add(uint64_t{bytes.size()});  // so that "ab" + "c" is not "a" + "bc"
    for (const char c : bytes) Mix(static_cast<uint8_t>(c));
  }
  void Add(uint64_t v) {
    for (int i = 0; i < 8; ++i) Mix(static_cast<uint8_t>(v >> (8 * i)));
  }
  uint64_t value() const { return h_; }

 private:
  void Mix(uint8_t byte) {
    h_ ^= byte;
    h_ *= 0x100000001b3ULL;
  }
  uint64_t h_ = 0xcbf29ce484222325ULL;
};

// Runs `step` on this rank. Under MPI (`ranks` not null) the ranks then
// meet: when the step threw on any rank, the lowest such rank prints its
// error (apps/error_report.h) and every rank throws JobEnded with that
// error's status; when the values the step returned (a list of the same
// length on every rank) differ from rank 0's, rank 0 names the first that
// differs and every rank throws JobEnded{2}. Without MPI the step's
// exception propagates as it is.
// `what_to_do` ends that message: what the user must give every rank alike.
void OnEveryRank(RankGroup* ranks, const std::function<std::vector<AgreedValue>()>& step,
                 std::string_view what_to_do = kSameRunEverywhere);

// After a partitioned run ended because a partition failed, on every rank
// at the same point (PartitionedRun::FailedTogether): the lowest rank whose
// partition failed prints its error, naming itself ("rocesim: error: rank
// 1: cannot write ..."), and every rank throws JobEnded with that error's
// status. `error` is this rank's failure, null when its partitions ran well.
[[noreturn]] void EndJobTogether(RankGroup& ranks, const std::exception_ptr& error);

// What the ranks must agree on before anything else: the build they run
// (version and git commit, core/build_info.h). Ranks on machines with
// other builds may read and cut a scenario differently, or meet in other
// steps; this first meeting is the one every build since has in common.
std::vector<AgreedValue> BuildValues();
// What the ranks must agree on once they read the scenario: the scenario
// as resolved (files by their names alone: what they hold is compared as
// the flows and the cut they give).
std::vector<AgreedValue> ScenarioValues(const Scenario& scenario);
// ... and once they built their partitions: the partition count, the cut
// and the flows.
std::vector<AgreedValue> RunSetupValues(const PartitionedRun& run);

}  // namespace rocesim
