#include "util/uuid.h"

#include <gtest/gtest.h>

#include <set>
#include <thread>

#include "../support/eventually.h"

using namespace queen::util;

TEST(UuidV7, LayoutCarriesTimestampVersionAndVariant) {
  const std::array<std::uint8_t, 10> random{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
  const UuidBytes b = make_uuid_v7(0x0123456789ABULL, random);
  EXPECT_EQ(format_uuid(b), "01234567-89ab-7fff-bfff-ffffffffffff");
}

TEST(UuidV7, ZeroRandomStillSetsVersionAndVariant) {
  const UuidBytes b = make_uuid_v7(1, {});
  EXPECT_EQ(format_uuid(b), "00000000-0001-7000-8000-000000000000");
}

TEST(UuidV7, FreshIdsAreValidDistinctAndTimeOrderedAcrossMilliseconds) {
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) {
    const std::string id = new_uuid_v7();
    ASSERT_TRUE(is_uuid(id)) << id;
    ASSERT_EQ(id[14], '7');
    ASSERT_TRUE(seen.insert(id).second);
  }
  // The first 13 characters are the millisecond stamp: wait for the next one.
  const std::string before = new_uuid_v7();
  std::string after;
  ASSERT_TRUE(queen::test_support::eventually([&] {
    after = new_uuid_v7();
    return after.substr(0, 13) != before.substr(0, 13);
  }));
  EXPECT_LT(before.substr(0, 13), after.substr(0, 13));
}

TEST(IsUuid, AcceptsCanonicalTextOnly) {
  EXPECT_TRUE(is_uuid("0f8fad5b-d9cb-469f-a165-70867728950e"));
  EXPECT_TRUE(is_uuid("0F8FAD5B-D9CB-469F-A165-70867728950E"));
  EXPECT_FALSE(is_uuid(""));
  EXPECT_FALSE(is_uuid("abc"));
  EXPECT_FALSE(is_uuid("0f8fad5bd9cb469fa16570867728950e"));
  EXPECT_FALSE(is_uuid("0f8fad5b-d9cb-469f-a165-70867728950g"));
  EXPECT_FALSE(is_uuid("0f8fad5b-d9cb-469f-a165_70867728950e"));
  EXPECT_FALSE(is_uuid("0f8fad5b-d9cb-469f-a165-70867728950e0"));
}
