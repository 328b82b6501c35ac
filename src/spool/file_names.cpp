#include "spool/file_names.h"

#include <algorithm>
#include <cstdio>

namespace queen::spool {
namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::uint64_t to_number(std::string_view digits) {
  std::uint64_t v = 0;
  for (char c : digits) v = v * 10 + static_cast<std::uint64_t>(c - '0');
  return v;
}

}  // namespace

std::string file_stem(const SpoolFileId& id) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%0*llu-%0*lu", kStampDigits, static_cast<unsigned long long>(id.epoch_ms),
                kSequenceDigits, static_cast<unsigned long>(id.sequence));
  return buf;
}

std::string active_file_name(const SpoolFileId& id) { return file_stem(id) + std::string(kActiveExtension); }
std::string finalized_file_name(const SpoolFileId& id) { return file_stem(id) + std::string(kFinalizedExtension); }

bool has_active_extension(std::string_view name) { return ends_with(name, kActiveExtension); }
bool has_finalized_extension(std::string_view name) { return ends_with(name, kFinalizedExtension); }

std::string stem_of(std::string_view name) {
  const auto dot = name.rfind('.');
  return std::string(dot == std::string_view::npos ? name : name.substr(0, dot));
}

std::optional<SpoolFileId> parse_file_name(std::string_view name) {
  if (!is_spool_file_name(name)) return std::nullopt;
  const std::string_view stem = name.substr(0, name.size() - kActiveExtension.size());
  if (stem.size() != static_cast<std::size_t>(kStampDigits + 1 + kSequenceDigits) || stem[kStampDigits] != '-')
    return std::nullopt;
  const std::string_view stamp = stem.substr(0, kStampDigits);
  const std::string_view sequence = stem.substr(kStampDigits + 1);
  if (!all_digits(stamp) || !all_digits(sequence)) return std::nullopt;
  return SpoolFileId{to_number(stamp), static_cast<std::uint32_t>(to_number(sequence))};
}

SpoolFileId next_file_id(const std::optional<SpoolFileId>& previous, std::uint64_t now_ms) {
  if (!previous || now_ms > previous->epoch_ms) return {now_ms, 0};
  if (previous->sequence < kMaxSequence) return {previous->epoch_ms, previous->sequence + 1};
  return {previous->epoch_ms + 1, 0};
}

void sort_fifo(std::vector<std::string>& names) { std::sort(names.begin(), names.end()); }

}  // namespace queen::spool
