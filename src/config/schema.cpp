#include "loom/config/schema.hpp"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "loom/base/error.hpp"
#include "loom/config/units.hpp"

namespace loom::config {

void Errors::add(const std::string& pointer, const std::string& message) {
    messages_.push_back(fmt::format("{}: {}", pointer.empty() ? "/" : pointer, message));
}

void Errors::throw_if_any() const {
    if (!messages_.empty()) throw ConfigError(messages_);
}

std::string child_pointer(const std::string& parent, const std::string& key) {
    std::string out = parent;
    out.reserve(parent.size() + key.size() + 1);
    out += '/';
    for (char c : key) {
        if (c == '~') {
            out += "~0";
        } else if (c == '/') {
            out += "~1";
        } else {
            out += c;
        }
    }
    return out;
}

std::string child_pointer(const std::string& parent, std::size_t index) {
    return fmt::format("{}/{}", parent, index);
}

std::string quote_value(const Json& value) {
    constexpr std::size_t kLongest = 48;
    std::string text = value.dump();
    if (text.size() <= kLongest) return text;
    if (value.is_object()) return fmt::format("an object with {} keys", value.size());
    if (value.is_array()) return fmt::format("an array of {} elements", value.size());
    text.resize(kLongest - 3);
    return text + "...";
}

namespace {
void add_unknown_key(Errors& errors, const std::string& pointer, const std::string& key,
                     const std::vector<std::string>& allowed) {
    if (allowed.empty()) {
        errors.add(child_pointer(pointer, key), fmt::format("unknown key '{}' (expected no keys)", key));
    } else {
        errors.add(child_pointer(pointer, key),
                   fmt::format("unknown key '{}' (expected one of: {})", key, fmt::join(allowed, ", ")));
    }
}
}  // namespace

void report_unknown_keys(const Json& object, const std::string& pointer, const std::vector<std::string>& allowed,
                         Errors& errors) {
    if (!object.is_object()) return;
    for (auto it = object.begin(); it != object.end(); ++it) {
        bool known = false;
        for (const std::string& a : allowed) known = known || a == it.key();
        if (!known) add_unknown_key(errors, pointer, it.key(), allowed);
    }
}

const char* kind_name(Kind k) {
    switch (k) {
        case Kind::Integer: return "integer";
        case Kind::Number: return "number";
        case Kind::Boolean: return "boolean";
        case Kind::String: return "string";
        case Kind::Duration: return "duration";
        case Kind::Size: return "size";
        case Kind::Rate: return "rate";
        case Kind::Frequency: return "frequency";
        case Kind::Choice: return "choice";
        case Kind::Section: return "section";
        case Kind::List: return "list";
        case Kind::IntegerList: return "integer_list";
    }
    return "?";
}

Json describe_json(const std::vector<FieldInfo>& fields) {
    Json out = Json::array();
    for (const FieldInfo& f : fields) {
        Json j = Json::object();
        j["key"] = f.key;
        j["kind"] = kind_name(f.kind);
        j["doc"] = f.doc;
        j["required"] = f.required;
        j["default"] = f.default_value;
        if (!f.range.empty()) j["range"] = f.range;
        if (!f.choices.empty()) j["choices"] = f.choices;
        if (f.file_path) j["file_path"] = true;
        if (f.kind == Kind::Section || f.kind == Kind::List) j["fields"] = describe_json(f.children);
        out.push_back(std::move(j));
    }
    return out;
}

namespace detail {
namespace {

constexpr std::int64_t kMin64 = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMax64 = std::numeric_limits<std::int64_t>::max();

bool has_order(Kind k) {
    switch (k) {
        case Kind::Integer:
        case Kind::Number:
        case Kind::Duration:
        case Kind::Size:
        case Kind::Rate:
        case Kind::Frequency:
        case Kind::List:
        case Kind::IntegerList: return true;
        default: return false;
    }
}

// One bound value as a config would write it.
std::string format_bound(Kind kind, const Bound& b) {
    switch (kind) {
        case Kind::Number: return fmt::format("{}", b.d);
        case Kind::Duration: return to_string(Time::ps(b.i));
        case Kind::Size: return to_string(Bytes(b.i));
        case Kind::Rate: return to_string(Bandwidth::bps(b.i));
        case Kind::Frequency: return to_string(Frequency::hz(b.i));
        default: return fmt::format("{}", b.i);
    }
}

std::string range_of(Kind kind, const std::optional<Bound>& lo, const std::optional<Bound>& hi) {
    if (lo && hi) return fmt::format("{}..{}", format_bound(kind, *lo), format_bound(kind, *hi));
    if (lo) return fmt::format(">= {}", format_bound(kind, *lo));
    if (hi) return fmt::format("<= {}", format_bound(kind, *hi));
    return {};
}

// "in 1..145", ">= 1ps", "" — the range as the tail of an "expected ..." phrase.
std::string range_phrase(Kind kind, const std::optional<Bound>& lo, const std::optional<Bound>& hi) {
    if (!lo && !hi) return {};
    if (lo && hi) return fmt::format(" in {}", range_of(kind, lo, hi));
    return fmt::format(" {}", range_of(kind, lo, hi));
}

void expected(Errors& errors, const std::string& pointer, const std::string& what, const Json& got) {
    errors.add(pointer, fmt::format("expected {}, got {}", what, quote_value(got)));
}

// Integer bounds of an integer-valued field; int32 fields are also bounded by the type.
struct IntRange {
    std::optional<Bound> lo;
    std::optional<Bound> hi;
};

IntRange int_range(const FieldCore& core) {
    IntRange r{core.lo, core.hi};
    if (core.is_int32) {
        const Bound lo32{std::numeric_limits<std::int32_t>::min(), 0};
        const Bound hi32{std::numeric_limits<std::int32_t>::max(), 0};
        if (!r.lo || r.lo->i < lo32.i) r.lo = lo32;
        if (!r.hi || r.hi->i > hi32.i) r.hi = hi32;
    }
    return r;
}

bool in_range(std::int64_t v, const IntRange& r) {
    return (!r.lo || v >= r.lo->i) && (!r.hi || v <= r.hi->i);
}

// Reads a JSON integer within the field's range (used by integer fields and integer-list elements).
bool read_integer(const Json& v, const std::string& pointer, const FieldCore& core, std::int64_t& out,
                  Errors& errors) {
    const IntRange r = int_range(core);
    const bool fits = v.is_number_integer() && (!v.is_number_unsigned() || v.get<std::uint64_t>() <= static_cast<std::uint64_t>(kMax64));
    if (fits && in_range(v.get<std::int64_t>(), r)) {
        out = v.get<std::int64_t>();
        return true;
    }
    expected(errors, pointer, "integer" + range_phrase(Kind::Integer, r.lo, r.hi), v);
    return false;
}

// Unit kinds: a malformed value is told the form; a well-formed one out of range is told the range.
template <class U>
bool accept_unit(const Json& v, const std::string& pointer, const FieldCore& core, const std::optional<U>& parsed,
                 std::int64_t (*count)(U), U& out, Errors& errors, std::string_view form, std::string_view noun) {
    if (!parsed) {
        expected(errors, pointer, std::string(form), v);
        return false;
    }
    if (!in_range(count(*parsed), IntRange{core.lo, core.hi})) {
        expected(errors, pointer, std::string(noun) + range_phrase(core.kind, core.lo, core.hi), v);
        return false;
    }
    out = *parsed;
    return true;
}

template <class U>
std::optional<U> parse_string(const Json& v, std::optional<U> (*parse)(std::string_view)) {
    if (!v.is_string()) return std::nullopt;
    return parse(v.get_ref<const std::string&>());
}

}  // namespace

FieldCore make_core(std::string key, Kind kind, std::string doc) {
    LOOM_ASSERT(!key.empty(), "config key must not be empty");
    const bool cycles = key.size() >= 7 && key.compare(key.size() - 7, 7, "_cycles") == 0;
    LOOM_ASSERT(!(cycles && kind == Kind::Duration), "config key '" + key + "' ends in _cycles: it must be an integer");
    FieldCore core;
    core.key = std::move(key);
    core.kind = kind;
    core.doc = std::move(doc);
    return core;
}

void set_bound(FieldCore& core, const BoundArg& bound, bool lower) {
    LOOM_ASSERT(has_order(core.kind), fmt::format("config key '{}' is a {}: it takes no range", core.key,
                                                  kind_name(core.kind)));
    LOOM_ASSERT(!bound.unit || *bound.unit == core.kind,
                fmt::format("config key '{}' is a {}: its bound must be one too", core.key, kind_name(core.kind)));
    Bound b;
    if (core.kind == Kind::Number) {
        b.d = bound.floating ? bound.d : static_cast<double>(bound.i);
    } else if (bound.floating) {
        // Inward rounding keeps exactly the integers the real interval holds.
        const double r = lower ? std::ceil(bound.d) : std::floor(bound.d);
        if (r <= -9.2e18) {
            b.i = kMin64;
        } else if (r >= 9.2e18) {
            b.i = kMax64;
        } else {
            b.i = static_cast<std::int64_t>(r);
        }
    } else {
        b.i = bound.i;
    }
    (lower ? core.lo : core.hi) = b;
}

bool read(const Json& v, const std::string& pointer, const FieldCore& core, std::int64_t& out, Errors& errors) {
    return read_integer(v, pointer, core, out, errors);
}

bool read(const Json& v, const std::string& pointer, const FieldCore& core, std::int32_t& out, Errors& errors) {
    std::int64_t wide = 0;
    if (!read_integer(v, pointer, core, wide, errors)) return false;
    out = static_cast<std::int32_t>(wide);  // int_range bounded it to int32
    return true;
}

bool read(const Json& v, const std::string& pointer, const FieldCore& core, double& out, Errors& errors) {
    if (v.is_number()) {
        const double d = v.get<double>();
        if ((!core.lo || d >= core.lo->d) && (!core.hi || d <= core.hi->d)) {
            out = d;
            return true;
        }
    }
    expected(errors, pointer, "number" + range_phrase(Kind::Number, core.lo, core.hi), v);
    return false;
}

bool read(const Json& v, const std::string& pointer, const FieldCore&, bool& out, Errors& errors) {
    if (v.is_boolean()) {
        out = v.get<bool>();
        return true;
    }
    expected(errors, pointer, "true or false", v);
    return false;
}

bool read(const Json& v, const std::string& pointer, const FieldCore&, std::string& out, Errors& errors) {
    if (v.is_string()) {
        out = v.get<std::string>();
        return true;
    }
    expected(errors, pointer, "a string", v);
    return false;
}

bool read(const Json& v, const std::string& pointer, const FieldCore& core, Time& out, Errors& errors) {
    return accept_unit<Time>(v, pointer, core, parse_string(v, parse_duration), [](Time t) { return t.count(); }, out,
                             errors, kDurationForm, "a duration");
}

bool read(const Json& v, const std::string& pointer, const FieldCore& core, Bytes& out, Errors& errors) {
    std::optional<Bytes> parsed = parse_string(v, parse_bytes);
    // A bare non-negative integer is a count of bytes.
    const bool non_negative = v.is_number_unsigned() || (v.is_number_integer() && v.get<std::int64_t>() >= 0);
    if (non_negative && v.get<std::uint64_t>() <= static_cast<std::uint64_t>(kMax64)) {
        parsed = Bytes(v.get<std::int64_t>());
    }
    return accept_unit<Bytes>(v, pointer, core, parsed, [](Bytes b) { return b.count(); }, out, errors, kSizeForm,
                              "a size");
}

bool read(const Json& v, const std::string& pointer, const FieldCore& core, Bandwidth& out, Errors& errors) {
    return accept_unit<Bandwidth>(v, pointer, core, parse_string(v, parse_bandwidth),
                                  [](Bandwidth b) { return b.bits_per_s(); }, out, errors, kRateForm, "a rate");
}

bool read(const Json& v, const std::string& pointer, const FieldCore& core, Frequency& out, Errors& errors) {
    return accept_unit<Frequency>(v, pointer, core, parse_string(v, parse_frequency),
                                  [](Frequency f) { return f.hertz(); }, out, errors, kFrequencyForm, "a frequency");
}

bool read(const Json& v, const std::string& pointer, const FieldCore& core, std::vector<std::int64_t>& out,
          Errors& errors) {
    if (!v.is_array()) {
        expected(errors, pointer, "an array of integers", v);
        return false;
    }
    std::vector<std::int64_t> values(v.size());
    bool ok = true;
    for (std::size_t i = 0; i < v.size(); ++i) {
        ok = read_integer(v[i], child_pointer(pointer, i), core, values[i], errors) && ok;
    }
    if (ok) out = std::move(values);
    return ok;
}

bool read_choice(const Json& v, const std::string& pointer, const FieldCore& core, std::size_t& index,
                 Errors& errors) {
    if (v.is_string()) {
        for (std::size_t i = 0; i < core.choices.size(); ++i) {
            if (core.choices[i] == v.get_ref<const std::string&>()) {
                index = i;
                return true;
            }
        }
    }
    std::vector<std::string> quoted;
    for (const std::string& c : core.choices) quoted.push_back(Json(c).dump());
    expected(errors, pointer, fmt::format("one of {}", fmt::join(quoted, ", ")), v);
    return false;
}

bool check_list(const Json& v, const std::string& pointer, const FieldCore& core, Errors& errors) {
    if (!v.is_array()) {
        expected(errors, pointer, "an array of objects", v);
        return false;
    }
    const auto n = static_cast<std::int64_t>(v.size());
    if (!in_range(n, IntRange{core.lo, core.hi})) {
        errors.add(pointer, fmt::format("expected an array of objects with length{}, got {} elements",
                                        range_phrase(Kind::List, core.lo, core.hi), n));
        return false;
    }
    return true;
}

bool check_object(const Json& v, const std::string& pointer, Errors& errors) {
    if (v.is_object()) return true;
    expected(errors, pointer, "an object", v);
    return false;
}

Json write(std::int64_t v) { return v; }
Json write(std::int32_t v) { return v; }
Json write(double v) { return v; }
Json write(bool v) { return v; }
Json write(const std::string& v) { return v; }
Json write(Time v) { return to_string(v); }
Json write(Bytes v) { return to_string(v); }
Json write(Bandwidth v) { return to_string(v); }
Json write(Frequency v) { return to_string(v); }
Json write(const std::vector<std::int64_t>& v) { return Json(v); }

void visit_object(const Json& object, const std::string& pointer, const std::vector<const FieldCore*>& cores,
                  Errors& errors, const std::function<void(std::size_t, const Json&, const std::string&)>& visit) {
    std::vector<bool> seen(cores.size(), false);
    std::vector<std::string> keys;
    for (auto it = object.begin(); it != object.end(); ++it) {
        std::size_t i = 0;
        while (i < cores.size() && cores[i]->key != it.key()) ++i;
        if (i == cores.size()) {
            if (keys.empty()) {
                for (const FieldCore* c : cores) keys.push_back(c->key);
            }
            add_unknown_key(errors, pointer, it.key(), keys);
            continue;
        }
        seen[i] = true;
        visit(i, it.value(), child_pointer(pointer, it.key()));
    }
    for (std::size_t i = 0; i < cores.size(); ++i) {
        if (seen[i]) continue;
        if (cores[i]->required) {
            errors.add(pointer, fmt::format("missing required key '{}'", cores[i]->key));
        } else if (cores[i]->parse_when_absent) {
            visit(i, Json::object(), child_pointer(pointer, cores[i]->key));
        }
    }
}

FieldInfo make_info(const FieldCore& core, Json default_value) {
    FieldInfo info;
    info.key = core.key;
    info.kind = core.kind;
    info.doc = core.doc;
    info.required = core.required;
    info.file_path = core.file_path;
    if (!core.required) info.default_value = std::move(default_value);
    info.range = range_of(core.kind, core.lo, core.hi);
    info.choices = core.choices;
    return info;
}

void apply_defaults(std::vector<FieldInfo>& children, const Json& defaults) {
    if (!defaults.is_object()) return;
    for (FieldInfo& child : children) {
        auto it = defaults.find(child.key);
        if (it == defaults.end() || child.required) continue;
        child.default_value = *it;
        if (child.kind == Kind::Section) apply_defaults(child.children, *it);
    }
}

}  // namespace detail
}  // namespace loom::config
