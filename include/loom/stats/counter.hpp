// A running count registered once and then updated through a plain reference on the hot path.
#pragma once

#include <cstdint>

namespace loom::stats {

// A monotone or signed running count. Hot path: one add, no checks.
class Counter {
public:
    void add(std::int64_t n = 1) { value_ += n; }
    void set(std::int64_t v) { value_ = v; }
    void reset() { value_ = 0; }
    std::int64_t value() const { return value_; }

private:
    std::int64_t value_ = 0;
};

}  // namespace loom::stats
