// What a scenario cost the machine: CPU seconds of the broker processes and of the whole
// PostgreSQL cluster (from /proc), and WAL bytes written (from pg_current_wal_insert_lsn).
// Per-message figures divide the difference of two samples by the messages moved between them.
// These move far less than throughput on a shared 2-core box, so the bench decides on them.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// libpqxx 6.4's pqxx::connection is an alias of a template, so it cannot be forward-declared.
#include <pqxx/connection>

namespace bench {

// utime + stime (and, with `withChildren`, cutime + cstime) of one /proc/<pid>/stat text, in clock
// ticks; nullopt when the text does not parse. The command name may hold spaces and parentheses.
std::optional<std::uint64_t> statCpuTicks(std::string_view statText, bool withChildren);
// The parent pid field of a /proc/<pid>/stat text.
std::optional<int> statParentPid(std::string_view statText);

struct CostSample {
    double brokerCpuSeconds = 0;   // sum over the broker pids
    double postgresCpuSeconds = 0; // postmaster + every child alive now + children already reaped
    std::uint64_t walBytes = 0;    // absolute WAL insert position
    bool hasBroker = false;
    bool hasPostgres = false;      // postgresCpuSeconds is set (the cluster's processes are visible here)
    bool hasWal = false;           // walBytes is set (a PostgreSQL URL was given), even without its CPU
};

struct MessageCost {
    std::optional<double> brokerUsPerMessage;
    std::optional<double> postgresUsPerMessage;
    std::optional<double> walBytesPerMessage;
};

// Pure: (after - before) / messages; nothing when messages <= 0 or a side was not measured
// in both samples. WAL that went backwards (samples of two different clusters) is not a figure.
MessageCost costPerMessage(const CostSample& before, const CostSample& after, std::int64_t messages);

class CostMeter {
public:
    // `brokerPids` may be empty (no broker CPU); `postgresUrl` empty: no PostgreSQL figures.
    // The PostgreSQL cluster is found from the backend of the meter's own connection: its
    // parent is the postmaster, whose children are every backend, the WAL writer, the
    // checkpointer and autovacuum. Throws when the URL is given but unreachable.
    CostMeter(std::vector<int> brokerPids, const std::string& postgresUrl);
    ~CostMeter();
    CostMeter(const CostMeter&) = delete;
    CostMeter& operator=(const CostMeter&) = delete;

    CostSample sample();
    // CHECKPOINT now (needs superuser or pg_checkpoint), so that no timed checkpoint falls into the
    // next checkpoint_timeout of measuring; false, with `error` set, when it could not.
    bool checkpoint(std::string& error);
    void setBrokerPids(std::vector<int> pids) { brokerPids_ = std::move(pids); }

private:
    std::vector<int> brokerPids_;
    std::unique_ptr<pqxx::connection> connection_;
    int postmasterPid_ = 0;
};

} // namespace bench
