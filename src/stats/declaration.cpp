#include "loom/stats/declaration.hpp"

#include <set>

#include <fmt/format.h>

namespace loom::stats {
namespace {

// The reference tokens of a pointer ("/a/b" -> {"a", "b"}), kept escaped; "" has none.
std::vector<std::string_view> pointer_tokens(std::string_view pointer) {
    std::vector<std::string_view> out;
    if (pointer.empty()) return out;
    std::size_t b = 1;
    for (;;) {
        const std::size_t slash = pointer.find('/', b);
        out.push_back(pointer.substr(b, slash == std::string_view::npos ? std::string_view::npos : slash - b));
        if (slash == std::string_view::npos) break;
        b = slash + 1;
    }
    return out;
}

// Glob match of one token: '*' matches any run of characters (iterative, with one backtrack point).
bool token_matches(std::string_view pattern, std::string_view text) {
    std::size_t p = 0, t = 0, star = std::string_view::npos, mark = 0;
    while (t < text.size()) {
        if (p < pattern.size() && pattern[p] == '*') {
            star = p++;
            mark = t;
        } else if (p < pattern.size() && pattern[p] == text[t]) {
            ++p;
            ++t;
        } else if (star != std::string_view::npos) {
            p = star + 1;
            t = ++mark;
        } else {
            return false;
        }
    }
    while (p < pattern.size() && pattern[p] == '*') ++p;
    return p == pattern.size();
}

// Whether the first pattern.size() tokens of `pointer` match `pattern` (pointer may be longer when `prefix`).
bool tokens_match(const std::vector<std::string_view>& pattern, const std::vector<std::string_view>& pointer,
                  bool prefix) {
    if (prefix ? pointer.size() < pattern.size() : pointer.size() != pattern.size()) return false;
    for (std::size_t i = 0; i < pattern.size(); ++i)
        if (!token_matches(pattern[i], pointer[i])) return false;
    return true;
}

std::string escape_token(const std::string& key) {
    std::string out;
    out.reserve(key.size());
    for (const char c : key) {
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

// The declarations as token lists, matched against the document's pointers during one walk.
struct Matcher {
    struct Entry {
        const StatDecl* decl;
        std::vector<std::string_view> tokens;
    };
    std::vector<Entry> entries;

    explicit Matcher(const std::vector<StatDecl>& decls) {
        entries.reserve(decls.size());
        for (const StatDecl& d : decls) entries.push_back({&d, pointer_tokens(d.pointer)});
    }
    // A declaration matching the node exactly (any shape), or one that covers a subtree containing it.
    bool covers(const std::vector<std::string_view>& at, bool container) const {
        for (const Entry& e : entries) {
            const bool subtree = e.decl->shape != StatShape::Scalar;
            if (tokens_match(e.tokens, at, subtree)) {
                if (!container || subtree) return true;
            }
        }
        return false;
    }
    // Some declaration lies strictly below the node (an empty object whose members would be declared).
    bool declares_below(const std::vector<std::string_view>& at) const {
        for (const Entry& e : entries) {
            if (e.tokens.size() <= at.size()) continue;
            bool ok = true;
            for (std::size_t i = 0; i < at.size() && ok; ++i) ok = token_matches(e.tokens[i], at[i]);
            if (ok) return true;
        }
        return false;
    }
};

void walk(const Json& node, const std::string& pointer, std::vector<std::string>& keys, const Matcher& m,
          std::vector<std::string>& out) {
    std::vector<std::string_view> at;
    at.reserve(keys.size());
    for (const std::string& k : keys) at.push_back(k);
    const bool container = node.is_object() || node.is_array();
    if (m.covers(at, container && !node.empty())) return;
    if (node.is_object() && !node.empty()) {
        for (auto it = node.begin(); it != node.end(); ++it) {
            keys.push_back(escape_token(it.key()));
            walk(it.value(), pointer + "/" + keys.back(), keys, m, out);
            keys.pop_back();
        }
        return;
    }
    // An array of records may be declared element by element ("/comparison/networks/*/makespan_ps").
    if (node.is_array() && !node.empty() && m.declares_below(at)) {
        for (std::size_t i = 0; i < node.size(); ++i) {
            keys.push_back(std::to_string(i));
            walk(node[i], pointer + "/" + keys.back(), keys, m, out);
            keys.pop_back();
        }
        return;
    }
    if (container && node.empty() && (m.covers(at, false) || m.declares_below(at))) return;
    out.push_back(pointer.empty() ? std::string("/") : pointer);
}

}  // namespace

const char* shape_name(StatShape shape) {
    switch (shape) {
        case StatShape::Scalar: return "scalar";
        case StatShape::Histogram: return "histogram";
        case StatShape::TimeAverage: return "time_average";
        case StatShape::Record: return "record";
        case StatShape::List: return "list";
    }
    return "?";
}

bool pointer_matches(std::string_view pattern, std::string_view pointer) {
    return tokens_match(pointer_tokens(pattern), pointer_tokens(pointer), false);
}

StatDecls& StatDecls::scalar(std::string pointer, std::string unit, std::string doc) {
    return add({std::move(pointer), std::move(unit), std::move(doc), StatShape::Scalar});
}
StatDecls& StatDecls::histogram(std::string pointer, std::string unit, std::string doc) {
    return add({std::move(pointer), std::move(unit), std::move(doc), StatShape::Histogram});
}
StatDecls& StatDecls::time_average(std::string pointer, std::string unit, std::string doc) {
    return add({std::move(pointer), std::move(unit), std::move(doc), StatShape::TimeAverage});
}
StatDecls& StatDecls::record(std::string pointer, std::string unit, std::string doc) {
    return add({std::move(pointer), std::move(unit), std::move(doc), StatShape::Record});
}
StatDecls& StatDecls::list(std::string pointer, std::string unit, std::string doc) {
    return add({std::move(pointer), std::move(unit), std::move(doc), StatShape::List});
}
StatDecls& StatDecls::add(StatDecl decl) {
    decls_.push_back(std::move(decl));
    return *this;
}
StatDecls& StatDecls::append(const StatDecls& other) {
    decls_.insert(decls_.end(), other.decls_.begin(), other.decls_.end());
    return *this;
}

const StatDecl* StatDecls::find_scalar(std::string_view pointer) const {
    for (const StatDecl& d : decls_)
        if (d.shape == StatShape::Scalar && (d.pointer == pointer || pointer_matches(d.pointer, pointer))) return &d;
    return nullptr;
}

const StatDecl* StatDecls::covering(std::string_view pointer) const {
    const std::vector<std::string_view> at = pointer_tokens(pointer);
    for (const StatDecl& d : decls_)
        if (tokens_match(pointer_tokens(d.pointer), at, d.shape != StatShape::Scalar)) return &d;
    return nullptr;
}

std::vector<std::string> StatDecls::undeclared(const Json& document) const {
    const Matcher m(decls_);
    std::vector<std::string> out;
    std::vector<std::string> keys;
    walk(document, "", keys, m, out);
    return out;
}

std::vector<std::string> StatDecls::problems() const {
    std::vector<std::string> out;
    std::set<std::string> seen;
    for (const StatDecl& d : decls_) {
        const std::string at = d.pointer.empty() ? std::string("(empty pointer)") : d.pointer;
        if (d.pointer.empty() || d.pointer.front() != '/') {
            out.push_back(fmt::format("{}: not a JSON Pointer (expected '/' first)", at));
        } else {
            for (const std::string_view t : pointer_tokens(d.pointer)) {
                if (t.empty()) out.push_back(fmt::format("{}: empty reference token", at));
                for (std::size_t i = 0; i < t.size(); ++i)
                    if (t[i] == '~' && (i + 1 == t.size() || (t[i + 1] != '0' && t[i + 1] != '1')))
                        out.push_back(fmt::format("{}: '~' must be escaped as ~0 (or ~1 for '/')", at));
            }
        }
        if (d.unit.empty()) out.push_back(fmt::format("{}: no unit", at));
        if (d.doc.empty()) out.push_back(fmt::format("{}: no description", at));
        if (d.doc.find('\n') != std::string::npos) out.push_back(fmt::format("{}: description of more than one line", at));
        if (!seen.insert(d.pointer).second) out.push_back(fmt::format("{}: declared twice", at));
    }
    return out;
}

Json StatDecls::to_json() const {
    Json out = Json::array();
    for (const StatDecl& d : decls_)
        out.push_back({{"pointer", d.pointer}, {"shape", shape_name(d.shape)}, {"unit", d.unit}, {"doc", d.doc}});
    return out;
}

}  // namespace loom::stats
