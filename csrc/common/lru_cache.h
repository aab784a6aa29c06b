// A small thread-safe LRU cache of immutable shared values, safe across fork().
//
// Used for the weight tables (tables.cpp) and the CPU's prepared lines (cpu/resize_cpu.cpp):
// every training step asks for the same few entries. Values are built outside the lock (two
// threads may build the same entry once each; both results are equal). fork() while another
// thread holds the lock would leave the child's copy locked forever: pthread_atfork takes the
// lock around fork() and releases it in both processes.
#pragma once

#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <utility>

#include <pthread.h>

namespace resize_ad {

template <typename Key, typename Value>
class LruCache {
 public:
  // At most max_entries values, and at most max_bytes by size_of (values larger than a quarter
  // of max_bytes are returned without being kept).
  LruCache(size_t max_entries, size_t max_bytes) : max_entries_(max_entries), max_bytes_(max_bytes) {
    static std::once_flag once;
    std::call_once(once, [] { pthread_atfork(&lock_all, &unlock_all, &unlock_all); });
    std::lock_guard<std::mutex> lock(registry_mutex());
    registry().push_back(this);
  }
  LruCache(const LruCache&) = delete;
  LruCache& operator=(const LruCache&) = delete;

  // The value of key, or build() stored under it. size_of(value) gives its bytes.
  template <typename Build, typename SizeOf>
  std::shared_ptr<const Value> get(const Key& key, Build&& build, SizeOf&& size_of) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (auto it = entries_.begin(); it != entries_.end(); ++it) {
        if (it->first == key) {
          entries_.splice(entries_.begin(), entries_, it);  // most recently used first
          return entries_.front().second;
        }
      }
    }
    std::shared_ptr<const Value> value = build();
    const size_t bytes = size_of(*value);
    if (bytes > max_bytes_ / 4) return value;
    std::lock_guard<std::mutex> lock(mu_);
    entries_.emplace_front(key, value);
    bytes_ += bytes;
    while (entries_.size() > max_entries_ || bytes_ > max_bytes_) {
      bytes_ -= size_of(*entries_.back().second);
      entries_.pop_back();
    }
    return value;
  }

 private:
  // Caches are process-lifetime statics; the registry holds them for the fork handlers.
  static std::list<LruCache*>& registry() {
    static auto* caches = new std::list<LruCache*>();  // leaked: usable during static destruction
    return *caches;
  }
  static std::mutex& registry_mutex() {
    static auto* mu = new std::mutex();
    return *mu;
  }
  static void lock_all() {
    registry_mutex().lock();
    for (LruCache* c : registry()) c->mu_.lock();
  }
  static void unlock_all() {
    for (LruCache* c : registry()) c->mu_.unlock();
    registry_mutex().unlock();
  }

  const size_t max_entries_, max_bytes_;
  std::mutex mu_;
  std::list<std::pair<Key, std::shared_ptr<const Value>>> entries_;
  size_t bytes_ = 0;
};

}  // namespace resize_ad
