#pragma once
// The HTTP/1.1 front end: one event-loop thread (Boost.Asio + Beast) owns
// every connection, reads requests within the transport limits and
// deadlines, and hands whole requests to a HandlerPool. A handler answers
// at once or later (a parked long poll holds no thread); the answer is
// written back on the event loop. Slow, idle and silent clients cost a
// socket and a bounded buffer, never a thread.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <thread>

#include "config/config.h"
#include "http/transport/dispatcher.h"

namespace queen::http {

struct ServerState;

class HttpServer {
 public:
  // The transport limits are `config`'s; the CORS headers and the cross-origin refusal follow the
  // dispatcher's policy (Dispatcher::cors(), built from config.cors_origins by its owner).
  HttpServer(const config::HttpConfig& config, const Dispatcher& dispatcher);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds and starts accepting. Throws on bind failure.
  void start();
  // Stops accepting (the port is closed on return); in-flight requests
  // finish and their connections close after the answer.
  void stop_accepting();
  // Waits up to `timeout` for in-flight requests, then closes every
  // connection and joins the event loop and the handler threads.
  void drain(std::chrono::milliseconds timeout);

  std::uint16_t port() const { return port_; }
  int in_flight() const;
  int connections() const;

 private:
  const config::HttpConfig config_;
  const Dispatcher& dispatcher_;
  std::shared_ptr<ServerState> state_;
  std::thread io_thread_;
  std::uint16_t port_ = 0;
};

}  // namespace queen::http
