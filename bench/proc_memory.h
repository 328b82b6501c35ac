// Resident memory of another process, read from /proc/<pid>/status (Linux).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace bench {

// Value in kB of a "<field>:   1234 kB" line of a /proc/<pid>/status text; nullopt if absent.
std::optional<std::int64_t> statusFieldKb(std::string_view statusText, std::string_view field);

struct ProcessMemory {
    std::int64_t peakRssKb = 0;    // VmHWM: high-water mark of the resident set since start
    std::int64_t currentRssKb = 0; // VmRSS
};

// nullopt when the process is gone or /proc is unreadable.
std::optional<ProcessMemory> readProcessMemory(int pid);

// Resets the process's VmHWM to its current RSS (writes "5" to /proc/<pid>/clear_refs, Linux 4.0+,
// needs the right to ptrace it), so the next VmHWM is the peak since now. False when not allowed:
// VmHWM then stays the peak since the process started.
bool resetPeakRss(int pid);

} // namespace bench
