// Invariant checks. LOOM_ASSERT is always on (cheap checks on setup paths and model invariants);
// LOOM_DEBUG_ASSERT only in debug builds (hot paths). A failure throws InternalError with file and line.
#pragma once

#include <string>

namespace loom::detail {
[[noreturn]] void assert_failed(const char* expr, const char* file, int line, const std::string& msg);
}

#define LOOM_ASSERT(cond, msg)                                                   \
    do {                                                                         \
        if (!(cond)) [[unlikely]]                                                \
            ::loom::detail::assert_failed(#cond, __FILE__, __LINE__, (msg));     \
    } while (0)

#ifdef NDEBUG
#define LOOM_DEBUG_ASSERT(cond, msg) ((void)0)
#else
#define LOOM_DEBUG_ASSERT(cond, msg) LOOM_ASSERT(cond, msg)
#endif
