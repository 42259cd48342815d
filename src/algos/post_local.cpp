// Post-local SGD's switch; see post_local.h.
#include "algos/post_local.h"

#include <cmath>

namespace dsgd {

std::vector<OptionSpec> with_post_local_switch(std::vector<OptionSpec> own) {
  own.push_back(number_option("post_local.switch_epoch", 0.0,
                              "post-local SGD: train as SSGD (a gradient all-reduce every step) "
                              "until this epoch, then by this algorithm's local steps and averages "
                              "(0: from the start)",
                              0.0));
  return own;
}

void apply_post_local_switch(const OptionValues& values, const SyncSetup& setup, SyncPlan& plan) {
  plan.average_gradients_until = std::llround(values.number("post_local.switch_epoch") *
                                              static_cast<double>(setup.steps_per_epoch));
}

}  // namespace dsgd
