#pragma once
// HTTP_MAX_BODY_BYTES_IN_FLIGHT (docs/limits.md): the request-body bytes all
// connections together may hold. A request reserves its Content-Length when
// its head is read (a chunked body as it grows); one that does not fit is
// answered 503 before its body is read. A reservation is RAII: it returns its
// bytes when the last holder of the request's body lets go, on every path.
#include <atomic>
#include <cstdint>
#include <memory>

#include "metrics/metrics.h"

namespace queen::http {

class BodyBudget {
 public:
  // `metrics`, when given, follows the bytes in flight (queen_http_request_body_bytes_in_flight).
  explicit BodyBudget(std::int64_t capacity_bytes, metrics::Metrics* metrics = nullptr)
      : capacity_(capacity_bytes), metrics_(metrics) {}
  BodyBudget(const BodyBudget&) = delete;
  BodyBudget& operator=(const BodyBudget&) = delete;

  class Reservation {
   public:
    Reservation() = default;
    Reservation(Reservation&& other) noexcept;
    Reservation& operator=(Reservation&& other) noexcept;
    Reservation(const Reservation&) = delete;
    Reservation& operator=(const Reservation&) = delete;
    ~Reservation() { release(); }

    // Takes `total - bytes()` more (no-op when total is not larger); false, holding what it held, when
    // the budget cannot give them.
    bool grow_to(std::int64_t total);
    std::int64_t bytes() const { return bytes_; }
    void release();

   private:
    friend class BodyBudget;
    Reservation(BodyBudget* budget, std::int64_t bytes) : budget_(budget), bytes_(bytes) {}
    BodyBudget* budget_ = nullptr;
    std::int64_t bytes_ = 0;
  };

  // An empty reservation of this budget, to grow_to() later.
  Reservation open() { return Reservation(this, 0); }
  std::int64_t in_flight() const { return in_flight_.load(std::memory_order_relaxed); }
  std::int64_t capacity() const { return capacity_; }

 private:
  bool take(std::int64_t bytes);
  void give_back(std::int64_t bytes);

  const std::int64_t capacity_;
  metrics::Metrics* const metrics_;
  std::atomic<std::int64_t> in_flight_{0};
};

}  // namespace queen::http
