// Message administration (docs/api-extensions.md, "Messages"): the message
// list, one message (payload decrypted), deleting one, retrying a dead one,
// moving one to the DLQ, and clearing a queue. Scoped to the caller's tenant;
// a malformed partition id is simply an unknown message (404).
#include <nlohmann/json.hpp>

#include "http/api/messages_request.h"
#include "http/api/routes.h"
#include "http/transport/input_limits.h"
#include "http/transport/query.h"

namespace queen::http {
namespace {

Response not_found() { return Response::error(404, "Message not found"); }

std::string delete_answer(const std::string& partition_id, const std::string& transaction_id, bool found) {
  return nlohmann::json{{"success", found},
                        {"partitionId", partition_id},
                        {"transactionId", transaction_id},
                        {"message", found ? "Message deleted successfully" : "Message not found"}}
      .dump();
}

}  // namespace

void register_message_routes(Router& router, const RouteContext& context) {
  broker::MessageAdmin& message_admin = context.broker.message_admin();
  broker::DeadLetters& dead_letters = context.broker.dead_letters();
  const config::LimitsConfig& limits = context.config.limits;

  router.add("GET", "/api/v1/messages", auth::AccessLevel::ReadOnly, [&message_admin, &limits](const Request& request) {
    const broker::MessageListQuery query = parse_message_list_query(request.principal.tenant, request.query, limits);
    return Response::json(200, message_admin.list_messages(query));
  });

  router.add("GET", "/api/v1/messages/:partitionId/:transactionId", auth::AccessLevel::ReadOnly,
             [&message_admin, &limits](const Request& request) {
               const std::optional<MessageKey> key = parse_message_key(request, limits);
               if (!key) return not_found();
               const std::optional<db::ObjectWithPayload> message =
                   message_admin.get_message(key->partition_id, key->transaction_id, request.principal.tenant);
               if (!message) return not_found();
               return Response::json(200, render_with_payload(*message, "payload"));
             });

  // 200 either way; success tells whether there was a message (or DLQ entry) to delete.
  router.add("DELETE", "/api/v1/messages/:partitionId/:transactionId", auth::AccessLevel::ReadWrite,
             [&message_admin, &limits](const Request& request) {
               const std::optional<MessageKey> key = parse_message_key(request, limits);
               const bool found = key && message_admin.delete_message(key->partition_id, key->transaction_id,
                                                                      request.principal.tenant);
               return Response::json(
                   200, delete_answer(request.param("partitionId"), request.param("transactionId"), found));
             });

  router.add("POST", "/api/v1/messages/:partitionId/:transactionId/retry", auth::AccessLevel::ReadWrite,
             [&dead_letters, &limits](const Request& request) {
               const std::optional<MessageKey> key = parse_message_key(request, limits);
               if (!key) return Response::error(404, "Message not found in the dead letter queue");
               const std::optional<std::string> message_id =
                   dead_letters.retry_dead_message(key->partition_id, key->transaction_id, request.principal.tenant);
               if (!message_id) return Response::error(404, "Message not found in the dead letter queue");
               return Response::json(200, nlohmann::json{{"success", true}, {"messageId", *message_id}}.dump());
             });

  router.add("POST", "/api/v1/messages/:partitionId/:transactionId/dlq", auth::AccessLevel::ReadWrite,
             [&dead_letters, &limits](const Request& request) {
               const DeadLetterRequest body = parse_dead_letter_body(request.body, limits);
               const std::optional<MessageKey> key = parse_message_key(request, limits);
               if (!key || !dead_letters.dead_letter_message(key->partition_id, key->transaction_id,
                                                             body.consumer_group, body.error,
                                                             request.principal.tenant)) {
                 return not_found();
               }
               return Response::json(200, nlohmann::json{{"success", true},
                                                         {"partitionId", key->partition_id},
                                                         {"transactionId", key->transaction_id},
                                                         {"consumerGroup", body.consumer_group.value_or(
                                                                               broker::kQueueModeGroup)}}
                                              .dump());
             });

  router.add("DELETE", "/api/v1/queues/:queue/clear", auth::AccessLevel::Admin,
             [&message_admin, &limits](const Request& request) {
               const std::string& queue = request.param("queue");
               check_name(queue, "queue", limits);
               const std::optional<std::string> partition = query_name(request.query, "partition", limits);
               const std::optional<std::int64_t> deleted =
                   message_admin.clear_queue(queue, partition, request.principal.tenant);
               if (!deleted) return Response::error(404, partition ? "Partition not found" : "Queue not found");
               nlohmann::json body{{"success", true}, {"queue", queue}, {"partition", nullptr}, {"deleted", *deleted}};
               if (partition) body["partition"] = *partition;
               return Response::json(200, body.dump());
             });
}

}  // namespace queen::http
