#include "http/transport/server.h"

#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <array>
#include <atomic>
#include <future>
#include <mutex>
#include <optional>
#include <unordered_map>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>
#include <spdlog/spdlog.h>

#include "http/transport/access_log.h"
#include "http/transport/body_budget.h"
#include "http/transport/handler_pool.h"
#include "http/transport/wire_request.h"

namespace queen::http {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace beast_http = boost::beast::http;
using tcp = asio::ip::tcp;

class Session;

// What every connection shares; outlives the sessions (they hold it).
struct ServerState {
  ServerState(const config::HttpConfig& c, const Dispatcher& d)
      : config(c),
        dispatcher(d),
        body_budget(c.max_body_bytes_in_flight, &d.metrics()),
        pool(c.min_threads, c.max_threads, c.max_queued),
        access_log(spdlog::get("access")) {}

  const config::HttpConfig config;
  const Dispatcher& dispatcher;
  BodyBudget body_budget;
  // Where refused requests' unread bodies are dropped while their answer is delivered
  // (event loop only; the bytes are never looked at).
  std::array<char, 64 * 1024> discard{};
  asio::io_context io{1};
  // Keeps the loop running until drain() has closed every connection.
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> keep_running;
  std::optional<tcp::acceptor> acceptor;
  std::optional<asio::steady_timer> accept_pause;
  HandlerPool pool;
  // The logger "access" (ACCESS_LOG; its level says whether lines are written). Null: none.
  const std::shared_ptr<spdlog::logger> access_log;
  std::atomic<int> connections{0};
  std::atomic<int> in_flight{0};
  std::atomic<bool> draining{false};

  // Open connections, to close at shutdown.
  std::mutex sessions_mutex;
  std::unordered_map<Session*, std::weak_ptr<Session>> sessions;

  // Set once the event loop has ended: a late answer (a long poll released
  // after shutdown) is dropped instead of queued on a loop that never runs.
  std::mutex post_mutex;
  bool loop_ended = false;
  template <typename Handler>
  void post_to_loop(Handler handler) {
    std::lock_guard<std::mutex> lock(post_mutex);
    if (!loop_ended) asio::post(io, std::move(handler));
  }
};

namespace {

// Past HTTP_MAX_CONNECTIONS a new connection gets this and is closed.
constexpr std::string_view kTooManyConnections =
    "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nConnection: close\r\n"
    "Content-Length: 54\r\n\r\n{\"error\":\"Too many connections (HTTP_MAX_CONNECTIONS)\"}";
constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";

// The client closed its end: readable with nothing to read, or hung up.
// (A pipelined next request makes it readable with bytes available.)
bool peer_closed(int fd) {
  pollfd p{fd, POLLIN | POLLRDHUP, 0};
  if (::poll(&p, 1, 0) <= 0) return false;
  if (p.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)) return true;
  char byte;
  return ::recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}

Response body_budget_exhausted() {
  Response busy = Response::error(503, "Too many request-body bytes in flight, retry shortly "
                                       "(HTTP_MAX_BODY_BYTES_IN_FLIGHT)");
  busy.headers.emplace_back("Retry-After", "1");
  return busy;
}

bool expects_continue(const RequestParser& parser) {
  const auto expect = parser.get()[beast_http::field::expect];
  return expect.size() == 12 && strncasecmp(expect.data(), "100-continue", 12) == 0;
}

}  // namespace

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(std::shared_ptr<ServerState> state, tcp::socket socket)
      : state_(std::move(state)),
        stream_(std::move(socket)),
        buffer_(static_cast<std::size_t>(state_->config.max_header_bytes) + 64 * 1024) {}
  ~Session() {
    {
      std::lock_guard<std::mutex> lock(state_->sessions_mutex);
      state_->sessions.erase(this);
    }
    state_->connections.fetch_sub(1);
  }

  void start() {
    {
      std::lock_guard<std::mutex> lock(state_->sessions_mutex);
      state_->sessions.emplace(this, weak_from_this());
    }
    read_head();
  }

  // Event loop only.
  void close() {
    closed_ = true;
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream_.close();
  }

 private:
  const config::HttpConfig& config() const { return state_->config; }

  void read_head() {
    parser_.emplace();
    apply_limits(*parser_, config());
    request_.reset();
    reservation_ = state_->body_budget.open();
    origin_.clear();
    preflight_ = false;
    // A new connection has the header deadline; a kept-alive one may idle
    // up to the keep-alive timeout before its next request is whole.
    stream_.expires_after(std::chrono::milliseconds(requests_ == 0 ? config().header_timeout_ms
                                                                    : config().keep_alive_timeout_ms));
    beast_http::async_read_header(stream_, buffer_, *parser_,
                                  [self = shared_from_this()](beast::error_code ec, std::size_t) {
                                    self->on_head(ec);
                                  });
  }

  // Everything that can refuse a request is decided here, before a byte of its body is read
  // (or buffered): the head's limits, the target, the cross-origin check, the access gate and
  // the body budget.
  void on_head(beast::error_code ec) {
    if (ec) return on_read_error(ec);
    const auto& head = parser_->get();
    version_ = head.version();
    origin_ = std::string(head[beast_http::field::origin]);
    started_ = std::chrono::steady_clock::now();
    facts_ = std::make_shared<RequestFacts>();
    facts_->request_id = request_id_of(head["X-Request-Id"]);
    method_ = std::string(head.method_string());
    const std::string_view target = head.target();
    path_ = std::string(target.substr(0, target.find('?')));
    preflight_ = head.method() == beast_http::verb::options &&
                 head.find(beast_http::field::access_control_request_method) != head.end();
    if (auto refused = check_request_head(*parser_, config())) return answer_and_close(std::move(*refused));
    try {
      request_ = make_request_head(head.method_string(), head.target(), config());
    } catch (const HttpError& e) {
      return answer_and_close(Response::error(e.status(), e.what()));
    }
    request_->facts = facts_;
    request_->accept = std::string(head[beast_http::field::accept]);
    request_->source = RequestSource{origin_, std::string(head["Sec-Fetch-Site"]),
                                     std::string(head[beast_http::field::host]), std::string(head["X-Forwarded-Host"])};
    if (state_->dispatcher.wants_authorization()) {
      request_->authorization = std::string(head[beast_http::field::authorization]);
    }
    if (auto refused = state_->dispatcher.authorize_head(*request_)) return answer_and_close(std::move(*refused));
    // A declared length is reserved whole (the body is allocated at that size as it starts); a
    // chunked body reserves as it grows (read_chunked_body).
    if (const auto length = parser_->content_length(); length && !parser_->is_done()) {
      if (!reservation_.grow_to(static_cast<std::int64_t>(*length))) return answer_and_close(body_budget_exhausted());
    }
    if (!parser_->is_done() && expects_continue(*parser_)) {
      stream_.expires_after(std::chrono::milliseconds(config().write_timeout_ms));
      return asio::async_write(stream_, asio::buffer(kContinue.data(), kContinue.size()),
                               [self = shared_from_this()](beast::error_code ec, std::size_t) {
                                 if (ec) return self->close();
                                 self->read_body();
                               });
    }
    read_body();
  }

  void read_body() {
    if (parser_->is_done()) return on_request();
    stream_.expires_after(std::chrono::milliseconds(config().body_timeout_ms));
    if (parser_->chunked()) return read_chunked_body();
    beast_http::async_read(stream_, buffer_, *parser_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (ec) return self->on_read_error(ec);
      self->on_request();
    });
  }

  // A piece at a time, so the reservation follows the body (under the one body deadline).
  void read_chunked_body() {
    beast_http::async_read_some(stream_, buffer_, *parser_,
                                [self = shared_from_this()](beast::error_code ec, std::size_t) {
                                  if (ec) return self->on_read_error(ec);
                                  const auto held = static_cast<std::int64_t>(self->parser_->get().body().size());
                                  if (!self->reservation_.grow_to(held)) {
                                    return self->answer_and_close(body_budget_exhausted());
                                  }
                                  if (self->parser_->is_done()) return self->on_request();
                                  self->read_chunked_body();
                                });
  }

  void on_read_error(const beast::error_code& ec) {
    if (auto answer = answer_for_read_error(ec)) return answer_and_close(std::move(*answer));
    close();
  }

  // The answer to a request refused before it was read whole: the connection ends after it.
  void answer_and_close(Response response) {
    keep_alive_ = false;
    lingering_ = true;
    write(std::move(response));
  }

  void on_request() {
    stream_.expires_never();  // no read or write is pending until the answer
    ++requests_;
    auto& message = parser_->get();
    keep_alive_ = message.keep_alive();
    Request request = std::move(*request_);
    request_.reset();
    request.body = std::move(message.body());
    parser_.reset();
    if (reservation_.bytes() > 0) {
      request.body_reservation = std::make_shared<BodyBudget::Reservation>(std::move(reservation_));
    }

    state_->in_flight.fetch_add(1);
    auto self = shared_from_this();
    auto answered = std::make_shared<std::atomic<bool>>(false);
    auto reply = [self, answered](Response response) {
      if (answered->exchange(true)) {
        spdlog::error("http: a request was answered twice; the second answer is dropped");
        return;
      }
      self->state_->post_to_loop([self, response = std::move(response)]() mutable {
        self->state_->in_flight.fetch_sub(1);
        self->write(std::move(response));
      });
    };
    const int fd = stream_.socket().native_handle();
    request.client_gone = [self, fd] { return self->closed_.load() || peer_closed(fd); };
    request.post = [state = state_](std::function<void()> task) { state->pool.post(std::move(task)); };
    request.reply = reply;
    const bool queued = state_->pool.try_post([state = state_, reply, request = std::move(request)]() mutable {
      Response response = state->dispatcher.dispatch(request);
      if (!response.deferred) reply(std::move(response));
    });
    if (!queued) {
      state_->in_flight.fetch_sub(1);
      answered->store(true);
      write(Response::error(503, "Server busy: too many requests waiting (HTTP_MAX_QUEUED)"));
    }
  }

  // After the answer to a refused request: stop sending, and drop what the client still sends
  // (its body) until it closes or the body deadline passes. Closing with unread bytes would make
  // the kernel reset the connection, and a client still sending would lose the answer.
  void linger() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream_.expires_after(std::chrono::milliseconds(config().body_timeout_ms));
    discard_until_closed();
  }

  void discard_until_closed() {
    stream_.async_read_some(asio::buffer(state_->discard),
                            [self = shared_from_this()](beast::error_code ec, std::size_t) {
                              if (ec) return self->close();
                              self->discard_until_closed();
                            });
  }

  // The answer's request id header, its metrics and its access-log line; the request's facts end here.
  void account(Response& response) {
    if (!facts_) {  // refused before its head was read whole
      facts_ = std::make_shared<RequestFacts>();
      facts_->request_id = request_id_of("");
      started_ = std::chrono::steady_clock::now();
      method_.clear();
      path_.clear();
    }
    response.headers.emplace_back("X-Request-Id", facts_->request_id);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    state_->dispatcher.metrics().record_http_answer(facts_->route, method_, response.status, seconds);
    if (state_->access_log && state_->access_log->should_log(spdlog::level::info)) {
      state_->access_log->info(access_line(AccessEntry{method_, facts_->route, path_, response.status, seconds,
                                                       facts_->tenant, response.body.size(), facts_->request_id}));
    }
    facts_.reset();
  }

  void write(Response response) {
    if (closed_) return;
    account(response);
    state_->dispatcher.cors().apply(origin_, preflight_, response);
    auto out = std::make_shared<beast_http::response<beast_http::string_body>>();
    out->version(version_);
    out->result(static_cast<unsigned>(response.status));
    out->set(beast_http::field::server, "queen");
    for (const auto& [name, value] : response.headers) out->set(name, value);
    const bool bodiless = response.status == 204 || response.status == 304 || response.status < 200;
    if (!bodiless) {
      if (!response.content_type.empty()) out->set(beast_http::field::content_type, response.content_type);
      out->body() = std::move(response.body);
      out->content_length(out->body().size());
    }
    out->keep_alive(keep_alive_ && !state_->draining.load());
    stream_.expires_after(std::chrono::milliseconds(config().write_timeout_ms));
    beast_http::async_write(stream_, *out, [self = shared_from_this(), out](beast::error_code ec, std::size_t) {
      if (ec) return self->close();
      if (!out->keep_alive()) return self->lingering_ ? self->linger() : self->close();
      self->read_head();
    });
  }

  std::shared_ptr<ServerState> state_;
  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::optional<RequestParser> parser_;
  // What the head of the request being read decided, until its body is whole.
  std::optional<Request> request_;
  BodyBudget::Reservation reservation_;
  std::string origin_;  // its Origin header ("" = none), for the CORS headers of its answer
  // The request being served, for its answer's accounting (account()).
  std::shared_ptr<RequestFacts> facts_;
  std::string method_;
  std::string path_;
  std::chrono::steady_clock::time_point started_;
  bool preflight_ = false;
  bool lingering_ = false;  // its answer refuses it before it was read whole
  std::atomic<bool> closed_{false};
  unsigned version_ = 11;
  bool keep_alive_ = true;
  std::uint64_t requests_ = 0;
};

namespace {

void accept_next(const std::shared_ptr<ServerState>& state);

void pause_accepting(const std::shared_ptr<ServerState>& state) {
  // Out of file descriptors (or a similar resource): retry shortly instead
  // of spinning on the same error.
  state->accept_pause->expires_after(std::chrono::milliseconds(100));
  state->accept_pause->async_wait([state](beast::error_code ec) {
    if (!ec) accept_next(state);
  });
}

void accept_next(const std::shared_ptr<ServerState>& state) {
  if (!state->acceptor || !state->acceptor->is_open()) return;
  state->acceptor->async_accept([state](beast::error_code ec, tcp::socket socket) {
    if (ec == asio::error::operation_aborted) return;
    if (ec) {
      spdlog::warn("http: accept failed: {}", ec.message());
      return pause_accepting(state);
    }
    if (state->connections.fetch_add(1) >= state->config.max_connections) {
      state->connections.fetch_sub(1);
      beast::error_code ignored;
      socket.non_blocking(true, ignored);
      socket.write_some(asio::buffer(kTooManyConnections.data(), kTooManyConnections.size()), ignored);
      socket.close(ignored);
    } else {
      beast::error_code ignored;
      socket.set_option(tcp::no_delay(true), ignored);
      std::make_shared<Session>(state, std::move(socket))->start();
    }
    accept_next(state);
  });
}

// Event loop only.
void close_all_sessions(ServerState& state) {
  std::vector<std::shared_ptr<Session>> open;
  {
    std::lock_guard<std::mutex> lock(state.sessions_mutex);
    for (auto& [raw, weak] : state.sessions) {
      if (auto session = weak.lock()) open.push_back(std::move(session));
    }
  }
  for (const auto& session : open) session->close();
}

// Each connection is a file descriptor: make room for HTTP_MAX_CONNECTIONS
// plus the database pool, the spool and the mesh.
void raise_open_file_limit(int max_connections) {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return;
  const rlim_t wanted = static_cast<rlim_t>(max_connections) + 4096;
  if (limit.rlim_cur >= wanted) return;
  rlimit raised = limit;
  raised.rlim_cur = wanted;
  if (raised.rlim_max < wanted) raised.rlim_max = wanted;  // allowed as root only
  if (setrlimit(RLIMIT_NOFILE, &raised) != 0) {
    raised.rlim_cur = limit.rlim_max;
    raised.rlim_max = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &raised);
    // Only a limit below the connections themselves is worth a warning; short of the headroom
    // alone, a connection past the limit makes the acceptor pause briefly (pause_accepting).
    if (limit.rlim_max < static_cast<rlim_t>(max_connections)) {
      spdlog::warn("http: open file limit is {}, below HTTP_MAX_CONNECTIONS ({}): raise it (ulimit -n) or lower "
                   "HTTP_MAX_CONNECTIONS",
                   limit.rlim_max, max_connections);
    } else {
      spdlog::debug("http: open file limit is {} (HTTP_MAX_CONNECTIONS {} plus {} wanted for the rest)",
                    limit.rlim_max, max_connections, wanted - static_cast<rlim_t>(max_connections));
    }
  }
}

}  // namespace

HttpServer::HttpServer(const config::HttpConfig& config, const Dispatcher& dispatcher)
    : config_(config), dispatcher_(dispatcher) {}

HttpServer::~HttpServer() { drain(std::chrono::milliseconds(0)); }

void HttpServer::start() {
  raise_open_file_limit(config_.max_connections);
  state_ = std::make_shared<ServerState>(config_, dispatcher_);
  const auto address = asio::ip::make_address(config_.host == "localhost" ? "127.0.0.1" : config_.host);
  tcp::acceptor acceptor(state_->io);
  const tcp::endpoint endpoint(address, static_cast<std::uint16_t>(config_.port));
  acceptor.open(endpoint.protocol());
  acceptor.set_option(asio::socket_base::reuse_address(true));
  acceptor.bind(endpoint);
  acceptor.listen(4096);
  port_ = acceptor.local_endpoint().port();
  state_->acceptor.emplace(std::move(acceptor));
  state_->accept_pause.emplace(state_->io);
  state_->keep_running.emplace(state_->io.get_executor());
  accept_next(state_);
  io_thread_ = std::thread([state = state_] {
    for (;;) {
      try {
        state->io.run();
        return;
      } catch (const std::exception& e) {
        spdlog::error("http: event loop handler threw: {}", e.what());
      }
    }
  });
}

void HttpServer::stop_accepting() {
  if (!state_ || !io_thread_.joinable() || state_->draining.exchange(true)) return;
  std::promise<void> closed;
  asio::post(state_->io, [state = state_, &closed] {
    beast::error_code ignored;
    if (state->acceptor) state->acceptor->close(ignored);
    state->accept_pause->cancel();
    closed.set_value();
  });
  closed.get_future().wait();
}

void HttpServer::drain(std::chrono::milliseconds timeout) {
  if (!state_ || !io_thread_.joinable()) return;
  stop_accepting();
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (state_->in_flight.load() > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (state_->in_flight.load() > 0) spdlog::warn("http: {} request(s) still in flight at shutdown", in_flight());
  // Closing every connection aborts its pending operations; the loop then
  // runs out of work and returns. Answers still coming from the handler
  // threads are written (to closed sockets: dropped) until the pool stops.
  state_->post_to_loop([state = state_] { close_all_sessions(*state); });
  state_->pool.stop();
  state_->post_to_loop([state = state_] {
    close_all_sessions(*state);
    state->keep_running.reset();
  });
  io_thread_.join();
  {
    std::lock_guard<std::mutex> lock(state_->post_mutex);
    state_->loop_ended = true;
  }
  state_->io.restart();
  state_->io.poll();  // what was posted between the loop's end and the flag
}

int HttpServer::in_flight() const { return state_ ? state_->in_flight.load() : 0; }
int HttpServer::connections() const { return state_ ? state_->connections.load() : 0; }

}  // namespace queen::http
