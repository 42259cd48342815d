// Point-to-point MPI under the watchdog; see mpi_transport.h.
#include "engine/mpi/mpi_transport.h"

#include <fmt/format.h>

#include <climits>
#include <vector>

#include "core/errors.h"
#include "engine/mpi/mpi_world.h"

namespace dsgd {
namespace {

// MPI counts are ints: one message carries at most 2 GiB as bytes (500M float parameters).
int mpi_count(size_t bytes) {
  if (bytes > static_cast<size_t>(INT_MAX)) {
    throw Error(fmt::format("a message of {} bytes is over MPI's 2 GiB a message", bytes),
                "use more server shards (servers = S splits every message S ways)");
  }
  return static_cast<int>(bytes);
}
int mpi_source(int source) { return source == Transport::kAnySource ? MPI_ANY_SOURCE : source; }

}  // namespace

void MpiTransport::send(int dest, int tag, const void* data, size_t bytes) {
  check_mpi(MPI_Send(data, mpi_count(bytes), MPI_BYTE, dest, tag, comm_), "MPI_Send");
}

Transport::SendId MpiTransport::start_send(int dest, int tag, const void* data, size_t bytes) {
  MPI_Request request;
  check_mpi(MPI_Isend(data, mpi_count(bytes), MPI_BYTE, dest, tag, comm_, &request), "MPI_Isend");
  sending_[++last_id_] = request;
  return last_id_;
}

void MpiTransport::wait_sent(SendId* ids, size_t count, WaitPace pace) {
  std::vector<MPI_Request> requests;
  for (size_t i = 0; i < count; ++i) {
    if (ids[i] == 0) continue;
    auto found = sending_.find(ids[i]);
    requests.push_back(found->second);
    sending_.erase(found);
    ids[i] = 0;
  }
  if (requests.empty()) return;
  watchdog_.wait_until(
      [&] {
        int sent = 0;
        check_mpi(MPI_Testall(static_cast<int>(requests.size()), requests.data(), &sent,
                              MPI_STATUSES_IGNORE),
                  "MPI_Wait");
        return sent != 0;
      },
      pace);
}

int MpiTransport::receive(int source, int tag, void* data, size_t bytes, WaitPace pace,
                          const Overdue& overdue) {
  MPI_Request request;
  check_mpi(MPI_Irecv(data, mpi_count(bytes), MPI_BYTE, mpi_source(source), tag, comm_, &request),
            "MPI_Irecv");
  MPI_Status status;
  watchdog_.wait_until(
      [&] {
        int complete = 0;
        check_mpi(MPI_Test(&request, &complete, &status), "MPI_Recv");
        return complete != 0;
      },
      pace, overdue);
  return status.MPI_SOURCE;
}

std::string MpiTransport::receive_bytes(int source, int tag) {
  MPI_Status status;
  watchdog_.wait_until([&] {
    int arrived = 0;
    check_mpi(MPI_Iprobe(mpi_source(source), tag, comm_, &arrived, &status), "MPI_Probe");
    return arrived != 0;
  });
  int count = 0;
  MPI_Get_count(&status, MPI_BYTE, &count);
  std::string bytes(static_cast<size_t>(count), '\0');
  check_mpi(
      MPI_Recv(bytes.data(), count, MPI_BYTE, status.MPI_SOURCE, tag, comm_, MPI_STATUS_IGNORE),
      "MPI_Recv");
  return bytes;
}

int MpiTransport::next_tag(int source, WaitPace pace) {
  MPI_Status status;
  watchdog_.wait_until(
      [&] {
        int arrived = 0;
        check_mpi(MPI_Iprobe(mpi_source(source), MPI_ANY_TAG, comm_, &arrived, &status),
                  "MPI_Iprobe");
        return arrived != 0;
      },
      pace);
  return status.MPI_TAG;
}

}  // namespace dsgd
