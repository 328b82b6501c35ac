#include "proc_memory.h"

#include <charconv>
#include <fstream>
#include <sstream>

namespace bench {

std::optional<std::int64_t> statusFieldKb(std::string_view statusText, std::string_view field) {
    std::size_t lineStart = 0;
    while (lineStart < statusText.size()) {
        std::size_t lineEnd = statusText.find('\n', lineStart);
        if (lineEnd == std::string_view::npos) lineEnd = statusText.size();
        const std::string_view line = statusText.substr(lineStart, lineEnd - lineStart);
        lineStart = lineEnd + 1;
        if (line.size() <= field.size() || line.substr(0, field.size()) != field || line[field.size()] != ':') continue;
        std::size_t digits = field.size() + 1;
        while (digits < line.size() && (line[digits] == ' ' || line[digits] == '\t')) ++digits;
        std::int64_t value = 0;
        const auto [ptr, ec] = std::from_chars(line.data() + digits, line.data() + line.size(), value);
        if (ec != std::errc() || ptr == line.data() + digits) return std::nullopt;
        return value;
    }
    return std::nullopt;
}

std::optional<ProcessMemory> readProcessMemory(int pid) {
    std::ifstream file("/proc/" + std::to_string(pid) + "/status");
    if (!file) return std::nullopt;
    std::stringstream text;
    text << file.rdbuf();
    const std::string status = text.str();
    const auto peak = statusFieldKb(status, "VmHWM");
    const auto current = statusFieldKb(status, "VmRSS");
    if (!peak || !current) return std::nullopt;
    return ProcessMemory{*peak, *current};
}

bool resetPeakRss(int pid) {
    std::ofstream file("/proc/" + std::to_string(pid) + "/clear_refs");
    if (!file) return false;
    file << "5";
    file.flush();
    return static_cast<bool>(file);
}

} // namespace bench
