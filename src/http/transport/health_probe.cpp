#include "http/transport/health_probe.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

namespace queen::http {

namespace beast = boost::beast;
namespace asio = boost::asio;

std::string probe_address(const config::HttpConfig& config) {
  if (config.host.empty() || config.host == "0.0.0.0") return "127.0.0.1";
  if (config.host == "::") return "::1";
  return config.host;
}

HealthProbe probe_readiness(const config::HttpConfig& config, std::chrono::milliseconds timeout) {
  const std::string address = probe_address(config);
  const std::string target = address + ":" + std::to_string(config.port);
  try {
    asio::io_context io;
    beast::tcp_stream stream(io);
    stream.expires_after(timeout);
    asio::ip::tcp::resolver resolver(io);
    stream.connect(resolver.resolve(address, std::to_string(config.port)));
    beast::http::request<beast::http::empty_body> request(beast::http::verb::get, "/health/ready", 11);
    request.set(beast::http::field::host, target);
    request.set(beast::http::field::connection, "close");
    beast::http::write(stream, request);
    beast::flat_buffer buffer;
    beast::http::response<beast::http::string_body> response;
    beast::http::read(stream, buffer, response);
    beast::error_code ignored;
    stream.socket().shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
    HealthProbe probe;
    probe.ready = response.result_int() == 200;
    probe.detail = std::to_string(response.result_int()) + " " + response.body();
    return probe;
  } catch (const boost::system::system_error& e) {
    return HealthProbe{false, "no answer from " + target + ": " + e.code().message()};
  } catch (const std::exception& e) {
    return HealthProbe{false, "no answer from " + target + ": " + e.what()};
  }
}

}  // namespace queen::http
