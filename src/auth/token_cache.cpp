#include "auth/token_cache.h"

#include <openssl/evp.h>

namespace queen::auth {

std::string TokenCache::digest(std::string_view token) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_Digest(token.data(), token.size(), out, &size, EVP_sha256(), nullptr) != 1) return {};
  return std::string(reinterpret_cast<const char*>(out), size);
}

std::optional<VerifiedToken> TokenCache::find(std::string_view token, std::uint64_t generation, std::int64_t now_s,
                                              int clock_skew_s) const {
  const std::string key = digest(token);
  if (key.empty()) return std::nullopt;
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = entries_.find(key);
  if (it == entries_.end() || it->second.generation != generation) return std::nullopt;
  const std::optional<double>& exp = it->second.token.expires_at_s;
  if (exp && static_cast<double>(now_s) >= *exp + clock_skew_s) return std::nullopt;
  return it->second.token;
}

void TokenCache::put(std::string_view token, std::uint64_t generation, const VerifiedToken& verified) {
  std::string key = digest(token);
  if (key.empty()) return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (entries_.size() >= max_entries_) entries_.clear();
  entries_.insert_or_assign(std::move(key), Entry{verified, generation});
}

std::size_t TokenCache::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return entries_.size();
}

}  // namespace queen::auth
