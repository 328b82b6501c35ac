#pragma once
// A complete db::Procedures for unit tests: every call answers as a database
// with nothing in it would (no rows, no such queue or message, flags off),
// and counts itself. A test derives from it and overrides the calls its case
// is about, so no fake is left with a method that cannot be called.
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <string>

#include "db/procedures.h"

namespace queen::testing {

class ProceduresFake : public db::Procedures {
 public:
  // How often each procedure was called, by its name.
  int calls_of(const std::string& procedure) const {
    const std::lock_guard<std::mutex> lock(calls_mutex_);
    const auto it = calls_.find(procedure);
    return it == calls_.end() ? 0 : it->second;
  }

  db::ConfiguredQueue configure_queue(const std::string&, const std::string&, const std::string&, const std::string&,
                                      const Tenant&) override {
    count("configure_queue");
    return db::ConfiguredQueue{"{}"};
  }
  std::vector<db::PushRow> push_messages(const std::string&, const db::PushOrigin&) override {
    count("push_messages");
    return {};
  }
  std::vector<db::PoppedMessage> pop_messages(const db::PopRequest&) override {
    count("pop_messages");
    return {};
  }
  std::vector<db::AckRow> ack_messages(const std::string&, const std::optional<std::string>&,
                                       const Tenant&) override {
    count("ack_messages");
    return {};
  }
  db::LeaseExtension extend_lease(const std::string&, int, const Tenant&) override {
    count("extend_lease");
    db::LeaseExtension not_found;
    not_found.error = "Lease not found";
    return not_found;
  }
  bool set_system_flag(const std::string&, bool enabled) override {
    count("set_system_flag");
    return enabled;
  }
  bool get_system_flag(const std::string&) override {
    count("get_system_flag");
    return false;
  }
  std::chrono::microseconds ping() override {
    count("ping");
    return std::chrono::microseconds(0);
  }
  std::string run_transaction(const std::string&, const db::PushOrigin&) override {
    count("run_transaction");
    return "{\"success\":true,\"results\":[]}";
  }
  std::string stream_register_query(const std::string&, const Tenant&) override {
    count("stream_register_query");
    return R"({"success":true,"query_id":"00000000-0000-0000-0000-000000000001","fresh":true,"reset":false})";
  }
  std::string stream_state_get(const std::string&, const Tenant&) override {
    count("stream_state_get");
    return R"({"success":true,"rows":[]})";
  }
  std::string stream_cycle(const std::string&, const db::PushOrigin&) override {
    count("stream_cycle");
    return R"json({"success":false,"error":"Unknown query_id"})json";
  }
  std::vector<db::CombinedPopRow> pop_many(int, const db::PopRequest&) override {
    count("pop_many");
    return {};
  }
  std::vector<db::CombinedAckRow> ack_many(const std::string&, const Tenant&) override {
    count("ack_many");
    return {};
  }
  db::DlqPage list_dlq(const db::DlqQuery&) override {
    count("list_dlq");
    return {};
  }
  bool delete_queue(const std::string&, const Tenant&) override {
    count("delete_queue");
    return false;
  }
  db::TenantQuotaState tenant_quota_state(const Tenant&) override {
    count("tenant_quota_state");
    return {};
  }
  std::vector<db::TenantQueue> encrypted_queue_names() override {
    count("encrypted_queue_names");
    return {};
  }
  int dead_letter_undecryptable(const std::string&, const std::optional<std::string>&, const Tenant&) override {
    count("dead_letter_undecryptable");
    return 0;
  }
  std::optional<std::string> record_trace(const db::TraceRecord&) override {
    count("record_trace");
    return std::nullopt;
  }
  std::string message_traces(const std::string&, const std::string&, const Tenant&) override {
    count("message_traces");
    return "{\"traces\":[]}";
  }
  db::TracesByName traces_by_name(const std::string&, int, int, const Tenant&, std::int64_t) override {
    count("traces_by_name");
    return db::TracesByName{"{\"total\":0}", {}};
  }
  std::string trace_names(int, int, const Tenant&) override {
    count("trace_names");
    return "{\"names\":[]}";
  }
  std::string list_messages(const db::MessageListQuery&) override {
    count("list_messages");
    return "{\"messages\":[]}";
  }
  std::optional<db::ObjectWithPayload> get_message(const std::string&, const std::string&,
                                                   const Tenant&) override {
    count("get_message");
    return std::nullopt;
  }
  bool delete_message(const std::string&, const std::string&, const Tenant&) override {
    count("delete_message");
    return false;
  }
  std::optional<std::int64_t> clear_queue(const std::string&, const std::optional<std::string>&,
                                          const Tenant&) override {
    count("clear_queue");
    return std::nullopt;
  }
  std::string list_partitions(const std::optional<std::string>&, int, int, const Tenant&) override {
    count("list_partitions");
    return "{\"partitions\":[]}";
  }
  bool dead_letter_message(const std::string&, const std::string&, const std::optional<std::string>&,
                           const std::optional<std::string>&, const Tenant&) override {
    count("dead_letter_message");
    return false;
  }
  std::string requeue_dead_letters(const db::DlqSelection&) override {
    count("requeue_dead_letters");
    return "{\"requeued\":0,\"queues\":[]}";
  }
  int delete_dead_letters(const db::DlqSelection&) override {
    count("delete_dead_letters");
    return 0;
  }
  std::optional<std::string> retry_dead_message(const std::string&, const std::string&, const Tenant&) override {
    count("retry_dead_message");
    return std::nullopt;
  }
  db::PoolStats pool_stats() const override { return {}; }
  bool healthy() const override { return true; }

 protected:
  void count(const std::string& procedure) {
    const std::lock_guard<std::mutex> lock(calls_mutex_);
    ++calls_[procedure];
  }

 private:
  mutable std::mutex calls_mutex_;
  std::map<std::string, int> calls_;
};

}  // namespace queen::testing
