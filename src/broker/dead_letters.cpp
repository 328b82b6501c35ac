#include "broker/dead_letters.h"

#include <set>

#include <nlohmann/json.hpp>

#include "broker/broker_error.h"

namespace queen::broker {
namespace {

// The queues a requeue or retry result names (its `queues`).
std::set<std::string> requeued_queues(const nlohmann::json& result) {
  std::set<std::string> queues;
  if (result.contains("queues") && result["queues"].is_array()) {
    for (const auto& q : result["queues"]) {
      if (q.is_string()) queues.insert(q.get<std::string>());
    }
  }
  return queues;
}

}  // namespace

DlqPage DeadLetters::list_dlq(const DlqQuery& query) {
  DlqPage page = translating_db_failures(metrics_, [&] { return reads_.run([&] { return db_.list_dlq(query); }); });
  encryption_.open_dlq(page.entries);
  return page;
}

bool DeadLetters::dead_letter_message(const std::string& partition_id, const std::string& transaction_id,
                                      const std::optional<std::string>& consumer_group,
                                      const std::optional<std::string>& error, const Tenant& tenant) {
  throw_if_refused(quotas_.dead_letter_refusal(tenant, 1));
  const bool moved = translating_db_failures(
      metrics_, [&] { return db_.dead_letter_message(partition_id, transaction_id, consumer_group, error, tenant); });
  if (moved) quotas_.note_dead_lettered(tenant, 1);
  return moved;
}

int DeadLetters::requeue_dead_letters(const DlqSelection& selection) {
  const std::string result = translating_db_failures(metrics_, [&] { return db_.requeue_dead_letters(selection); });
  const nlohmann::json body = nlohmann::json::parse(result);
  listeners_.messages_committed(requeued_queues(body));
  return body.value("requeued", 0);
}

int DeadLetters::delete_dead_letters(const DlqSelection& selection) {
  return translating_db_failures(metrics_, [&] { return db_.delete_dead_letters(selection); });
}

std::optional<std::string> DeadLetters::retry_dead_message(const std::string& partition_id,
                                                           const std::string& transaction_id, const Tenant& tenant) {
  const std::optional<std::string> result =
      translating_db_failures(metrics_, [&] { return db_.retry_dead_message(partition_id, transaction_id, tenant); });
  if (!result) return std::nullopt;
  const nlohmann::json body = nlohmann::json::parse(*result);
  listeners_.messages_committed(requeued_queues(body));
  return body.value("messageId", std::string());
}

}  // namespace queen::broker
