#include "loom/config/document.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
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

// A SAX pass run before the document is built: it stops at the first level of nesting deeper than
// kMaxJsonDepth (recursive code downstream — dumps, schemas — would otherwise overflow the stack on hostile
// input), and finds the first number too large for a double ("1e400") and the first key repeated within one
// object, each with its JSON Pointer.
class DocumentChecker {
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
    bool number_float(number_float_t v, const string_t& text) {
        value();
        if (!std::isfinite(v) && !bad_number_) bad_number_ = std::make_pair(pointer(stack_.size()), text);
        return true;
    }
    bool string(string_t&) { return value(); }
    bool binary(binary_t&) { return value(); }
    bool start_object(std::size_t) {
        value();
        if (stack_.size() >= kMaxJsonDepth) return too_deep();
        stack_.push_back(Frame{true, {}, {}, 0});
        return true;
    }
    bool key(string_t& k) {
        Frame& top = stack_.back();
        top.token = k;
        if (!top.keys.insert(k).second && !found_) {
            found_ = std::make_pair(pointer(stack_.size() - 1), k);
        }
        return true;
    }
    bool end_object() {
        stack_.pop_back();
        return true;
    }
    bool start_array(std::size_t) {
        value();
        if (stack_.size() >= kMaxJsonDepth) return too_deep();
        stack_.push_back(Frame{false, {}, {}, 0});
        return true;
    }
    bool end_array() {
        stack_.pop_back();
        return true;
    }
    bool parse_error(std::size_t, const std::string& last_token, const nlohmann::detail::exception& e) {
        // 406: a number a double cannot hold ("1e400"); the parser reports it here rather than as a value.
        if (e.id == 406 && !bad_number_) bad_number_ = std::make_pair(pending_pointer(), last_token);
        return false;
    }

    // (pointer of the object, repeated key)
    const std::optional<std::pair<std::string, std::string>>& found() const { return found_; }
    // (pointer of the value, its text) of the first number out of a double's range
    const std::optional<std::pair<std::string, std::string>>& bad_number() const { return bad_number_; }
    // The pointer of the value being read when the parser stopped (for errors the parser throws itself).
    std::string pending_pointer() const {
        std::string p = pointer(stack_.empty() ? 0 : stack_.size() - 1);
        if (!stack_.empty()) {
            const Frame& top = stack_.back();
            p = child_pointer(p, top.object ? top.token : std::to_string(top.next_index));
        }
        return p.empty() ? "/" : p;
    }
    // The pointer of the first array or object nested too deep, if any.
    const std::optional<std::string>& too_deep_at() const { return too_deep_; }

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
    // The pointer of the current value in the first `levels` frames.
    std::string pointer(std::size_t levels) const {
        std::string p;
        for (std::size_t i = 0; i < levels && i < stack_.size(); ++i) p = child_pointer(p, stack_[i].token);
        return p;
    }
    bool too_deep() {
        // Only the first few levels go into the message: a pointer 100,000 levels deep is no help to anyone.
        std::string p = pointer(std::min<std::size_t>(stack_.size(), 8));
        if (stack_.size() > 8) p += "/...";
        too_deep_ = p.empty() ? "/" : p;
        return false;
    }

    std::vector<Frame> stack_;
    std::optional<std::pair<std::string, std::string>> found_;
    std::optional<std::pair<std::string, std::string>> bad_number_;
    std::optional<std::string> too_deep_;
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

std::optional<std::string> utf8_problem(std::string_view text) {
    std::size_t i = 0;
    while (i < text.size()) {
        const auto c = static_cast<unsigned char>(text[i]);
        std::size_t n = 0;
        std::uint32_t cp = 0;
        if (c < 0x80) {
            ++i;
            continue;
        } else if ((c & 0xE0) == 0xC0) {
            n = 1;
            cp = c & 0x1Fu;
        } else if ((c & 0xF0) == 0xE0) {
            n = 2;
            cp = c & 0x0Fu;
        } else if ((c & 0xF8) == 0xF0) {
            n = 3;
            cp = c & 0x07u;
        } else {
            return fmt::format("invalid UTF-8 byte 0x{:02x} at offset {}", c, i);
        }
        if (i + n >= text.size()) {
            return fmt::format("truncated UTF-8 sequence at offset {}", i);
        }
        for (std::size_t k = 1; k <= n; ++k) {
            const auto cc = static_cast<unsigned char>(text[i + k]);
            if ((cc & 0xC0) != 0x80) return fmt::format("invalid UTF-8 byte 0x{:02x} at offset {}", cc, i + k);
            cp = (cp << 6) | (cc & 0x3Fu);
        }
        static constexpr std::uint32_t kMin[] = {0, 0x80, 0x800, 0x10000};
        if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return fmt::format("invalid UTF-8 sequence at offset {}", i);
        i += n + 1;
    }
    return std::nullopt;
}

// nlohmann's parser throws out_of_range 406 itself for a number a double cannot hold: "number overflow parsing
// '1e400'". Returns the number's text.
std::string overflowing_number(const Json::out_of_range& e) {
    const std::string what = e.what();
    const std::size_t open = what.find('\'');
    const std::size_t close = what.rfind('\'');
    return open != std::string::npos && close > open ? what.substr(open + 1, close - open - 1) : what;
}

// Runs the checker over `text`; false when the text is not JSON. Throws InputError (without an origin) for a
// number out of range.
bool check_document(std::string_view text, DocumentChecker& checker) {
    try {
        return Json::sax_parse(text, &checker);
    } catch (const Json::out_of_range& e) {
        throw InputError(fmt::format("{}: number {} is out of range", checker.pending_pointer(), overflowing_number(e)));
    }
}

Json parse_json_text(std::string_view text, const std::string& origin) {
    DocumentChecker checker;
    try {
        check_document(text, checker);
    } catch (const InputError& e) {
        throw InputError(fmt::format("{}: {}", origin, e.what()));
    }
    if (const auto& deep = checker.too_deep_at()) {
        throw InputError(fmt::format("{}: {}: JSON nested deeper than {} levels", origin, *deep, kMaxJsonDepth));
    }
    if (const auto& bad = checker.bad_number()) {
        throw InputError(fmt::format("{}: {}: number {} is out of range", origin, bad->first.empty() ? "/" : bad->first,
                                     bad->second));
    }
    Json doc;
    try {
        doc = Json::parse(text);
    } catch (const Json::parse_error& e) {
        // e.byte counts the bytes read, so the offending character is the one before it.
        const auto [line, column] = line_column(text, e.byte == 0 ? 0 : e.byte - 1);
        throw InputError(fmt::format("{}:{}:{}: malformed JSON: {}", origin, line, column, parse_error_description(e.what())));
    }
    if (const auto& bad = checker.bad_number()) {
        throw InputError(fmt::format("{}: {}: number {} is out of range", origin, bad->first.empty() ? "/" : bad->first,
                                     bad->second));
    }
    if (const auto& dup = checker.found()) {
        throw InputError(fmt::format("{}: {}: duplicate key '{}'", origin, dup->first.empty() ? "/" : dup->first,
                                     dup->second));
    }
    return doc;
}

Json load_json_file(const std::string& path) {
    // Checked before opening: opening a FIFO with no writer blocks forever, and /dev/zero never ends.
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) throw InputError(fmt::format("{}: cannot open file", path));
    if (!S_ISREG(st.st_mode)) {
        throw InputError(fmt::format("{}: not a regular file ({})", path,
                                     S_ISDIR(st.st_mode)    ? "a directory"
                                     : S_ISFIFO(st.st_mode) ? "a pipe"
                                     : S_ISCHR(st.st_mode)  ? "a character device"
                                     : S_ISBLK(st.st_mode)  ? "a block device"
                                     : S_ISSOCK(st.st_mode) ? "a socket"
                                                            : "not a file"));
    }
    const auto too_large = [&] {
        return InputError(fmt::format("{}: file is larger than {} MiB, the most a JSON document may be", path,
                                      kMaxJsonFileBytes >> 20));
    };
    if (static_cast<std::uint64_t>(st.st_size) > kMaxJsonFileBytes) throw too_large();
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(fmt::format("{}: cannot open file", path));
    // Read at most one byte past the limit: the file may have grown since stat().
    std::string content(static_cast<std::size_t>(st.st_size) + 1, '\0');
    in.read(content.data(), static_cast<std::streamsize>(content.size()));
    if (in.bad()) throw InputError(fmt::format("{}: cannot read file", path));
    content.resize(static_cast<std::size_t>(in.gcount()));
    if (content.size() > static_cast<std::size_t>(st.st_size)) {
        std::ostringstream rest;
        rest << content << in.rdbuf();
        content = rest.str();
        if (content.size() > kMaxJsonFileBytes) throw too_large();
    }
    return parse_json_text(content, path);
}

Json parse_override_value(std::string_view text) {
    DocumentChecker checker;
    if (!check_document(text, checker)) {
        if (const auto& bad = checker.bad_number()) {
            throw InputError(fmt::format("{}: number {} is out of range", bad->first, bad->second));
        }
        if (const auto& deep = checker.too_deep_at()) {
            throw InputError(fmt::format("{}: JSON nested deeper than {} levels", *deep, kMaxJsonDepth));
        }
        return Json(std::string(text));  // not JSON: the text itself
    }
    if (const auto& bad = checker.bad_number()) {
        throw InputError(fmt::format("{}: number {} is out of range", bad->first.empty() ? "/" : bad->first, bad->second));
    }
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
    if (auto bad = utf8_problem(assignment)) {
        // The assignment itself cannot be quoted: a message must stay valid UTF-8.
        throw InputError(fmt::format("--set: not valid UTF-8 ({})", *bad));
    }
    const std::size_t eq = assignment.find('=');
    if (eq == std::string::npos) throw InputError(fmt::format("--set {}: expected PATH=VALUE", assignment));
    const std::string path = assignment.substr(0, eq);
    Json value;
    try {
        value = parse_override_value(std::string_view(assignment).substr(eq + 1));
    } catch (const InputError& e) {
        throw InputError(fmt::format("--set {}: {}", path, e.what()));
    }
    if (auto problem = try_set_dotted(doc, path, std::move(value))) {
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
    for (char c : text) {
        h ^= static_cast<unsigned char>(c);
        h *= 1099511628211ULL;
    }
    return fmt::format("{:016x}", h);
}

}  // namespace loom::config
