#include "spool/spool_directory.h"

#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <stdexcept>
#include <system_error>

#include "spool/spool_file.h"
#include "spool/spool_ledger.h"
#include "spool/spool_lock.h"
#include "spool/spool_log.h"

namespace fs = std::filesystem;

namespace queen::spool {
namespace {

std::string not_writable(const fs::path& dir) {
  const int error = errno;
  return dir.string() + " is not writable (" + std::generic_category().message(error) + ")";
}

// The boot's test: creates `dir` and its failed/, then judges it like --check-config does.
std::string make_usable(const fs::path& dir) {
  if (dir.empty()) return spool_directory_problem(dir);
  std::error_code ec;
  fs::create_directories(failed_directory(dir), ec);
  if (ec) return "cannot create " + failed_directory(dir).string() + ": " + ec.message();
  return spool_directory_problem(dir);
}

std::vector<fs::path> regular_files(const fs::path& dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code type_ec;
    if (it->is_regular_file(type_ec)) files.push_back(it->path());
  }
  return files;
}

}  // namespace

fs::path per_user_fallback_directory() {
  std::error_code ec;
  fs::path tmp = fs::temp_directory_path(ec);
  if (ec) tmp = "/tmp";
  return tmp / ("queen-buffers-" + std::to_string(::getuid()));
}

fs::path failed_directory(const fs::path& dir) { return dir / std::string(kFailedDirName); }

std::string spool_directory_problem(const fs::path& dir) {
  if (dir.empty()) return "FILE_BUFFER_DIR is empty";
  std::error_code ec;
  const fs::file_status status = fs::status(dir, ec);
  if (fs::exists(status)) {
    if (!fs::is_directory(status)) return dir.string() + " is not a directory";
    if (::access(dir.c_str(), W_OK | X_OK) != 0) return not_writable(dir);
    const fs::path failed = failed_directory(dir);
    if (fs::exists(failed, ec) && !fs::is_directory(failed, ec)) return failed.string() + " is not a directory";
    return {};
  }
  if (ec && ec != std::errc::no_such_file_or_directory && ec != std::errc::not_a_directory)
    return "cannot inspect " + dir.string() + ": " + ec.message();
  // Missing: the boot creates it, with every missing parent, inside its nearest existing ancestor.
  fs::path ancestor = dir.parent_path();
  while (!ancestor.empty() && !fs::exists(ancestor, ec) && ancestor != ancestor.parent_path())
    ancestor = ancestor.parent_path();
  if (ancestor.empty()) ancestor = ".";
  if (!fs::is_directory(ancestor, ec))
    return "cannot create " + dir.string() + ": " + ancestor.string() + " is not a directory";
  if (::access(ancestor.c_str(), W_OK | X_OK) != 0) return "cannot create " + dir.string() + ": " + not_writable(ancestor);
  return {};
}

std::string fallback_ownership_problem(const fs::path& dir) {
  struct stat info {};
  if (::lstat(dir.c_str(), &info) != 0) return {};  // missing: made by this user when it is used
  if (S_ISLNK(info.st_mode)) return dir.string() + " is a symbolic link";
  if (info.st_uid != ::geteuid())
    return dir.string() + " belongs to uid " + std::to_string(info.st_uid) + ", not to this user (uid " +
           std::to_string(::geteuid()) + ")";
  return {};
}

SpoolDirectory choose_spool_directory(const std::string& requested, const fs::path& fallback,
                                      const std::function<std::string(const fs::path&)>& problem_of) {
  SpoolDirectory result;
  result.requested = requested;
  result.path = requested;
  const std::string problem = requested.empty() ? spool_directory_problem({}) : problem_of(requested);
  if (problem.empty()) return result;

  result.fell_back = true;
  result.fallback_reason = requested.empty() ? problem : "FILE_BUFFER_DIR " + requested + " is not usable: " + problem;
  result.path = fallback;
  std::string fallback_problem = fallback_ownership_problem(fallback);
  if (fallback_problem.empty()) fallback_problem = problem_of(fallback);
  // Checked again once the boot made it: another user may have been quicker.
  if (fallback_problem.empty()) fallback_problem = fallback_ownership_problem(fallback);
  if (!fallback_problem.empty())
    throw std::runtime_error(result.fallback_reason + "; the fallback " + fallback.string() +
                             " is not usable either: " + fallback_problem);
  return result;
}

SpoolDirectory prepare_spool_directory(const std::string& requested) {
  const fs::path fallback = per_user_fallback_directory();
  const SpoolDirectory result = choose_spool_directory(requested, fallback, [&fallback](const fs::path& dir) {
    // Owner-only: the fallback sits in a directory every user can write. A failure (it exists, say) is
    // judged by make_usable and the ownership test.
    if (dir == fallback) static_cast<void>(::mkdir(dir.c_str(), 0700));
    return make_usable(dir);
  });
  if (result.fell_back) {
    spool_log()->warn("{}; falling back to {}. Set FILE_BUFFER_DIR to persistent storage in production",
                      result.fallback_reason, result.path.string());
  }
  return result;
}

SpoolDirectoryCheck check_spool_directory(const std::string& requested, const fs::path& fallback) {
  SpoolDirectoryCheck check;
  SpoolDirectory directory;
  try {
    directory = choose_spool_directory(requested, fallback, spool_directory_problem);
  } catch (const std::runtime_error& e) {
    check.error = std::string("no usable spool directory: ") + e.what() + "; the broker would not start";
    return check;
  }
  if (directory.fell_back) {
    check.lines.push_back("spool directory: " + directory.path.string() + " (fallback; " + directory.fallback_reason +
                          ")");
    check.warnings.push_back(directory.fallback_reason + "; the broker would spool to the per-user fallback " +
                             directory.path.string() + ". Set FILE_BUFFER_DIR to persistent storage in production");
  } else {
    check.lines.push_back("spool directory: " + directory.path.string() + " (FILE_BUFFER_DIR)");
  }
  if (const std::optional<long> holder = spool_lock_holder(directory.path)) {
    check.warnings.push_back(describe_locked_directory(directory.path, *holder) +
                             ": a broker started now would refuse to start");
  }
  return check;
}

std::vector<fs::path> list_spool_files(const fs::path& dir, std::string_view extension) {
  std::vector<fs::path> files;
  for (auto& path : regular_files(dir)) {
    const std::string name = path.filename().string();
    if (name.size() > extension.size() && name.compare(name.size() - extension.size(), extension.size(),
                                                       extension.data(), extension.size()) == 0)
      files.push_back(std::move(path));
  }
  std::sort(files.begin(), files.end(),
            [](const fs::path& a, const fs::path& b) { return a.filename().string() < b.filename().string(); });
  return files;
}

std::optional<SpoolFileId> newest_file_id(const fs::path& dir) {
  std::optional<SpoolFileId> newest;
  for (const fs::path& d : {dir, failed_directory(dir)}) {
    for (const auto& path : regular_files(d)) {
      const auto id = parse_file_name(path.filename().string());
      if (id && (!newest || *newest < *id)) newest = id;
    }
  }
  return newest;
}

QuarantineResult quarantine_file(const fs::path& dir, const fs::path& file) {
  std::error_code ec;
  fs::create_directories(failed_directory(dir), ec);
  fs::path target = failed_directory(dir) / file.filename();
  // Never overwrite an earlier quarantined file of the same name.
  for (int n = 1; fs::exists(target, ec) && n < 1000; ++n)
    target = failed_directory(dir) / (file.filename().string() + "." + std::to_string(n));
  fs::rename(file, target, ec);
  if (!ec) return QuarantineResult::Moved;
  spool_log()->error("cannot move {} to {}: {}; deleting it so it cannot block newer spool files", file.string(),
                     target.string(), ec.message());
  fs::remove(file, ec);
  return ec ? QuarantineResult::Stuck : QuarantineResult::Deleted;
}

std::uint64_t quarantine_record(const fs::path& dir, const std::string& stem, std::size_t index,
                                const std::string& framed) {
  std::error_code ec;
  fs::create_directories(failed_directory(dir), ec);
  const std::string name = stem + ".event-" + std::to_string(index);
  const fs::path target = failed_directory(dir) / (name + std::string(kFinalizedExtension));
  const fs::path partial = failed_directory(dir) / (name + std::string(kActiveExtension));
  {
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    out.write(framed.data(), static_cast<std::streamsize>(framed.size()));
    out.flush();
    if (!out) {
      spool_log()->error("cannot write quarantined event {} of {} to {}", index, stem, partial.string());
      fs::remove(partial, ec);
      return 0;
    }
  }
  fs::rename(partial, target, ec);
  if (ec) {
    spool_log()->error("cannot move {} to {}: {}", partial.string(), target.string(), ec.message());
    fs::remove(partial, ec);
    return 0;
  }
  return framed.size();
}

void inventory_spool_directory(const fs::path& dir, SpoolLedger& ledger) {
  for (const auto extension : {kFinalizedExtension, kActiveExtension}) {
    for (const auto& path : list_spool_files(dir, extension)) {
      const std::string name = path.filename().string();
      try {
        const FileScan scan = scan_spool_file(path);
        ledger.track_existing_file(stem_of(name), scan.records.size(), scan.file_bytes,
                                   extension == kFinalizedExtension);
        if (scan.torn_tail) spool_log()->warn("spool file {} ends with a damaged tail ({})", name, scan.tail_reason);
      } catch (const SpoolIoError& e) {
        spool_log()->error("cannot count the records of {}: {}", name, e.what());
        std::error_code ec;
        const auto bytes = fs::file_size(path, ec);
        ledger.track_existing_file(stem_of(name), 0, ec ? 0 : bytes, extension == kFinalizedExtension);
      }
    }
  }
  for (const auto& path : regular_files(failed_directory(dir))) {
    std::uint64_t events = 0;
    std::uint64_t bytes = 0;
    try {
      const FileScan scan = scan_spool_file(path);
      events = scan.records.size();
      bytes = scan.file_bytes;
    } catch (const SpoolIoError& e) {
      spool_log()->warn("cannot count the records of quarantined {}: {}", path.string(), e.what());
    }
    ledger.track_failed_file(events, bytes);
  }
}

}  // namespace queen::spool
