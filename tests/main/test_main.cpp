// The test executable's entry point: GoogleTest's, with the crash report installed, so that a test
// that crashes (on a machine whose log is all one gets back) prints where.
#include <gtest/gtest.h>

#include "core/crash_report.h"

int main(int argc, char** argv) {
  dsgd::install_crash_report("dsgd_tests");
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
