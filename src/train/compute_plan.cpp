// Threads and replicas from the model's counted work; see compute_plan.h.
#include "train/compute_plan.h"

#include <fmt/format.h>
#include <torch/csrc/autograd/profiler_legacy.h>

#include <algorithm>
#include <cstdlib>
#include <thread>

#include "core/host_memory.h"

namespace dsgd {

ModelCost measure_model_cost(Model& net, const InputShape& shape, torch::Device device) {
  namespace profiler = torch::autograd::profiler;
  // Two samples, so that BatchNorm in train mode has more than one value per channel.
  constexpr int64_t kSamples = 2;
  torch::Tensor inputs = example_input(shape, kSamples).to(device);
  net.train();
  torch::AutoGradMode enable_grad(true);
  profiler::enableProfilerLegacy(profiler::ProfilerConfig(
      profiler::ProfilerState::CPU, /*report_input_shapes=*/true, /*profile_memory=*/true,
      /*with_stack=*/false, /*with_flops=*/true));
  torch::Tensor logits;
  try {
    logits = net.forward(inputs);
  } catch (...) {
    profiler::disableProfilerLegacy();
    throw;
  }
  ModelCost cost;
  for (auto& events : profiler::disableProfilerLegacy()) {
    for (auto& event : events) {  // flops() is not const
      cost.forward_flops += static_cast<double>(event.flops());
      if (event.kind() == profiler::EventKind::MemoryAlloc && event.cpuMemoryUsage() > 0) {
        cost.activation_bytes += static_cast<double>(event.cpuMemoryUsage());
      }
    }
  }
  cost.forward_flops /= kSamples;
  cost.activation_bytes /= kSamples;
  for (const auto& p : net.parameters()) cost.parameters += p.numel();
  return cost;
}

Machine this_machine(int64_t cores) {
  Machine machine;
  machine.cores = static_cast<int64_t>(std::max(1u, std::thread::hardware_concurrency()));
  if (cores > 0) machine.cores = std::min(machine.cores, cores);
  machine.available_bytes = available_memory_bytes();
  return machine;
}

namespace {

int64_t largest_power_of_two_at_most(int64_t n) {
  int64_t p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

}  // namespace

ComputePlan plan_compute(const ModelCost& cost, const ComputePlanRequest& request,
                         const Machine& machine) {
  ComputePlan plan;
  const double batch_flops = cost.forward_flops * static_cast<double>(request.batch_size);
  // Parameters and their gradients in float32, and the batch's activations.
  plan.replica_bytes =
      static_cast<int64_t>(2.0 * 4.0 * static_cast<double>(cost.parameters) +
                           cost.activation_bytes * static_cast<double>(request.batch_size));
  if (request.threads > 0) {
    plan.threads = request.threads;
    plan.reason = fmt::format("threads = {}", request.threads);
  } else {
    const auto worth = static_cast<int64_t>(batch_flops / kFlopsPerThread);
    plan.threads = largest_power_of_two_at_most(std::clamp<int64_t>(worth, 1, machine.cores));
    if (request.replicas > 0) {
      plan.threads = std::min(plan.threads, std::max<int64_t>(1, machine.cores / request.replicas));
    }
    plan.reason = fmt::format("{:.2g} GFLOP per forward pass of {}: {} thread{} per model",
                              batch_flops * 1e-9, request.batch_size, plan.threads,
                              plan.threads == 1 ? "" : "s");
  }
  const int64_t jobs = std::max<int64_t>(1, request.jobs);
  if (request.gpu) {
    plan.threads = request.threads > 0 ? request.threads : 1;
    plan.streams = true;
    if (!request.replicas_allowed) {
      plan.replicas = 1;
    } else if (request.replicas > 0) {
      plan.replicas = std::min(request.replicas, jobs);
    } else {
      plan.replicas = std::min({jobs, machine.cores, kMaxGpuStreams});
    }
    plan.reason = fmt::format(
        "GPU, {:.2g} GFLOP per forward pass of {}: {} replica{} queueing kernels from {} host "
        "thread{} each",
        batch_flops * 1e-9, request.batch_size, plan.replicas, plan.replicas == 1 ? "" : "s",
        plan.threads, plan.threads == 1 ? "" : "s");
    return plan;
  }
  if (!request.replicas_allowed) {
    plan.replicas = 1;
  } else if (request.replicas > 0) {
    plan.replicas = std::min(request.replicas, jobs);
  } else {
    int64_t replicas = std::max<int64_t>(1, machine.cores / plan.threads);
    replicas = std::min(replicas, jobs);
    if (machine.available_bytes > 0 && plan.replica_bytes > 0) {
      const auto affordable = static_cast<int64_t>(kReplicaMemoryFraction *
                                                   static_cast<double>(machine.available_bytes) /
                                                   static_cast<double>(plan.replica_bytes));
      if (affordable < replicas) {
        replicas = std::max<int64_t>(1, affordable);
        plan.reason += fmt::format(", replicas capped by memory ({:.0f} MB each)",
                                   static_cast<double>(plan.replica_bytes) / 1e6);
      }
    }
    plan.replicas = replicas;
  }
  return plan;
}

}  // namespace dsgd
