// docs/procedures.md's table of procedures is the catalogue (src/db/catalogue.h):
// between its markers it is procedures_markdown(), so an entry added, changed or
// removed without the table fails here. QUEEN_UPDATE_DOCS=1 rewrites that part.
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "db/catalogue.h"

namespace queen::db::catalogue {
namespace {

constexpr const char* kDocPath = QUEEN_SOURCE_DIR "/docs/procedures.md";
constexpr const char* kBegin = "<!-- generated from src/db/catalogue.h";
constexpr const char* kEnd = "<!-- end of the generated table -->";

std::string read_file(const char* path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The document's text before its table (begin marker line included), the table, and the rest (end marker on).
struct Parts {
  std::string head, table, tail;
};
Parts split_doc(const std::string& doc) {
  const auto begin = doc.find(kBegin);
  const auto end = doc.find(kEnd);
  if (begin == std::string::npos || end == std::string::npos || end < begin) return {doc, "", ""};
  const auto cut = doc.find('\n', begin) + 1;
  return {doc.substr(0, cut), doc.substr(cut, end - cut), doc.substr(end)};
}

TEST(CatalogueDoc, ProceduresMdListsEveryEntry) {
  const Parts parts = split_doc(read_file(kDocPath));
  ASSERT_FALSE(parts.tail.empty()) << kDocPath << " lacks its generated table's markers";
  const std::string expected = procedures_markdown();
  std::string table = parts.table;
  if (const char* update = std::getenv("QUEEN_UPDATE_DOCS"); update != nullptr && std::string(update) == "1") {
    std::ofstream(kDocPath) << parts.head << expected << parts.tail;
    table = expected;
  }
  EXPECT_EQ(table, expected) << "docs/procedures.md is out of date: QUEEN_UPDATE_DOCS=1 ctest -R CatalogueDoc";
}

TEST(CatalogueDoc, EveryEntryAndViewHasARow) {
  const std::string table = procedures_markdown();
  for (const Entry& e : entries()) {
    EXPECT_NE(table.find(std::string("| `queen.") + e.function + "` | `" + e.name + "` |"), std::string::npos)
        << e.function;
  }
  for (const View& v : views()) {
    EXPECT_NE(table.find(std::string("`GET ") + v.path + "`"), std::string::npos) << v.path;
  }
}

TEST(CatalogueDoc, ARowShowsArgumentsResultAndRoute) {
  const std::string table = procedures_markdown();
  EXPECT_NE(table.find("| `queen.kv_get` | `KvGet` | text, text | table(value jsonb, expires_at timestamp with time "
                       "zone) |  |\n"),
            std::string::npos);
  EXPECT_NE(table.find("| `queen.analytics_postgres_stats` | `AnalyticsPostgresStats` | text, jsonb | jsonb | "
                       "`GET /api/v1/analytics/postgres-stats` (operator) |\n"),
            std::string::npos);
}

}  // namespace
}  // namespace queen::db::catalogue
