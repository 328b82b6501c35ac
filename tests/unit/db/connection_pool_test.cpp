// The libpq connection string (build_conninfo): no database needed.
#include "db/connection_pool.h"

#include <gtest/gtest.h>

namespace {

using queen::config::DbConfig;
using queen::db::build_conninfo;

bool has(const std::string& conninfo, const std::string& part) { return conninfo.find(part) != std::string::npos; }

TEST(BuildConninfo, OneServer) {
  DbConfig c = queen::config::Config::defaults().db;
  c.hosts = {"db"};
  c.ports = {55432};
  const std::string info = build_conninfo(c);
  EXPECT_EQ(info.rfind("host='db' port='55432' target_session_attrs=read-write ", 0), 0u) << info;
}

TEST(BuildConninfo, HostAndPortListsForLibpqToTryInOrder) {
  DbConfig c = queen::config::Config::defaults().db;
  c.hosts = {"pg-a", "pg-b", "10.0.0.3"};
  c.ports = {5432, 5433, 6432};
  const std::string info = build_conninfo(c);
  EXPECT_TRUE(has(info, "host='pg-a,pg-b,10.0.0.3' port='5432,5433,6432' target_session_attrs=read-write")) << info;
}

TEST(BuildConninfo, OnePortForEveryHost) {
  DbConfig c = queen::config::Config::defaults().db;
  c.hosts = {"pg-a", "pg-b"};
  c.ports = {5432};
  EXPECT_TRUE(has(build_conninfo(c), "host='pg-a,pg-b' port='5432' ")) << build_conninfo(c);
}

TEST(BuildConninfo, QuotesValues) {
  DbConfig c = queen::config::Config::defaults().db;
  c.name = "it's";
  c.password = "p\\w";
  const std::string info = build_conninfo(c);
  EXPECT_TRUE(has(info, "dbname='it\\'s'")) << info;
  EXPECT_TRUE(has(info, "password='p\\\\w'")) << info;
}

}  // namespace

TEST(BuildConninfo, EverySessionRunsWithoutJit) {
  const std::string info = build_conninfo(DbConfig{});
  EXPECT_TRUE(has(info, " -c jit=off")) << info;
}

TEST(BuildConninfo, SessionSettingsTravelAsOptions) {
  DbConfig c = queen::config::Config::defaults().db;
  c.session_settings = {{"queen.tenant_max_kv_keys", "100"}, {"queen.tenant_quota_overrides", "off"}};
  const std::string info = build_conninfo(c);
  EXPECT_TRUE(has(info, "-c TimeZone=UTC -c jit=off -c queen.tenant_max_kv_keys=100 -c queen.tenant_quota_overrides=off'"))
      << info;
}
