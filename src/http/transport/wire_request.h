#pragma once
// The HTTP/1.1 transport's view of one request: the Beast parser configured
// with the limits, the checks of a parsed head, the conversion of a whole
// message into a Request, and the answer for each parse failure. The server
// and the fuzz harness share these, so what is fuzzed is what serves.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

#include "config/config.h"
#include "http/transport/http_types.h"

namespace queen::http {

using RequestParser = boost::beast::http::request_parser<boost::beast::http::string_body>;

// A fresh parser bounded by HTTP_MAX_HEADER_BYTES and MAX_BODY_BYTES.
void apply_limits(RequestParser& parser, const config::HttpConfig& limits);

// The answer for a parsed head that is past a limit (414 URL, 431 header
// count), or nullopt. The byte limits are the parser's.
std::optional<Response> check_request_head(const RequestParser& parser, const config::HttpConfig& limits);

// How a failed read of a request ends: closed silently (the client went
// away, or was idle past its keep-alive), or answered and then closed.
std::optional<Response> answer_for_read_error(const boost::system::error_code& error);

// The request as its head defines it (no body yet): the target split into
// path and query. Throws HttpError 400 past HTTP_MAX_QUERY_PARAMS, and for a
// path or query that is not valid UTF-8 once percent-decoded (%C0%AF): every
// route sees only text it can echo in a JSON answer.
Request make_request_head(std::string_view method, std::string_view target, const config::HttpConfig& limits);

// make_request_head with the body. Throws HttpError.
Request make_request(std::string_view method, std::string_view target, std::string body,
                     const config::HttpConfig& limits);

// One whole request from raw bytes, as the server would take it: the
// Request, or the Response the server would answer before closing, or
// neither when the bytes end before the request does. For tests and fuzzing.
struct WireParse {
  std::optional<Request> request;
  std::optional<Response> error;
};
WireParse parse_wire_request(std::string_view bytes, const config::HttpConfig& limits);

}  // namespace queen::http
