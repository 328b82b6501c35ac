#include "wire.h"

#include <algorithm>
#include <map>

#include <nlohmann/json.hpp>

namespace bench {
namespace {

using nlohmann::json;

bool isJsonSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

void countStatus(std::string_view value, PushStatusCounts& counts) {
    if (value == "queued") ++counts.queued;
    else if (value == "duplicate") ++counts.duplicate;
    else if (value == "buffered") ++counts.buffered;
    else if (value == "failed") ++counts.failed;
    else ++counts.other;
}

} // namespace

std::string partitionName(int index) { return "p" + std::to_string(index); }

std::string payloadFiller(int bytes, bool incompressible) {
    if (!incompressible) return std::string(static_cast<std::size_t>(std::max(bytes, 0)), 'x');
    static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    std::string filler(static_cast<std::size_t>(std::max(bytes, 0)), ' ');
    std::uint64_t state = 0x9E3779B97F4A7C15ULL; // fixed seed: the same filler every run
    for (char& c : filler) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        c = kAlphabet[(state >> 33) % (sizeof kAlphabet - 1)];
    }
    return filler;
}

std::string buildPushBody(const PushBatchSpec& spec) {
    const std::string filler = payloadFiller(spec.payloadBytes, spec.incompressibleFiller);
    json items = json::array();
    for (int i = 0; i < spec.count; ++i) {
        const std::int64_t sequence = spec.firstSequence + i;
        items.push_back({
            {"queue", spec.queue},
            {"partition", spec.spreadPartitions > 0
                              ? partitionName(static_cast<int>(sequence % spec.spreadPartitions))
                              : spec.partition},
            {"transactionId", spec.txPrefix + "-" + std::to_string(sequence)},
            {"payload", {{"seq", sequence}, {"fill", filler}}},
        });
    }
    return json{{"items", std::move(items)}}.dump();
}

PushStatusCounts countPushStatuses(std::string_view body) {
    static constexpr std::string_view kKey = "\"status\"";
    PushStatusCounts counts;
    std::size_t pos = 0;
    while ((pos = body.find(kKey, pos)) != std::string_view::npos) {
        pos += kKey.size();
        std::size_t cursor = pos;
        while (cursor < body.size() && isJsonSpace(body[cursor])) ++cursor;
        if (cursor >= body.size() || body[cursor] != ':') continue; // a value, not a key
        ++cursor;
        while (cursor < body.size() && isJsonSpace(body[cursor])) ++cursor;
        if (cursor >= body.size() || body[cursor] != '"') {
            ++counts.other; // a non-string status is still an item we cannot classify
            continue;
        }
        const std::size_t valueStart = cursor + 1;
        const std::size_t valueEnd = body.find('"', valueStart);
        if (valueEnd == std::string_view::npos) break;
        countStatus(body.substr(valueStart, valueEnd - valueStart), counts);
        pos = valueEnd + 1;
    }
    return counts;
}

std::optional<std::vector<PoppedMessage>> parsePopMessages(std::string_view body) {
    const json parsed = json::parse(body, nullptr, /*allow_exceptions=*/false);
    if (!parsed.is_object()) return std::nullopt;
    const auto messages = parsed.find("messages");
    if (messages == parsed.end() || !messages->is_array()) return std::nullopt;
    std::vector<PoppedMessage> popped;
    popped.reserve(messages->size());
    for (const json& message : *messages) {
        if (!message.is_object()) return std::nullopt;
        PoppedMessage item;
        item.transactionId = message.value("transactionId", "");
        item.partitionId = message.value("partitionId", "");
        const auto lease = message.find("leaseId");
        if (lease != message.end() && lease->is_string()) item.leaseId = lease->get<std::string>();
        const auto created = message.find("createdAt");
        if (created != message.end() && created->is_string()) item.createdAt = created->get<std::string>();
        if (item.transactionId.empty() || item.partitionId.empty()) return std::nullopt;
        popped.push_back(std::move(item));
    }
    return popped;
}

std::string buildAckBatchBody(const std::vector<PoppedMessage>& messages, const std::string& group) {
    json acks = json::array();
    for (const PoppedMessage& message : messages) {
        json ack = {
            {"transactionId", message.transactionId},
            {"partitionId", message.partitionId},
            {"status", "completed"},
        };
        if (!message.leaseId.empty()) ack["leaseId"] = message.leaseId;
        acks.push_back(std::move(ack));
    }
    return json{{"consumerGroup", group.empty() ? json(nullptr) : json(group)}, {"acknowledgments", std::move(acks)}}
        .dump();
}

std::optional<std::int64_t> countAckSuccesses(std::string_view body) {
    const json parsed = json::parse(body, nullptr, /*allow_exceptions=*/false);
    if (!parsed.is_array()) return std::nullopt;
    std::int64_t successes = 0;
    for (const json& result : parsed) {
        if (!result.is_object()) continue;
        const auto success = result.find("success");
        if (success != result.end() && success->is_boolean() && success->get<bool>()) ++successes;
    }
    return successes;
}

std::string buildConfigureBody(const std::string& queue) {
    return json{{"queue", queue}, {"options", json::object()}}.dump();
}

std::string buildStreamQueryBody(const std::string& name, const std::string& source, const std::string& sink) {
    return json{{"name", name}, {"source_queue", source}, {"sink_queue", sink}, {"config_hash", "bench-tumbling-1s"}}
        .dump();
}

std::optional<std::string> parseStreamQueryId(std::string_view body) {
    const json parsed = json::parse(body, nullptr, /*allow_exceptions=*/false);
    if (!parsed.is_object() || parsed.value("success", false) != true) return std::nullopt;
    const auto id = parsed.find("query_id");
    if (id == parsed.end() || !id->is_string()) return std::nullopt;
    return id->get<std::string>();
}

std::string buildStateReadBody(const std::string& queryId, const std::string& partitionId) {
    return json{{"query_id", queryId}, {"partition_id", partitionId}, {"keys", json::array()}}.dump();
}

std::optional<std::vector<std::pair<std::string, std::int64_t>>> parseWindowCounts(std::string_view body) {
    const json parsed = json::parse(body, nullptr, /*allow_exceptions=*/false);
    if (!parsed.is_object() || parsed.value("success", false) != true) return std::nullopt;
    const auto rows = parsed.find("rows");
    if (rows == parsed.end() || !rows->is_array()) return std::nullopt;
    std::vector<std::pair<std::string, std::int64_t>> counts;
    for (const json& row : *rows) {
        if (!row.is_object() || !row.contains("key") || !row["key"].is_string()) continue;
        const json* count = nullptr;
        if (row.contains("value") && row["value"].is_object() && row["value"].contains("acc") &&
            row["value"]["acc"].is_object() && row["value"]["acc"].contains("count"))
            count = &row["value"]["acc"]["count"];
        counts.emplace_back(row["key"].get<std::string>(),
                            count != nullptr && count->is_number_integer() ? count->get<std::int64_t>() : 0);
    }
    return counts;
}

WindowCycle buildWindowCycle(const std::string& queryId, const std::string& group, const std::string& sink,
                             const std::vector<PoppedMessage>& messages,
                             const std::vector<std::pair<std::string, std::int64_t>>& state) {
    static const std::string kTag = std::string("tumb:1") + '\x1f';
    std::map<std::string, std::int64_t> windows(state.begin(), state.end()); // key order = time order
    std::string latest;
    for (const PoppedMessage& message : messages) {
        const std::string second = message.createdAt.substr(0, 19); // 2026-12-02T17:20:05
        ++windows[kTag + second];
        latest = std::max(latest, second);
    }
    WindowCycle cycle;
    json ops = json::array();
    json pushes = json::array();
    for (const auto& [key, count] : windows) {
        const std::string second = key.substr(kTag.size());
        if (second < latest) {
            ops.push_back({{"type", "delete"}, {"key", key}});
            pushes.push_back({{"queue", sink}, {"partition", messages.front().partitionId},
                              {"payload", {{"window", second}, {"count", count}}}});
            ++cycle.emits;
        } else {
            ops.push_back({{"type", "upsert"}, {"key", key}, {"value", {{"acc", {{"count", count}}}}}});
            ++cycle.upserts;
        }
    }
    const PoppedMessage& last = messages.back();
    cycle.body = json{{"query_id", queryId},
                      {"partition_id", last.partitionId},
                      {"consumer_group", group},
                      {"state_ops", std::move(ops)},
                      {"push_items", std::move(pushes)},
                      {"ack", {{"transactionId", last.transactionId},
                               {"leaseId", last.leaseId},
                               {"status", "completed"},
                               {"count", messages.size()}}}}
                     .dump();
    return cycle;
}

bool cycleSucceeded(std::string_view body) {
    const json parsed = json::parse(body, nullptr, /*allow_exceptions=*/false);
    return parsed.is_object() && parsed.value("success", false) == true;
}

std::string encodePathSegment(std::string_view segment) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string encoded;
    for (unsigned char c : segment) {
        const bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                                c == '-' || c == '_' || c == '.' || c == '~';
        if (unreserved) {
            encoded.push_back(static_cast<char>(c));
        } else {
            encoded.push_back('%');
            encoded.push_back(kHex[c >> 4]);
            encoded.push_back(kHex[c & 0xF]);
        }
    }
    return encoded;
}

} // namespace bench
