// MPI initialisation and pre-training agreements; see mpi_world.h.
#include "engine/mpi/mpi_world.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <thread>
#include <utility>

#include "core/error_report.h"
#include "core/errors.h"
#include "engine/mpi/mpi_communicator.h"

namespace dsgd {
namespace {

int exit_code_of(std::exception_ptr error) { return report_error(error).exit_code; }

}  // namespace

MpiWorld::HostRanks MpiWorld::ranks_on_host() {
  MPI_Comm host = MPI_COMM_NULL;
  check_mpi(MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &host),
            "MPI_Comm_split_type");
  HostRanks ranks;
  MPI_Comm_size(host, &ranks.size);
  MPI_Comm_rank(host, &ranks.rank);
  MPI_Comm_free(&host);
  host_oversubscribed_ =
      static_cast<unsigned>(ranks.size) > std::max(1u, std::thread::hardware_concurrency());
  return ranks;
}

void check_mpi(int result, const char* call) {
  if (result == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(result, text, &length);
  throw Error(fmt::format("{} failed: {}", call, std::string(text, static_cast<size_t>(length))),
              "check the MPI installation and the mpirun command line");
}

namespace {

std::atomic<bool> finalize_after_job{true};
std::atomic<bool> initialized_by_dsgd{false};

}  // namespace

void set_finalize_after_job(bool finalize) { finalize_after_job = finalize; }

void finish_mpi_we_started() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (initialized_by_dsgd && !finalized) MPI_Finalize();
}

MpiWorld::MpiWorld() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    initialized_by_dsgd = true;
    // Open MPI's non-blocking all-reduce (which the watchdog waits on) otherwise picks binomial
    // or recursive doubling: 1.5-1.65x the blocking all-reduce's time for a model average in
    // dsgd_mpi_bench, where the ring is 1.0-1.3x, as the blocking call's own choice is. A
    // user's own setting wins; other MPIs ignore the variable.
    setenv("OMPI_MCA_coll_libnbc_iallreduce_algorithm", "1", /*overwrite=*/0);
    int provided = 0;
    check_mpi(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init");
  }
  check_mpi(MPI_Comm_dup(MPI_COMM_WORLD, &comm_), "MPI_Comm_dup");
  // Errors come back as codes so that they become dsgd errors with a message.
  MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  watchdog_ = std::make_unique<Watchdog>(comm_);
  transport_ = std::make_unique<MpiTransport>(comm_, *watchdog_);
}

int MpiWorld::set_iallreduce_algorithm(AllreduceAlgorithm algorithm) {
  // libnbc's numbering: 0 its own choice, 1 ring, 2 binomial, 3 Rabenseifner's, 4 recursive
  // doubling.
  int value = 0;
  switch (algorithm) {
    case AllreduceAlgorithm::kRing:
      value = 1;
      break;
    case AllreduceAlgorithm::kTree:
      value = 2;
      break;
    case AllreduceAlgorithm::kHalvingDoubling:
      value = 3;
      break;
    case AllreduceAlgorithm::kRankOrder:  // dsgd's own sums, not MPI's all-reduce
      throw Error("allreduce = \"rank-order\" is dsgd's own all-reduce, not Open MPI's",
                  "this is a bug: mpi_launch.cpp sets only MPI's algorithms");
  }
  const char* name = "coll_libnbc_iallreduce_algorithm";
  int provided = 0;
  int index = -1;
  int read_back = -1;
  const bool tool = MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS;
  bool done = false;
  if (tool && MPI_T_cvar_get_index(name, &index) == MPI_SUCCESS) {
    MPI_T_cvar_handle handle;
    int count = 0;
    if (MPI_T_cvar_handle_alloc(index, nullptr, &handle, &count) == MPI_SUCCESS) {
      done = MPI_T_cvar_write(handle, &value) == MPI_SUCCESS &&
             MPI_T_cvar_read(handle, &read_back) == MPI_SUCCESS && read_back == value;
      MPI_T_cvar_handle_free(&handle);
    }
  }
  if (tool) MPI_T_finalize();
  if (!done) {
    throw ConfigError(fmt::format("allreduce = \"{}\": this MPI has no {} to set (it is Open "
                                  "MPI's) or refused it",
                                  enum_name(algorithm), name),
                      "leave allreduce = \"auto\": the MPI then runs its own choice");
  }
  return read_back;
}

MpiWorld::~MpiWorld() {
  transport_.reset();
  watchdog_.reset();  // its communicator, before MPI ends
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
  if (finalize_after_job) finish_mpi_we_started();
}

void MpiWorld::agree(std::exception_ptr error) {
  int code = error ? exit_code_of(error) : 0;
  // The first failing rank, the worst code, and how many failed.
  int failing = code != 0 ? rank_ : INT_MAX;
  int failed = code != 0 ? 1 : 0;
  int first = INT_MAX, worst = 0, failures = 0;
  check_mpi(MPI_Allreduce(&failing, &first, 1, MPI_INT, MPI_MIN, comm_), "MPI_Allreduce");
  check_mpi(MPI_Allreduce(&code, &worst, 1, MPI_INT, MPI_MAX, comm_), "MPI_Allreduce");
  check_mpi(MPI_Allreduce(&failed, &failures, 1, MPI_INT, MPI_SUM, comm_), "MPI_Allreduce");
  if (first == INT_MAX) return;
  // When every rank failed (a bad config, the wrong rank count), one message is enough.
  if (failures == size_ && rank_ != first) throw PeerError("", worst);
  if (error) std::rethrow_exception(error);
  throw PeerError(fmt::format("rank {} could not start (see its message); every rank stops", first),
                  worst);
}

void MpiWorld::follow_root(std::exception_ptr outcome) {
  int code = outcome ? exit_code_of(outcome) : 0;
  check_mpi(MPI_Bcast(&code, 1, MPI_INT, 0, comm_), "MPI_Bcast");
  if (rank_ == 0 && outcome) std::rethrow_exception(outcome);
  if (code != 0) throw PeerError("", code);
}

void MpiWorld::check_same(const std::string& text, const std::string& what) {
  std::exception_ptr error;
  if (broadcast(text) != text) {
    error = std::make_exception_ptr(
        ConfigError(fmt::format("rank {} runs with a different {} than rank 0", rank_, what),
                    "give every rank the same config file and --set options"));
  }
  agree(error);
}

std::string MpiWorld::broadcast(std::string bytes, int root) {
  long long size = static_cast<long long>(bytes.size());
  check_mpi(MPI_Bcast(&size, 1, MPI_LONG_LONG, root, comm_), "MPI_Bcast");
  bytes.resize(static_cast<size_t>(size));
  // In pieces below INT_MAX bytes, MPI's count limit.
  constexpr long long kPiece = 1LL << 30;
  for (long long offset = 0; offset < size; offset += kPiece) {
    int count = static_cast<int>(std::min(kPiece, size - offset));
    check_mpi(MPI_Bcast(bytes.data() + offset, count, MPI_CHAR, root, comm_), "MPI_Bcast");
  }
  return bytes;
}

int64_t MpiWorld::sum(int64_t value) {
  int64_t total = 0;
  check_mpi(MPI_Allreduce(&value, &total, 1, MPI_INT64_T, MPI_SUM, comm_), "MPI_Allreduce");
  return total;
}

torch::Tensor MpiWorld::gather_to_root(const torch::Tensor& local_tensor) {
  const torch::Tensor local = local_tensor.cpu().contiguous();
  torch::Tensor all = rank_ == 0 ? torch::empty({size_, local.numel()}) : torch::Tensor();
  MPI_Request request;
  check_mpi(MPI_Igather(local.data_ptr<float>(), static_cast<int>(local.numel()), MPI_FLOAT,
                        rank_ == 0 ? all.data_ptr<float>() : nullptr,
                        static_cast<int>(local.numel()), MPI_FLOAT, 0, comm_, &request),
            "MPI_Igather");
  watchdog_->wait(request, "MPI_Gather");
  return all;
}

std::unique_ptr<RankCommunicator> MpiWorld::learner_communicator(std::vector<int64_t> group_sizes,
                                                                 bool node_groups,
                                                                 torch::Device device,
                                                                 bool rank_order) {
  return std::make_unique<MpiCommunicator>(*this, std::move(group_sizes), node_groups, device,
                                           rank_order);
}

std::pair<int, std::string> MpiWorld::first_rank_saying(const std::string& text) {
  int mine = text.empty() ? INT_MAX : rank_;
  int first = INT_MAX;
  check_mpi(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm_), "MPI_Allreduce");
  if (first == INT_MAX) return {-1, ""};
  return {first, broadcast(text, first)};
}

void MpiWorld::abort(int code) {
  std::cerr.flush();
  MPI_Abort(comm_ != MPI_COMM_NULL ? comm_ : MPI_COMM_WORLD, code);
  std::abort();  // not reached: MPI_Abort ends the process
}

}  // namespace dsgd
