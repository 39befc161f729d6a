#include "loom/base/memory.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace loom {

namespace {

std::optional<std::int64_t> read_number(const char* path) {
    std::ifstream in(path);
    std::string word;
    if (!(in >> word) || word == "max") return std::nullopt;
    try {
        return std::stoll(word);
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

}  // namespace

std::optional<std::int64_t> available_memory_bytes() {
    std::optional<std::int64_t> best;
    std::ifstream meminfo("/proc/meminfo");
    for (std::string line; std::getline(meminfo, line);) {
        std::istringstream fields(line);
        std::string key;
        std::int64_t kib = 0;
        if (fields >> key >> kib && key == "MemAvailable:") best = kib * 1024;
    }
    // cgroup v2: the limit of this process's group (memory.max, "max" when none) less what the group already uses.
    const auto limit = read_number("/sys/fs/cgroup/memory.max");
    if (limit) {
        const std::int64_t free = std::max<std::int64_t>(0, *limit - read_number("/sys/fs/cgroup/memory.current").value_or(0));
        best = best ? std::min(*best, free) : free;
    }
    return best;
}

std::string format_bytes(std::int64_t bytes) {
    const double b = static_cast<double>(bytes);
    if (bytes >= (std::int64_t{1} << 30)) return fmt::format("{:.1f} GiB", b / static_cast<double>(1 << 30));
    if (bytes >= (std::int64_t{1} << 20)) return fmt::format("{:.1f} MiB", b / static_cast<double>(1 << 20));
    return fmt::format("{} B", bytes);
}

}  // namespace loom
