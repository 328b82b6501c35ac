// Broker use cases of the admin routes: the DLQ listing and queue deletion
// (docs/api-extensions.md). Declared in broker.h; kept apart from the hot paths.
#include <spdlog/spdlog.h>

#include "broker/broker.h"

namespace queen::broker {

DlqPage Broker::list_dlq(const DlqQuery& query) {
  try {
    DlqPage page = reads_.run([&] { return db_.list_dlq(query); });
    encryption_.open_dlq(page.entries);
    return page;
  } catch (const db::DbError& e) {
    rethrow_as_broker_error(e);
  }
}

bool Broker::delete_queue(const std::string& queue, const Tenant& tenant) {
  bool existed = false;
  try {
    existed = db_.delete_queue(queue, tenant);
  } catch (const db::DbError& e) {
    rethrow_as_broker_error(e);
  }
  if (existed) spdlog::info("queue {} deleted", queue);
  // Mesh queue-config invalidation: peers drop what they
  // cached of this queue, exactly as after a reconfiguration. Sent even when
  // the queue did not exist here: a peer may still hold a stale entry.
  if (cluster_ != nullptr) cluster_->queue_configured(queue);
  return existed;
}

}  // namespace queen::broker
