#include "spool/spool_directory.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <stdexcept>

#include "spool/spool_file.h"
#include "spool/spool_ledger.h"
#include "spool/spool_log.h"

namespace fs = std::filesystem;

namespace queen::spool {
namespace {

// Empty when `dir` and its failed/ exist (creating them) and `dir` is writable.
std::string make_usable(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(failed_directory(dir), ec);
  if (ec) return "cannot create " + failed_directory(dir).string() + ": " + ec.message();
  if (::access(dir.c_str(), W_OK | X_OK) != 0) return dir.string() + " is not writable";
  return {};
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

SpoolDirectory prepare_spool_directory(const std::string& requested) {
  SpoolDirectory result;
  result.requested = requested;
  result.path = requested;
  const std::string problem = requested.empty() ? "FILE_BUFFER_DIR is empty" : make_usable(requested);
  if (problem.empty()) return result;

  result.fell_back = true;
  result.fallback_reason = problem;
  result.path = per_user_fallback_directory();
  spool_log()->warn("spool directory {} is not usable ({}); falling back to {}. Set FILE_BUFFER_DIR to persistent "
                    "storage in production",
                    requested, problem, result.path.string());
  const std::string fallback_problem = make_usable(result.path);
  if (!fallback_problem.empty())
    throw std::runtime_error("no usable spool directory: " + problem + "; fallback: " + fallback_problem);
  return result;
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
