// Fuzzes the spool record codec (src/spool/record_codec.*): decode_records over arbitrary file bytes, and the
// encode/decode round trip of everything that decodes.
//
// Input: one control byte, then the data. Control byte % 3:
//   0  the data is a whole spool file, as on disk (length, body, CRC-32 per record);
//   1  the data is a list of record bodies separated by NUL bytes: the harness seals each into a record with a
//      correct length and CRC, so mutations reach the body parser instead of dying on the checksum;
//   2  the data is one record body, given to parse_record_body directly.
#include <stdexcept>

#include "fuzz_support.h"
#include "spool_seal.h"
#include "spool/record_codec.h"

using namespace queen::spool;
using queen::fuzz::Cursor;
using queen::Tenant;

namespace {

// Whatever decodes must encode again (the drain may need to rewrite it) and decode back to itself.
void check_round_trip(const SpoolEvent& event) {
  std::string record;
  try {
    record = encode_record(event);
  } catch (const std::invalid_argument& e) {
    FUZZ_CHECK(false, "a decoded event cannot be encoded again: %s", e.what());
  }
  const DecodeResult again = decode_records(record);
  FUZZ_CHECK(!again.torn_tail, "re-encoded record does not decode: %s", again.tail_reason.c_str());
  FUZZ_CHECK(again.events.size() == 1, "re-encoded record decodes to %zu events", again.events.size());
  FUZZ_CHECK(again.events[0] == event, "round trip changed the event (payload %s -> %s)",
             event.payload_json.c_str(), again.events[0].payload_json.c_str());
  FUZZ_CHECK(again.good_bytes == record.size(), "good_bytes %zu of %zu", again.good_bytes, record.size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  queen::fuzz::quiet_logs();
  Cursor in(data, size);
  const int mode = in.byte() % 3;

  if (mode == 2) {
    SpoolEvent event(Tenant::default_tenant());  // parse_record_body sets the record's
    std::string error;
    if (parse_record_body(in.rest(), event, error)) check_round_trip(event);
    return 0;
  }

  const std::string bytes = mode == 0 ? std::string(in.rest()) : queen::fuzz::seal_spool_bodies(in.rest());
  const DecodeResult result = decode_records(bytes);
  FUZZ_CHECK(result.good_bytes <= bytes.size(), "good_bytes past the end");
  FUZZ_CHECK(result.torn_tail == (result.good_bytes < bytes.size()), "torn_tail disagrees with good_bytes");
  FUZZ_CHECK(result.torn_tail == !result.tail_reason.empty(), "tail_reason without a torn tail (or the reverse)");

  // The good prefix alone is a clean file with the same events.
  const DecodeResult prefix = decode_records(std::string_view(bytes).substr(0, result.good_bytes));
  FUZZ_CHECK(!prefix.torn_tail && prefix.events == result.events, "the good prefix does not decode the same");

  std::string reencoded;
  for (const auto& event : result.events) {
    check_round_trip(event);
    append_record(reencoded, event);
  }
  const DecodeResult again = decode_records(reencoded);
  FUZZ_CHECK(!again.torn_tail && again.events == result.events, "re-encoded file does not decode the same");
  return 0;
}
