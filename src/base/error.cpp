#include "loom/base/error.hpp"

#include <fmt/format.h>

#include "loom/base/assert.hpp"

namespace loom {
namespace {
std::string join_first(const std::vector<std::string>& m) {
    if (m.empty()) return "invalid config";
    if (m.size() == 1) return m.front();
    return fmt::format("{} (and {} more)", m.front(), m.size() - 1);
}
}  // namespace

ConfigError::ConfigError(std::vector<std::string> messages)
    : InputError(join_first(messages)), messages_(std::move(messages)) {}

namespace detail {
void assert_failed(const char* expr, const char* file, int line, const std::string& msg) {
    throw InternalError(fmt::format("internal error: {} ({}) at {}:{}", msg, expr, file, line));
}
}  // namespace detail

}  // namespace loom
