// How the command line reports an error that ends a command: the line it
// prints and the exit status it returns (main.cpp's table: 2 for a bad
// scenario, input file, fabric cut or results directory; 3 for a broken
// invariant, which is a bug in rocesim; 1 for anything else).
#pragma once

#include <exception>
#include <string>

namespace rocesim {

// Thrown on the ranks of an MPI job that end because another rank failed
// and said why (apps/rank_agreement.h): main returns `status` and prints
// nothing more.
struct JobEnded {
  int status;
};

struct ErrorReport {
  int status = 1;
  std::string line;  // "rocesim: error: ...\n" ("" for JobEnded)
};

// What an exception says to a user: its what(), but for running out of
// memory, whose what() is only "std::bad_alloc".
std::string ErrorText(const std::exception& e);

// What `error` (an exception the commands throw) says and its exit status.
ErrorReport DescribeError(const std::exception_ptr& error);

// Prints DescribeError's line on stderr and returns its status.
int ReportError(const std::exception_ptr& error);

}  // namespace rocesim
