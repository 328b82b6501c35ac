#pragma once
// /api/v1/consumer-groups/* (docs/http-api.md, consumer groups): body and
// query parsing, and the bodies of the answers that are not listings (the
// listings are built by the procedures). Pure.
#include <cstdint>
#include <optional>
#include <string>

#include "config/config.h"
#include "http/transport/http_types.h"

namespace queen::http {

inline constexpr std::int64_t kDefaultMinLagSeconds = 3600;

// The consumerGroup of a pop or an ack: absent, "" or __QUEUE_MODE__ (broker::kQueueModeGroup) is queue mode,
// nullopt.
std::optional<std::string> named_consumer_group(std::optional<std::string> group);

// ?minLagSeconds=N: absent, unreadable or negative = 3600.
std::int64_t parse_min_lag_seconds(const QueryParams& query);

// ?deleteMetadata: default true.
bool parse_delete_metadata(const QueryParams& query);

// POST .../seek: {"toEnd": true} or {"timestamp": "<ISO-8601>"} (toEnd wins
// when both are given); an empty body is {}. 400 "Must specify either
// 'toEnd': true or 'timestamp'" when neither is given, 400 for a timestamp
// that is not an ISO-8601 string.
struct SeekRequest {
  bool to_end = false;
  std::optional<std::string> timestamp;      // as sent, for PostgreSQL
  std::optional<std::int64_t> timestamp_ms;  // the same instant (echoed with millisecond precision)
};
SeekRequest parse_seek_body(const std::string& body, const config::LimitsConfig& limits);

// POST .../subscription: {"subscriptionTimestamp": "<ISO-8601>"}; 400
// "Missing subscriptionTimestamp in request body" when absent (or the body is
// empty), 400 when it is not an ISO-8601 string. Returns it as sent.
std::string parse_subscription_timestamp(const std::string& body, const config::LimitsConfig& limits);

// {"success":true,"consumerGroup",["queueName",]"deletedPartitions","metadataDeleted"}
std::string render_group_deleted(const std::string& group, const std::optional<std::string>& queue, int deleted,
                                 bool metadata_deleted);
// {"success":true,"consumerGroup","newTimestamp","rowsUpdated"}
std::string render_subscription_updated(const std::string& group, const std::string& timestamp, int updated);
// {"success":true,"consumerGroup","queueName","seekToEnd","targetTimestamp"(ms ISO or null),"partitionsUpdated"}
std::string render_seek(const std::string& group, const std::string& queue, const SeekRequest& seek, int moved);
// {"success":true,"consumerGroup","queueName","partitionName","updated":true,"cursorMovedTo"(ms ISO or null)}
std::string render_partition_seek(const std::string& group, const std::string& queue, const std::string& partition,
                                  std::optional<std::int64_t> cursor_moved_to_us);

}  // namespace queen::http
