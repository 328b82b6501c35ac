#pragma once
// Seals NUL-separated record bodies into spool records with a correct length and CRC-32, so that mutations of
// the bodies reach the body parser instead of failing the checksum.
#include <Poco/Checksum.h>

#include <string>
#include <string_view>

#include "fuzz_support.h"

namespace queen::fuzz {

inline void put_u32_le(std::string& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xffu));
}

inline std::string seal_spool_bodies(std::string_view bodies) {
  std::string out;
  split_on(bodies, std::string_view("\0", 1), [&](std::string_view body) {
    const std::size_t start = out.size();
    put_u32_le(out, static_cast<std::uint32_t>(body.size()));
    out.append(body);
    Poco::Checksum crc(Poco::Checksum::TYPE_CRC32);
    crc.update(out.data() + start, static_cast<unsigned>(out.size() - start));
    put_u32_le(out, crc.checksum());
  });
  return out;
}

}  // namespace queen::fuzz
