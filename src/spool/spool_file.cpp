#include "spool/spool_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "spool/file_names.h"
#include "spool/record_codec.h"

namespace queen::spool {
namespace {

constexpr std::size_t kReadBufferBytes = 1u << 20;
// Larger record buffers are released before the next read.
constexpr std::size_t kKeptReadBufferBytes = 1u << 20;

std::string describe_errno(const std::string& what, const std::filesystem::path& path) {
  return what + " " + path.string() + ": " + std::strerror(errno);
}

std::FILE* open_for_reading(const std::filesystem::path& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) throw SpoolIoError(describe_errno("cannot open spool file", path));
  std::setvbuf(f, nullptr, _IOFBF, kReadBufferBytes);
  return f;
}

// Reads up to n bytes; returns how many were read. Throws on a read error.
std::size_t read_some(std::FILE* f, char* dst, std::size_t n, const std::filesystem::path& path) {
  const std::size_t got = std::fread(dst, 1, n, f);
  if (got < n && std::ferror(f)) throw SpoolIoError(describe_errno("cannot read spool file", path));
  return got;
}

struct FileCloser {
  std::FILE* f;
  ~FileCloser() {
    if (f != nullptr) std::fclose(f);
  }
};

void sync_directory_of(const std::filesystem::path& path) {
  const int fd = ::open(path.parent_path().c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

FileScan scan_spool_file(const std::filesystem::path& path) {
  FileScan scan;
  std::FILE* f = open_for_reading(path);
  FileCloser closer{f};
  std::error_code ec;
  scan.file_bytes = std::filesystem::file_size(path, ec);
  if (ec) throw SpoolIoError("cannot stat spool file " + path.string() + ": " + ec.message());

  std::string record;
  std::uint64_t offset = 0;
  const auto stop = [&](const std::string& reason) {
    scan.torn_tail = true;
    scan.tail_reason = reason + " at byte " + std::to_string(offset);
  };
  while (true) {
    record.resize(kRecordLengthBytes);
    const std::size_t got = read_some(f, record.data(), kRecordLengthBytes, path);
    if (got == 0) break;  // clean end of file
    if (got < kRecordLengthBytes) {
      stop(to_string(FrameStatus::Truncated));
      break;
    }
    const std::uint32_t body_bytes = declared_body_length(record);
    if (body_bytes == 0 || body_bytes > kMaxRecordBodyBytes) {
      stop(to_string(FrameStatus::BadLength));
      break;
    }
    // Check against the file size before allocating: a garbage length must
    // not make us reserve hundreds of megabytes.
    if (offset + kRecordOverheadBytes + body_bytes > scan.file_bytes) {
      stop(to_string(FrameStatus::Truncated));
      break;
    }
    record.resize(kRecordOverheadBytes + body_bytes);
    const std::size_t rest = record.size() - kRecordLengthBytes;
    if (read_some(f, record.data() + kRecordLengthBytes, rest, path) < rest) {
      stop(to_string(FrameStatus::Truncated));  // the file shrank while we read it
      break;
    }
    const Frame frame = read_frame(record);
    if (frame.status != FrameStatus::Complete) {
      stop(to_string(frame.status));
      break;
    }
    SpoolEvent event(Tenant::default_tenant());  // parse_record_body sets the record's
    std::string error;
    if (!parse_record_body(frame.body, event, error)) {
      stop("malformed body (" + error + ")");
      break;
    }
    scan.records.push_back(RecordRef{offset, body_bytes, ReplayGroupKey::of(event)});
    offset += frame.size;
  }
  scan.good_bytes = offset;
  return scan;
}

SpoolFileReader::SpoolFileReader(const std::filesystem::path& path) : path_(path), file_(open_for_reading(path)) {}

SpoolFileReader::~SpoolFileReader() {
  if (file_ != nullptr) std::fclose(file_);
}

std::string_view SpoolFileReader::load(const RecordRef& ref) {
  if (::fseeko(file_, static_cast<off_t>(ref.offset), SEEK_SET) != 0)
    throw SpoolIoError(describe_errno("cannot seek in spool file", path_));
  buffer_.resize(kRecordOverheadBytes + ref.body_bytes);
  if (read_some(file_, buffer_.data(), buffer_.size(), path_) < buffer_.size())
    throw SpoolIoError("spool file " + path_.string() + " shrank under the reader");
  const Frame frame = read_frame(buffer_);
  if (frame.status != FrameStatus::Complete)
    throw SpoolIoError("spool file " + path_.string() + " changed under the reader at byte " +
                       std::to_string(ref.offset));
  return frame.body;
}

SpoolEvent SpoolFileReader::read(const RecordRef& ref) {
  const std::string_view body = load(ref);
  SpoolEvent event(Tenant::default_tenant());  // parse_record_body sets the record's
  std::string error;
  const bool parsed = parse_record_body(body, event, error);
  release_big_buffer();
  if (!parsed)
    throw SpoolIoError("spool file " + path_.string() + " changed under the reader at byte " +
                       std::to_string(ref.offset));
  return event;
}

std::string SpoolFileReader::read_framed(const RecordRef& ref) {
  load(ref);
  std::string framed = std::move(buffer_);
  buffer_.clear();
  return framed;
}

void SpoolFileReader::release_big_buffer() {
  // A big record's buffer is not kept for the next, usually small, one: a
  // drain lane holds no more than the event it replays (docs/operations-spool.md, "Memory during replay").
  if (buffer_.capacity() > kKeptReadBufferBytes) std::string().swap(buffer_);
}

LeftoverFinalizeResult finalize_leftover_file(const std::filesystem::path& tmp_path, bool sync) {
  LeftoverFinalizeResult result;
  const FileScan scan = scan_spool_file(tmp_path);
  result.events = scan.records.size();
  if (scan.records.empty()) {
    std::error_code ec;
    std::filesystem::remove(tmp_path, ec);
    if (ec) throw SpoolIoError("cannot remove empty spool file " + tmp_path.string() + ": " + ec.message());
    result.removed = true;
    return result;
  }
  if (scan.torn_tail) {
    if (::truncate(tmp_path.c_str(), static_cast<off_t>(scan.good_bytes)) != 0)
      throw SpoolIoError(describe_errno("cannot cut the torn tail of", tmp_path));
    result.tail_cut = true;
  }
  if (sync) {
    const int fd = ::open(tmp_path.c_str(), O_WRONLY);
    if (fd >= 0) {
      ::fdatasync(fd);
      ::close(fd);
    }
  }
  std::filesystem::path target = tmp_path;
  target.replace_extension(kFinalizedExtension);
  std::error_code ec;
  std::filesystem::rename(tmp_path, target, ec);
  if (ec) throw SpoolIoError("cannot finalize " + tmp_path.string() + ": " + ec.message());
  if (sync) sync_directory_of(target);
  result.finalized_path = target;
  return result;
}

}  // namespace queen::spool
