// Sends, receives and byte strings of the asynchronous MPI engine; see mpi_transport.h.
#include "engine/mpi/mpi_transport.h"

#include "engine/mpi/mpi_world.h"

namespace dsgd {
namespace mpi_transport {

void send_floats(const torch::Tensor& t, int dest, int tag, MPI_Comm comm) {
  check_mpi(MPI_Send(t.data_ptr<float>(), static_cast<int>(t.numel()), MPI_FLOAT, dest, tag, comm),
            "MPI_Send");
}

void send_empty(int dest, int tag, MPI_Comm comm) {
  check_mpi(MPI_Send(nullptr, 0, MPI_BYTE, dest, tag, comm), "MPI_Send");
}

int recv_floats(torch::Tensor& t, int source, int tag, MpiWorld& world, Watchdog::Pace pace,
                const std::function<bool()>& overdue) {
  return recv_watched(t.data_ptr<float>(), static_cast<int>(t.numel()), MPI_FLOAT, source, tag,
                      world, pace, overdue);
}

int recv_watched(void* buffer, int count, MPI_Datatype type, int source, int tag, MpiWorld& world,
                 Watchdog::Pace pace, const std::function<bool()>& overdue) {
  MPI_Request request;
  check_mpi(MPI_Irecv(buffer, count, type, source, tag, world.comm(), &request), "MPI_Irecv");
  MPI_Status status;
  world.watchdog().wait_until(
      [&] {
        int complete = 0;
        check_mpi(MPI_Test(&request, &complete, &status), "MPI_Recv");
        return complete != 0;
      },
      pace, overdue);
  return status.MPI_SOURCE;
}

void send_bytes(const std::string& bytes, int dest, int tag, MPI_Comm comm) {
  check_mpi(MPI_Send(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, dest, tag, comm),
            "MPI_Send");
}

std::string recv_bytes(int source, int tag, MpiWorld& world) {
  MPI_Comm comm = world.comm();
  MPI_Status status;
  world.watchdog().wait_until([&] {
    int arrived = 0;
    check_mpi(MPI_Iprobe(source, tag, comm, &arrived, &status), "MPI_Probe");
    return arrived != 0;
  });
  int count = 0;
  MPI_Get_count(&status, MPI_BYTE, &count);
  std::string bytes(static_cast<size_t>(count), '\0');
  check_mpi(MPI_Recv(bytes.data(), count, MPI_BYTE, source, tag, comm, MPI_STATUS_IGNORE),
            "MPI_Recv");
  return bytes;
}

torch::Tensor bytes_tensor(const std::string& bytes) {
  return torch::from_blob(const_cast<char*>(bytes.data()), {static_cast<int64_t>(bytes.size())},
                          torch::kUInt8)
      .clone();
}

std::string tensor_bytes(const torch::Tensor& t) {
  torch::Tensor c = t.contiguous();
  return std::string(reinterpret_cast<const char*>(c.data_ptr<uint8_t>()),
                     static_cast<size_t>(c.numel()));
}

std::string worker_state_key(int64_t worker) {
  return "engine/worker/" + std::to_string(worker) + "/state";
}

std::string shard_state_key(int64_t shard) {
  return "engine/shard/" + std::to_string(shard) + "/state";
}

}  // namespace mpi_transport
}  // namespace dsgd
