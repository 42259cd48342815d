// A comparison of numbers asserted against its bound and written down: with DSGD_BOUNDS_LOG=FILE,
// every call appends "TEST<TAB>WHAT<TAB>FIGURE<TAB>BOUND" to FILE, from which
// scripts/kernel-matrix.sh prints each figure beside its bound under each BLAS and oneDNN kernel.
// A bound of 0 asserts equality bit for bit.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace dsgd::bounds {

inline bool& bounds_log_off() {
  static thread_local bool off = false;
  return off;
}

// In its scope expect_within asserts but writes nothing down: around expectations that a test
// intercepts because they fail by design (a golden file run at dsgd's other conventions).
struct BoundsLogOff {
  BoundsLogOff() { bounds_log_off() = true; }
  ~BoundsLogOff() { bounds_log_off() = false; }
  BoundsLogOff(const BoundsLogOff&) = delete;
  BoundsLogOff& operator=(const BoundsLogOff&) = delete;
};

inline void expect_within(double figure, double bound, const std::string& what) {
  EXPECT_LE(figure, bound) << what << ": " << figure << " against the bound " << bound;
  const char* log = std::getenv("DSGD_BOUNDS_LOG");
  if (log == nullptr || bounds_log_off()) return;
  const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
  // One short append per line: lines of tests running in parallel do not interleave.
  if (FILE* out = std::fopen(log, "a")) {
    std::fprintf(out, "%s.%s\t%s\t%.6g\t%.6g\n", test->test_suite_name(), test->name(),
                 what.c_str(), figure, bound);
    std::fclose(out);
  }
}

}  // namespace dsgd::bounds
