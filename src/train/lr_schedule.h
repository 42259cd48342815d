// Learning rate as a function of the fractional epoch: constant, multistep or cosine, times a
// linear warm-up from η/N to η over the first W epochs (the DANA paper's setting for N workers).
// With lr_scaling = "linear" (synchronous family) η is lr·P, so the warm-up runs from lr to lr·P
// as Goyal et al. (2017) do; with "sqrt" η is lr·√P (Krizhevsky 2014), the warm-up from lr/√P.
#pragma once

#include "train/config.h"

namespace dsgd {

class LrSchedule {
 public:
  explicit LrSchedule(const RunConfig& config);
  double at(double epoch) const;

 private:
  RunConfig config_;
};

}  // namespace dsgd
