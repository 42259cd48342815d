// The differences between the LibTorch generations dsgd builds against (Debian's 1.13, and the
// 2.x of a pip-installed PyTorch: scripts/build-torch.sh) that its code meets, in one place: code
// elsewhere uses what this header provides instead of testing versions. Found by compiling
// against both; what needed nothing here is in docs/design/data-and-models.md, "LibTorch versions".
// Each item detects the API it adapts to (not the version number), so versions in between work.
#pragma once

#include <ATen/autocast_mode.h>
#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>
#include <torch/version.h>

#include <cstddef>
#include <type_traits>
#include <utility>

namespace dsgd::compat {

namespace detail {

// c10::Allocator::allocate is const in 1.13 and not in 2.x.
template <class A, class = void>
struct AllocateIsConst : std::false_type {};
template <class A>
struct AllocateIsConst<A, std::void_t<decltype(std::declval<const A&>().allocate(std::size_t{}))>>
    : std::true_type {};

// c10::Allocator::copy_data (2.x, pure virtual: copy-on-write tensors) does not exist in 1.13.
template <class A, class = void>
struct HasCopyData : std::false_type {};
template <class A>
struct HasCopyData<A, std::void_t<decltype(&A::copy_data)>> : std::true_type {};

// The parts of a forwarding allocator that do not depend on the version. A is c10::Allocator,
// as a template parameter so that `override` below is checked only for the variant chosen.
template <class A>
class ForwardingBase : public A {
 public:
  explicit ForwardingBase(A* base) : base_(base) {}
  c10::DeleterFnPtr raw_deleter() const override { return base_->raw_deleter(); }

 protected:
  // Called with each allocation's size before it is handed to the base allocator.
  virtual void on_allocate(std::size_t bytes) const = 0;
  c10::DataPtr forward(std::size_t bytes) const {
    on_allocate(bytes);
    return base_->allocate(bytes);
  }
  A* base_;
};

template <class A, bool = HasCopyData<A>::value>
class WithCopyData : public ForwardingBase<A> {
 public:
  using ForwardingBase<A>::ForwardingBase;
};
template <class A>
class WithCopyData<A, true> : public ForwardingBase<A> {
 public:
  using ForwardingBase<A>::ForwardingBase;
  void copy_data(void* dest, const void* src, std::size_t count) const override {
    this->base_->copy_data(dest, src, count);
  }
};

template <class A, bool = AllocateIsConst<A>::value>
class WithAllocate : public WithCopyData<A> {
 public:
  using WithCopyData<A>::WithCopyData;
  c10::DataPtr allocate(std::size_t bytes) override { return this->forward(bytes); }
};
template <class A>
class WithAllocate<A, true> : public WithCopyData<A> {
 public:
  using WithCopyData<A>::WithCopyData;
  c10::DataPtr allocate(std::size_t bytes) const override { return this->forward(bytes); }
};

}  // namespace detail

// A c10::Allocator that hands every request to another one (e.g. c10::GetCPUAllocator()) and
// calls on_allocate(bytes) first: subclasses count or log allocations. It implements the
// interface of the LibTorch it is compiled against.
class ForwardingAllocator : public detail::WithAllocate<c10::Allocator> {
 public:
  explicit ForwardingAllocator(c10::Allocator* base) : detail::WithAllocate<c10::Allocator>(base) {}
};

// Autocast's per-thread switch and lower-precision type for one device type (CPU or CUDA).
// LibTorch 2.4 replaced the per-device functions (is_cpu_enabled, set_autocast_gpu_dtype, ...)
// by ones taking the device type, and deprecated the old; free functions cannot be detected by
// overload tricks the way the allocator's members are, so this item tests the version.
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
inline bool autocast_enabled(c10::DeviceType type) {
  return at::autocast::is_autocast_enabled(type);
}
inline void set_autocast_enabled(c10::DeviceType type, bool on) {
  at::autocast::set_autocast_enabled(type, on);
}
inline at::ScalarType autocast_dtype(c10::DeviceType type) {
  return at::autocast::get_autocast_dtype(type);
}
inline void set_autocast_dtype(c10::DeviceType type, at::ScalarType dtype) {
  at::autocast::set_autocast_dtype(type, dtype);
}
#else
inline bool autocast_enabled(c10::DeviceType type) {
  return type == c10::DeviceType::CUDA ? at::autocast::is_enabled()
                                       : at::autocast::is_cpu_enabled();
}
inline void set_autocast_enabled(c10::DeviceType type, bool on) {
  type == c10::DeviceType::CUDA ? at::autocast::set_enabled(on) : at::autocast::set_cpu_enabled(on);
}
inline at::ScalarType autocast_dtype(c10::DeviceType type) {
  return type == c10::DeviceType::CUDA ? at::autocast::get_autocast_gpu_dtype()
                                       : at::autocast::get_autocast_cpu_dtype();
}
inline void set_autocast_dtype(c10::DeviceType type, at::ScalarType dtype) {
  type == c10::DeviceType::CUDA ? at::autocast::set_autocast_gpu_dtype(dtype)
                                : at::autocast::set_autocast_cpu_dtype(dtype);
}
#endif

}  // namespace dsgd::compat
