// The process-wide LibTorch state a dsgd run changes, kept and put back, so that a call from
// Python leaves the user's process as it found it.
#pragma once

#include <ATen/CPUGeneratorImpl.h>
#include <dlfcn.h>
#include <torch/torch.h>

namespace dsgd {

// The process-wide LibTorch state a run changes (TrainingContext sets the thread count and seeds
// the default generator; tensors made without a dtype follow the default one), kept on
// construction and put back on destruction. While the object lives the default dtype is float32,
// so that a Python user's torch.set_default_dtype(torch.float64) does not reach dsgd's tensors.
class ProcessState {
 public:
  ProcessState()
      : threads_(at::get_num_threads()),
        blas_threads_(get_blas_threads()),
        generator_state_(at::detail::getDefaultCPUGenerator().get_state()),
        dtype_(c10::get_default_dtype()) {
    c10::set_default_dtype(caffe2::TypeMeta::Make<float>());
  }
  ~ProcessState() {
    at::set_num_threads(threads_);
    set_blas_threads(blas_threads_);
    at::Generator generator = at::detail::getDefaultCPUGenerator();
    generator.set_state(generator_state_);
    c10::set_default_dtype(dtype_);
  }
  ProcessState(const ProcessState&) = delete;
  ProcessState& operator=(const ProcessState&) = delete;

 private:
  // OpenBLAS's own pool, which TrainingContext sizes too (when the BLAS is OpenBLAS).
  static int get_blas_threads() {
    using Get = int (*)();
    auto get = reinterpret_cast<Get>(::dlsym(RTLD_DEFAULT, "openblas_get_num_threads"));
    return get ? get() : 0;
  }
  static void set_blas_threads(int threads) {
    using Set = void (*)(int);
    auto set = reinterpret_cast<Set>(::dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
    if (set && threads > 0) set(threads);
  }

  int threads_;
  int blas_threads_;
  torch::Tensor generator_state_;
  caffe2::TypeMeta dtype_;
};

}  // namespace dsgd
