// Mailboxes and the all-gather of a World of threads; see thread_hub.h.
#include "engine/threads/thread_hub.h"

#include <fmt/format.h>

#include <utility>

#include "core/errors.h"

namespace dsgd {

ThreadHub::ThreadHub(int ranks)
    : ranks_(ranks), mailboxes_(static_cast<size_t>(ranks)), slots_(static_cast<size_t>(ranks)) {
  describe_ = [](int rank) { return fmt::format("rank {}", rank); };
}

void ThreadHub::set_timeout(double seconds, std::function<std::string(int)> describe_rank) {
  std::lock_guard<std::mutex> lock(mutex_);
  timeout_seconds_ = seconds;
  if (describe_rank) describe_ = std::move(describe_rank);
}

void ThreadHub::wait(std::unique_lock<std::mutex>& lock, const std::function<bool()>& ready,
                     int rank, const char* what) {
  if (timeout_seconds_ <= 0) {
    changed_.wait(lock, ready);
    return;
  }
  const auto limit = std::chrono::duration<double>(timeout_seconds_);
  if (!changed_.wait_for(lock, limit, ready)) {
    throw HangError(fmt::format("{} waited more than {:g} s for {}: another rank stopped",
                                describe_(rank), timeout_seconds_, what),
                    "see the other ranks' errors");
  }
}

void ThreadHub::post(int source, int dest, int tag, const void* bytes, size_t size) {
  Message message{source, tag, std::string(static_cast<const char*>(bytes), size)};
  {
    std::lock_guard<std::mutex> lock(mutex_);
    mailboxes_.at(static_cast<size_t>(dest)).push_back(std::move(message));
  }
  changed_.notify_all();
}

ThreadHub::Message ThreadHub::wait_for(int rank, int source, int tag, bool take) {
  std::deque<Message>& mailbox = mailboxes_.at(static_cast<size_t>(rank));
  auto matches = [&](const Message& m) {
    return (source < 0 || m.source == source) && (tag < 0 || m.tag == tag);
  };
  std::deque<Message>::iterator found;
  std::unique_lock<std::mutex> lock(mutex_);
  wait(
      lock,
      [&] {
        for (found = mailbox.begin(); found != mailbox.end(); ++found) {
          if (matches(*found)) return true;
        }
        return false;
      },
      rank, "a message");
  if (!take) return Message{found->source, found->tag, {}};
  Message message = std::move(*found);
  mailbox.erase(found);
  return message;
}

std::vector<std::string> ThreadHub::all_gather(int rank, std::string mine) {
  std::unique_lock<std::mutex> lock(mutex_);
  const int64_t round = round_;
  slots_[static_cast<size_t>(rank)] = std::move(mine);
  if (++arrived_ == ranks_) {
    // The last to arrive completes the round. A rank may only start the next one after it has
    // copied this round's result, so `gathered_` is never overwritten under a reader.
    gathered_ = slots_;
    arrived_ = 0;
    ++round_;
    changed_.notify_all();
  } else {
    wait(
        lock, [&] { return round_ != round; }, rank, "the other ranks in a collective");
  }
  return gathered_;
}

}  // namespace dsgd
