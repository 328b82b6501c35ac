#include "auth/jwks_source.h"

#include <spdlog/spdlog.h>

namespace queen::auth {

JwksSource::JwksSource(std::string url, std::chrono::seconds refresh_interval, int timeout_ms, JwksFetch fetch)
    : url_(std::move(url)),
      refresh_interval_(refresh_interval),
      timeout_ms_(timeout_ms),
      fetch_(std::move(fetch)),
      keys_(std::make_shared<const Jwks>()),
      worker_("jwks-refresh", util::real_clock(), [this] { return round(); },
              std::chrono::milliseconds(kFailedFetchRetry)) {}

JwksSource::~JwksSource() { stop(); }

void JwksSource::start() {
  const bool ok = refresh();
  next_refresh_ = worker_.clock().now() + (ok ? refresh_interval_ : std::min<Clock::duration>(refresh_interval_, kFailedFetchRetry));
  worker_.start(next_refresh_);
}

void JwksSource::stop() { worker_.stop(); }

bool JwksSource::refresh() {
  const FetchResult fetched = fetch_(url_, timeout_ms_);
  const std::size_t kept = key_count();
  if (!fetched.ok) {
    spdlog::warn("auth: fetching the JWKS of JWT_JWKS_URL failed ({}); keeping the {} key(s) of the last good fetch",
                 fetched.error, kept);
    return false;
  }
  try {
    auto jwks = std::make_shared<const Jwks>(parse_jwks(fetched.body));
    spdlog::info("auth: JWKS of JWT_JWKS_URL loaded: {} key(s), {} skipped (not RSA/Ed25519 signing keys with a kid)",
                 jwks->by_kid.size(), jwks->skipped);
    std::lock_guard<std::mutex> lock(mutex_);
    keys_ = std::move(jwks);
    generation_.fetch_add(1, std::memory_order_acq_rel);
    return true;
  } catch (const KeyError& e) {
    spdlog::warn("auth: the JWKS of JWT_JWKS_URL is unusable ({}); keeping the {} key(s) of the last good fetch",
                 e.what(), kept);
    return false;
  }
}

// One round of the worker: the periodic refresh when due, or a refetch a
// token with an unknown kid asked for, rate-limited.
JwksSource::Clock::time_point JwksSource::round() {
  const Clock::time_point now = worker_.clock().now();
  bool due = now >= next_refresh_;
  const bool asked = refetch_requested_.exchange(false);  // a periodic refresh answers it too
  if (!due && asked) {
    if (now - last_kid_refetch_ < kMinRefetchInterval) {
      refetch_requested_.store(true);  // honoured once the interval has passed
      return std::min(next_refresh_, last_kid_refetch_ + kMinRefetchInterval);
    }
    last_kid_refetch_ = now;
    due = true;
  }
  if (due) {
    const bool ok = refresh();
    next_refresh_ = worker_.clock().now() + (ok ? refresh_interval_ : std::min<Clock::duration>(refresh_interval_, kFailedFetchRetry));
  }
  return next_refresh_;
}

std::shared_ptr<const Jwks> JwksSource::current() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return keys_;
}

std::optional<PublicKey> JwksSource::find(const std::string& kid) const {
  const std::shared_ptr<const Jwks> keys = current();
  const auto it = keys->by_kid.find(kid);
  if (it != keys->by_kid.end()) return it->second;
  // Perhaps the issuer rotated its keys: fetch again, off this request's path.
  if (!refetch_requested_.exchange(true)) worker_.wake();
  return std::nullopt;
}

std::optional<PublicKey> JwksSource::only_key_of(KeyType type) const {
  const std::shared_ptr<const Jwks> keys = current();
  std::optional<PublicKey> only;
  for (const auto& [kid, key] : keys->by_kid) {
    if (key.type() != type) continue;
    if (only) return std::nullopt;
    only = key;
  }
  return only;
}

std::size_t JwksSource::key_count() const { return current()->by_kid.size(); }

}  // namespace queen::auth
