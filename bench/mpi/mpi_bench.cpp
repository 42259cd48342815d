// MPI benchmarks, run as `mpirun -n 5 build/dsgd_mpi_bench [FILTER]` (1 server + 4 workers; FILTER
// picks cases by label: "asgd 0.27M", "11.17M", "average"), or `mpirun -n 8 build/dsgd_mpi_bench
// levels` (a three-level hierarchy: groups of 2, 4, then all 8 ranks). Each prints
// a RATIO against a reference measured in the same run, on the same ranks:
//   server updates per second of the real MPI engine (asgd and dana-slim, workers that send a
//   fixed gradient at once, so only messaging and the rule are timed) against the bound from a
//   ping-pong of the same message size between two ranks (one update needs one round trip);
//   MpiCommunicator's global average against a raw MPI_Allreduce of the same buffer, with the
//   hang watchdog on (as runs have it) and off; with `levels`, each level's average against a raw
//   MPI_Allreduce on a communicator split the same way; with `link` (mpirun -n 2), the link's
//   latency and bandwidth from a ping-pong over message sizes and the rate a rank sums at, and
//   MPI_Allreduce and MPI_Iallreduce against the ring formula priced with them.
// Google Benchmark times one process; here every rank must run the same loop in step, so the
// timing is MPI_Wtime around barriers.
#include <fmt/format.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

#include "algos/catalog.h"
#include "core/allocator.h"
#include "data/dataset.h"
#include "engine/mpi/mpi_communicator.h"
#include "engine/mpi/mpi_world.h"
#include "engine/ranks/async_ranks.h"
#include "run/session.h"
#include "train/collective_cost.h"

namespace dsgd {
namespace {

constexpr int kWorkers = 4;

// Waits for every rank without spinning: the ranks left out of a ping-pong sleep here, so they
// do not take the cores of the two that are timed (5 ranks share this machine's 2 cores).
void quiet_barrier(MPI_Comm comm) {
  MPI_Request request;
  MPI_Ibarrier(comm, &request);
  int done = 0;
  while (MPI_Test(&request, &done, MPI_STATUS_IGNORE), !done) {
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

// Seconds per round trip of `floats` floats each way between ranks 0 and 1, the best of three
// trials of `reps`: the bound is what the link can do, not what a noisy trial happened to give.
// Ranks 0 and 1 are pinned to different cores meanwhile: unbound (as oversubscribed ranks are),
// the scheduler sometimes left both on one core, and the round trip took 3x as long.
double round_trip(MpiWorld& world, int64_t floats, int reps) {
  cpu_set_t unpinned;
  sched_getaffinity(0, sizeof(unpinned), &unpinned);
  const int cores = CPU_COUNT(&unpinned);
  if (world.rank() < 2 && cores >= 2) {
    cpu_set_t pinned;
    CPU_ZERO(&pinned);
    for (int cpu = 0, seen = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (CPU_ISSET(cpu, &unpinned) && seen++ == world.rank()) CPU_SET(cpu, &pinned);
    }
    sched_setaffinity(0, sizeof(pinned), &pinned);
  }
  torch::Tensor buffer = torch::zeros({floats});
  const int n = static_cast<int>(floats);
  double best = 1e30;
  for (int trial = 0; trial < 3; ++trial) {
    MPI_Barrier(world.comm());
    double start = MPI_Wtime();
    for (int r = 0; r < reps && world.rank() < 2; ++r) {
      if (world.rank() == 0) {
        MPI_Send(buffer.data_ptr<float>(), n, MPI_FLOAT, 1, 1, world.comm());
        MPI_Recv(buffer.data_ptr<float>(), n, MPI_FLOAT, 1, 2, world.comm(), MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(buffer.data_ptr<float>(), n, MPI_FLOAT, 0, 1, world.comm(), MPI_STATUS_IGNORE);
        MPI_Send(buffer.data_ptr<float>(), n, MPI_FLOAT, 0, 2, world.comm());
      }
    }
    best = std::min(best, (MPI_Wtime() - start) / reps);
    quiet_barrier(world.comm());
  }
  sched_setaffinity(0, sizeof(unpinned), &unpinned);
  MPI_Bcast(&best, 1, MPI_DOUBLE, 0, world.comm());
  return best;
}

// Server updates per second of the MPI engine running `algo` on `model` for `updates` updates.
// Returns the parameter count through `params`.
double server_updates_per_second(MpiWorld& world, const std::string& algo, const std::string& model,
                                 int64_t updates, int64_t* params) {
  RunConfig config;
  config.algo = algo;
  config.engine = dsgd::EngineKind::kMpi;
  config.workers = kWorkers;
  config.model = model;
  config.batch_size = 2;
  config.epochs = 1;
  config.eval_every = 1;
  config.bn_batches = 0;
  config.threads = 1;
  // A config built by hand: the algorithm's own keys are resolved here, as parse_config does.
  config.algo_options = resolve_options(find_algorithm(algo).options, {});
  DatasetPair data;
  data.train = make_synthetic(updates * config.batch_size, 3, 32, 32, 10, 1);
  data.test = make_synthetic(2, 3, 32, 32, 10, 2);
  data.normalization = {{0.5f, 0.5f, 0.5f}, {0.25f, 0.25f, 0.25f}};
  Session session(config, std::move(data));
  session.set_reporting(world.rank() == 0);
  AsyncRanksEngine engine(session, world);
  // A fixed gradient, written once: nothing but the engine's own work is timed (a training step
  // writes the gradient buffer in place the same way, with backward).
  session.model().grads().fill_(1e-4f);
  torch::Tensor loss = torch::zeros({});
  engine.set_gradient_source([&](int64_t) { return loss; });
  *params = session.model().num_params();
  MPI_Barrier(world.comm());
  double start = MPI_Wtime();
  engine.run();
  double rate = static_cast<double>(updates) / (MPI_Wtime() - start);
  MPI_Bcast(&rate, 1, MPI_DOUBLE, 0, world.comm());
  return rate;
}

// Seconds per call of `body` on every rank, between barriers: the best of three trials of `reps`
// calls, as for the round trip (oversubscribed cores make single trials vary by tens of percent).
template <typename Body>
double per_call(MpiWorld& world, int reps, Body body) {
  body();  // warm-up
  double best = 1e30;
  for (int trial = 0; trial < 3; ++trial) {
    MPI_Barrier(world.comm());
    double start = MPI_Wtime();
    for (int r = 0; r < reps; ++r) body();
    MPI_Barrier(world.comm());
    best = std::min(best, (MPI_Wtime() - start) / reps);
  }
  MPI_Bcast(&best, 1, MPI_DOUBLE, 0, world.comm());
  return best;
}

void print_ratio(MpiWorld& world, const std::string& label, double ratio,
                 const std::string& detail) {
  if (world.rank() == 0)
    std::printf("RATIO %-44s %8.4f  (%s)\n", label.c_str(), ratio, detail.c_str());
}

// `filter`: run only the cases whose label contains it (empty: all), e.g. "asgd 0.27M".
// Each level of groups of 2, 4 and every rank: MpiCommunicator's average, with the hang watchdog
// on (as runs have it: non-blocking, polled) and off (blocking), against a raw blocking
// MPI_Allreduce on an MPI_Comm_split of the same groups.
int run_levels(MpiWorld& world) {
  if (world.size() % 4 != 0) {
    if (world.rank() == 0) std::fprintf(stderr, "dsgd_mpi_bench levels: run with mpirun -n 8\n");
    return 2;
  }
  const std::vector<int64_t> sizes = {2, 4, world.size()};
  MpiCommunicator communicator(world, sizes, false);
  for (int64_t floats : {int64_t{269722}, int64_t{11'200'000}}) {
    torch::Tensor buffer = torch::randn({floats});
    const int reps = floats > 1'000'000 ? 10 : 100;
    for (size_t level = 0; level < sizes.size(); ++level) {
      MPI_Comm raw_comm;
      MPI_Comm_split(world.comm(), static_cast<int>(world.rank() / sizes[level]), world.rank(),
                     &raw_comm);
      double raw = per_call(world, reps, [&] {
        MPI_Allreduce(MPI_IN_PLACE, buffer.data_ptr<float>(), static_cast<int>(floats), MPI_FLOAT,
                      MPI_SUM, raw_comm);
      });
      MPI_Comm_free(&raw_comm);
      for (double timeout : {300.0, 0.0}) {
        world.watchdog().watch(timeout, {});
        double average = per_call(world, reps, [&] { communicator.average(level, {buffer}); });
        print_ratio(
            world,
            fmt::format("level {} average (groups of {}) / MPI_Allreduce, {:.2f}M floats, "
                        "watchdog {}",
                        level + 1, sizes[level], floats / 1e6, timeout > 0 ? "on" : "off"),
            average / raw,
            fmt::format("{:.3f} ms / {:.3f} ms, {} ranks", average * 1e3, raw * 1e3, world.size()));
      }
    }
  }
  return 0;
}

// The link between two ranks, as configs/clusters.toml describes one: a ping-pong over message
// sizes gives the one-way latency (the smallest message) and bandwidth (the large ones, past the
// latency); every rank adding one vector into another at once gives the rate a member sums at
// (reduce_bandwidth, the all-reduce's gamma). Then Open MPI's MPI_Allreduce (its own choice of
// algorithm) and MPI_Iallreduce (the ring dsgd's MPI engine sets, mpi_world.cpp) over the same
// sizes against the ring formula of train/collective_cost.h priced with that link, without and
// with the summing term. `mpirun -n 2 build/dsgd_mpi_bench link`.
int run_link(MpiWorld& world) {
  const std::vector<int64_t> sizes = {1, 256, 4096, 65536, 269722, 1 << 20, 1 << 22, 1 << 24};
  auto reps_for = [](int64_t floats) {
    return static_cast<int>(std::clamp<int64_t>(50'000'000 / (floats * 4), 5, 2000));
  };
  std::vector<double> one_way, summing;
  for (int64_t floats : sizes) {
    one_way.push_back(round_trip(world, floats, reps_for(floats)) / 2);
    // The sum as MPI_SUM's loop does it, on the rank's own core, every rank at once.
    std::vector<float> into(floats, 1.0f), from(floats, 2.0f);
    summing.push_back(per_call(world, reps_for(floats), [&] {
      for (int64_t i = 0; i < floats; ++i) into[i] += from[i];
      asm volatile("" : : "r"(into.data()) : "memory");  // the sum is kept, not optimised away
    }));
  }
  // Rates: the median over messages of 256 KB and more (one size alone moved the bandwidth 2x: the
  // largest falls out of the caches' reach), each past the latency.
  const double latency = one_way.front();
  auto median_rate = [&](const std::vector<double>& seconds, double minus) {
    std::vector<double> rates;
    for (size_t i = 0; i < sizes.size(); ++i) {
      if (sizes[i] * 4 >= 262144) {
        rates.push_back(static_cast<double>(sizes[i]) * 4 / (seconds[i] - minus));
      }
    }
    std::sort(rates.begin(), rates.end());
    return rates[rates.size() / 2];
  };
  const double bandwidth = median_rate(one_way, latency);
  const double reduce_bandwidth = median_rate(summing, 0.0);
  if (world.rank() == 0) {
    std::printf("link: one-way latency %.3g s, bandwidth %.3g B/s, sums %.3g B/s (%d ranks)\n",
                latency, bandwidth, reduce_bandwidth, world.size());
    for (size_t i = 0; i < sizes.size(); ++i) {
      const double bytes = static_cast<double>(sizes[i]) * 4;
      std::printf(
          "  %10.0f bytes: one way %.3g s (latency + bytes / bandwidth %.3g s), sum %.3g s\n",
          bytes, one_way[i], latency + bytes / bandwidth, summing[i]);
    }
  }
  const int64_t p = world.size();
  const AllreducePrice ring =
      allreduce_price(AllreduceAlgorithm::kRing, p, {latency, bandwidth, 0.0});
  const AllreducePrice ring_summing =
      allreduce_price(AllreduceAlgorithm::kRing, p, {latency, bandwidth, reduce_bandwidth});
  for (int64_t floats : sizes) {
    torch::Tensor buffer = torch::randn({floats});
    const int n = static_cast<int>(floats);
    const double blocking = per_call(world, reps_for(floats), [&] {
      MPI_Allreduce(MPI_IN_PLACE, buffer.data_ptr<float>(), n, MPI_FLOAT, MPI_SUM, world.comm());
    });
    const double nonblocking = per_call(world, reps_for(floats), [&] {
      MPI_Request request;
      MPI_Iallreduce(MPI_IN_PLACE, buffer.data_ptr<float>(), n, MPI_FLOAT, MPI_SUM, world.comm(),
                     &request);
      MPI_Wait(&request, MPI_STATUS_IGNORE);
    });
    const double bytes = static_cast<double>(floats) * 4;
    const std::string size = fmt::format("{:.0f} bytes", bytes);
    print_ratio(world, "MPI_Allreduce / ring, " + size, blocking / ring.seconds(bytes),
                fmt::format("{:.3g} s / {:.3g} s, {} ranks", blocking, ring.seconds(bytes), p));
    print_ratio(world, "MPI_Allreduce / ring + sums, " + size,
                blocking / ring_summing.seconds(bytes),
                fmt::format("/ {:.3g} s", ring_summing.seconds(bytes)));
    print_ratio(world, "MPI_Iallreduce (ring) / ring + sums, " + size,
                nonblocking / ring_summing.seconds(bytes),
                fmt::format("{:.3g} s / {:.3g} s", nonblocking, ring_summing.seconds(bytes)));
  }
  return 0;
}

int run(const std::string& filter) {
  MpiWorld world;
  if (filter == "levels") return run_levels(world);
  if (filter == "link") {
    if (world.size() < 2) {
      if (world.rank() == 0) std::fprintf(stderr, "dsgd_mpi_bench link: run with mpirun -n 2\n");
      return 2;
    }
    return run_link(world);
  }
  if (world.size() != kWorkers + 1) {
    if (world.rank() == 0) {
      std::fprintf(stderr, "dsgd_mpi_bench: run with mpirun -n %d (a server and %d workers)\n",
                   kWorkers + 1, kWorkers);
    }
    return 2;
  }
  struct Case {
    std::string model;
    int64_t updates;
    int reps;
  };
  for (const Case& c : {Case{"resnet20", 2000, 400}, Case{"resnet18", 200, 40}}) {
    for (const std::string algo : {"asgd", "dana-slim"}) {
      const std::string size = c.model == "resnet20" ? "0.27M" : "11.17M";
      if (!filter.empty() && (algo + " " + size).find(filter) == std::string::npos) continue;
      int64_t params = 0;
      double rate = server_updates_per_second(world, algo, c.model, c.updates, &params);
      // One update: the message in (P + 1 floats) and fresh parameters out (P floats).
      double rtt = round_trip(world, params + 1, c.reps);
      print_ratio(world,
                  fmt::format("server updates/s x round trip, {} {:.2f}M", algo, params / 1e6),
                  rate * rtt,
                  fmt::format("{:.0f} updates/s, bound 1/rtt = {:.0f}/s, rtt {:.3f} ms", rate,
                              1.0 / rtt, rtt * 1e3));
    }
  }
  MpiCommunicator communicator(world, {world.size()}, false);
  for (int64_t floats : {int64_t{269722}, int64_t{11'200'000}}) {
    if (!filter.empty() && std::string("average").find(filter) == std::string::npos) continue;
    torch::Tensor buffer = torch::randn({floats});
    int reps = floats > 1'000'000 ? 20 : 200;
    double raw = per_call(world, reps, [&] {
      MPI_Allreduce(MPI_IN_PLACE, buffer.data_ptr<float>(), static_cast<int>(floats), MPI_FLOAT,
                    MPI_SUM, world.comm());
    });
    // As a run has it (mpi.hang_timeout = 300: non-blocking, under the watchdog), and with the
    // watchdog off (blocking).
    for (double timeout : {300.0, 0.0}) {
      world.watchdog().watch(timeout, {});
      double average = per_call(
          world, reps, [&] { communicator.average(communicator.global_level(), {buffer}); });
      print_ratio(
          world,
          fmt::format("global average / MPI_Allreduce, {:.2f}M floats, watchdog {}", floats / 1e6,
                      timeout > 0 ? "on" : "off"),
          average / raw,
          fmt::format("{:.3f} ms / {:.3f} ms, {} ranks", average * 1e3, raw * 1e3, world.size()));
    }
  }
  return 0;
}

}  // namespace
}  // namespace dsgd

int main(int argc, char** argv) {
  dsgd::keep_freed_memory();  // as the dsgd executable does
  try {
    return dsgd::run(argc > 1 ? argv[1] : "");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dsgd_mpi_bench: %s\n", e.what());
    return 1;
  }
}
