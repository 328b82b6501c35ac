// The Poco adapter over a real loopback socket: framing rules of http-api §0.5.
#include "http/server.h"

#include <gtest/gtest.h>

#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/StreamCopier.h>

#include <sstream>

using namespace queen;
using namespace queen::http;

namespace {

struct ServerFixture : ::testing::Test {
  metrics::Metrics metrics;
  Dispatcher dispatcher{make_router(), metrics};
  std::unique_ptr<HttpServer> server;

  static Router make_router() {
    Router router;
    router.add("GET", "/empty", [](const Request&) { return Response::no_content(); });
    router.add("POST", "/echo", [](const Request& r) { return Response::json(200, "{\"size\":" + std::to_string(r.body.size()) + "}"); });
    return router;
  }

  void SetUp() override {
    config::HttpConfig config;
    config.host = "127.0.0.1";
    config.port = 0;  // ephemeral
    config.max_body_bytes = 1024;
    config.max_threads = 4;
    server = std::make_unique<HttpServer>(config, dispatcher);
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
  EXPECT_EQ(response.get("Access-Control-Allow-Origin"), "*");
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
  EXPECT_EQ(body, "{\"error\":\"Request body too large\"}");
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
