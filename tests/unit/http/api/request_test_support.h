#pragma once
// What the tests of the api/*_request files share: a partition id, and what a parser refuses (the HttpError a
// call throws).
#include <functional>
#include <string>

#include <gtest/gtest.h>

#include "http/transport/http_types.h"

namespace queen::test {

// A partition id in lowercase, the form stored, and the same id in uppercase, a form a client may send.
inline constexpr const char* kPartition = "a1c9d7f0-8e2b-4a4a-b7de-2f61a1f0c9a2";
inline constexpr const char* kUpperCasePartition = "A1C9D7F0-8E2B-4A4A-B7DE-2F61A1F0C9A2";

// The status of the HttpError `call` throws; 0 when it returns.
inline int status_of(const std::function<void()>& call) {
  try {
    call();
  } catch (const http::HttpError& e) {
    return e.status();
  }
  return 0;
}

// The message of the 400 `call` throws (another status fails the test); "<no error>" when it returns.
inline std::string error_of(const std::function<void()>& call) {
  try {
    call();
  } catch (const http::HttpError& e) {
    EXPECT_EQ(e.status(), 400) << e.what();
    return e.what();
  }
  return "<no error>";
}

}  // namespace queen::test
