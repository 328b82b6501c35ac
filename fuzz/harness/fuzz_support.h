#pragma once
// Shared helpers of the libFuzzer harnesses: a hard invariant check (a failed one is a finding, reported like a
// crash), a byte cursor for harnesses that take a few control bytes before the data, and logging turned off so
// the fuzzer's output stays readable and fast.
#include <spdlog/spdlog.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#define FUZZ_CHECK(cond, ...)                                                        \
  do {                                                                               \
    if (!(cond)) {                                                                   \
      std::fprintf(stderr, "fuzz invariant failed at %s:%d: %s\n", __FILE__, __LINE__, #cond); \
      std::fprintf(stderr, "  " __VA_ARGS__);                                        \
      std::fprintf(stderr, "\n");                                                    \
      std::abort();                                                                  \
    }                                                                                \
  } while (0)

namespace queen::fuzz {

// The mesh harness's QUEEN_SYNC_SECRET; the corpus generator seals its seed frames with it.
inline constexpr std::string_view kMeshSecret = "fuzz-secret-0123456789";

inline void quiet_logs() {
  static const bool done = [] {
    spdlog::set_level(spdlog::level::off);
    return true;
  }();
  (void)done;
}

// Reads control values off the front of the input; what is left is the data under test.
class Cursor {
 public:
  Cursor(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  std::uint8_t byte() {
    if (pos_ >= size_) return 0;
    return data_[pos_++];
  }
  std::string_view rest() const {
    return std::string_view(reinterpret_cast<const char*>(data_ + pos_), size_ - pos_);
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

// Splits `text` on every occurrence of `separator` (the pieces may be empty).
template <typename F>
void split_on(std::string_view text, std::string_view separator, F&& piece) {
  std::size_t start = 0;
  while (true) {
    const std::size_t at = text.find(separator, start);
    if (at == std::string_view::npos) {
      piece(text.substr(start));
      return;
    }
    piece(text.substr(start, at - start));
    start = at + separator.size();
  }
}

}  // namespace queen::fuzz
