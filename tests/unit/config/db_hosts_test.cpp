// PG_HOST / PG_PORT lists (config/db_hosts.h) and how load_config reports them.
#include "config/db_hosts.h"

#include <gtest/gtest.h>

#include "config/config.h"
#include "config_error.h"

namespace queen::config {
namespace {

using testing::config_error_of;

TEST(ParseDbHosts, OneHost) {
  std::string error;
  EXPECT_EQ(parse_db_hosts("db", error), (std::vector<std::string>{"db"}));
  EXPECT_EQ(error, "");
}

TEST(ParseDbHosts, ListKeepsOrderAndDropsBlanksAroundEntries) {
  std::string error;
  EXPECT_EQ(parse_db_hosts(" pg-a , pg-b,10.0.0.3,::1 ", error),
            (std::vector<std::string>{"pg-a", "pg-b", "10.0.0.3", "::1"}));
  EXPECT_EQ(error, "");
}

TEST(ParseDbHosts, EmptyEntryIsAnError) {
  for (const char* text : {"a,,b", "a,", ",a", " , ", "a, ,b"}) {
    std::string error;
    EXPECT_TRUE(parse_db_hosts(text, error).empty()) << text;
    EXPECT_NE(error.find("PG_HOST='" + std::string(text) + "' has an empty entry"), std::string::npos) << error;
  }
}

TEST(ParseDbPorts, OnePortServesEveryHost) {
  std::string error;
  EXPECT_EQ(parse_db_ports("5432", 3, error), (std::vector<int>{5432}));
  EXPECT_EQ(error, "");
}

TEST(ParseDbPorts, OnePortPerHost) {
  std::string error;
  EXPECT_EQ(parse_db_ports("5432, 5433 ,6432", 3, error), (std::vector<int>{5432, 5433, 6432}));
  EXPECT_EQ(error, "");
}

TEST(ParseDbPorts, CountMustMatchTheHosts) {
  std::string error;
  EXPECT_TRUE(parse_db_ports("5432,5433", 3, error).empty());
  EXPECT_NE(error.find("lists 2 ports for 3 hosts"), std::string::npos) << error;
}

TEST(ParseDbPorts, BadEntriesAreErrors) {
  for (const char* text : {"0", "65536", "54x", "-1", "5432,", "5432,,5433", "", "123456"}) {
    std::string error;
    EXPECT_TRUE(parse_db_ports(text, 2, error).empty()) << text;
    EXPECT_NE(error.find("is not a port in [1, 65535]"), std::string::npos) << text << ": " << error;
  }
}

TEST(JoinList, CommaSeparatedWithoutBlanks) {
  EXPECT_EQ(join_list(std::vector<std::string>{"a", "b"}), "a,b");
  EXPECT_EQ(join_list(std::vector<int>{5432, 5433}), "5432,5433");
  EXPECT_EQ(join_list(std::vector<int>{}), "");
}

TEST(LoadConfigDbHosts, ReadsHostAndPortLists) {
  const Config c = load_config({{"PG_HOST", "pg-a,pg-b"}, {"PG_PORT", "5432,5433"}}, "h").config;
  EXPECT_EQ(c.db.hosts, (std::vector<std::string>{"pg-a", "pg-b"}));
  EXPECT_EQ(c.db.ports, (std::vector<int>{5432, 5433}));
}

TEST(LoadConfigDbHosts, DefaultPortServesAHostList) {
  const Config c = load_config({{"PG_HOST", "pg-a,pg-b"}}, "h").config;
  EXPECT_EQ(c.db.ports, (std::vector<int>{5432}));
}

TEST(LoadConfigDbHosts, BadListsAreBootErrors) {
  EXPECT_NE(config_error_of({{"PG_HOST", "pg-a,,pg-b"}}).find("PG_HOST='pg-a,,pg-b' has an empty entry"),
            std::string::npos);
  EXPECT_NE(config_error_of({{"PG_HOST", "pg-a,pg-b,pg-c"}, {"PG_PORT", "1,2"}}).find("lists 2 ports for 3 hosts"),
            std::string::npos);
  EXPECT_NE(config_error_of({{"PG_PORT", "70000"}}).find("PG_PORT='70000'"), std::string::npos);
}

}  // namespace
}  // namespace queen::config
