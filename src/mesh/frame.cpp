#include "mesh/frame.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <limits>

namespace queen::mesh {
namespace {

constexpr std::size_t kLengthPrefixBytes = 4;
// version + type: the least a frame must hold besides its MAC before the version can be read.
constexpr std::size_t kMinLengthField = 2 + kMacBytes;

// Appends big-endian integers and length-prefixed strings to a byte vector.
class Writer {
 public:
  explicit Writer(std::vector<std::uint8_t>& out) : out_(out) {}
  void u8(std::uint8_t v) { out_.push_back(v); }
  void u16(std::uint16_t v) { unsigned_be(v, 2); }
  void u32(std::uint32_t v) { unsigned_be(v, 4); }
  void u64(std::uint64_t v) { unsigned_be(v, 8); }
  void bytes(std::string_view s) { out_.insert(out_.end(), s.begin(), s.end()); }
  void str16(std::string_view s) {
    u16(static_cast<std::uint16_t>(s.size()));
    bytes(s);
  }

 private:
  void unsigned_be(std::uint64_t v, int width) {
    for (int shift = (width - 1) * 8; shift >= 0; shift -= 8) out_.push_back(static_cast<std::uint8_t>(v >> shift));
  }
  std::vector<std::uint8_t>& out_;
};

// Reads the same, refusing to go past the end; every read reports failure instead of throwing.
class Reader {
 public:
  Reader(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  bool u8(std::uint8_t& v) {
    std::uint64_t wide = 0;
    if (!unsigned_be(wide, 1)) return false;
    v = static_cast<std::uint8_t>(wide);
    return true;
  }
  bool u16(std::uint16_t& v) {
    std::uint64_t wide = 0;
    if (!unsigned_be(wide, 2)) return false;
    v = static_cast<std::uint16_t>(wide);
    return true;
  }
  bool u64(std::uint64_t& v) { return unsigned_be(v, 8); }
  bool bytes(std::size_t n, std::string& out) {
    if (size_ - pos_ < n) return false;
    out.assign(reinterpret_cast<const char*>(data_ + pos_), n);
    pos_ += n;
    return true;
  }
  // A str16 must be non-empty: no frame field is meaningful empty.
  bool str16(std::string& out) {
    std::uint16_t n = 0;
    return u16(n) && n > 0 && bytes(n, out);
  }
  bool at_end() const { return pos_ == size_; }

 private:
  bool unsigned_be(std::uint64_t& v, std::size_t width) {
    if (size_ - pos_ < width) return false;
    v = 0;
    for (std::size_t i = 0; i < width; ++i) v = (v << 8) | data_[pos_ + i];
    pos_ += width;
    return true;
  }
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

bool known_type(std::uint8_t t) {
  return t >= static_cast<std::uint8_t>(FrameType::Heartbeat) &&
         t <= static_cast<std::uint8_t>(FrameType::ConfigInvalidation);
}

bool str16_fits(const std::string& s) { return !s.empty() && s.size() <= std::numeric_limits<std::uint16_t>::max(); }

bool body_encodable(const Frame& f) {
  switch (f.type) {
    case FrameType::Heartbeat:
      return true;
    case FrameType::PopWake:
      return str16_fits(f.queue) && (!f.partition || str16_fits(*f.partition));
    case FrameType::HotMark:
      return str16_fits(f.queue) && f.partition && str16_fits(*f.partition);
    case FrameType::MaintenanceFlip:
      return f.maintenance_flag == MaintenanceFlag::Push || f.maintenance_flag == MaintenanceFlag::Pop;
    case FrameType::ConfigInvalidation:
      return str16_fits(f.queue);
  }
  return false;
}

void write_body(Writer& w, const Frame& f) {
  switch (f.type) {
    case FrameType::Heartbeat:
      break;
    case FrameType::PopWake:
      w.str16(f.queue);
      w.u8(f.partition ? 1 : 0);
      if (f.partition) w.str16(*f.partition);
      break;
    case FrameType::HotMark:
      w.str16(f.queue);
      w.str16(*f.partition);
      break;
    case FrameType::MaintenanceFlip:
      w.u8(static_cast<std::uint8_t>(f.maintenance_flag));
      w.u8(f.enabled ? 1 : 0);
      break;
    case FrameType::ConfigInvalidation:
      w.str16(f.queue);
      break;
  }
}

bool read_flag_byte(Reader& r, bool& out) {
  std::uint8_t v = 0;
  if (!r.u8(v) || v > 1) return false;
  out = v == 1;
  return true;
}

bool read_body(Reader& r, Frame& f) {
  switch (f.type) {
    case FrameType::Heartbeat:
      return true;
    case FrameType::PopWake: {
      bool has_partition = false;
      if (!r.str16(f.queue) || !read_flag_byte(r, has_partition)) return false;
      if (!has_partition) return true;
      f.partition.emplace();
      return r.str16(*f.partition);
    }
    case FrameType::HotMark:
      f.partition.emplace();
      return r.str16(f.queue) && r.str16(*f.partition);
    case FrameType::MaintenanceFlip: {
      std::uint8_t flag = 0;
      if (!r.u8(flag)) return false;
      if (flag != static_cast<std::uint8_t>(MaintenanceFlag::Push) &&
          flag != static_cast<std::uint8_t>(MaintenanceFlag::Pop))
        return false;
      f.maintenance_flag = static_cast<MaintenanceFlag>(flag);
      return read_flag_byte(r, f.enabled);
    }
    case FrameType::ConfigInvalidation:
      return r.str16(f.queue);
  }
  return false;
}

std::uint32_t read_u32_be(const std::uint8_t* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | std::uint32_t{p[3]};
}

}  // namespace

bool Frame::operator==(const Frame& o) const {
  return type == o.type && sender_id == o.sender_id && boot_id == o.boot_id && sequence == o.sequence &&
         timestamp_ms == o.timestamp_ms && queue == o.queue && partition == o.partition &&
         maintenance_flag == o.maintenance_flag && enabled == o.enabled;
}

Frame make_heartbeat() { return Frame{}; }

Frame make_pop_wake(std::string queue, std::optional<std::string> partition) {
  Frame f;
  f.type = FrameType::PopWake;
  f.queue = std::move(queue);
  f.partition = std::move(partition);
  return f;
}

Frame make_hot_mark(std::string queue, std::string partition) {
  Frame f;
  f.type = FrameType::HotMark;
  f.queue = std::move(queue);
  f.partition = std::move(partition);
  return f;
}

Frame make_maintenance_flip(MaintenanceFlag flag, bool enabled) {
  Frame f;
  f.type = FrameType::MaintenanceFlip;
  f.maintenance_flag = flag;
  f.enabled = enabled;
  return f;
}

Frame make_config_invalidation(std::string queue) {
  Frame f;
  f.type = FrameType::ConfigInvalidation;
  f.queue = std::move(queue);
  return f;
}

std::vector<std::uint8_t> frame_mac(const std::uint8_t* data, std::size_t size, std::string_view secret) {
  std::vector<std::uint8_t> mac(EVP_MAX_MD_SIZE);
  unsigned int mac_len = 0;
  // HMAC() wants a non-null key pointer even for an empty key.
  static const unsigned char kEmptyKey = 0;
  const void* key = secret.empty() ? static_cast<const void*>(&kEmptyKey) : static_cast<const void*>(secret.data());
  if (HMAC(EVP_sha256(), key, static_cast<int>(secret.size()), data, size, mac.data(), &mac_len) == nullptr) {
    mac_len = 0;  // cannot happen with SHA-256; an empty MAC never verifies
  }
  mac.resize(mac_len);
  return mac;
}

std::optional<std::vector<std::uint8_t>> encode_frame(const Frame& frame, std::string_view secret) {
  if (frame.sender_id.empty() || frame.sender_id.size() > kMaxServerIdBytes) return std::nullopt;
  if (!body_encodable(frame)) return std::nullopt;
  // Cheap upper bound before building anything: a caller cannot make us allocate more than a few KiB either.
  std::size_t body_bound = frame.queue.size() + (frame.partition ? frame.partition->size() : 0) + 8;
  if (body_bound > kMaxFrameBytes) return std::nullopt;

  std::vector<std::uint8_t> out;
  out.reserve(kMaxFrameBytes);
  Writer w(out);
  w.u32(0);  // length, patched below
  w.u8(kFrameVersion);
  w.u8(static_cast<std::uint8_t>(frame.type));
  w.u8(static_cast<std::uint8_t>(frame.sender_id.size()));
  w.bytes(frame.sender_id);
  w.u64(frame.boot_id);
  w.u64(frame.sequence);
  w.u64(static_cast<std::uint64_t>(frame.timestamp_ms));
  write_body(w, frame);
  if (out.size() + kMacBytes > kMaxFrameBytes) return std::nullopt;

  const auto length = static_cast<std::uint32_t>(out.size() + kMacBytes - kLengthPrefixBytes);
  for (int i = 0; i < 4; ++i) out[i] = static_cast<std::uint8_t>(length >> (24 - 8 * i));
  const auto mac = frame_mac(out.data(), out.size(), secret);
  out.insert(out.end(), mac.begin(), mac.end());
  return out;
}

const char* to_string(DecodeStatus status) noexcept {
  switch (status) {
    case DecodeStatus::Ok: return "ok";
    case DecodeStatus::NeedMoreBytes: return "need_more_bytes";
    case DecodeStatus::Oversized: return "oversized";
    case DecodeStatus::BadVersion: return "bad_version";
    case DecodeStatus::BadMac: return "bad_mac";
    case DecodeStatus::UnknownType: return "unknown_type";
    case DecodeStatus::Malformed: return "malformed";
  }
  return "unknown";
}

DecodeResult decode_frame(const std::uint8_t* data, std::size_t size, std::string_view secret) {
  DecodeResult result;
  if (size < kLengthPrefixBytes) return result;  // NeedMoreBytes
  const std::size_t length = read_u32_be(data);
  if (length > kMaxFrameBytes - kLengthPrefixBytes) {
    result.status = DecodeStatus::Oversized;
    return result;
  }
  const std::size_t total = kLengthPrefixBytes + length;
  if (length < kMinLengthField) {
    result.status = DecodeStatus::Malformed;
    result.consumed = total;
    return result;
  }
  if (size < total) return result;  // NeedMoreBytes
  result.consumed = total;

  if (data[kLengthPrefixBytes] != kFrameVersion) {
    result.status = DecodeStatus::BadVersion;
    return result;
  }
  const std::size_t signed_size = total - kMacBytes;
  const auto expected = frame_mac(data, signed_size, secret);
  if (expected.size() != kMacBytes || CRYPTO_memcmp(expected.data(), data + signed_size, kMacBytes) != 0) {
    result.status = DecodeStatus::BadMac;
    return result;
  }

  const std::uint8_t type = data[kLengthPrefixBytes + 1];
  if (!known_type(type)) {
    result.status = DecodeStatus::UnknownType;
    return result;
  }
  Frame& f = result.frame;
  f.type = static_cast<FrameType>(type);
  Reader r(data + kLengthPrefixBytes + 2, signed_size - kLengthPrefixBytes - 2);
  std::uint8_t id_len = 0;
  std::uint64_t timestamp = 0;
  const bool ok = r.u8(id_len) && id_len > 0 && r.bytes(id_len, f.sender_id) && r.u64(f.boot_id) &&
                  r.u64(f.sequence) && r.u64(timestamp) && read_body(r, f) && r.at_end();
  if (!ok) {
    result.frame = Frame{};
    result.status = DecodeStatus::Malformed;
    return result;
  }
  f.timestamp_ms = static_cast<std::int64_t>(timestamp);
  result.status = DecodeStatus::Ok;
  return result;
}

}  // namespace queen::mesh
