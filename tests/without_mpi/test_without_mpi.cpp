// Built only with -DDSGD_WITH_MPI=OFF (CMakeLists.txt leaves tests/test_mpi.cpp out of that build):
// engine = "mpi" stops before anything starts, with exit 2 and how to get an MPI engine, while
// the same config runs on the simulators.
#include <gtest/gtest.h>

#include <string>

#include "../cli_helpers.h"

namespace dsgd {
namespace {

using testing::fresh_dir;
using testing::run_dsgd;

const std::string kAsync =
    "run --set algo=asgd --set workers=2 --set lr=0.05 --set lr_schedule=constant "
    "--set warmup_epochs=0 --set dataset=synthetic --set model=mlp --set epochs=1 "
    "--set threads=1 ";

TEST(WithoutMpi, MpiEngineIsAClearConfigError) {
  const auto out = fresh_dir("no_mpi");
  testing::CliResult r = run_dsgd(kAsync + "--engine mpi --out " + out.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("built without MPI"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("DSGD_WITH_MPI=ON"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(out)) << "no run folder for a run that cannot start";
}

TEST(WithoutMpi, TheSimulatorsRun) {
  const auto out = fresh_dir("no_mpi_sim");
  testing::CliResult r = run_dsgd(kAsync + "--out " + out.string());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::filesystem::remove_all(out);
}

}  // namespace
}  // namespace dsgd
