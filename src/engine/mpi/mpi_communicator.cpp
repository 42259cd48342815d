// All-reduce means on MPI communicators; see mpi_communicator.h.
#include "engine/mpi/mpi_communicator.h"

#include <fmt/format.h>

#include <climits>
#include <vector>

#include "core/errors.h"

namespace dsgd {

MpiCommunicator::MpiCommunicator(MpiWorld& world, std::vector<int64_t> group_sizes,
                                 bool node_groups, torch::Device device, bool rank_order)
    : watchdog_(world.watchdog()), rank_order_(rank_order), device_(device), staging_(device) {
  if (group_sizes.empty() || group_sizes.back() != world.size())
    group_sizes.push_back(world.size());
  for (size_t level = 0; level + 1 < group_sizes.size(); ++level) {
    const int64_t size = group_sizes[level];
    MPI_Comm comm = MPI_COMM_NULL;
    if (node_groups && level == 0) {
      check_mpi(MPI_Comm_split_type(world.comm(), MPI_COMM_TYPE_SHARED, world.rank(), MPI_INFO_NULL,
                                    &comm),
                "MPI_Comm_split_type");
    } else {
      if (world.size() % size != 0) {
        throw ConfigError(fmt::format("{} ranks cannot form groups of {}", world.size(), size),
                          "launch a multiple of every level's group size of ranks");
      }
      check_mpi(
          MPI_Comm_split(world.comm(), static_cast<int>(world.rank() / size), world.rank(), &comm),
          "MPI_Comm_split");
    }
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    int members = 1;
    MPI_Comm_size(comm, &members);
    comms_.push_back(comm);
    sizes_.push_back(members);
  }
  comms_.push_back(world.comm());
  sizes_.push_back(world.size());
  if (node_groups && comms_.size() >= 3) {
    // Every rank of a node must fall in one group of the next level: the smallest and largest
    // next-level group index over the node agree.
    int low_high[2] = {static_cast<int>(world.rank() / group_sizes[1]),
                       -static_cast<int>(world.rank() / group_sizes[1])};
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, low_high, 2, MPI_INT, MPI_MIN, comms_[0]),
              "MPI_Allreduce");
    int nested = low_high[0] == -low_high[1] ? 1 : 0;
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, &nested, 1, MPI_INT, MPI_MIN, world.comm()),
              "MPI_Allreduce");
    if (nested == 0) {
      throw ConfigError(fmt::format("hier.node_groups: a node's ranks span two groups of level 2 "
                                    "(groups of {} consecutive ranks)",
                                    group_sizes[1]),
                        "make level 2's group size a multiple of the ranks per node, with each "
                        "node's ranks consecutive (mpirun --map-by node does not keep them so)");
    }
  }
}

MpiCommunicator::~MpiCommunicator() {
  for (size_t level = 0; level + 1 < comms_.size(); ++level) MPI_Comm_free(&comms_[level]);
}

torch::Tensor MpiCommunicator::host_side(const torch::Tensor& tensor) {
  const bool on_host = tensor.device().is_cpu();
  if (!tensor.is_contiguous() || !(on_host || tensor.device() == device_)) {
    throw Error(fmt::format("MPI all-reduce of a {} tensor on {} (the communicator's device: {})",
                            tensor.is_contiguous() ? "contiguous" : "strided",
                            tensor.device().str(), device_.str()),
                "this is a dsgd bug; report it");
  }
  if (tensor.numel() > INT_MAX) {
    throw Error("MPI all-reduce of more than 2^31 elements", "split the model into shards");
  }
  if (!staging_.staged()) return tensor;
  return staging_.outgoing(tensor,
                           buffers_[{static_cast<int>(tensor.scalar_type()), tensor.numel()}]);
}

void MpiCommunicator::sum(size_t level, torch::Tensor& tensor) {
  if (tensor.numel() == 0) return;
  MPI_Datatype type = tensor.scalar_type() == torch::kDouble ? MPI_DOUBLE : MPI_FLOAT;
  MPI_Comm comm = comms_.at(level);
  const double start = MPI_Wtime();
  torch::Tensor host = host_side(tensor);
  void* data = host.data_ptr();
  const int count = static_cast<int>(tensor.numel());
  if (watchdog_.timeout() == 0) {
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, data, count, type, MPI_SUM, comm), "MPI_Allreduce");
    staging_.arrived(host, tensor);
    seconds_ += MPI_Wtime() - start;
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
  staging_.arrived(host, tensor);
  seconds_ += MPI_Wtime() - start;
}

namespace {

template <typename T>
void mean_of_slices(const torch::Tensor& received, int members, T* out, int64_t len) {
  std::vector<const T*> slices(static_cast<size_t>(members));
  for (int j = 0; j < members; ++j)
    slices[static_cast<size_t>(j)] = received.data_ptr<T>() + j * len;
  mean_in_member_order(slices.data(), slices.size(), out, len);
}

}  // namespace

void MpiCommunicator::mean_in_rank_order(size_t level, torch::Tensor& tensor) {
  if (tensor.numel() == 0) return;
  const bool is_double = tensor.scalar_type() == torch::kDouble;
  MPI_Datatype type = is_double ? MPI_DOUBLE : MPI_FLOAT;
  MPI_Comm comm = comms_.at(level);
  const double start = MPI_Wtime();
  torch::Tensor host = host_side(tensor);
  int members = 1, me = 0;
  MPI_Comm_size(comm, &members);
  MPI_Comm_rank(comm, &me);
  // Member j owns the slice [n j / P, n (j + 1) / P) and receives it from every member.
  const int64_t n = tensor.numel();
  std::vector<int> starts(static_cast<size_t>(members)), lengths(starts.size());
  for (int j = 0; j < members; ++j) {
    starts[static_cast<size_t>(j)] = static_cast<int>(n * j / members);
    lengths[static_cast<size_t>(j)] = static_cast<int>(n * (j + 1) / members - n * j / members);
  }
  const int own = lengths[static_cast<size_t>(me)];
  torch::Tensor& received = received_[{static_cast<int>(tensor.scalar_type()), members * own}];
  if (!received.defined()) received = torch::empty({members * own}, host.options());
  std::vector<int> receive_counts(starts.size(), own), receive_starts(starts.size());
  for (int j = 0; j < members; ++j) receive_starts[static_cast<size_t>(j)] = j * own;
  auto wait = [&](auto&& start_call, const char* call) {
    MPI_Request request;
    check_mpi(start_call(&request), call);
    if (watchdog_.timeout() == 0) {
      check_mpi(MPI_Wait(&request, MPI_STATUS_IGNORE), call);
    } else {
      watchdog_.wait(request, call);
    }
  };
  wait(
      [&](MPI_Request* request) {
        return MPI_Ialltoallv(host.data_ptr(), lengths.data(), starts.data(), type,
                              received.data_ptr(), receive_counts.data(), receive_starts.data(),
                              type, comm, request);
      },
      "MPI_Alltoallv");
  const int64_t offset = starts[static_cast<size_t>(me)];
  if (is_double) {
    mean_of_slices<double>(received, members, host.data_ptr<double>() + offset, own);
  } else {
    mean_of_slices<float>(received, members, host.data_ptr<float>() + offset, own);
  }
  wait(
      [&](MPI_Request* request) {
        return MPI_Iallgatherv(MPI_IN_PLACE, 0, type, host.data_ptr(), lengths.data(),
                               starts.data(), type, comm, request);
      },
      "MPI_Allgatherv");
  staging_.arrived(host, tensor);
  seconds_ += MPI_Wtime() - start;
}

void MpiCommunicator::average(size_t level, const std::vector<torch::Tensor>& tensors) {
  if (tensors.size() != 1) {
    throw Error(fmt::format("an MPI rank holds one learner, not {}", tensors.size()),
                "this is a dsgd bug; report it");
  }
  torch::Tensor t = tensors[0];
  if (rank_order_) {
    mean_in_rank_order(level, t);
    return;
  }
  sum(level, t);
  t.div_(static_cast<double>(group_size(level)));
}

}  // namespace dsgd
