// A dsgd built with -DDSGD_WITH_MPI=OFF (CMakeLists.txt) compiles this file in place of the MPI
// launch (mpi_launch.cpp) and world (engine/mpi/): engine = "mpi" stops before anything starts,
// with exit 2 and what to build instead. Planning an MPI run (run_plan.cpp) works as in any build.
#include <string>

#include "core/errors.h"
#include "run/mpi_launch.h"

namespace dsgd {
namespace {

[[noreturn]] void no_mpi_engine() {
  throw ConfigError(
      "engine = \"mpi\": this dsgd was built without MPI (-DDSGD_WITH_MPI=OFF), so it has no MPI "
      "engine",
      "use engine = \"sim\" (the simulators train the same algorithms), or build dsgd with MPI: "
      "scripts/build.sh or scripts/build-torch.sh (Open MPI from scripts/setup.sh, "
      "-DDSGD_WITH_MPI=ON)");
}

}  // namespace

std::string run_on_mpi(const RunConfig&, const std::string&, bool) { no_mpi_engine(); }
void keep_mpi_between_jobs() {}
void finish_mpi() {}
int world_rank() { return 0; }

}  // namespace dsgd
