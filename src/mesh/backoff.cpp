#include "mesh/backoff.h"

#include <algorithm>

namespace queen::mesh {

std::chrono::milliseconds reconnect_delay(unsigned attempt, std::chrono::milliseconds min_delay,
                                          std::chrono::milliseconds max_delay, double jitter) {
  const long long floor_ms = std::max<long long>(0, min_delay.count());
  const long long max_ms = std::max<long long>(floor_ms, max_delay.count());
  long long ceiling = std::max<long long>(1, 2 * floor_ms);
  // Doubling stops at the cap, so a large attempt number cannot overflow.
  for (unsigned i = 0; i < attempt && ceiling < max_ms; ++i) ceiling *= 2;
  ceiling = std::min(ceiling, std::max<long long>(1, max_ms));

  jitter = std::clamp(jitter, 0.0, 1.0);
  const long long half = ceiling / 2;
  const long long delay = half + static_cast<long long>(jitter * static_cast<double>(ceiling - half));
  return std::chrono::milliseconds(std::clamp(delay, floor_ms, std::max(floor_ms, ceiling)));
}

}  // namespace queen::mesh
