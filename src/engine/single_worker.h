// The single-worker engine: plain minibatch SGD on one replica, the baseline every distributed
// algorithm is compared with.
#pragma once

#include "run/session.h"

namespace dsgd {

// `resume`: a checkpoint to continue from (Session::resume_folder), or null for a fresh run.
void train_single_worker(Session& session, const TensorMap* resume = nullptr);

}  // namespace dsgd
