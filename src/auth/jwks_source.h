#pragma once
// The keys of JWT_JWKS_URL, fetched once at boot and then refreshed in the
// background every JWT_JWKS_REFRESH_INTERVAL seconds, and soon after a token
// names an unknown kid (at most once per kMinRefetchInterval, so unknown
// kids cannot make the broker hammer the issuer). A request never waits on
// the network: a lookup reads the last good key set. A fetch that fails
// keeps that set and logs a warning (never the URL, which may hold credentials).
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "auth/jwks_fetch.h"
#include "auth/keys.h"
#include "util/background_worker.h"

namespace queen::auth {

class JwksSource : public KeyLookup {
 public:
  using Clock = util::Clock;
  static constexpr std::chrono::seconds kMinRefetchInterval{10};
  // After a failed fetch the next try comes this soon (or at the refresh interval, if shorter).
  static constexpr std::chrono::seconds kFailedFetchRetry{10};

  JwksSource(std::string url, std::chrono::seconds refresh_interval, int timeout_ms, JwksFetch fetch);
  ~JwksSource() override;

  // Fetches once now (the only time anything waits on the network), then
  // refreshes in the background.
  void start();
  void stop();

  // One fetch; true when it replaced the key set.
  bool refresh();

  std::optional<PublicKey> find(const std::string& kid) const override;
  std::optional<PublicKey> only_key_of(KeyType type) const override;
  std::size_t key_count() const;
  // Counts the key sets loaded so far: a verdict reached with an older set is stale.
  std::uint64_t generation() const { return generation_.load(std::memory_order_acquire); }

 private:
  Clock::time_point round();
  std::shared_ptr<const Jwks> current() const;

  const std::string url_;
  const std::chrono::seconds refresh_interval_;
  const int timeout_ms_;
  const JwksFetch fetch_;

  mutable std::mutex mutex_;
  std::shared_ptr<const Jwks> keys_;  // guarded by mutex_; never null
  std::atomic<std::uint64_t> generation_{0};

  mutable std::atomic<bool> refetch_requested_{false};
  Clock::time_point last_kid_refetch_{};  // worker thread only
  Clock::time_point next_refresh_{};      // worker thread only
  mutable util::BackgroundWorker worker_;
};

}  // namespace queen::auth
