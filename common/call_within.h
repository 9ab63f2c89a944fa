// Waiting for a blocking call at most so long.
//
// call_within() runs `fn` on a thread of its own and waits up to `limit` for
// its result. When `fn` takes longer, the caller gets nullopt and goes on;
// the thread finishes by itself later and destroys the result it made then
// (so T should own what it holds: a unique_ptr, a string). For calls that
// have no timeout of their own and are rare enough that a thread per call
// costs nothing worth counting, such as getaddrinfo() when a webhook
// subscription is written. `fn` outlives the call when it is late, so it
// must hold copies of what it uses, not references. An exception from `fn`
// gives nullopt.
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>
#include <utility>

namespace ca {

template <class T, class Fn>
std::optional<T> call_within(std::chrono::milliseconds limit, Fn fn) {
  struct Shared {
    std::mutex mu;
    std::condition_variable done;
    std::optional<T> result;
    bool finished = false;
  };
  auto shared = std::make_shared<Shared>();
  try {
    std::thread([shared, fn = std::move(fn)]() mutable {
      std::optional<T> value;
      try {
        value.emplace(fn());
      } catch (...) {
        // nullopt for the caller, not std::terminate for the process.
      }
      std::lock_guard<std::mutex> lock(shared->mu);
      shared->result = std::move(value);
      shared->finished = true;
      shared->done.notify_one();
    }).detach();
  } catch (const std::system_error&) {
    return std::nullopt;  // no thread to be had: as if it had taken too long
  }
  std::unique_lock<std::mutex> lock(shared->mu);
  if (!shared->done.wait_for(lock, limit, [&] { return shared->finished; })) {
    return std::nullopt;
  }
  return std::move(shared->result);
}

}  // namespace ca
