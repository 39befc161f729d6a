#include "loom/workload/traffic_trace.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "loom/base/error.hpp"
#include "loom/config/schema.hpp"
#include "loom/config/units.hpp"

namespace loom::workload {

namespace {

using Json = nlohmann::json;

// One field of a line: an integer in [lo, hi]; adds a problem and returns false otherwise.
bool read_int(const Json& line, const char* key, std::int64_t lo, std::int64_t hi, std::int64_t& out,
              std::vector<std::string>& problems) {
    const std::string ptr = std::string("/") + key;
    if (!line.contains(key)) {
        problems.push_back(fmt::format("{}: missing", ptr));
        return false;
    }
    const Json& v = line.at(key);
    if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(hi)) ||
        v.get<std::int64_t>() < lo || v.get<std::int64_t>() > hi) {
        problems.push_back(fmt::format("{}: expected integer in {}..{}, got {}", ptr, lo, hi, config::quote_value(v)));
        return false;
    }
    out = v.get<std::int64_t>();
    return true;
}

}  // namespace

TrafficTrace::TrafficTrace(std::vector<TraceMessage> messages) : messages_(std::move(messages)) {
    std::stable_sort(messages_.begin(), messages_.end(),
                     [](const TraceMessage& a, const TraceMessage& b) { return a.time < b.time; });
    lines_.assign(messages_.size(), 0);
}

TrafficTrace TrafficTrace::load(const std::string& path) {
    // A directory opens as an empty stream on Linux, and a FIFO or device may never end: only regular files.
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (!ec && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status))
        throw InputError(fmt::format("{}: not a regular file (a trace is a file of JSON lines)", path));
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(fmt::format("{}: cannot open trace file", path));
    std::ostringstream text;
    text << in.rdbuf();
    return parse(text.str(), path);
}

TrafficTrace TrafficTrace::parse(std::string_view text, const std::string& origin) {
    struct Entry {
        TraceMessage message;
        std::int64_t line;
    };
    std::vector<Entry> entries;
    std::vector<std::string> errors;
    std::int64_t line_no = 0;
    std::size_t pos = 0;
    while (pos <= text.size()) {
        const std::size_t end = std::min(text.find('\n', pos), text.size());
        std::string_view line = text.substr(pos, end - pos);
        pos = end + 1;
        ++line_no;
        if (line.find_first_not_of(" \t\r") == std::string_view::npos) {
            if (end == text.size()) break;
            continue;
        }
        const std::string where = fmt::format("{}:{}", origin, line_no);
        Json j;
        try {
            j = Json::parse(line);
        } catch (const Json::parse_error& e) {
            errors.push_back(fmt::format("{}: malformed JSON: {}", where, e.what()));
            continue;
        }
        if (!j.is_object()) {
            errors.push_back(fmt::format("{}: expected an object {{\"time\", \"src\", \"dst\", \"bytes\"}}", where));
            continue;
        }
        std::vector<std::string> problems;
        config::Errors unknown;
        config::report_unknown_keys(j, "", {"bytes", "dst", "src", "time"}, unknown);
        for (const auto& m : unknown.messages()) problems.push_back(m);
        TraceMessage m;
        std::int64_t v = 0;
        if (!j.contains("time")) {
            problems.push_back("/time: missing");
        } else if (const Json& t = j.at("time"); t.is_string()) {
            if (auto d = config::parse_duration(t.get<std::string>()); d && *d <= kMaxInputTime) {
                m.time = *d;
            } else {
                problems.push_back(fmt::format("/time: expected {} up to {} or an integer number of ps, got {}",
                                               config::kDurationForm, to_string(kMaxInputTime),
                                               config::quote_value(t)));
            }
        } else if (read_int(j, "time", 0, kMaxInputTime.count(), v, problems)) {
            m.time = Time::ps(v);
        }
        if (read_int(j, "src", 0, INT32_MAX, v, problems)) m.src = static_cast<std::int32_t>(v);
        if (read_int(j, "dst", 0, INT32_MAX, v, problems)) m.dst = static_cast<std::int32_t>(v);
        if (read_int(j, "bytes", 1, std::int64_t{1} << 50, v, problems)) m.bytes = Bytes(v);
        for (const auto& p : problems) errors.push_back(fmt::format("{}: {}", where, p));
        if (problems.empty()) entries.push_back({m, line_no});
        if (end == text.size()) break;
    }
    if (!errors.empty()) throw ConfigError(errors);

    std::stable_sort(entries.begin(), entries.end(),
                     [](const Entry& a, const Entry& b) { return a.message.time < b.message.time; });
    TrafficTrace trace;
    trace.origin_ = origin;
    for (const auto& e : entries) {
        trace.messages_.push_back(e.message);
        trace.lines_.push_back(e.line);
    }
    return trace;
}

std::vector<std::string> TrafficTrace::problems(std::int32_t terminals) const {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < messages_.size(); ++i) {
        const TraceMessage& m = messages_[i];
        const std::string where = lines_[i] > 0 ? fmt::format("{}:{}", origin_, lines_[i])
                                                : fmt::format("{}: message {}", origin_, i);
        if (m.src >= terminals)
            out.push_back(fmt::format("{}: /src: expected a terminal id in 0..{}, got {}", where, terminals - 1, m.src));
        if (m.dst >= terminals)
            out.push_back(fmt::format("{}: /dst: expected a terminal id in 0..{}, got {}", where, terminals - 1, m.dst));
        if (m.src == m.dst) out.push_back(fmt::format("{}: /dst: a message to its own source ({})", where, m.src));
    }
    return out;
}

}  // namespace loom::workload
