// DANA-DC: DANA-Zero with the delay compensation of DC-ASGD (Hakimi, Barkai, Gabel, Schuster
// 2019, "Taming Momentum in a Distributed Asynchronous Environment"; compensation from Zheng et
// al. 2017). Workers get DANA-Zero's look-ahead θ − γΣ_j v_j, which the server also records as
// θ̂_i; a message d from worker i is first corrected to d + λ_t·d⊙d⊙(θ − θ̂_i) and then applied
// by DANA-Zero's own server (dana_zero.h), so λ_dc = 0 is DANA-Zero, operation for operation.
//
// θ in the correction is the server's current θ, not its current look-ahead: that is what the
// DANA paper's simulator does (its delay_compensation() takes the master weights saved right
// after the optimizer step, before the look-ahead is subtracted). A consequence worth knowing:
// even without delay (one worker) θ − θ̂_i = γv ≠ 0, so with λ_dc > 0 DANA-DC is not Nesterov;
// the compensation then also corrects for the look-ahead itself. The constant and adaptive forms
// and their published defaults are DC-ASGD's (delay_compensation.h); the DANA authors' simulator
// defaults to the constant form with λ_dc = 2.
#include "algos/async_algorithms.h"
#include "algos/dana_zero.h"
#include "algos/delay_compensation.h"

namespace dsgd {

using namespace async_internal;  // NOLINT(build/namespaces): the helpers of async_util.h

AsyncAlgorithm dana_dc_algorithm() {
  return gradient_algorithm<DelayCompensated<DanaZeroServer>>(
      "dana-dc", "DANA-DC: DANA-Zero with DC-ASGD's delay compensation of stale gradients",
      delay_compensation_options());
}

}  // namespace dsgd
