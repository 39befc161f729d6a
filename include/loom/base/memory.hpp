// How much memory this process may still take: the lower of the kernel's MemAvailable and the cgroup's limit less
// its usage, so that work too large for the machine is refused before it is built instead of meeting the OOM killer.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace loom {

// Bytes the process can still allocate, or nullopt when neither /proc/meminfo nor the cgroup says.
std::optional<std::int64_t> available_memory_bytes();

// "12.3 GiB": a byte count for messages.
std::string format_bytes(std::int64_t bytes);

}  // namespace loom
