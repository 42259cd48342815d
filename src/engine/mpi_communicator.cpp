// All-reduce means on MPI communicators; see mpi_communicator.h.
#include "engine/mpi_communicator.h"

#include <fmt/format.h>

#include <climits>

#include "core/errors.h"

namespace dsgd {

MpiCommunicator::MpiCommunicator(MpiWorld& world, int64_t group_size, bool node_groups)
    : watchdog_(world.watchdog()), global_(world.comm()), global_size_(world.size()) {
  if (node_groups) {
    check_mpi(
        MPI_Comm_split_type(global_, MPI_COMM_TYPE_SHARED, world.rank(), MPI_INFO_NULL, &group_),
        "MPI_Comm_split_type");
  } else {
    if (world.size() % group_size != 0) {
      throw ConfigError(fmt::format("{} ranks cannot form groups of {}", world.size(), group_size),
                        "launch a multiple of hier.group_size ranks");
    }
    check_mpi(
        MPI_Comm_split(global_, static_cast<int>(world.rank() / group_size), world.rank(), &group_),
        "MPI_Comm_split");
  }
  MPI_Comm_set_errhandler(group_, MPI_ERRORS_RETURN);
  int size = 1;
  MPI_Comm_size(group_, &size);
  group_size_ = size;
}

MpiCommunicator::~MpiCommunicator() {
  if (group_ != MPI_COMM_NULL) MPI_Comm_free(&group_);
}

void MpiCommunicator::sum(AverageLevel level, torch::Tensor& tensor) {
  if (!tensor.is_contiguous() || !tensor.device().is_cpu()) {
    throw Error("MPI all-reduce needs a contiguous CPU tensor", "this is a dsgd bug; report it");
  }
  if (tensor.numel() == 0) return;
  if (tensor.numel() > INT_MAX) {
    throw Error("MPI all-reduce of more than 2^31 elements", "split the model into shards");
  }
  MPI_Datatype type = tensor.scalar_type() == torch::kDouble ? MPI_DOUBLE : MPI_FLOAT;
  MPI_Comm comm = level == AverageLevel::kGroup ? group_ : global_;
  void* data = tensor.data_ptr();
  const int count = static_cast<int>(tensor.numel());
  if (watchdog_.timeout() == 0) {
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, data, count, type, MPI_SUM, comm), "MPI_Allreduce");
    return;
  }
  // Non-blocking, waited for under the watchdog: a rank stopped anywhere, even inside the
  // all-reduce, leaves the others polling, and rank 0 finds it. (A watched barrier before a
  // blocking all-reduce was faster, but a rank stopped during the all-reduce itself hung the
  // job: it happened in Mpi.StoppedLearnerRankEndsTheSyncJob.) With the ring algorithm
  // (mpi_world.cpp) it costs what the blocking call does; mpi.hang_timeout = 0 turns the
  // watchdog off and restores the blocking call.
  MPI_Request request;
  check_mpi(MPI_Iallreduce(MPI_IN_PLACE, data, count, type, MPI_SUM, comm, &request),
            "MPI_Iallreduce");
  watchdog_.wait(request, "MPI_Allreduce");
}

void MpiCommunicator::average(AverageLevel level, const std::vector<torch::Tensor>& tensors) {
  if (tensors.size() != 1) {
    throw Error(fmt::format("an MPI rank holds one learner, not {}", tensors.size()),
                "this is a dsgd bug; report it");
  }
  torch::Tensor t = tensors[0];
  sum(level, t);
  t.div_(static_cast<double>(group_size(level)));
}

}  // namespace dsgd
