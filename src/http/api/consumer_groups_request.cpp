#include "http/api/consumer_groups_request.h"

#include <nlohmann/json.hpp>

#include "broker/types.h"
#include "http/transport/json_body.h"
#include "http/transport/query.h"
#include "util/iso8601.h"
#include "util/json_text.h"
#include "util/time_format.h"

namespace queen::http {
namespace {

using util::append_json_bool;
using util::append_json_string;

constexpr const char* kSeekTargetMissing = "Must specify either 'toEnd': true or 'timestamp'";

// A present, non-null field that must be an ISO-8601 timestamp string.
std::optional<std::string> timestamp_field(const nlohmann::json& body, const char* name) {
  const nlohmann::json* value = present_field(body, name);
  if (value == nullptr) return std::nullopt;
  if (!value->is_string() || !util::parse_iso8601_millis(value->get<std::string>())) {
    throw HttpError(400, std::string(name) + " must be an ISO-8601 timestamp");
  }
  return value->get<std::string>();
}

nlohmann::json object_body(const std::string& body, const config::LimitsConfig& limits) {
  nlohmann::json parsed = parse_json_body(body, BodyRule::Optional, limits);
  if (!parsed.is_object()) throw HttpError(400, "Request body must be a JSON object");
  return parsed;
}

void append_success_head(std::string& out, const std::string& group) {
  out += "{\"success\":true,\"consumerGroup\":";
  append_json_string(out, group);
}

void append_iso_or_null(std::string& out, std::optional<std::int64_t> epoch_us) {
  if (epoch_us) {
    append_json_string(out, util::format_iso8601_millis(*epoch_us));
  } else {
    out += "null";
  }
}

}  // namespace

std::optional<std::string> named_consumer_group(std::optional<std::string> group) {
  if (!group || group->empty() || *group == broker::kQueueModeGroup) return std::nullopt;
  return group;
}

std::int64_t parse_min_lag_seconds(const QueryParams& query) {
  const std::int64_t seconds = query_int(query, "minLagSeconds", kDefaultMinLagSeconds);
  return seconds < 0 ? kDefaultMinLagSeconds : seconds;
}

bool parse_delete_metadata(const QueryParams& query) { return query_bool(query, "deleteMetadata", true); }

SeekRequest parse_seek_body(const std::string& body, const config::LimitsConfig& limits) {
  const nlohmann::json parsed = object_body(body, limits);
  SeekRequest seek;
  const auto to_end = parsed.find("toEnd");
  seek.to_end = to_end != parsed.end() && to_end->is_boolean() && to_end->get<bool>();
  if (seek.to_end) return seek;
  seek.timestamp = timestamp_field(parsed, "timestamp");
  if (!seek.timestamp) throw HttpError(400, kSeekTargetMissing);
  seek.timestamp_ms = util::parse_iso8601_millis(*seek.timestamp);
  return seek;
}

std::string parse_subscription_timestamp(const std::string& body, const config::LimitsConfig& limits) {
  const std::optional<std::string> timestamp = timestamp_field(object_body(body, limits), "subscriptionTimestamp");
  if (!timestamp) throw HttpError(400, "Missing subscriptionTimestamp in request body");
  return *timestamp;
}

std::string render_group_deleted(const std::string& group, const std::optional<std::string>& queue, int deleted,
                                 bool metadata_deleted) {
  std::string out;
  append_success_head(out, group);
  if (queue) {
    out += ",\"queueName\":";
    append_json_string(out, *queue);
  }
  out += ",\"deletedPartitions\":";
  out += std::to_string(deleted);
  out += ",\"metadataDeleted\":";
  append_json_bool(out, metadata_deleted);
  out += '}';
  return out;
}

std::string render_subscription_updated(const std::string& group, const std::string& timestamp, int updated) {
  std::string out;
  append_success_head(out, group);
  out += ",\"newTimestamp\":";
  append_json_string(out, timestamp);
  out += ",\"rowsUpdated\":";
  out += std::to_string(updated);
  out += '}';
  return out;
}

std::string render_seek(const std::string& group, const std::string& queue, const SeekRequest& seek, int moved) {
  std::string out;
  append_success_head(out, group);
  out += ",\"queueName\":";
  append_json_string(out, queue);
  out += ",\"seekToEnd\":";
  append_json_bool(out, seek.to_end);
  out += ",\"targetTimestamp\":";
  append_iso_or_null(out, seek.timestamp_ms ? std::optional<std::int64_t>(*seek.timestamp_ms * 1000) : std::nullopt);
  out += ",\"partitionsUpdated\":";
  out += std::to_string(moved);
  out += '}';
  return out;
}

std::string render_partition_seek(const std::string& group, const std::string& queue, const std::string& partition,
                                  std::optional<std::int64_t> cursor_moved_to_us) {
  std::string out;
  append_success_head(out, group);
  out += ",\"queueName\":";
  append_json_string(out, queue);
  out += ",\"partitionName\":";
  append_json_string(out, partition);
  out += ",\"updated\":true,\"cursorMovedTo\":";
  append_iso_or_null(out, cursor_moved_to_us);
  out += '}';
  return out;
}

}  // namespace queen::http
