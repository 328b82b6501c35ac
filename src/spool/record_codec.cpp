#include "spool/record_codec.h"

#include <Poco/Checksum.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

namespace queen::spool {
namespace {

using Json = nlohmann::ordered_json;

// The encoder writes the payload last, after this exact key text, so the
// decoder can hand the payload back byte for byte (no re-serialisation: big
// numbers and key order survive) without building a DOM for it.
constexpr std::string_view kPayloadMember = ",\"payload\":";

void put_u32_le(std::string& out, std::uint32_t v) {
  out.push_back(static_cast<char>(v & 0xffu));
  out.push_back(static_cast<char>((v >> 8) & 0xffu));
  out.push_back(static_cast<char>((v >> 16) & 0xffu));
  out.push_back(static_cast<char>((v >> 24) & 0xffu));
}

std::uint32_t get_u32_le(std::string_view bytes) {
  const auto b = [&](std::size_t i) { return static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i])); };
  return b(0) | (b(1) << 8) | (b(2) << 16) | (b(3) << 24);
}

std::uint32_t crc32_of(std::string_view bytes) {
  Poco::Checksum crc(Poco::Checksum::TYPE_CRC32);
  crc.update(bytes.data(), static_cast<unsigned>(bytes.size()));
  return crc.checksum();
}

// Everything but the payload, serialised as a JSON object.
std::string header_json(const SpoolEvent& e) {
  Json j;
  j["queue"] = e.queue;
  j["partition"] = e.partition;
  if (!e.tenant.is_default()) j["tenant"] = e.tenant.name();
  j["transactionId"] = e.transaction_id;
  if (e.producer_sub) j["producerSub"] = *e.producer_sub;
  if (e.trace_id) j["traceId"] = *e.trace_id;
  if (e.namespace_name) j["namespace"] = *e.namespace_name;
  if (e.task) j["task"] = *e.task;
  if (e.deliver_at_ms) j["deliverAt"] = *e.deliver_at_ms;
  j["encrypted"] = e.encrypted;
  return j.dump();  // throws type_error 316 on invalid UTF-8
}

bool read_string(const Json& j, const char* key, bool required, std::string& out, std::string& error) {
  const auto it = j.find(key);
  if (it == j.end() || (!required && it->is_null())) {
    if (required) error = std::string("missing \"") + key + "\"";
    return !required;
  }
  if (!it->is_string()) {
    error = std::string("\"") + key + "\" is not a string";
    return false;
  }
  out = it->get<std::string>();
  return true;
}

bool read_optional_string(const Json& j, const char* key, std::optional<std::string>& out, std::string& error) {
  std::string value;
  const bool present = j.contains(key) && !j.at(key).is_null();
  if (!read_string(j, key, false, value, error)) return false;
  if (present) out = std::move(value);
  return true;
}

// Fills everything but the payload from a parsed body or header object.
bool read_header(const Json& j, SpoolEvent& out, std::string& error) {
  if (!j.is_object()) {
    error = "body is not a JSON object";
    return false;
  }
  std::string tenant;  // absent: the default tenant's record
  if (!read_string(j, "queue", true, out.queue, error) || !read_string(j, "partition", true, out.partition, error) ||
      !read_string(j, "transactionId", true, out.transaction_id, error) ||
      !read_string(j, "tenant", false, tenant, error) ||
      !read_optional_string(j, "producerSub", out.producer_sub, error) ||
      !read_optional_string(j, "traceId", out.trace_id, error) ||
      !read_optional_string(j, "namespace", out.namespace_name, error) ||
      !read_optional_string(j, "task", out.task, error)) {
    return false;
  }
  const auto deliver_at = j.find("deliverAt");
  if (deliver_at != j.end() && !deliver_at->is_null()) {
    if (!deliver_at->is_number_integer()) {
      error = "\"deliverAt\" is not an integer (epoch ms)";
      return false;
    }
    out.deliver_at_ms = deliver_at->get<std::int64_t>();
  }
  const auto enc = j.find("encrypted");
  if (enc == j.end() || !enc->is_boolean()) {
    error = "\"encrypted\" is missing or not a boolean";
    return false;
  }
  out.encrypted = enc->get<bool>();
  out.tenant = Tenant(std::move(tenant));
  return true;
}

// Fast path for bodies this encoder wrote: header object + raw payload text.
bool parse_split_body(std::string_view body, SpoolEvent& out) {
  const auto pos = body.find(kPayloadMember);
  if (pos == std::string_view::npos || body.empty() || body.back() != '}') return false;
  const auto raw_begin = pos + kPayloadMember.size();
  const std::string_view raw = body.substr(raw_begin, body.size() - 1 - raw_begin);
  std::string header(body.substr(0, pos));
  header.push_back('}');
  const Json j = Json::parse(header, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object() || j.contains("payload") || !Json::accept(raw)) return false;
  std::string ignored;
  SpoolEvent e(Tenant::default_tenant());  // read_header sets the record's
  if (!read_header(j, e, ignored)) return false;
  e.payload_json.assign(raw.data(), raw.size());
  out = std::move(e);
  return true;
}

// Bodies the fast path cannot split get a full parse, and their payload is re-serialised by nlohmann's dump(),
// which recurses once per nesting level: a crafted record nested some 20 000 deep overflowed the stack of
// whoever scanned it (the boot inventory reads every file). The encoder never writes such a body (its layout
// takes the fast path, which never re-serialises), so a body nested deeper than this is refused as malformed.
constexpr std::size_t kMaxFullParseDepth = 1000;

// True when no array/object in `text` opens deeper than max_depth (brackets inside strings do not count).
bool nesting_within(std::string_view text, std::size_t max_depth) {
  std::size_t depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return false;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return true;
}

}  // namespace

void append_record(std::string& out, const SpoolEvent& event) {
  if (!Json::accept(event.payload_json)) throw std::invalid_argument("spool event payload is not valid JSON");
  std::string body;
  try {
    body = header_json(event);
  } catch (const nlohmann::json::exception& ex) {
    throw std::invalid_argument(std::string("spool event cannot be serialised: ") + ex.what());
  }
  body.pop_back();  // the closing brace: the payload member goes last
  body.append(kPayloadMember);
  body.append(event.payload_json);
  body.push_back('}');
  if (body.size() > kMaxRecordBodyBytes) throw std::invalid_argument("spool event is larger than a record may be");

  const std::size_t start = out.size();
  out.reserve(start + body.size() + kRecordOverheadBytes);
  put_u32_le(out, static_cast<std::uint32_t>(body.size()));
  out.append(body);
  put_u32_le(out, crc32_of(std::string_view(out).substr(start)));
}

std::string encode_record(const SpoolEvent& event) {
  std::string out;
  append_record(out, event);
  return out;
}

std::uint32_t declared_body_length(std::string_view bytes) { return get_u32_le(bytes); }

Frame read_frame(std::string_view bytes) {
  Frame f;
  if (bytes.size() < kRecordLengthBytes) return f;  // Truncated
  const std::uint32_t n = get_u32_le(bytes);
  if (n == 0 || n > kMaxRecordBodyBytes) {
    f.status = FrameStatus::BadLength;
    return f;
  }
  const std::size_t size = kRecordOverheadBytes + n;
  if (bytes.size() < size) return f;  // Truncated
  const std::uint32_t stored = get_u32_le(bytes.substr(kRecordLengthBytes + n));
  if (stored != crc32_of(bytes.substr(0, kRecordLengthBytes + n))) {
    f.status = FrameStatus::BadChecksum;
    return f;
  }
  f.status = FrameStatus::Complete;
  f.size = size;
  f.body = bytes.substr(kRecordLengthBytes, n);
  return f;
}

bool parse_record_body(std::string_view body, SpoolEvent& out, std::string& error) {
  if (parse_split_body(body, out)) return true;
  // Any other valid layout (keys reordered by another writer): full parse.
  if (!nesting_within(body, kMaxFullParseDepth)) {
    error = "body nested deeper than " + std::to_string(kMaxFullParseDepth) + " levels";
    return false;
  }
  const Json j = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    error = "body is not valid JSON";
    return false;
  }
  SpoolEvent e(Tenant::default_tenant());  // read_header sets the record's
  if (!read_header(j, e, error)) return false;
  const auto payload = j.find("payload");
  if (payload == j.end()) {
    error = "missing \"payload\"";
    return false;
  }
  e.payload_json = payload->dump();
  out = std::move(e);
  return true;
}

DecodeResult decode_records(std::string_view bytes) {
  DecodeResult result;
  std::size_t offset = 0;
  while (offset < bytes.size()) {
    const Frame frame = read_frame(bytes.substr(offset));
    if (frame.status != FrameStatus::Complete) {
      result.torn_tail = true;
      result.tail_reason = to_string(frame.status);
      break;
    }
    SpoolEvent event(Tenant::default_tenant());  // parse_record_body sets the record's
    std::string error;
    if (!parse_record_body(frame.body, event, error)) {
      result.torn_tail = true;
      result.tail_reason = "malformed body: " + error;
      break;
    }
    result.events.push_back(std::move(event));
    offset += frame.size;
  }
  result.good_bytes = offset;
  return result;
}

const char* to_string(FrameStatus status) noexcept {
  switch (status) {
    case FrameStatus::Complete: return "complete record";
    case FrameStatus::Truncated: return "truncated record";
    case FrameStatus::BadLength: return "record length out of range";
    case FrameStatus::BadChecksum: return "record checksum mismatch";
  }
  return "unknown";
}

}  // namespace queen::spool
