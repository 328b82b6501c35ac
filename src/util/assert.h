#pragma once
// QUEEN_ASSERT(condition, why): an invariant of the program's own state, checked in every build
// (release included, unlike <cassert>). A false condition means the broker is already wrong, so it
// stops at once with the place and the reason on stderr rather than go on to corrupt or lose data.
// Never use it on input from outside (requests, files, frames, rows): those get clean errors.
#include <cstdio>
#include <cstdlib>

namespace queen::util {

[[noreturn]] inline void assertion_failed(const char* condition, const char* why, const char* file, int line) {
  std::fprintf(stderr, "queen: assertion failed at %s:%d: %s (%s)\n", file, line, why, condition);
  std::fflush(stderr);
  std::abort();
}

}  // namespace queen::util

#define QUEEN_ASSERT(condition, why)                                                        \
  do {                                                                                      \
    if (!(condition)) ::queen::util::assertion_failed(#condition, why, __FILE__, __LINE__); \
  } while (false)
