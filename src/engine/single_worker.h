// The single-worker engine: plain minibatch SGD on one replica, the baseline every distributed
// algorithm is compared with.
#pragma once

#include "run/session.h"

namespace dsgd {

void train_single_worker(Session& session);

}  // namespace dsgd
