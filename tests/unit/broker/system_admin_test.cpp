// SystemAdmin (broker/system_admin.h): the maintenance flags, read and set.
#include "broker_fixture.h"

using namespace queen;
using namespace queen::test;

struct SystemAdminTest : BrokerFixture {
  SystemAdmin& system_admin = broker.system_admin();
};

TEST_F(SystemAdminTest, MaintenanceStatusFallsBackToTheLastKnownFlags) {
  system_admin.set_pop_maintenance(true);
  db.down = true;
  EXPECT_TRUE(system_admin.maintenance_status().pop_maintenance);
  EXPECT_THROW(system_admin.set_push_maintenance(true), BrokerError);
  EXPECT_FALSE(flags.push());
}

TEST_F(SystemAdminTest, FlagsPersistedByAnotherBrokerAreRead) {
  db.flags["maintenance"] = true;
  EXPECT_TRUE(system_admin.maintenance_status().push_maintenance);
  EXPECT_TRUE(flags.push());
}
