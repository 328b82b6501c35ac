#include "cost_meter.h"

#include <unistd.h>

#include <charconv>
#include <filesystem>
#include <fstream>
#include <pqxx/pqxx>
#include <sstream>

namespace bench {
namespace {

// The fields after the command name: "(comm) state ppid ..." -> "state ppid ...".
std::optional<std::string_view> fieldsAfterCommand(std::string_view statText) {
    const std::size_t close = statText.rfind(')');
    if (close == std::string_view::npos || close + 2 > statText.size()) return std::nullopt;
    return statText.substr(close + 2);
}

// Field `index` (0 = state, the third field of stat) of the text after the command name.
std::optional<std::uint64_t> numericField(std::string_view fields, int index) {
    std::size_t start = 0;
    for (int i = 0; i < index; ++i) {
        start = fields.find(' ', start);
        if (start == std::string_view::npos) return std::nullopt;
        ++start;
    }
    std::uint64_t value = 0;
    const auto [ptr, ec] = std::from_chars(fields.data() + start, fields.data() + fields.size(), value);
    if (ec != std::errc()) return std::nullopt;
    return value;
}

std::optional<std::string> readStat(int pid) {
    std::ifstream file("/proc/" + std::to_string(pid) + "/stat");
    if (!file) return std::nullopt;
    std::stringstream text;
    text << file.rdbuf();
    return text.str();
}

double ticksToSeconds(std::uint64_t ticks) { return static_cast<double>(ticks) / static_cast<double>(sysconf(_SC_CLK_TCK)); }

} // namespace

std::optional<std::uint64_t> statCpuTicks(std::string_view statText, bool withChildren) {
    const auto fields = fieldsAfterCommand(statText);
    if (!fields) return std::nullopt;
    // After the command: state(0) ppid(1) ... utime(11) stime(12) cutime(13) cstime(14).
    std::uint64_t total = 0;
    for (int index : {11, 12}) {
        const auto value = numericField(*fields, index);
        if (!value) return std::nullopt;
        total += *value;
    }
    if (withChildren) {
        for (int index : {13, 14}) {
            const auto value = numericField(*fields, index);
            if (!value) return std::nullopt;
            total += *value;
        }
    }
    return total;
}

std::optional<int> statParentPid(std::string_view statText) {
    const auto fields = fieldsAfterCommand(statText);
    if (!fields) return std::nullopt;
    const auto value = numericField(*fields, 1);
    if (!value) return std::nullopt;
    return static_cast<int>(*value);
}

MessageCost costPerMessage(const CostSample& before, const CostSample& after, std::int64_t messages) {
    MessageCost cost;
    if (messages <= 0) return cost;
    const double n = static_cast<double>(messages);
    if (before.hasBroker && after.hasBroker)
        cost.brokerUsPerMessage = (after.brokerCpuSeconds - before.brokerCpuSeconds) * 1e6 / n;
    if (before.hasPostgres && after.hasPostgres)
        cost.postgresUsPerMessage = (after.postgresCpuSeconds - before.postgresCpuSeconds) * 1e6 / n;
    if (before.hasWal && after.hasWal && after.walBytes >= before.walBytes)
        cost.walBytesPerMessage = static_cast<double>(after.walBytes - before.walBytes) / n;
    return cost;
}

CostMeter::CostMeter(std::vector<int> brokerPids, const std::string& postgresUrl) : brokerPids_(std::move(brokerPids)) {
    if (postgresUrl.empty()) return;
    connection_ = std::make_unique<pqxx::connection>(postgresUrl);
    pqxx::nontransaction tx(*connection_);
    const int backend = tx.exec1("SELECT pg_backend_pid()")[0].as<int>();
    const auto stat = readStat(backend);
    const auto parent = stat ? statParentPid(*stat) : std::nullopt;
    // A PostgreSQL on another machine (or in another pid namespace): WAL only.
    if (parent) postmasterPid_ = *parent;
}

CostMeter::~CostMeter() = default;

bool CostMeter::checkpoint(std::string& error) {
    if (!connection_) {
        error = "no --pg-url";
        return false;
    }
    try {
        pqxx::nontransaction tx(*connection_);
        tx.exec0("CHECKPOINT");
        return true;
    } catch (const std::exception& e) {
        error = e.what();
        return false;
    }
}

CostSample CostMeter::sample() {
    CostSample s;
    std::uint64_t brokerTicks = 0;
    for (int pid : brokerPids_) {
        const auto stat = readStat(pid);
        const auto ticks = stat ? statCpuTicks(*stat, false) : std::nullopt;
        if (!ticks) continue;
        brokerTicks += *ticks;
        s.hasBroker = true;
    }
    s.brokerCpuSeconds = ticksToSeconds(brokerTicks);
    if (!connection_) return s;
    pqxx::nontransaction tx(*connection_);
    s.walBytes = tx.exec1("SELECT (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::bigint")[0].as<std::uint64_t>();
    s.hasWal = true;
    if (postmasterPid_ == 0) return s;
    // Reaped children's CPU is in the postmaster's cutime/cstime, so a backend that exited
    // between two samples is still counted.
    const auto postmaster = readStat(postmasterPid_);
    const auto postmasterTicks = postmaster ? statCpuTicks(*postmaster, true) : std::nullopt;
    if (!postmasterTicks) return s;
    std::uint64_t ticks = *postmasterTicks;
    for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
        const std::string name = entry.path().filename().string();
        int pid = 0;
        const auto [ptr, ec] = std::from_chars(name.data(), name.data() + name.size(), pid);
        if (ec != std::errc() || ptr != name.data() + name.size()) continue;
        const auto stat = readStat(pid);
        if (!stat || statParentPid(*stat) != postmasterPid_) continue;
        if (const auto child = statCpuTicks(*stat, false)) ticks += *child;
    }
    s.postgresCpuSeconds = ticksToSeconds(ticks);
    s.hasPostgres = true;
    return s;
}

} // namespace bench
