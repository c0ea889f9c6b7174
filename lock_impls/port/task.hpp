// Task<T>: the coroutine type lock code is written in.
//
// Lazy (nothing runs until awaited or started), single awaiter, symmetric transfer back to the
// awaiting coroutine, exceptions carried to the awaiter. Frames come from a per-thread pool of
// size classes, so a coroutine call on the simulator's hot path does not reach malloc once the
// pool is warm. A Task owns its frame: destroying a suspended parent destroys the children it is
// awaiting, which is how a crashed process's whole call stack disappears.
#pragma once

#include <coroutine>
#include <cstddef>
#include <exception>
#include <optional>
#include <utility>

namespace redlock_sim {

namespace frame_pool {
// Frames up to `max_pooled_bytes` are recycled through per-thread free lists.
inline constexpr std::size_t granule_bytes = 64;
inline constexpr std::size_t max_pooled_bytes = 4096;
void* allocate(std::size_t bytes);
void deallocate(void* frame, std::size_t bytes) noexcept;
}  // namespace frame_pool

template <typename T>
class Task;

namespace task_detail {

struct PromiseBase {
  std::coroutine_handle<> continuation;
  std::exception_ptr exception;
  // For root tasks (no awaiter): told when the task finishes, so its owner can reap it.
  void (*on_root_done)(void* owner) = nullptr;
  void* owner = nullptr;

  static void* operator new(std::size_t bytes) { return frame_pool::allocate(bytes); }
  static void operator delete(void* frame, std::size_t bytes) noexcept {
    frame_pool::deallocate(frame, bytes);
  }

  std::suspend_always initial_suspend() noexcept { return {}; }

  struct FinalAwaiter {
    bool await_ready() noexcept { return false; }
    template <typename Promise>
    std::coroutine_handle<> await_suspend(std::coroutine_handle<Promise> self) noexcept {
      auto& promise = self.promise();
      if (promise.continuation) return promise.continuation;
      if (promise.on_root_done != nullptr) promise.on_root_done(promise.owner);
      return std::noop_coroutine();
    }
    void await_resume() noexcept {}
  };
  FinalAwaiter final_suspend() noexcept { return {}; }
  void unhandled_exception() noexcept { exception = std::current_exception(); }
};

template <typename T>
struct Promise : PromiseBase {
  std::optional<T> value;
  Task<T> get_return_object();
  template <typename U>
  void return_value(U&& v) {
    value.emplace(std::forward<U>(v));
  }
  T take() {
    if (exception) std::rethrow_exception(exception);
    return std::move(*value);
  }
};

template <>
struct Promise<void> : PromiseBase {
  Task<void> get_return_object();
  void return_void() noexcept {}
  void take() {
    if (exception) std::rethrow_exception(exception);
  }
};

}  // namespace task_detail

template <typename T = void>
class [[nodiscard]] Task {
 public:
  using promise_type = task_detail::Promise<T>;
  using Handle = std::coroutine_handle<promise_type>;

  Task() = default;
  explicit Task(Handle handle) : handle_(handle) {}
  Task(Task&& other) noexcept : handle_(std::exchange(other.handle_, {})) {}
  Task& operator=(Task&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, {});
    }
    return *this;
  }
  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;
  ~Task() { reset(); }

  // Awaiting a task starts it and resumes the awaiter when it finishes.
  bool await_ready() const noexcept { return false; }
  std::coroutine_handle<> await_suspend(std::coroutine_handle<> awaiter) noexcept {
    handle_.promise().continuation = awaiter;
    return handle_;
  }
  T await_resume() { return handle_.promise().take(); }

  // For root tasks owned by a scheduler: run until the first suspension. `on_done(owner)` is
  // called when the task finishes (by returning or throwing).
  void start(void (*on_done)(void*) = nullptr, void* owner = nullptr) {
    handle_.promise().on_root_done = on_done;
    handle_.promise().owner = owner;
    handle_.resume();
  }
  bool valid() const { return static_cast<bool>(handle_); }
  bool done() const { return handle_ && handle_.done(); }
  // Rethrows what the coroutine threw, if it finished by throwing.
  void rethrow_if_failed() const {
    if (handle_ && handle_.done() && handle_.promise().exception) {
      std::rethrow_exception(handle_.promise().exception);
    }
  }
  void reset() {
    if (handle_) std::exchange(handle_, {}).destroy();
  }

 private:
  Handle handle_;
};

namespace task_detail {
template <typename T>
Task<T> Promise<T>::get_return_object() {
  return Task<T>(std::coroutine_handle<Promise<T>>::from_promise(*this));
}
inline Task<void> Promise<void>::get_return_object() {
  return Task<void>(std::coroutine_handle<Promise<void>>::from_promise(*this));
}
}  // namespace task_detail

}  // namespace redlock_sim
