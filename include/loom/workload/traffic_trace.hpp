// Trace-driven traffic: messages read from a JSON-lines file, one {"time", "src", "dst", "bytes"} object per
// line, replayed by the terminals of a dynamically routed network at their times.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "loom/base/units.hpp"

namespace loom::workload {

struct TraceMessage {
    Time time;             // when the source generates it
    std::int32_t src = 0;  // terminal ids (TrafficPattern numbering)
    std::int32_t dst = 0;
    Bytes bytes{0};        // >= 1
};

// Line format: {"time": "15ns" (a duration) or an integer number of ps, "src": int >= 0, "dst": int >= 0,
// "bytes": int >= 1}; no other keys; blank lines are skipped. Messages keep their file order among equal times.
class TrafficTrace {
public:
    TrafficTrace() = default;
    explicit TrafficTrace(std::vector<TraceMessage> messages);

    // Reads a file. Throws InputError for an unreadable file and ConfigError with one message per bad line,
    // each "<path>:<line>: <JSON pointer in the line>: <problem>" ("t.jsonl:3: /src: expected integer >= 0").
    static TrafficTrace load(const std::string& path);
    // The same for text in memory; `origin` names it in messages.
    static TrafficTrace parse(std::string_view text, const std::string& origin);

    // Sorted by time (stable: file order among equal times).
    const std::vector<TraceMessage>& messages() const { return messages_; }
    // Messages whose src or dst is not a terminal id below `terminals`, or that send to themselves, as messages
    // "<origin>: message <i>: ..." (empty when all are valid).
    std::vector<std::string> problems(std::int32_t terminals) const;

private:
    std::vector<TraceMessage> messages_;
    std::vector<std::int64_t> lines_;  // 1-based source line of each message (0 when built in memory)
    std::string origin_;
};

}  // namespace loom::workload
