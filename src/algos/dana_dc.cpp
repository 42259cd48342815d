// DANA-DC: DANA-Zero with the delay compensation of DC-ASGD (Hakimi, Barkai, Gabel, Schuster
// 2019, "Taming Momentum in a Distributed Asynchronous Environment"; compensation from Zheng et
// al. 2017). Workers get DANA-Zero's look-ahead θ − γΣ_j v_j, which the server also records as
// θ̂_i; the bare gradient g from worker i is first corrected to g + λ_t·g⊙g⊙(θ − θ̂_i), weight
// decay is added, and DANA-Zero's own server (dana_zero.h) applies it, so λ_dc = 0 is DANA-Zero,
// operation for operation.
//
// As the DANA authors' simulator, which the golden test reproduces (with lr_in_velocity = false
// and decay_at_server = true, its conventions): the squared term is the raw gradient's, θ in the
// correction is the server's current θ, not its current look-ahead (their delay_compensation()
// takes the master weights saved right after the optimizer step, before the look-ahead is
// subtracted), and the constant form's default is theirs, λ_dc = 2. A consequence worth knowing:
// even without delay (one worker) θ − θ̂_i = γv ≠ 0, so with λ_dc > 0 DANA-DC is not Nesterov;
// the compensation then also corrects for the look-ahead itself.
#include "algos/async_algorithms.h"
#include "algos/dana_zero.h"
#include "algos/delay_compensation.h"

namespace dsgd {

using namespace async_internal;  // NOLINT(build/namespaces): the helpers of async_util.h

AsyncAlgorithm dana_dc_algorithm() {
  return delay_compensated_algorithm<DanaZeroServer>(
      "dana-dc", "DANA-DC: DANA-Zero with DC-ASGD's delay compensation of stale gradients",
      joined_options(delay_compensation_options(2.0), dana_options()));
}

}  // namespace dsgd
