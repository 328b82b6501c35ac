#pragma once
// The spool directory: the choice between FILE_BUFFER_DIR and the fallback
// (at boot, and as --check-config sees it), FIFO listings, quarantine, and
// the boot inventory the ledger starts from.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "spool/file_names.h"

namespace queen::spool {

class SpoolLedger;

struct SpoolDirectory {
  std::filesystem::path path;  // the directory in use
  std::string requested;       // FILE_BUFFER_DIR as configured
  bool fell_back = false;      // true when `path` is the per-user temporary directory
  std::string fallback_reason; // why the requested directory was not usable
};

// Why `dir` cannot serve as a spool directory, judged without creating or
// writing anything: empty when `dir` is a writable directory (its failed/, if
// present, a directory too), or is missing and can be created (its nearest
// existing ancestor is a writable directory). Root passes every permission
// check, so for root only a read-only filesystem or a part of the path that
// is not a directory makes a directory unusable.
std::string spool_directory_problem(const std::filesystem::path& dir);

// The per-user fallback lives in a world-writable directory, where another
// user could have made it first, or put a symbolic link in its place, to read
// the spool: empty when it is missing or a real directory of this user.
std::string fallback_ownership_problem(const std::filesystem::path& dir);

// The decision: `requested` when `problem_of(requested)` is empty, else
// `fallback` when it passes fallback_ownership_problem and `problem_of`.
// Throws std::runtime_error when neither is usable. `problem_of` is
// spool_directory_problem for a look without side effects (--check-config),
// or a function that creates the directory first (the boot).
SpoolDirectory choose_spool_directory(const std::string& requested, const std::filesystem::path& fallback,
                                      const std::function<std::string(const std::filesystem::path&)>& problem_of);

// The boot's choice: creates `requested` (and its failed/ subdirectory) and
// checks it is writable. When that fails, logs a warning on the spool target
// and uses per_user_fallback_directory() instead (created owner-only), so a
// developer machine does not drop every buffered push. Throws
// std::runtime_error only when the fallback is not usable either.
SpoolDirectory prepare_spool_directory(const std::string& requested);

// <temp dir>/queen-buffers-<uid>: per user so two users on one machine never share it.
std::filesystem::path per_user_fallback_directory();

// --check-config: the directory a boot now would use and whether a running
// broker holds it, found without creating or writing anything.
struct SpoolDirectoryCheck {
  std::vector<std::string> lines;     // what is decided (stdout)
  std::vector<std::string> warnings;  // the fallback, a lock held by a running broker
  std::string error;                  // set when no directory is usable: the boot would refuse
};
SpoolDirectoryCheck check_spool_directory(const std::string& requested, const std::filesystem::path& fallback);

std::filesystem::path failed_directory(const std::filesystem::path& dir);

// Regular files of `dir` (not recursive) whose name ends with `extension`, FIFO order.
std::vector<std::filesystem::path> list_spool_files(const std::filesystem::path& dir, std::string_view extension);

// The newest id among spool file names in `dir` and in failed/, so new names sort after all of them.
std::optional<SpoolFileId> newest_file_id(const std::filesystem::path& dir);

enum class QuarantineResult { Moved, Deleted, Stuck };
// Moves `file` into failed/; when the move fails, deletes it. Stuck means neither worked.
QuarantineResult quarantine_file(const std::filesystem::path& dir, const std::filesystem::path& file);

// Writes one record (`framed`: its bytes as on disk) into failed/ as a spool
// file of its own, named <stem>.event-<index>.buf, so the rest of its file can
// drain. Returns the bytes written, 0 when it could not be written (logged).
// Writing the same record again (a restart re-quarantines it) replaces it.
std::uint64_t quarantine_record(const std::filesystem::path& dir, const std::string& stem, std::size_t index,
                                const std::string& framed);

// Counts the records of every .buf/.tmp file and of every file in failed/ into `ledger`.
void inventory_spool_directory(const std::filesystem::path& dir, SpoolLedger& ledger);

}  // namespace queen::spool
