#pragma once
// Reading spool files from disk, one record at a time so memory stays bounded
// by the largest record rather than by the file (a 10 000-event file of
// megabyte payloads must not be loaded whole).
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "spool/spool_event.h"

namespace queen::spool {

// A file could not be opened or read (as opposed to: it was read and holds a bad tail).
class SpoolIoError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct RecordRef {
  std::uint64_t offset = 0;  // of the record's length field
  std::uint32_t body_bytes = 0;
  ReplayGroupKey group;
};

struct FileScan {
  std::vector<RecordRef> records;  // every good record before the tail, in file order
  std::uint64_t file_bytes = 0;
  std::uint64_t good_bytes = 0;    // prefix made of good records
  bool torn_tail = false;
  std::string tail_reason;
};

// Validates every record of `path` (frame, checksum, body). Throws SpoolIoError.
FileScan scan_spool_file(const std::filesystem::path& path);

// Reads individual records located by a scan.
class SpoolFileReader {
 public:
  explicit SpoolFileReader(const std::filesystem::path& path);  // throws SpoolIoError
  ~SpoolFileReader();
  SpoolFileReader(const SpoolFileReader&) = delete;
  SpoolFileReader& operator=(const SpoolFileReader&) = delete;

  // Throws SpoolIoError when the record can no longer be read or decoded.
  SpoolEvent read(const RecordRef& ref);
  // The record's bytes as they are on disk (length, body, checksum), checked.
  std::string read_framed(const RecordRef& ref);

 private:
  std::filesystem::path path_;
  // Reads the record into buffer_ and returns its body; throws SpoolIoError.
  std::string_view load(const RecordRef& ref);
  void release_big_buffer();

  std::FILE* file_ = nullptr;
  std::string buffer_;
};

struct LeftoverFinalizeResult {
  std::uint64_t events = 0;       // good records kept
  bool tail_cut = false;          // a torn tail was truncated away
  bool removed = false;           // the file held no good record and was deleted
  std::filesystem::path finalized_path;  // the .buf path when renamed
};

// Finalizes a .tmp left behind by a crash: cuts a torn tail off, then renames
// it to .buf (or deletes it when nothing readable is left). Throws SpoolIoError.
LeftoverFinalizeResult finalize_leftover_file(const std::filesystem::path& tmp_path, bool sync);

}  // namespace queen::spool
