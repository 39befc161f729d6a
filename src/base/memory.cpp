#include "loom/base/memory.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include <fmt/format.h>

#include "loom/base/error.hpp"

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

// The process's data size (VmData of /proc/self/status: heap plus private writable mappings), which is what
// RLIMIT_DATA limits.
std::optional<std::int64_t> data_size_bytes() {
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);) {
        std::istringstream fields(line);
        std::string key;
        std::int64_t kib = 0;
        if (fields >> key >> kib && key == "VmData:") return kib * 1024;
    }
    return std::nullopt;
}

}  // namespace

void limit_memory(std::int64_t bytes, const std::string& flag) {
    const std::int64_t used = data_size_bytes().value_or(0);
    if (bytes <= used)
        throw InputError(fmt::format("{}: {} is below the {} this process already uses", flag, format_bytes(bytes),
                                     format_bytes(used)));
    rlimit limit{};
    if (getrlimit(RLIMIT_DATA, &limit) != 0)
        throw InputError(fmt::format("{}: cannot read the data limit: {}", flag, std::strerror(errno)));
    const auto wanted = static_cast<rlim_t>(bytes);
    if (limit.rlim_max != RLIM_INFINITY && wanted > limit.rlim_max)
        throw InputError(fmt::format("{}: {} is above the hard limit of {}", flag, format_bytes(bytes),
                                     format_bytes(static_cast<std::int64_t>(limit.rlim_max))));
    limit.rlim_cur = wanted;
    if (setrlimit(RLIMIT_DATA, &limit) != 0)
        throw InputError(fmt::format("{}: cannot set the data limit: {}", flag, std::strerror(errno)));
}

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
    // The process's own data limit (`--max-memory`), less what it already holds.
    rlimit data{};
    if (getrlimit(RLIMIT_DATA, &data) == 0 && data.rlim_cur != RLIM_INFINITY) {
        const auto cap = static_cast<std::int64_t>(
            std::min<rlim_t>(data.rlim_cur, static_cast<rlim_t>(std::numeric_limits<std::int64_t>::max())));
        const std::int64_t free = std::max<std::int64_t>(0, cap - data_size_bytes().value_or(0));
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
