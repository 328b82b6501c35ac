#include "spool/file_names.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace queen::spool {
namespace {

TEST(SpoolFileNames, FormatIsThirteenDigitStampDashEightDigitSequence) {
  const SpoolFileId id{1700000000123ull, 42};
  EXPECT_EQ(file_stem(id), "1700000000123-00000042");
  EXPECT_EQ(active_file_name(id), "1700000000123-00000042.tmp");
  EXPECT_EQ(finalized_file_name(id), "1700000000123-00000042.buf");
  EXPECT_EQ(file_stem({5, 0}), "0000000000005-00000000");
}

TEST(SpoolFileNames, ParseRoundTripsBothExtensions) {
  const SpoolFileId id{1712345678901ull, 99999999};
  EXPECT_EQ(parse_file_name(active_file_name(id)), id);
  EXPECT_EQ(parse_file_name(finalized_file_name(id)), id);
  EXPECT_EQ(stem_of(finalized_file_name(id)), file_stem(id));
}

TEST(SpoolFileNames, ParseRejectsForeignNames) {
  for (const char* name : {"1700000000123-00000042.log", "170000000012-00000042.buf", "1700000000123_00000042.buf",
                           "17000000001a3-00000042.buf", "1700000000123-0000042.tmp", "notes.buf", ".buf", ""}) {
    EXPECT_FALSE(parse_file_name(name).has_value()) << name;
  }
  EXPECT_TRUE(is_spool_file_name("anything.buf"));
  EXPECT_TRUE(is_spool_file_name("anything.tmp"));
  EXPECT_FALSE(is_spool_file_name("anything.buf.bak"));
  EXPECT_FALSE(is_spool_file_name("failed"));
}

TEST(SpoolFileNames, LexicalOrderIsFifoOrder) {
  std::vector<SpoolFileId> ids = {{999, 10}, {1000, 0}, {999, 9}, {1700000000000ull, 1}, {999, 100}, {1, 99999999}};
  std::vector<std::string> names;
  for (const auto& id : ids) names.push_back(finalized_file_name(id));
  sort_fifo(names);
  std::sort(ids.begin(), ids.end());
  ASSERT_EQ(names.size(), ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(parse_file_name(names[i]), ids[i]) << names[i];
}

TEST(SpoolFileNames, NextIdIsAlwaysAfterThePreviousOne) {
  EXPECT_EQ(next_file_id(std::nullopt, 5000), (SpoolFileId{5000, 0}));
  EXPECT_EQ(next_file_id(SpoolFileId{5000, 3}, 5001), (SpoolFileId{5001, 0}));
  EXPECT_EQ(next_file_id(SpoolFileId{5000, 3}, 5000), (SpoolFileId{5000, 4}));
  // The wall clock stepped back: keep counting after the previous name.
  EXPECT_EQ(next_file_id(SpoolFileId{5000, 3}, 10), (SpoolFileId{5000, 4}));
  EXPECT_EQ(next_file_id(SpoolFileId{5000, kMaxSequence}, 5000), (SpoolFileId{5001, 0}));
  SpoolFileId previous{7000, 0};
  for (std::uint64_t now : {7000u, 6999u, 7000u, 7002u, 1u}) {
    const SpoolFileId next = next_file_id(previous, now);
    EXPECT_LT(finalized_file_name(previous), finalized_file_name(next));
    previous = next;
  }
}

}  // namespace
}  // namespace queen::spool
