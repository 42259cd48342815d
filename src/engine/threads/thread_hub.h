// What the ranks of a World of threads (thread_world.h) share: a mailbox per rank for the
// transport's messages, and an all-gather that every collective is built from. Every wait is
// bounded by the hang timeout, so that a rank that stopped (an exception in its thread) ends the
// others with a HangError instead of a hung test. Private to src/engine/threads/.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace dsgd {

class ThreadHub {
 public:
  explicit ThreadHub(int ranks);

  int ranks() const { return ranks_; }
  void set_timeout(double seconds, std::function<std::string(int)> describe_rank);
  double timeout() const { return timeout_seconds_; }

  struct Message {
    int source = 0;
    int tag = 0;
    std::string bytes;
  };
  // Delivers a copy of `bytes` to `dest`'s mailbox.
  void post(int source, int dest, int tag, const void* bytes, size_t size);
  // The first message in `rank`'s mailbox from `source` (-1: any) with `tag` (-1: any), in the
  // order they arrived, taken out (`take`) or left (the tag is then all the caller learns).
  Message wait_for(int rank, int source, int tag, bool take);
  // Collective over every rank: every rank's `mine`, in rank order.
  std::vector<std::string> all_gather(int rank, std::string mine);

 private:
  // Waits on `ready` under `lock`; throws HangError past the timeout.
  void wait(std::unique_lock<std::mutex>& lock, const std::function<bool()>& ready, int rank,
            const char* what);

  const int ranks_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::deque<Message>> mailboxes_;
  double timeout_seconds_ = 0.0;
  std::function<std::string(int)> describe_;
  // The all-gather in progress: what each rank gave, how many have, and the round's number.
  std::vector<std::string> slots_;
  std::vector<std::string> gathered_;
  int arrived_ = 0;
  int64_t round_ = 0;
};

}  // namespace dsgd
