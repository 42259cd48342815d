// The key of the weight-decay convention in which published implementations of one rule differ
// (async_util.h): where weight decay is taken. Declared by the rules whose server holds θ, so
// `dsgd list keys` names exactly them. (The other convention, lr_in_velocity, is a run key.)
#include "algos/async_util.h"

namespace dsgd {
namespace async_internal {

std::vector<OptionSpec> convention_options() {
  return {boolean_option(
      "decay_at_server", false,
      "weight decay at the server's theta when a message is applied (PyTorch's SGD on a server, "
      "the DANA authors' simulator, MXNet's DCASGD); false: at the parameters the gradient was "
      "computed at, added by the worker")};
}

}  // namespace async_internal
}  // namespace dsgd
