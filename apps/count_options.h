// The command line's whole-number options (CLI11 validators). A value that
// is not a whole number in the option's range is refused with what the
// option takes ("--jobs: 'many' is not a job count: give 1 to 4096"), not
// CLI11's bare ranges, which for a positive number read "Value many not in
// range 0.000000 to 1797693134862315708145274237317043567980..." (the whole
// of the largest double).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace rocesim {

// A count from `lo` to `hi`, decimal digits only (no sign, point, exponent or
// spaces); `noun` names what it counts, with its article ("a job count").
CLI::Validator CountIn(const std::string& noun, unsigned lo, unsigned hi);

// --threads: 0 to 1024 or `auto` (in any case), which becomes 0: the commands
// read 0 as one thread per usable core (core/usable_cores.h).
CLI::Validator ThreadCount();

}  // namespace rocesim
