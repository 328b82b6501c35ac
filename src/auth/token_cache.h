#pragma once
// Tokens already verified, so a client sending the same token on every
// request pays for one signature check (RS256 ~20 µs, Ed25519 ~100 µs on a
// small machine) instead of one per request. Keyed by the token's SHA-256;
// an entry is used only while the token has not expired (rechecked on every
// hit) and only for the key set it was verified with (a JWKS refresh starts
// a new generation). Bounded: when full it starts over empty.
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "auth/jwt_verifier.h"

namespace queen::auth {

class TokenCache {
 public:
  static constexpr std::size_t kDefaultMaxEntries = 10000;
  explicit TokenCache(std::size_t max_entries = kDefaultMaxEntries) : max_entries_(max_entries) {}

  // The cached verdict, or nullopt (unknown, another key generation, or expired given `clock_skew_s`).
  std::optional<VerifiedToken> find(std::string_view token, std::uint64_t generation, std::int64_t now_s,
                                    int clock_skew_s) const;
  void put(std::string_view token, std::uint64_t generation, const VerifiedToken& verified);
  std::size_t size() const;

 private:
  struct Entry {
    VerifiedToken token;
    std::uint64_t generation;
  };
  static std::string digest(std::string_view token);

  const std::size_t max_entries_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Entry> entries_;  // guarded by mutex_
};

}  // namespace queen::auth
