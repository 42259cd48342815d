// The Transport of MPI ranks (engine/transport.h): point-to-point MPI calls on the world's
// communicator, every wait polled under the world's watchdog (mpi_watchdog.h), so that a rank that
// stops answering ends the job instead of hanging it. Bytes travel as MPI_BYTE.
#pragma once

#include <mpi.h>

#include <map>
#include <string>

#include "engine/mpi/mpi_watchdog.h"
#include "engine/transport.h"

namespace dsgd {

class MpiTransport : public Transport {
 public:
  MpiTransport(MPI_Comm comm, Watchdog& watchdog) : comm_(comm), watchdog_(watchdog) {}
  void send(int dest, int tag, const void* data, size_t bytes) override;
  SendId start_send(int dest, int tag, const void* data, size_t bytes) override;
  void wait_sent(SendId* ids, size_t count, WaitPace pace) override;
  int receive(int source, int tag, void* data, size_t bytes, WaitPace pace,
              const Overdue& overdue) override;
  std::string receive_bytes(int source, int tag) override;
  int next_tag(int source, WaitPace pace) override;

 private:
  MPI_Comm comm_;
  Watchdog& watchdog_;
  std::map<SendId, MPI_Request> sending_;
  SendId last_id_ = 0;
};

}  // namespace dsgd
