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

inline void expect_within(double figure, double bound, const std::string& what) {
  EXPECT_LE(figure, bound) << what << ": " << figure << " against the bound " << bound;
  const char* log = std::getenv("DSGD_BOUNDS_LOG");
  if (log == nullptr) return;
  const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
  // One short append per line: lines of tests running in parallel do not interleave.
  if (FILE* out = std::fopen(log, "a")) {
    std::fprintf(out, "%s.%s\t%s\t%.6g\t%.6g\n", test->test_suite_name(), test->name(),
                 what.c_str(), figure, bound);
    std::fclose(out);
  }
}

}  // namespace dsgd::bounds
