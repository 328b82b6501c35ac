// The HTTP front end over a real loopback socket: framing rules and transport
// limits (docs/limits.md, "Connections and the transport").
#include "http/transport/server.h"

#include <gtest/gtest.h>

#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/StreamCopier.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <chrono>
#include <sstream>
#include <thread>
#include <vector>

#include "../../auth/token_support.h"
#include "../../support/eventually.h"

using namespace queen;
using namespace queen::http;
using queen::test_support::eventually;

namespace {

// The deferred answers of /later, held until the test answers them.
class HeldReplies {
 public:
  void hold(std::function<void(Response)> reply) {
    std::lock_guard<std::mutex> lock(mutex_);
    replies_.push_back(std::move(reply));
  }
  std::size_t held() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return replies_.size();
  }
  void answer_all() {
    std::vector<std::function<void(Response)>> replies;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      replies.swap(replies_);
    }
    for (auto& reply : replies) reply(Response::json(200, "{\"late\":true}"));
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::function<void(Response)>> replies_;
};

struct ServerFixture : ::testing::Test {
  metrics::Metrics metrics;
  HeldReplies later;
  std::atomic<int> stored{0};
  std::vector<std::string> cors_origins;  // HTTP_CORS_ORIGINS from the next restart()
  std::unique_ptr<Dispatcher> dispatcher;
  std::unique_ptr<HttpServer> server;

  Router make_router() {
    Router router;
    // Answered when the test says so, from the test's thread: a parked
    // request holds no handler thread.
    router.add("GET", "/later", queen::auth::kPublic, [this](const Request& r) {
      later.hold(r.reply);
      return Response::later();
    });
    router.add("GET", "/empty", queen::auth::kPublic, [](const Request&) { return Response::no_content(); });
    router.add("POST", "/echo", queen::auth::kPublic, [](const Request& r) { return Response::json(200, "{\"size\":" + std::to_string(r.body.size()) + "}"); });
    // A route that changes state (not public): what a page of another origin must not reach.
    router.add("POST", "/store", queen::auth::AccessLevel::ReadWrite, [this](const Request&) {
      stored.fetch_add(1);
      return Response::json(200, "{\"stored\":true}");
    });
    return router;
  }

  config::HttpConfig config = small_config();

  static config::HttpConfig small_config() {
    config::HttpConfig c = config::Config::defaults().http;
    c.host = "127.0.0.1";
    c.port = 0;  // ephemeral
    c.max_body_bytes = 1024;
    c.min_threads = 2;
    c.max_threads = 4;
    c.max_header_bytes = 4096;
    c.max_header_count = 20;
    c.max_url_bytes = 512;
    c.max_query_params = 8;
    c.header_timeout_ms = 300;
    c.body_timeout_ms = 300;
    c.max_connections = 200;
    return c;
  }

  void SetUp() override { restart(); }
  void restart() {
    if (server) server->drain(std::chrono::milliseconds(1000));
    server.reset();
    dispatcher = std::make_unique<Dispatcher>(make_router(), metrics, nullptr, CorsPolicy(cors_origins));
    server = std::make_unique<HttpServer>(config, *dispatcher);
    server->start();
  }
  void TearDown() override {
    server->stop_accepting();
    server->drain(std::chrono::milliseconds(1000));
  }

  Poco::Net::HTTPClientSession session() { return Poco::Net::HTTPClientSession("127.0.0.1", server->port()); }
};

std::string exchange(Poco::Net::HTTPClientSession& s, Poco::Net::HTTPRequest& request, const std::string& body,
                     Poco::Net::HTTPResponse& response) {
  if (!body.empty() || request.getMethod() == "POST") request.setContentLength64(static_cast<Poco::Int64>(body.size()));
  s.sendRequest(request) << body;
  std::istream& in = s.receiveResponse(response);
  std::ostringstream out;
  Poco::StreamCopier::copyStream(in, out);
  return out.str();
}

}  // namespace

TEST_F(ServerFixture, NoContentHasNoBodyNoLengthAndKeepsTheConnection) {
  auto s = session();
  s.setKeepAlive(true);
  Poco::Net::HTTPRequest request("GET", "/empty", Poco::Net::HTTPMessage::HTTP_1_1);
  Poco::Net::HTTPResponse response;
  EXPECT_EQ(exchange(s, request, "", response), "");
  EXPECT_EQ(response.getStatus(), 204);
  EXPECT_FALSE(response.has("Content-Length"));
  EXPECT_FALSE(response.has("Access-Control-Allow-Origin"));  // CORS is off by default
  EXPECT_TRUE(response.getKeepAlive());

  // The same connection serves the next request.
  Poco::Net::HTTPRequest next("POST", "/echo", Poco::Net::HTTPMessage::HTTP_1_1);
  Poco::Net::HTTPResponse next_response;
  EXPECT_EQ(exchange(s, next, "{\"a\":1}", next_response), "{\"size\":7}");
  EXPECT_EQ(next_response.getContentLength64(), 10);
  EXPECT_EQ(next_response.getContentType(), "application/json");
}

TEST_F(ServerFixture, BodiesOverTheLimitAre413) {
  auto s = session();
  Poco::Net::HTTPRequest request("POST", "/echo", Poco::Net::HTTPMessage::HTTP_1_1);
  Poco::Net::HTTPResponse response;
  const std::string body = exchange(s, request, std::string(2048, 'x'), response);
  EXPECT_EQ(response.getStatus(), 413);
  EXPECT_EQ(body, "{\"error\":\"Request body too large (MAX_BODY_BYTES)\"}");
}

TEST_F(ServerFixture, PostWithoutLengthHasAnEmptyBody) {
  auto s = session();
  Poco::Net::HTTPRequest request("POST", "/echo", Poco::Net::HTTPMessage::HTTP_1_1);
  Poco::Net::HTTPResponse response;
  s.sendRequest(request);  // no Content-Length, not chunked
  std::istream& in = s.receiveResponse(response);
  std::ostringstream out;
  Poco::StreamCopier::copyStream(in, out);
  EXPECT_EQ(response.getStatus(), 200);
  EXPECT_EQ(out.str(), "{\"size\":0}");
}

TEST_F(ServerFixture, ChunkedBodiesAreRead) {
  auto s = session();
  Poco::Net::HTTPRequest request("POST", "/echo", Poco::Net::HTTPMessage::HTTP_1_1);
  request.setChunkedTransferEncoding(true);
  Poco::Net::HTTPResponse response;
  s.sendRequest(request) << std::string(300, 'y');
  std::istream& in = s.receiveResponse(response);
  std::ostringstream out;
  Poco::StreamCopier::copyStream(in, out);
  EXPECT_EQ(out.str(), "{\"size\":300}");
}

namespace {

// A raw client: whatever bytes we like, read until the server closes or
// `wait` passes.
class RawClient {
 public:
  explicit RawClient(std::uint16_t port) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
  }
  ~RawClient() { ::close(fd_); }
  bool connected() const { return connected_; }
  void send(const std::string& bytes) { (void)::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL); }
  // Reads until the peer closes (closed = true) or `wait` passes.
  std::string read_for(std::chrono::milliseconds wait, bool* closed = nullptr) {
    std::string out;
    const auto until = std::chrono::steady_clock::now() + wait;
    timeval tv{0, 20000};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    while (std::chrono::steady_clock::now() < until) {
      char buffer[4096];
      const ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
      if (n == 0) {
        if (closed) *closed = true;
        return out;
      }
      if (n > 0) out.append(buffer, static_cast<std::size_t>(n));
    }
    if (closed) *closed = false;
    return out;
  }

 private:
  int fd_;
  bool connected_ = false;
};

std::string status_line(const std::string& response) { return response.substr(0, response.find("\r\n")); }

}  // namespace

TEST_F(ServerFixture, DeferredAnswersNeedNoHandlerThread) {
  // Four handler threads, sixty parked requests: all answered, and a plain
  // request is served while they wait.
  std::vector<std::unique_ptr<RawClient>> parked;
  for (int i = 0; i < 60; ++i) {
    parked.push_back(std::make_unique<RawClient>(server->port()));
    parked.back()->send("GET /later HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  }
  ASSERT_TRUE(eventually([&] { return later.held() == 60u; })) << "more parked requests than handler threads";
  RawClient plain(server->port());
  plain.send("GET /empty HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(status_line(plain.read_for(std::chrono::seconds(2))), "HTTP/1.1 204 No Content");
  later.answer_all();
  for (auto& client : parked) {
    bool closed = false;  // each asked to close after its answer: the read ends with it
    const std::string answer = client->read_for(std::chrono::seconds(2), &closed);
    EXPECT_TRUE(closed);
    EXPECT_EQ(status_line(answer), "HTTP/1.1 200 OK");
    EXPECT_NE(answer.find("{\"late\":true}"), std::string::npos);
    EXPECT_EQ(answer.find("Access-Control-"), std::string::npos);
  }
}

TEST_F(ServerFixture, PipelinedRequestsAreAnsweredInOrder) {
  RawClient client(server->port());
  client.send("POST /echo HTTP/1.1\r\nContent-Length: 3\r\n\r\nabcGET /later HTTP/1.1\r\n\r\n"
              "POST /echo HTTP/1.1\r\nContent-Length: 1\r\nConnection: close\r\n\r\nz");
  ASSERT_TRUE(eventually([&] { return later.held() == 1u; }));
  later.answer_all();
  const std::string answer = client.read_for(std::chrono::seconds(2));
  const auto first = answer.find("{\"size\":3}");
  const auto second = answer.find("{\"late\":true}");
  const auto third = answer.find("{\"size\":1}");
  ASSERT_NE(first, std::string::npos) << answer;
  ASSERT_NE(second, std::string::npos) << answer;
  ASSERT_NE(third, std::string::npos) << answer;
  EXPECT_LT(first, second);
  EXPECT_LT(second, third);
}

TEST_F(ServerFixture, HeadsPastTheLimitsAreRefusedWithTheLimitsName) {
  struct Case {
    std::string request;
    std::string status;
    std::string names;
  };
  const std::vector<Case> cases{
      {"GET /empty HTTP/1.1\r\nX-Big: " + std::string(5000, 'a') + "\r\n\r\n", "HTTP/1.1 431", "HTTP_MAX_HEADER_BYTES"},
      {"GET /empty HTTP/1.1\r\n" + [] {
         std::string many;
         for (int i = 0; i < 30; ++i) many += "X-H" + std::to_string(i) + ": v\r\n";
         return many;
       }() + "\r\n",
       "HTTP/1.1 431", "HTTP_MAX_HEADERS"},
      {"GET /empty?" + std::string(600, 'q') + " HTTP/1.1\r\n\r\n", "HTTP/1.1 414", "HTTP_MAX_URL_BYTES"},
      {"GET /empty?a=1&b=2&c=3&d=4&e=5&f=6&g=7&h=8&i=9 HTTP/1.1\r\n\r\n", "HTTP/1.1 400", "HTTP_MAX_QUERY_PARAMS"},
      {"POST /echo HTTP/1.1\r\nContent-Length: 999999\r\n\r\n", "HTTP/1.1 413", "MAX_BODY_BYTES"},
      {"GET /empty HTTP/9.9 extra\r\n\r\n", "HTTP/1.1 400", "Malformed HTTP request"},
      {"POST /echo HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", "HTTP/1.1 400",
       "Malformed HTTP request"},
      {"POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "HTTP/1.1 400", "Malformed HTTP request"},
  };
  for (const auto& c : cases) {
    RawClient client(server->port());
    client.send(c.request);
    bool closed = false;
    const std::string answer = client.read_for(std::chrono::seconds(2), &closed);
    EXPECT_EQ(answer.rfind(c.status, 0), 0u) << c.request.substr(0, 60) << " -> " << answer;
    EXPECT_NE(answer.find(c.names), std::string::npos) << answer;
    EXPECT_NE(answer.find("{\"error\":"), std::string::npos) << answer;
    EXPECT_TRUE(closed) << "the connection is closed after a refused head";
  }
  // And the server still serves.
  RawClient client(server->port());
  client.send("GET /empty HTTP/1.1\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(status_line(client.read_for(std::chrono::seconds(2))), "HTTP/1.1 204 No Content");
}

TEST_F(ServerFixture, SlowHeadsAndBodiesAreCutAtTheirDeadlines) {
  RawClient slow_head(server->port());
  slow_head.send("GET /empty HTTP/1.1\r\nX-Slow: ");  // and nothing more
  RawClient slow_body(server->port());
  slow_body.send("POST /echo HTTP/1.1\r\nContent-Length: 100\r\n\r\nonly-part");
  RawClient idle(server->port());  // connects and says nothing
  const auto started = std::chrono::steady_clock::now();
  for (RawClient* client : {&slow_head, &slow_body, &idle}) {
    bool closed = false;
    client->read_for(std::chrono::seconds(3), &closed);
    EXPECT_TRUE(closed);
  }
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(3));
  // A closed connection is forgotten once its last pending operation unwinds.
  EXPECT_TRUE(eventually([&] { return server->connections() == 0; }));
  EXPECT_EQ(server->connections(), 0);
}

TEST_F(ServerFixture, ConnectionsPastTheLimitAreTurnedAway) {
  config.max_connections = 3;
  restart();
  std::vector<std::unique_ptr<RawClient>> held;
  for (int i = 0; i < 3; ++i) held.push_back(std::make_unique<RawClient>(server->port()));
  EXPECT_TRUE(eventually([&] { return server->connections() >= 3; }));
  ASSERT_EQ(server->connections(), 3);
  RawClient extra(server->port());
  bool closed = false;
  const std::string answer = extra.read_for(std::chrono::seconds(2), &closed);
  EXPECT_EQ(status_line(answer), "HTTP/1.1 503 Service Unavailable");
  EXPECT_NE(answer.find("HTTP_MAX_CONNECTIONS"), std::string::npos);
  EXPECT_TRUE(closed);
  held.clear();  // room again
  EXPECT_TRUE(eventually([&] { return server->connections() == 0; }));
  RawClient next(server->port());
  next.send("GET /empty HTTP/1.1\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(status_line(next.read_for(std::chrono::seconds(2))), "HTTP/1.1 204 No Content");
}

TEST_F(ServerFixture, ExpectContinueGetsAnInterimAnswer) {
  config.body_timeout_ms = 5000;  // the reads below wait out their full time
  restart();
  RawClient client(server->port());
  client.send("POST /echo HTTP/1.1\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n");
  EXPECT_EQ(status_line(client.read_for(std::chrono::milliseconds(300))), "HTTP/1.1 100 Continue");
  client.send("hi");
  EXPECT_NE(client.read_for(std::chrono::milliseconds(300)).find("{\"size\":2}"), std::string::npos);
}

TEST_F(ServerFixture, InvalidUtf8InThePathIs400BeforeTheBody) {
  RawClient client(server->port());
  client.send("DELETE /api/v1/messages/%C0%AF/x HTTP/1.1\r\nContent-Length: 500\r\n\r\n");  // body never sent
  bool closed = false;
  const std::string answer = client.read_for(std::chrono::seconds(2), &closed);
  EXPECT_EQ(status_line(answer), "HTTP/1.1 400 Bad Request");
  EXPECT_NE(answer.find("{\"error\":\"Request path must be valid UTF-8 once percent-decoded\"}"), std::string::npos);
  EXPECT_TRUE(closed);
}

TEST_F(ServerFixture, CorsHeadersOnlyForListedOrigins) {
  cors_origins = {"http://127.0.0.1:9999"};
  restart();
  {
    RawClient client(server->port());
    client.send("OPTIONS /echo HTTP/1.1\r\nOrigin: http://127.0.0.1:9999\r\nAccess-Control-Request-Method: DELETE\r\n"
                "Connection: close\r\n\r\n");
    const std::string answer = client.read_for(std::chrono::seconds(2));
    EXPECT_EQ(status_line(answer), "HTTP/1.1 204 No Content");
    EXPECT_NE(answer.find("Access-Control-Allow-Origin: http://127.0.0.1:9999\r\n"), std::string::npos) << answer;
    EXPECT_NE(answer.find("Access-Control-Allow-Methods: GET, POST, PUT, DELETE, OPTIONS\r\n"), std::string::npos);
    EXPECT_NE(answer.find("Vary: Origin\r\n"), std::string::npos);
  }
  {
    RawClient client(server->port());
    client.send("POST /echo HTTP/1.1\r\nOrigin: http://127.0.0.1:9998\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi");
    const std::string answer = client.read_for(std::chrono::seconds(2));
    EXPECT_EQ(status_line(answer), "HTTP/1.1 200 OK");
    EXPECT_EQ(answer.find("Access-Control-"), std::string::npos) << answer;
  }
}

TEST_F(ServerFixture, RequestsFromAnotherOriginAreRefusedFromTheHead) {
  const std::string host = "Host: 127.0.0.1:" + std::to_string(server->port()) + "\r\n";
  // What a page of another site sends without a preflight: a text/plain POST. 403 before the body.
  RawClient forged(server->port());
  forged.send("POST /store HTTP/1.1\r\n" + host + "Sec-Fetch-Site: cross-site\r\nOrigin: http://evil.test\r\n"
              "Content-Type: text/plain\r\nContent-Length: 1000\r\n\r\n");  // the body never comes
  bool closed = false;
  const std::string answer = forged.read_for(std::chrono::seconds(2), &closed);
  EXPECT_EQ(status_line(answer), "HTTP/1.1 403 Forbidden") << answer;
  EXPECT_NE(answer.find("HTTP_CORS_ORIGINS"), std::string::npos) << answer;
  EXPECT_TRUE(closed);
  EXPECT_EQ(metrics.counters().request_body_bytes_in_flight, 0u);  // nothing was reserved

  const auto status_of = [&](const std::string& path, const std::string& headers) {
    RawClient client(server->port());
    client.send("POST " + path + " HTTP/1.1\r\n" + headers + "Content-Length: 2\r\nConnection: close\r\n\r\n{}");
    return status_line(client.read_for(std::chrono::seconds(2)));
  };
  // No Sec-Fetch-Site: the Origin against the Host; another port of the same host is another origin.
  EXPECT_EQ(status_of("/store", host + "Origin: http://127.0.0.1:1\r\n"), "HTTP/1.1 403 Forbidden");
  EXPECT_EQ(status_of("/store", host + "Origin: null\r\n"), "HTTP/1.1 403 Forbidden");
  EXPECT_EQ(status_of("/store", host + "Sec-Fetch-Site: same-site\r\n"), "HTTP/1.1 403 Forbidden");
  EXPECT_EQ(stored.load(), 0);
  // The broker's own pages, clients that send no Origin, and public routes go on.
  EXPECT_EQ(status_of("/store", host + "Origin: http://127.0.0.1:" + std::to_string(server->port()) + "\r\n"),
            "HTTP/1.1 200 OK");
  EXPECT_EQ(status_of("/store", host + "Sec-Fetch-Site: same-origin\r\nOrigin: http://127.0.0.1:1\r\n"),
            "HTTP/1.1 200 OK");
  EXPECT_EQ(status_of("/store", host), "HTTP/1.1 200 OK");
  EXPECT_EQ(status_of("/echo", host + "Sec-Fetch-Site: cross-site\r\nOrigin: http://evil.test\r\n"),
            "HTTP/1.1 200 OK");
  EXPECT_EQ(stored.load(), 3);

  // A listed origin may call every route.
  cors_origins = {"http://app.test"};
  restart();
  const std::string listed_host = "Host: 127.0.0.1:" + std::to_string(server->port()) + "\r\n";
  EXPECT_EQ(status_of("/store", listed_host + "Sec-Fetch-Site: cross-site\r\nOrigin: http://app.test\r\n"),
            "HTTP/1.1 200 OK");
  EXPECT_EQ(status_of("/store", listed_host + "Sec-Fetch-Site: cross-site\r\nOrigin: http://evil.test\r\n"),
            "HTTP/1.1 403 Forbidden");
  EXPECT_EQ(stored.load(), 4);
}

TEST_F(ServerFixture, BodiesPastTheBytesInFlightAre503BeforeTheirBody) {
  config.max_body_bytes_in_flight = 2048;  // two 1 KiB bodies at once
  config.body_timeout_ms = 5000;           // the second holds its share through the whole test
  restart();
  RawClient first(server->port());
  first.send("POST /echo HTTP/1.1\r\nContent-Length: 1024\r\n\r\npart");
  RawClient second(server->port());
  second.send("POST /echo HTTP/1.1\r\nContent-Length: 1024\r\n\r\npart");
  EXPECT_TRUE(eventually([&] { return metrics.counters().request_body_bytes_in_flight >= 2048; }));
  ASSERT_EQ(metrics.counters().request_body_bytes_in_flight, 2048u);
  RawClient third(server->port());
  third.send("POST /echo HTTP/1.1\r\nContent-Length: 10\r\n\r\n");
  bool closed = false;
  const std::string refused = third.read_for(std::chrono::seconds(2), &closed);
  EXPECT_EQ(status_line(refused), "HTTP/1.1 503 Service Unavailable");
  EXPECT_NE(refused.find("HTTP_MAX_BODY_BYTES_IN_FLIGHT"), std::string::npos);
  EXPECT_NE(refused.find("Retry-After: 1\r\n"), std::string::npos);
  EXPECT_TRUE(closed);
  // A request without a body needs no budget.
  RawClient bodiless(server->port());
  bodiless.send("GET /empty HTTP/1.1\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(status_line(bodiless.read_for(std::chrono::seconds(2))), "HTTP/1.1 204 No Content");
  // The first finishes; its bytes come back once answered, and the next body fits.
  first.send(std::string(1020, 'x'));
  EXPECT_NE(first.read_for(std::chrono::milliseconds(300)).find("{\"size\":1024}"), std::string::npos);
  EXPECT_TRUE(eventually([&] { return metrics.counters().request_body_bytes_in_flight <= 1024; }));
  EXPECT_EQ(metrics.counters().request_body_bytes_in_flight, 1024u);
  RawClient fourth(server->port());
  fourth.send("POST /echo HTTP/1.1\r\nContent-Length: 10\r\nConnection: close\r\n\r\n0123456789");
  EXPECT_NE(fourth.read_for(std::chrono::seconds(2)).find("{\"size\":10}"), std::string::npos);
}

TEST_F(ServerFixture, ChunkedBodiesReserveAsTheyGrow) {
  config.max_body_bytes = 4096;
  config.max_body_bytes_in_flight = 4096;
  restart();
  RawClient holder(server->port());
  holder.send("POST /echo HTTP/1.1\r\nContent-Length: 3000\r\n\r\n");
  EXPECT_TRUE(eventually([&] { return metrics.counters().request_body_bytes_in_flight >= 3000; }));
  RawClient chunked(server->port());
  chunked.send("POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n400\r\n" + std::string(1024, 'c') +
               "\r\n400\r\n" + std::string(1024, 'c') + "\r\n0\r\n\r\n");
  bool closed = false;
  const std::string answer = chunked.read_for(std::chrono::seconds(2), &closed);
  EXPECT_EQ(status_line(answer), "HTTP/1.1 503 Service Unavailable") << answer;
  EXPECT_TRUE(closed);
  // A small chunked body fits beside it.
  RawClient small(server->port());
  small.send("POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n5\r\nhello\r\n0\r\n\r\n");
  EXPECT_NE(small.read_for(std::chrono::seconds(2)).find("{\"size\":5}"), std::string::npos);
}

namespace {

// The same server with authentication on: the gate runs on the head.
struct GatedServerFixture : ::testing::Test {
  static constexpr const char* kSecret = "server-test-secret-0123456789abcdef";
  metrics::Metrics metrics;
  auth::Gate gate{jwt_config()};
  std::atomic<int> bodies_seen{0};
  Dispatcher dispatcher{make_router(), metrics, &gate};
  std::unique_ptr<HttpServer> server;

  static config::JwtConfig jwt_config() {
    config::JwtConfig c = config::Config::defaults().jwt;
    c.enabled = true;
    c.secret = kSecret;
    return c;
  }

  Router make_router() {
    Router router;
    router.add("POST", "/write", auth::AccessLevel::ReadWrite, [this](const Request& r) {
      bodies_seen.fetch_add(1);
      return Response::json(200, "{\"tenant\":\"" + r.principal.tenant.name() + "\",\"size\":" +
                                     std::to_string(r.body.size()) + "}");
    });
    return router;
  }

  void SetUp() override {
    config::HttpConfig c = config::Config::defaults().http;
    c.host = "127.0.0.1";
    c.port = 0;
    c.max_body_bytes = 1 << 20;
    c.min_threads = 2;
    c.max_threads = 4;
    c.body_timeout_ms = 2000;
    server = std::make_unique<HttpServer>(c, dispatcher);
    server->start();
  }
  void TearDown() override { server->drain(std::chrono::milliseconds(1000)); }
};

}  // namespace

TEST_F(GatedServerFixture, RefusalsAreAnsweredFromTheHeadWithoutReadingTheBody) {
  RawClient anonymous(server->port());
  anonymous.send("POST /write HTTP/1.1\r\nContent-Length: 1000000\r\n\r\n");  // the body never comes
  bool closed = false;
  const auto started = std::chrono::steady_clock::now();
  const std::string answer = anonymous.read_for(std::chrono::seconds(2), &closed);
  EXPECT_EQ(status_line(answer), "HTTP/1.1 401 Unauthorized");
  EXPECT_NE(answer.find("Authentication required"), std::string::npos);
  EXPECT_NE(answer.find("Connection: close"), std::string::npos);
  EXPECT_TRUE(closed);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(1));
  EXPECT_EQ(metrics.counters().request_body_bytes_in_flight, 0u);  // nothing was reserved

  // A reader is under-privileged for the route: 403, also before the body.
  RawClient reader(server->port());
  reader.send("POST /write HTTP/1.1\r\nAuthorization: Bearer " +
              test::mint_hs256(kSecret, {{"role", "read-only"}}) + "\r\nContent-Length: 1000000\r\n\r\n");
  EXPECT_EQ(status_line(reader.read_for(std::chrono::seconds(2))), "HTTP/1.1 403 Forbidden");

  // Expect: 100-continue gets the refusal instead of the interim answer.
  RawClient polite(server->port());
  polite.send("POST /write HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 10\r\n\r\n");
  EXPECT_EQ(status_line(polite.read_for(std::chrono::seconds(2))), "HTTP/1.1 401 Unauthorized");
  EXPECT_EQ(bodies_seen.load(), 0);

  // The principal found at the head is the handler's.
  RawClient writer(server->port());
  writer.send("POST /write HTTP/1.1\r\nAuthorization: Bearer " +
              test::mint_hs256(kSecret, {{"role", "read-write"}, {"tenant", "acme"}}) +
              "\r\nContent-Length: 4\r\nConnection: close\r\n\r\nbody");
  EXPECT_NE(writer.read_for(std::chrono::seconds(2)).find("{\"tenant\":\"acme\",\"size\":4}"), std::string::npos);
}

TEST_F(GatedServerFixture, AClientStillSendingItsBodyReadsTheRefusal) {
  // The client writes the whole body without reading first, as most clients do: the broker drops
  // those bytes after answering instead of resetting the connection under the answer.
  RawClient anonymous(server->port());
  anonymous.send("POST /write HTTP/1.1\r\nContent-Length: 524288\r\n\r\n");
  anonymous.send(std::string(524288, 'z'));
  bool closed = false;
  const std::string answer = anonymous.read_for(std::chrono::seconds(2), &closed);
  EXPECT_EQ(status_line(answer), "HTTP/1.1 401 Unauthorized");
  EXPECT_TRUE(closed);
  EXPECT_EQ(bodies_seen.load(), 0);
}
