#include "http/transport/wire_request.h"

#include <algorithm>

#include <boost/asio/buffer.hpp>
#include <boost/beast/core/error.hpp>

#include "http/transport/input_limits.h"
#include "http/transport/query.h"
#include "util/percent_decode.h"

namespace queen::http {

namespace beast_http = boost::beast::http;

void apply_limits(RequestParser& parser, const config::HttpConfig& limits) {
  parser.header_limit(static_cast<std::uint32_t>(limits.max_header_bytes));
  parser.body_limit(static_cast<std::uint64_t>(limits.max_body_bytes));
  parser.eager(true);
}

std::optional<Response> check_request_head(const RequestParser& parser, const config::HttpConfig& limits) {
  const auto& head = parser.get();
  if (head.target().size() > static_cast<std::size_t>(limits.max_url_bytes)) {
    return Response::error(414, "Request URL longer than " + std::to_string(limits.max_url_bytes) +
                                    " bytes (HTTP_MAX_URL_BYTES)");
  }
  const auto fields = static_cast<std::size_t>(std::distance(head.begin(), head.end()));
  if (fields > static_cast<std::size_t>(limits.max_header_count)) {
    return Response::error(431, "More than " + std::to_string(limits.max_header_count) +
                                    " header fields (HTTP_MAX_HEADERS)");
  }
  return std::nullopt;
}

std::optional<Response> answer_for_read_error(const boost::system::error_code& error) {
  if (error == beast_http::error::header_limit || error == beast_http::error::buffer_overflow) {
    return Response::error(431, "Request header too large (HTTP_MAX_HEADER_BYTES)");
  }
  if (error == beast_http::error::body_limit) return Response::error(413, "Request body too large (MAX_BODY_BYTES)");
  const bool parse_error = error.category() == beast_http::make_error_code(beast_http::error::bad_method).category();
  if (parse_error && error != beast_http::error::end_of_stream && error != beast_http::error::partial_message &&
      error != beast_http::error::need_more) {
    return Response::error(400, "Malformed HTTP request: " + error.message());
  }
  // Timeouts, resets and a close in the middle: nobody is reading an answer.
  return std::nullopt;
}

Request make_request_head(std::string_view method, std::string_view target, const config::HttpConfig& limits) {
  Request request;
  request.method = std::string(method);
  const std::size_t question = target.find('?');
  request.path = std::string(target.substr(0, question));
  // Decoding the whole path judges the same bytes the router's segments hold ('/' is ASCII).
  if (!is_valid_utf8(util::percent_decode(request.path, util::PlusMeans::Plus))) {
    throw HttpError(400, "Request path must be valid UTF-8 once percent-decoded");
  }
  if (question != std::string_view::npos) {
    const std::string_view query = target.substr(question + 1);
    const auto params = 1 + static_cast<std::size_t>(std::count(query.begin(), query.end(), '&'));
    if (params > static_cast<std::size_t>(limits.max_query_params)) {
      throw HttpError(400, "More than " + std::to_string(limits.max_query_params) +
                               " query parameters (HTTP_MAX_QUERY_PARAMS)");
    }
    request.query = parse_query_string(query);
    for (const auto& [name, value] : request.query) {
      if (!is_valid_utf8(name) || !is_valid_utf8(value)) {
        throw HttpError(400, "Query string must be valid UTF-8 once percent-decoded");
      }
    }
  }
  return request;
}

Request make_request(std::string_view method, std::string_view target, std::string body,
                     const config::HttpConfig& limits) {
  Request request = make_request_head(method, target, limits);
  request.body = std::move(body);
  return request;
}

WireParse parse_wire_request(std::string_view bytes, const config::HttpConfig& limits) {
  WireParse out;
  RequestParser parser;
  apply_limits(parser, limits);
  boost::system::error_code error;
  std::size_t used = 0;
  bool head_checked = false;
  Request head;  // decided as the server decides it: before any byte of the body
  while (!parser.is_done()) {
    const std::size_t n = parser.put(boost::asio::buffer(bytes.data() + used, bytes.size() - used), error);
    used += n;
    if (error == beast_http::error::need_more) {
      if (used >= bytes.size()) return out;  // the request is not over yet
      error = {};
      if (n == 0) return out;
      continue;
    }
    if (error) {
      out.error = answer_for_read_error(error);
      return out;
    }
    if (parser.is_header_done() && !head_checked) {
      head_checked = true;
      if (auto refused = check_request_head(parser, limits)) {
        out.error = std::move(refused);
        return out;
      }
      try {
        head = make_request_head(parser.get().method_string(), parser.get().target(), limits);
      } catch (const HttpError& e) {
        out.error = Response::error(e.status(), e.what());
        return out;
      }
    }
    if (n == 0 && !parser.is_done()) return out;
  }
  head.body = std::move(parser.get().body());
  out.request = std::move(head);
  return out;
}

}  // namespace queen::http
