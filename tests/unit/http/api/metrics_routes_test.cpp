// GET /metrics: which Accept header gets the text exposition.
#include <gtest/gtest.h>

#include "http/api/routes.h"

using namespace queen::http;

TEST(MetricsFormat, ScrapersGetTheTextAndEveryoneElseJson) {
  EXPECT_TRUE(wants_exposition_text("text/plain;version=0.0.4;q=0.5,*/*;q=0.1"));
  EXPECT_TRUE(wants_exposition_text("application/openmetrics-text;version=1.0.0,*/*;q=0.1"));
  EXPECT_TRUE(wants_exposition_text("Text/Plain"));
  EXPECT_FALSE(wants_exposition_text(""));
  EXPECT_FALSE(wants_exposition_text("*/*"));
  EXPECT_FALSE(wants_exposition_text("application/json"));
}
