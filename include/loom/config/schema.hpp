// Parameter descriptors: each config section is a typed struct plus one Schema that declares its fields once.
// That declaration drives parsing (with JSON Pointers in every error), defaults, `loom list` and the JSON schema.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "loom/base/units.hpp"

namespace loom::config {

using Json = nlohmann::json;

// Collects every problem found in a config; each message starts with its JSON Pointer
// ("/phold/lps: expected integer in 1..16777216, got 0"). Parsing never stops at the first error.
// The root (the empty pointer) is written "/" in messages.
class Errors {
public:
    void add(const std::string& pointer, const std::string& message);
    bool empty() const { return messages_.empty(); }
    std::size_t size() const { return messages_.size(); }
    const std::vector<std::string>& messages() const { return messages_; }
    // Throws loom::ConfigError with all messages (in the order found) if there are any.
    void throw_if_any() const;

private:
    std::vector<std::string> messages_;
};

// Extends a JSON Pointer by one key or index, escaping '~' and '/' as RFC 6901 requires.
std::string child_pointer(const std::string& parent, const std::string& key);
std::string child_pointer(const std::string& parent, std::size_t index);

// A JSON value as error messages quote it after "got": its compact dump, or its type when that is long.
std::string quote_value(const Json& value);

// For objects read by hand rather than by a Schema: reports every key of `object` not in `allowed`, with the
// same message a Schema gives ("/x/lsp: unknown key 'lsp' (expected one of: lps, population)").
void report_unknown_keys(const Json& object, const std::string& pointer, const std::vector<std::string>& allowed,
                         Errors& errors);

// The kinds of value a field can hold; unit kinds are written as unit strings in JSON ("722ns").
enum class Kind { Integer, Number, Boolean, String, Duration, Size, Rate, Frequency, Choice, Section, List, IntegerList };
const char* kind_name(Kind k);  // "integer", "duration", ... (as shown by `loom list`)

// What `loom list` shows about one field (nested sections are flattened to dotted keys by the caller).
struct FieldInfo {
    std::string key;
    Kind kind = Kind::Integer;
    std::string doc;
    bool required = false;
    bool file_path = false;            // a file name: relative ones resolve against the config file's folder
    Json default_value;                // as it would be written in a config; null when required or unset
    std::string range;                 // "1..145", ">= 1ps", "" when unconstrained
    std::vector<std::string> choices;  // for Kind::Choice
    std::vector<FieldInfo> children;   // for Kind::Section and Kind::List (the element's fields)
};

// The machine-readable form of describe() for `loom list --format json`: an array of
// {key, kind, doc, required, default, range?, choices?, fields?} objects in declaration order.
Json describe_json(const std::vector<FieldInfo>& fields);

namespace detail {
struct FieldCore;
}

template <class T>
class Schema;

// One declared field of struct T. Builders return *this so constraints chain:
//   s.field("lps", &PholdConfig::lps, "logical processes").range(1, 1 << 24);
template <class T>
class Field {
public:
    // Inclusive bounds, checked when parsing and shown by `loom list`. Integral arguments are exact bounds;
    // floating arguments are real bounds (rounded inward for integer-valued kinds). Unit kinds take either a
    // count of the kind's base unit (ps, bytes, bit/s, Hz) or a value of the unit type itself:
    //   .at_least(Time::ps(1)) is shown as ">= 1ps".
    // On a list the bounds limit the number of elements; on an integer list, each element.
    template <class A, class B>
    Field& range(A lo, B hi);
    template <class A>
    Field& at_least(A lo);
    template <class A>
    Field& at_most(A hi);
    // The field must be present (it has no default).
    Field& required();
    // The string names a file: a relative path resolves against the folder of the config file that holds it
    // (scenario::load_config), not the working directory.
    Field& file_path();

    // --- used by Schema; not for model code ---
    struct Impl;
    explicit Field(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
    const std::shared_ptr<Impl>& impl() const { return impl_; }

private:
    std::shared_ptr<Impl> impl_;
};

// The field list of one config section (a JSON object) that fills a T. Copies share their fields.
template <class T>
class Schema {
public:
    explicit Schema(std::string doc = {}) : doc_(std::move(doc)) {}

    // Scalars and units. V is one of: std::int64_t, std::int32_t, double, bool, std::string,
    // Time, Bytes, Bandwidth, Frequency, std::vector<std::int64_t>, or std::optional of a scalar one
    // (absent or null leaves it empty). The member's value in a default-constructed T is the default.
    // Keys ending in `_cycles` are cycle counts: plain integers, never Time.
    template <class V>
    Field<T> field(std::string key, V T::*member, std::string doc);

    // A string that selects one of a fixed set of values (E must be equality-comparable).
    template <class E>
    Field<T> choice(std::string key, E T::*member, std::vector<std::pair<std::string, E>> choices, std::string doc);

    // A nested object parsed by another schema (copied; declare its fields first). When the key is absent the
    // member keeps its default, unless the schema has required keys: then each is reported as missing.
    template <class S>
    Field<T> section(std::string key, S T::*member, const Schema<S>& schema, std::string doc);

    // An array of objects, each parsed by another schema starting from a default-constructed S.
    template <class S>
    Field<T> list(std::string key, std::vector<S> T::*member, const Schema<S>& schema, std::string doc);

    // A check across fields, run after all fields parsed without error; return an error message or nullopt.
    // The message is reported at `pointer` + "/" + `key` (key may be empty for the section itself).
    void check(std::string key, std::function<std::optional<std::string>(const T&)> rule);

    // Parses `value` (must be an object) at JSON Pointer `pointer` into `out`, which starts from defaults.
    // Unknown keys, wrong types, out-of-range values and missing required keys go to `errors`; fields that
    // fail keep their previous value. Keys are visited in sorted order, so errors come out in a stable order.
    void parse(const Json& value, const std::string& pointer, T& out, Errors& errors) const;
    // `value` written as a config object (units as loom::to_string writes them); parses back to `value`.
    Json to_json(const T& value) const;
    // The defaults written as a config object (required fields, having no default, are left out).
    Json defaults() const;
    std::vector<FieldInfo> describe() const;
    const std::string& doc() const { return doc_; }

private:
    template <class>
    friend class Schema;  // a section renders through its own schema's render()

    Json render(const T& value, bool skip_required) const;
    Field<T> add(std::shared_ptr<typename Field<T>::Impl> impl);

    std::string doc_;
    std::vector<std::shared_ptr<typename Field<T>::Impl>> fields_;
    std::vector<std::pair<std::string, std::function<std::optional<std::string>(const T&)>>> checks_;
};

// The FieldInfo of a whole config section `key` parsed by `schema`: how a model lists its sections for
// `loom list` (sim::ModelEntry::sections).
template <class T>
FieldInfo section_info(std::string key, const Schema<T>& schema) {
    FieldInfo info;
    info.key = std::move(key);
    info.kind = Kind::Section;
    info.doc = schema.doc();
    info.default_value = schema.defaults();
    info.children = schema.describe();
    return info;
}

}  // namespace loom::config

#include "loom/config/schema_impl.hpp"  // template definitions
