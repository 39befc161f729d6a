#include "loom/config/document.hpp"

#include <cstdint>
#include <fstream>
#include <set>
#include <sstream>
#include <vector>

#include <fmt/format.h>

#include "loom/base/error.hpp"

namespace loom::config {
namespace {

// nlohmann's parse_error text starts with "[json.exception.parse_error.N] parse error at line L, column C: ";
// the position is reported by us, from the byte offset, so only the description after it is kept.
std::string parse_error_description(const std::string& what) {
    const std::size_t at = what.find(": ", what.find("parse error"));
    if (at != std::string::npos) return what.substr(at + 2);
    const std::size_t bracket = what.find("] ");
    return bracket == std::string::npos ? what : what.substr(bracket + 2);
}

// 1-based line and byte column of the character at 0-based `offset` (clamped to the text).
std::pair<std::size_t, std::size_t> line_column(std::string_view text, std::size_t offset) {
    if (offset > text.size()) offset = text.size();
    std::size_t line = 1;
    std::size_t line_start = 0;
    for (std::size_t i = 0; i < offset; ++i) {
        if (text[i] == '\n') {
            ++line;
            line_start = i + 1;
        }
    }
    return {line, offset - line_start + 1};
}

// A SAX pass that finds the first key repeated within one object, with the pointer of that object.
class DuplicateKeyFinder {
public:
    using number_integer_t = Json::number_integer_t;
    using number_unsigned_t = Json::number_unsigned_t;
    using number_float_t = Json::number_float_t;
    using string_t = Json::string_t;
    using binary_t = Json::binary_t;

    bool null() { return value(); }
    bool boolean(bool) { return value(); }
    bool number_integer(number_integer_t) { return value(); }
    bool number_unsigned(number_unsigned_t) { return value(); }
    bool number_float(number_float_t, const string_t&) { return value(); }
    bool string(string_t&) { return value(); }
    bool binary(binary_t&) { return value(); }
    bool start_object(std::size_t) {
        value();
        stack_.push_back(Frame{true, {}, {}, 0});
        return true;
    }
    bool key(string_t& k) {
        Frame& top = stack_.back();
        top.token = k;
        if (!top.keys.insert(k).second && !found_) {
            std::string pointer;
            for (std::size_t i = 0; i + 1 < stack_.size(); ++i) pointer = child_pointer(pointer, stack_[i].token);
            found_ = std::make_pair(pointer, k);
        }
        return true;
    }
    bool end_object() {
        stack_.pop_back();
        return true;
    }
    bool start_array(std::size_t) {
        value();
        stack_.push_back(Frame{false, {}, {}, 0});
        return true;
    }
    bool end_array() {
        stack_.pop_back();
        return true;
    }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) { return false; }

    // (pointer of the object, repeated key)
    const std::optional<std::pair<std::string, std::string>>& found() const { return found_; }

private:
    struct Frame {
        bool object;
        std::set<std::string> keys;
        std::string token;  // the current key, or the current element's index
        std::size_t next_index;
    };

    bool value() {
        if (!stack_.empty() && !stack_.back().object) stack_.back().token = std::to_string(stack_.back().next_index++);
        return true;
    }

    std::vector<Frame> stack_;
    std::optional<std::pair<std::string, std::string>> found_;
};

bool is_index(const std::string& s) {
    if (s.empty() || s.size() > 18) return false;
    for (char c : s) {
        if (c < '0' || c > '9') return false;
    }
    return true;
}

std::vector<std::string> split_dotted(const std::string& dotted) {
    std::vector<std::string> parts;
    std::size_t begin = 0;
    while (true) {
        const std::size_t dot = dotted.find('.', begin);
        parts.push_back(dotted.substr(begin, dot == std::string::npos ? std::string::npos : dot - begin));
        if (dot == std::string::npos) break;
        begin = dot + 1;
    }
    return parts;
}

}  // namespace

Json parse_json_text(std::string_view text, const std::string& origin) {
    Json doc;
    try {
        doc = Json::parse(text);
    } catch (const Json::parse_error& e) {
        // e.byte counts the bytes read, so the offending character is the one before it.
        const auto [line, column] = line_column(text, e.byte == 0 ? 0 : e.byte - 1);
        throw InputError(fmt::format("{}:{}:{}: malformed JSON: {}", origin, line, column, parse_error_description(e.what())));
    }
    DuplicateKeyFinder finder;
    Json::sax_parse(text, &finder);
    if (const auto& dup = finder.found()) {
        throw InputError(fmt::format("{}: {}: duplicate key '{}'", origin, dup->first.empty() ? "/" : dup->first,
                                     dup->second));
    }
    return doc;
}

Json load_json_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(fmt::format("{}: cannot open file", path));
    std::ostringstream content;
    content << in.rdbuf();
    if (in.bad()) throw InputError(fmt::format("{}: cannot read file", path));
    return parse_json_text(content.str(), path);
}

Json parse_override_value(std::string_view text) {
    Json value = Json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (value.is_discarded()) return Json(std::string(text));
    return value;
}

std::optional<std::string> try_set_dotted(Json& doc, const std::string& path, Json value) {
    if (path.empty()) return "empty path";
    const std::vector<std::string> parts = split_dotted(path);
    for (const std::string& p : parts) {
        if (p.empty()) return fmt::format("empty key in path '{}'", path);
    }
    if (doc.is_null()) doc = Json::object();
    Json* cur = &doc;
    std::string walked;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        const std::string& part = parts[i];
        const bool last = i + 1 == parts.size();
        const std::string where = walked.empty() ? std::string("the document") : fmt::format("'{}'", walked);
        if (cur->is_object()) {
            if (last) {
                (*cur)[part] = std::move(value);
                return std::nullopt;
            }
            Json& next = (*cur)[part];  // created as null when missing
            if (next.is_null()) next = Json::object();
            cur = &next;
        } else if (cur->is_array()) {
            if (!is_index(part)) return fmt::format("{} is an array: '{}' is not an element number", where, part);
            const std::size_t index = std::stoull(part);
            if (index >= cur->size()) {
                return fmt::format("{} has {} elements: index {} is out of range", where, cur->size(), index);
            }
            if (last) {
                (*cur)[index] = std::move(value);
                return std::nullopt;
            }
            cur = &(*cur)[index];
        } else {
            return fmt::format("{} is a {}, not an object or array", where, cur->type_name());
        }
        walked += walked.empty() ? part : "." + part;
    }
    return std::nullopt;  // not reached: the last part always returns
}

void apply_override(Json& doc, const std::string& assignment) {
    const std::size_t eq = assignment.find('=');
    if (eq == std::string::npos) throw InputError(fmt::format("--set {}: expected PATH=VALUE", assignment));
    const std::string path = assignment.substr(0, eq);
    if (auto problem = try_set_dotted(doc, path, parse_override_value(std::string_view(assignment).substr(eq + 1)))) {
        throw InputError(fmt::format("--set {}: {}", path.empty() ? assignment : path, *problem));
    }
}

std::string dotted_to_pointer(const std::string& dotted) {
    if (dotted.empty()) return {};
    std::string pointer;
    for (const std::string& part : split_dotted(dotted)) pointer = child_pointer(pointer, part);
    return pointer;
}

std::string canonical_hash(const Json& doc) {
    // nlohmann's default object is a std::map, so the dump's keys are already sorted.
    const std::string text = doc.dump(-1, ' ', false, Json::error_handler_t::replace);
    std::uint64_t h = 14695981039346656037ULL;
    for (unsigned char c : text) {
        h ^= c;
        h *= 1099511628211ULL;
    }
    return fmt::format("{:016x}", h);
}

}  // namespace loom::config
