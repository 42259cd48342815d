// The typed sends and receives over any transport; see transport.h.
#include "engine/transport.h"

namespace dsgd {

void send_floats(Transport& transport, const torch::Tensor& t, int dest, int tag) {
  transport.send(dest, tag, t.data_ptr<float>(), static_cast<size_t>(t.numel()) * sizeof(float));
}

int receive_floats(Transport& transport, torch::Tensor& t, int source, int tag, WaitPace pace,
                   const Transport::Overdue& overdue) {
  return transport.receive(source, tag, t.data_ptr<float>(),
                           static_cast<size_t>(t.numel()) * sizeof(float), pace, overdue);
}

void send_empty(Transport& transport, int dest, int tag) { transport.send(dest, tag, nullptr, 0); }

void receive_empty(Transport& transport, int source, int tag) {
  transport.receive(source, tag, nullptr, 0);
}

}  // namespace dsgd
