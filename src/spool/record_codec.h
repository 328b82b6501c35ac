#pragma once
// Spool record codec (pure: no I/O).
//
// Byte layout of one record (all integers little-endian):
//
//   offset   size  field
//   0        4     body_length N (u32), 1 <= N <= kMaxRecordBodyBytes
//   4        N     body: a UTF-8 JSON object
//   4+N      4     CRC-32 (IEEE 802.3, as Poco::Checksum TYPE_CRC32) of bytes [0, 4+N),
//                  i.e. of the length field and the body together
//
// A file is a plain concatenation of records, no file header. The body keys are
//   "queue" (string), "partition" (string), "transactionId" (string),
//   "tenant" (string, omitted for the default tenant), "producerSub" (string,
//   omitted when absent), "traceId", "namespace", "task" (strings, each omitted
//   when absent), "deliverAt" (integer epoch ms, omitted when absent),
//   "encrypted" (bool), "payload" (any JSON: written verbatim as the caller gave it).
//
// Why the trailing CRC: a crash (or a failed write the writer could not cut
// back) can leave a partial length, a partial body or garbage at the end of a
// file. Such a tail must be detected and skipped, never replayed. A reader
// stops at the first record whose length is out of range, whose bytes run
// past the end of the data, whose CRC does not match or whose body is not a
// valid event; everything from there on is reported as the tail. Records
// cannot be resynchronised after a bad one, so damage in the middle of a file
// hides the records behind it as well.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "spool/spool_event.h"

namespace queen::spool {

inline constexpr std::size_t kRecordLengthBytes = 4;
inline constexpr std::size_t kRecordChecksumBytes = 4;
inline constexpr std::size_t kRecordOverheadBytes = kRecordLengthBytes + kRecordChecksumBytes;
// Bound on one body. A single push item of a few MB is normal; a length above
// this can only be garbage, and rejecting it early keeps a reader from trying
// to allocate gigabytes for a corrupt length field.
inline constexpr std::uint32_t kMaxRecordBodyBytes = 256u * 1024u * 1024u;

// Appends the encoded record of `event` to `out`. Throws std::invalid_argument
// (and leaves `out` unchanged) when payload_json is not valid JSON or a string
// field is not valid UTF-8: such an event could never be decoded again.
void append_record(std::string& out, const SpoolEvent& event);
std::string encode_record(const SpoolEvent& event);

enum class FrameStatus {
  Complete,     // a whole record with a matching checksum
  Truncated,    // the data ends inside the record (partial length, body or checksum)
  BadLength,    // length 0 or above kMaxRecordBodyBytes
  BadChecksum,  // the CRC does not match
};

struct Frame {
  FrameStatus status = FrameStatus::Truncated;
  std::size_t size = 0;   // bytes of the whole record when Complete
  std::string_view body;  // the JSON body when Complete
};

// Inspects the record starting at bytes[0].
Frame read_frame(std::string_view bytes);

// The body length a record header declares; requires bytes.size() >= 4.
std::uint32_t declared_body_length(std::string_view bytes);

// Parses a record body. Returns false with `error` set when it is not a JSON
// object with the required keys of the right types.
bool parse_record_body(std::string_view body, SpoolEvent& out, std::string& error);

struct DecodeResult {
  std::vector<SpoolEvent> events;  // every good record before the tail, in order
  std::size_t good_bytes = 0;      // length of the prefix made of good records
  bool torn_tail = false;          // true when bytes after good_bytes exist
  std::string tail_reason;         // why the tail is not a record, when torn_tail
};

// Decodes a whole file's bytes.
DecodeResult decode_records(std::string_view bytes);

const char* to_string(FrameStatus status) noexcept;

}  // namespace queen::spool
