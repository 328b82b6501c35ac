#include "auth/bounded_json.h"

#include <gtest/gtest.h>

using namespace queen::auth;

TEST(BoundedJson, AcceptsObjectsRefusesDepthInvalidTextAndRepeatedNames) {
  const BoundedJson ok = parse_bounded_json(R"({"a":[{"a":1},{"a":2}],"b":{"a":3}})", 8);
  ASSERT_TRUE(ok.value.has_value());
  EXPECT_EQ((*ok.value)["b"]["a"], 3);

  const BoundedJson deep = parse_bounded_json("[[[[1]]]]", 3);
  EXPECT_FALSE(deep.value.has_value());
  EXPECT_EQ(deep.refusal, JsonRefusal::TooDeep);

  const BoundedJson invalid = parse_bounded_json("{\"a\":\"\xc0\xaf\"}", 8);
  EXPECT_FALSE(invalid.value.has_value());
  EXPECT_EQ(invalid.refusal, JsonRefusal::Invalid);

  const BoundedJson repeated = parse_bounded_json(R"({"k":{"role":"a","x":1,"role":"b"}})", 8);
  EXPECT_FALSE(repeated.value.has_value());
  EXPECT_EQ(repeated.refusal, JsonRefusal::DuplicateKey);
  EXPECT_EQ(repeated.duplicate_key, "role");

  // A long repeated name is quoted in part, cut between characters.
  const std::string name = std::string(63, 'n') + "\xc3\xa9" + "tail";
  const BoundedJson long_name = parse_bounded_json("{\"" + name + "\":1,\"" + name + "\":2}", 8);
  EXPECT_EQ(long_name.refusal, JsonRefusal::DuplicateKey);
  EXPECT_EQ(long_name.duplicate_key, std::string(63, 'n'));
}
