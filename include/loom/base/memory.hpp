// How much memory this process may still take: the lower of the kernel's MemAvailable, the cgroup's limit less its
// usage and the process's own data limit (`--max-memory`) less its data size, so that work too large for the machine
// is refused before it is built instead of meeting the OOM killer.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace loom {

// Bytes the process can still allocate, or nullopt when neither /proc/meminfo, the cgroup nor a data limit says.
std::optional<std::int64_t> available_memory_bytes();

// Caps the process's heap and anonymous mappings (RLIMIT_DATA) at `bytes`: allocations past it fail (std::bad_alloc)
// and available_memory_bytes() counts against it. Throws InputError naming `flag` when the limit cannot be set or is
// below what the process already uses.
void limit_memory(std::int64_t bytes, const std::string& flag);

// "12.3 GiB": a byte count for messages.
std::string format_bytes(std::int64_t bytes);

}  // namespace loom
