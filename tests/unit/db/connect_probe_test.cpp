#include "db/connect_probe.h"

#include <gtest/gtest.h>

namespace queen::db {
namespace {

using std::chrono::milliseconds;

TEST(ProbeTimeout, IsTheConnectionTimeoutRaisedToLibpqsTwoSeconds) {
  EXPECT_EQ(probe_timeout(0), milliseconds(2000));
  EXPECT_EQ(probe_timeout(500), milliseconds(2000));
  EXPECT_EQ(probe_timeout(2000), milliseconds(2000));
  EXPECT_EQ(probe_timeout(7500), milliseconds(7500));
}

}  // namespace
}  // namespace queen::db
