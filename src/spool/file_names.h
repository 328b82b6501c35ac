#pragma once
// Spool file naming (pure).
//
//   <13-digit epoch milliseconds>-<8-digit sequence>.tmp   the active file, still being appended to
//   <13-digit epoch milliseconds>-<8-digit sequence>.buf   finalized, drainable
//   failed/                                                quarantine subdirectory
//
// Both numbers are zero-padded, so a plain lexical sort of names is FIFO order.
// The part before the extension (the "stem") identifies a file across its
// .tmp -> .buf rename.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace queen::spool {

inline constexpr std::string_view kActiveExtension = ".tmp";
inline constexpr std::string_view kFinalizedExtension = ".buf";
inline constexpr std::string_view kFailedDirName = "failed";
inline constexpr int kStampDigits = 13;
inline constexpr int kSequenceDigits = 8;
inline constexpr std::uint32_t kMaxSequence = 99'999'999;

struct SpoolFileId {
  std::uint64_t epoch_ms = 0;
  std::uint32_t sequence = 0;
};

inline bool operator==(const SpoolFileId& a, const SpoolFileId& b) {
  return a.epoch_ms == b.epoch_ms && a.sequence == b.sequence;
}
inline bool operator<(const SpoolFileId& a, const SpoolFileId& b) {
  return a.epoch_ms < b.epoch_ms || (a.epoch_ms == b.epoch_ms && a.sequence < b.sequence);
}

// "1700000000123-00000042"
std::string file_stem(const SpoolFileId& id);
std::string active_file_name(const SpoolFileId& id);     // stem + ".tmp"
std::string finalized_file_name(const SpoolFileId& id);  // stem + ".buf"

// Parses a name made by the functions above (either extension). Anything else,
// including a right extension on a wrong stem, yields nullopt.
std::optional<SpoolFileId> parse_file_name(std::string_view name);

// The stem of any file name: the name without its last extension.
std::string stem_of(std::string_view name);

bool has_active_extension(std::string_view name);
bool has_finalized_extension(std::string_view name);
// Listings consider only these two extensions (and never recurse, so failed/ is invisible).
inline bool is_spool_file_name(std::string_view name) {
  return has_active_extension(name) || has_finalized_extension(name);
}

// The id for the next file: strictly after `previous` (if any) even when the
// wall clock stepped backwards, so FIFO order survives clock adjustments.
SpoolFileId next_file_id(const std::optional<SpoolFileId>& previous, std::uint64_t now_ms);

// Sorts names into FIFO (lexical) order, in place.
void sort_fifo(std::vector<std::string>& names);

}  // namespace queen::spool
