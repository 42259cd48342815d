// A World of threads: its transport over the hub's mailboxes, its collectives over the hub's
// all-gather, and its learners' communicator; see thread_world.h.
#include "engine/threads/thread_world.h"

#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <utility>

#include "core/error_report.h"
#include "core/errors.h"
#include "engine/threads/thread_hub.h"

namespace dsgd {
namespace {

std::string tensor_bytes(const torch::Tensor& t) {
  const torch::Tensor host = t.cpu().contiguous();
  return std::string(static_cast<const char*>(host.data_ptr()),
                     static_cast<size_t>(host.numel()) * host.element_size());
}

// Sends are eager: the message is copied into the destination's mailbox at once, so a started send
// has completed.
class ThreadTransport : public Transport {
 public:
  ThreadTransport(ThreadHub& hub, int rank) : hub_(hub), rank_(rank) {}
  void send(int dest, int tag, const void* data, size_t bytes) override {
    hub_.post(rank_, dest, tag, data, bytes);
  }
  SendId start_send(int dest, int tag, const void* data, size_t bytes) override {
    send(dest, tag, data, bytes);
    return ++last_id_;
  }
  void wait_sent(SendId* ids, size_t count, WaitPace) override {
    for (size_t i = 0; i < count; ++i) ids[i] = 0;
  }
  int receive(int source, int tag, void* data, size_t bytes, WaitPace, const Overdue&) override {
    ThreadHub::Message m = hub_.wait_for(rank_, source, tag, /*take=*/true);
    if (m.bytes.size() != bytes) {
      throw Error(fmt::format("rank {} expected {} bytes with tag {} from rank {}, got {}", rank_,
                              bytes, tag, m.source, m.bytes.size()),
                  "this is a dsgd bug; report it");
    }
    if (bytes > 0) std::memcpy(data, m.bytes.data(), bytes);
    return m.source;
  }
  std::string receive_bytes(int source, int tag) override {
    return hub_.wait_for(rank_, source, tag, /*take=*/true).bytes;
  }
  int next_tag(int source, WaitPace) override {
    return hub_.wait_for(rank_, source, /*tag=*/-1, /*take=*/false).tag;
  }

 private:
  ThreadHub& hub_;
  int rank_;
  SendId last_id_ = 0;
};

// One learner per rank; a group's members are consecutive ranks, and the innermost level of
// `node_groups` is every rank (one process is one host).
class ThreadCommunicator : public RankCommunicator {
 public:
  ThreadCommunicator(ThreadHub& hub, int rank, std::vector<int64_t> group_sizes, bool node_groups)
      : hub_(hub), rank_(rank), sizes_(std::move(group_sizes)) {
    const int64_t ranks = hub.ranks();
    if (node_groups && !sizes_.empty()) sizes_.front() = ranks;
    if (sizes_.empty() || sizes_.back() != ranks) sizes_.push_back(ranks);
    for (int64_t size : sizes_) {
      if (ranks % size != 0) {
        throw ConfigError(fmt::format("{} ranks cannot form groups of {}", ranks, size),
                          "use a multiple of every level's group size of ranks");
      }
    }
  }
  void average(size_t level, const std::vector<torch::Tensor>& tensors) override {
    if (tensors.size() != 1) {
      throw Error(fmt::format("a rank holds one learner, not {}", tensors.size()),
                  "this is a dsgd bug; report it");
    }
    combine(level, tensors[0], /*mean=*/true);
  }
  void sum(size_t level, torch::Tensor& tensor) override { combine(level, tensor, false); }
  int64_t group_size(size_t level) const override { return sizes_.at(level); }
  size_t levels() const override { return sizes_.size(); }
  double seconds_in_collectives() const override { return seconds_; }

 private:
  // The group's sum or mean of `tensor`, every member's added in rank order (the simulator's
  // order: mean_in_member_order).
  void combine(size_t level, const torch::Tensor& tensor, bool mean) {
    const auto start = std::chrono::steady_clock::now();
    const std::vector<std::string> all = hub_.all_gather(rank_, tensor_bytes(tensor));
    const int64_t size = sizes_.at(level);
    const int64_t first = rank_ / size * size;
    torch::Tensor result = tensor.cpu().contiguous().clone();
    const int64_t n = result.numel();
    if (result.scalar_type() == torch::kDouble) {
      combine_as<double>(all, first, size, result.data_ptr<double>(), n, mean);
    } else {
      combine_as<float>(all, first, size, result.data_ptr<float>(), n, mean);
    }
    torch::NoGradGuard no_grad;
    tensor.copy_(result);
    seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  template <typename T>
  static void combine_as(const std::vector<std::string>& all, int64_t first, int64_t size, T* out,
                         int64_t n, bool mean) {
    std::vector<const T*> members;
    for (int64_t j = first; j < first + size; ++j) {
      members.push_back(reinterpret_cast<const T*>(all[static_cast<size_t>(j)].data()));
    }
    if (mean) {
      mean_in_member_order(members.data(), members.size(), out, n);
      return;
    }
    for (int64_t k = 0; k < n; ++k) out[k] = members[0][k];
    for (size_t j = 1; j < members.size(); ++j) {
      for (int64_t k = 0; k < n; ++k) out[k] += members[j][k];
    }
  }

  ThreadHub& hub_;
  int rank_;
  std::vector<int64_t> sizes_;
  double seconds_ = 0.0;
};

int exit_code_of(std::exception_ptr error) { return report_error(error).exit_code; }

class ThreadWorld : public World {
 public:
  ThreadWorld(std::shared_ptr<ThreadHub> hub, int rank)
      : hub_(std::move(hub)), rank_(rank), transport_(*hub_, rank) {}
  int rank() const override { return rank_; }
  int size() const override { return hub_->ranks(); }
  Transport& transport() override { return transport_; }

  void agree(std::exception_ptr error) override {
    const int code = error ? exit_code_of(error) : 0;
    int worst = 0;
    for (const std::string& other : hub_->all_gather(rank_, std::to_string(code))) {
      worst = std::max(worst, std::stoi(other));
    }
    if (error) std::rethrow_exception(error);
    if (worst != 0) throw PeerError("", worst);
  }
  void follow_root(std::exception_ptr outcome) override {
    const int code = std::stoi(broadcast(std::to_string(outcome ? exit_code_of(outcome) : 0), 0));
    if (rank_ == 0 && outcome) std::rethrow_exception(outcome);
    if (code != 0) throw PeerError("", code);
  }
  std::string broadcast(std::string bytes, int root) override {
    return hub_->all_gather(rank_, std::move(bytes)).at(static_cast<size_t>(root));
  }
  int64_t sum(int64_t value) override {
    int64_t total = 0;
    for (const std::string& other : hub_->all_gather(rank_, std::to_string(value))) {
      total += std::stoll(other);
    }
    return total;
  }
  torch::Tensor gather_to_root(const torch::Tensor& local) override {
    const std::vector<std::string> all =
        hub_->all_gather(rank_, tensor_bytes(local.to(torch::kFloat)));
    if (rank_ != 0) return torch::Tensor();
    torch::Tensor rows = torch::empty({size(), local.numel()});
    for (int r = 0; r < size(); ++r) {
      std::memcpy(rows[r].data_ptr<float>(), all[static_cast<size_t>(r)].data(),
                  all[static_cast<size_t>(r)].size());
    }
    return rows;
  }
  std::unique_ptr<RankCommunicator> learner_communicator(std::vector<int64_t> group_sizes,
                                                         bool node_groups, torch::Device,
                                                         bool) override {
    // Every mean is summed in rank order: rank_order or not, the simulator's sums.
    return std::make_unique<ThreadCommunicator>(*hub_, rank_, std::move(group_sizes), node_groups);
  }
  void watch(double timeout_seconds, std::function<std::string(int)> describe_rank) override {
    hub_->set_timeout(timeout_seconds, std::move(describe_rank));
  }
  double hang_timeout() const override { return hub_->timeout(); }
  bool host_oversubscribed() const override { return false; }

 private:
  std::shared_ptr<ThreadHub> hub_;
  int rank_;
  ThreadTransport transport_;
};

}  // namespace

std::vector<std::unique_ptr<World>> make_thread_worlds(int ranks) {
  auto hub = std::make_shared<ThreadHub>(ranks);
  std::vector<std::unique_ptr<World>> worlds;
  for (int r = 0; r < ranks; ++r) worlds.push_back(std::make_unique<ThreadWorld>(hub, r));
  return worlds;
}

}  // namespace dsgd
