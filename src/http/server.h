#pragma once
// The Poco::Net::HTTPServer adapter: reads bodies (bounded by
// MAX_BODY_BYTES, 413 beyond), hands a Request to the Dispatcher and writes
// the Response with an explicit Content-Length (204: no body at all).
#include <atomic>
#include <chrono>
#include <memory>

#include "config/config.h"
#include "http/dispatcher.h"

namespace Poco {
class ThreadPool;
namespace Net {
class HTTPServer;
}
}  // namespace Poco

namespace queen::http {

class HttpServer {
 public:
  HttpServer(const config::HttpConfig& config, const Dispatcher& dispatcher);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds and starts accepting. Throws on bind failure.
  void start();
  // Stops accepting; in-flight requests finish.
  void stop_accepting();
  // Waits up to `timeout` for in-flight requests, then closes idle
  // keep-alive connections and joins the worker threads.
  void drain(std::chrono::milliseconds timeout);

  std::uint16_t port() const;
  int in_flight() const { return in_flight_->load(); }

 private:
  const config::HttpConfig config_;
  const Dispatcher& dispatcher_;
  std::shared_ptr<std::atomic<int>> in_flight_;
  std::unique_ptr<Poco::ThreadPool> threads_;
  std::unique_ptr<Poco::Net::HTTPServer> server_;
};

}  // namespace queen::http
