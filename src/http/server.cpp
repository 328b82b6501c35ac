#include "http/server.h"

#include <algorithm>
#include <thread>

#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPRequestHandlerFactory.h>
#include <Poco/Net/HTTPServer.h>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerRequestImpl.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/ThreadPool.h>
#include <spdlog/spdlog.h>

#include "http/query.h"

namespace queen::http {
namespace {

enum class BodyRead { Ok, TooLarge };

BodyRead read_body(Poco::Net::HTTPServerRequest& request, std::int64_t max_bytes, std::string& body) {
  std::istream& in = request.stream();
  if (request.hasContentLength()) {
    const std::int64_t length = request.getContentLength64();
    if (length > max_bytes) return BodyRead::TooLarge;
    body.resize(static_cast<std::size_t>(length));
    in.read(body.data(), static_cast<std::streamsize>(length));
    body.resize(static_cast<std::size_t>(in.gcount()));
    return BodyRead::Ok;
  }
  // Without Content-Length or chunked encoding an HTTP/1.1 request has no
  // body (reading would block until the client gives up).
  if (!request.getChunkedTransferEncoding()) return BodyRead::Ok;
  char chunk[64 * 1024];
  while (in) {
    in.read(chunk, sizeof chunk);
    body.append(chunk, static_cast<std::size_t>(in.gcount()));
    if (static_cast<std::int64_t>(body.size()) > max_bytes) return BodyRead::TooLarge;
  }
  return BodyRead::Ok;
}

// The client closed its end: the socket is readable with nothing to read.
// (A pipelined next request makes it readable with bytes available.)
bool peer_closed(Poco::Net::StreamSocket& socket) {
  try {
    if (!socket.poll(Poco::Timespan(0), Poco::Net::Socket::SELECT_READ | Poco::Net::Socket::SELECT_ERROR)) {
      return false;
    }
    return socket.available() <= 0;
  } catch (const std::exception&) {
    return true;
  }
}

void send(Poco::Net::HTTPServerResponse& out, const Response& response) {
  out.setStatusAndReason(static_cast<Poco::Net::HTTPResponse::HTTPStatus>(response.status));
  for (const auto& [name, value] : response.headers) out.set(name, value);
  if (response.status == 204) {
    // No body and, per RFC 9110, no Content-Length on a 204.
    out.send().flush();
    return;
  }
  out.setContentType(response.content_type);
  out.setContentLength64(static_cast<Poco::Int64>(response.body.size()));
  std::ostream& body = out.send();
  body.write(response.body.data(), static_cast<std::streamsize>(response.body.size()));
  // Flush now: Poco would otherwise hold the bytes in its stream buffer
  // until the connection object is done with the request.
  body.flush();
}

class RequestHandler : public Poco::Net::HTTPRequestHandler {
 public:
  RequestHandler(const Dispatcher& dispatcher, std::int64_t max_body_bytes, std::shared_ptr<std::atomic<int>> in_flight)
      : dispatcher_(dispatcher), max_body_bytes_(max_body_bytes), in_flight_(std::move(in_flight)) {}

  void handleRequest(Poco::Net::HTTPServerRequest& in, Poco::Net::HTTPServerResponse& out) override {
    struct InFlight {
      std::atomic<int>& count;
      explicit InFlight(std::atomic<int>& c) : count(c) { ++count; }
      ~InFlight() { --count; }
    } guard(*in_flight_);

    try {
      Request request;
      request.method = in.getMethod();
      const std::string& uri = in.getURI();
      const std::size_t question = uri.find('?');
      request.path = uri.substr(0, question);
      if (question != std::string::npos) request.query = parse_query_string(std::string_view(uri).substr(question + 1));

      if (read_body(in, max_body_bytes_, request.body) == BodyRead::TooLarge) {
        Response response = Response::error(413, "Request body too large");
        add_cors_headers(response);
        out.setKeepAlive(false);  // the unread body cannot be skipped safely
        send(out, response);
        return;
      }
      if (auto* impl = dynamic_cast<Poco::Net::HTTPServerRequestImpl*>(&in)) {
        Poco::Net::StreamSocket socket = impl->socket();
        request.client_gone = [socket]() mutable { return peer_closed(socket); };
      }
      send(out, dispatcher_.dispatch(request));
    } catch (const std::exception& e) {
      // Typically the client went away while we were writing.
      spdlog::debug("http: request failed at the transport: {}", e.what());
    }
  }

 private:
  const Dispatcher& dispatcher_;
  const std::int64_t max_body_bytes_;
  std::shared_ptr<std::atomic<int>> in_flight_;
};

class HandlerFactory : public Poco::Net::HTTPRequestHandlerFactory {
 public:
  HandlerFactory(const Dispatcher& dispatcher, std::int64_t max_body_bytes, std::shared_ptr<std::atomic<int>> in_flight)
      : dispatcher_(dispatcher), max_body_bytes_(max_body_bytes), in_flight_(std::move(in_flight)) {}

  Poco::Net::HTTPRequestHandler* createRequestHandler(const Poco::Net::HTTPServerRequest&) override {
    return new RequestHandler(dispatcher_, max_body_bytes_, in_flight_);
  }

 private:
  const Dispatcher& dispatcher_;
  const std::int64_t max_body_bytes_;
  std::shared_ptr<std::atomic<int>> in_flight_;
};

}  // namespace

HttpServer::HttpServer(const config::HttpConfig& config, const Dispatcher& dispatcher)
    : config_(config), dispatcher_(dispatcher), in_flight_(std::make_shared<std::atomic<int>>(0)) {}

HttpServer::~HttpServer() {
  if (server_) {
    try {
      server_->stopAll(true);
      threads_->joinAll();
    } catch (...) {
    }
  }
}

void HttpServer::start() {
  // A long poll holds its worker thread while parked, so the pool is sized
  // for parked polls plus live traffic (HTTP_MAX_THREADS).
  threads_ = std::make_unique<Poco::ThreadPool>("http", std::min(config_.min_threads, config_.max_threads),
                                                config_.max_threads, 60);
  Poco::Net::ServerSocket socket(Poco::Net::SocketAddress(config_.host, static_cast<Poco::UInt16>(config_.port)),
                                 1024);
  auto* params = new Poco::Net::HTTPServerParams;
  params->setMaxThreads(config_.max_threads);
  params->setMaxQueued(config_.max_queued);
  params->setKeepAlive(true);
  params->setMaxKeepAliveRequests(0);  // unlimited requests per connection
  params->setKeepAliveTimeout(Poco::Timespan(static_cast<long>(config_.keep_alive_timeout_ms) * 1000));
  params->setServerName("queen");
  server_ = std::make_unique<Poco::Net::HTTPServer>(
      new HandlerFactory(dispatcher_, config_.max_body_bytes, in_flight_), *threads_, socket, params);
  server_->start();
}

void HttpServer::stop_accepting() {
  if (server_) server_->stopAll(false);
}

void HttpServer::drain(std::chrono::milliseconds timeout) {
  if (!server_) return;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (in_flight_->load() > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (in_flight_->load() > 0) spdlog::warn("http: {} request(s) still in flight at shutdown", in_flight_->load());
  // Idle keep-alive connections would otherwise hold their threads until the
  // keep-alive timeout.
  server_->stopAll(true);
  threads_->joinAll();
  server_.reset();
}

std::uint16_t HttpServer::port() const { return server_ ? server_->port() : 0; }

}  // namespace queen::http
