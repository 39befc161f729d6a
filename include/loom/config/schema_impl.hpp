// Template definitions for schema.hpp (included at its end; not for direct use). The per-type work (reading,
// range checks, rendering, messages) lives in non-template functions in src/config/schema.cpp, so a schema
// instantiates little more than one small closure per field.
#pragma once

#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "loom/base/assert.hpp"
#include "loom/base/units.hpp"

namespace loom::config {
namespace detail {

// An inclusive bound kept in the form its field compares with: `i` for integer-valued kinds, `d` for Number.
struct Bound {
    std::int64_t i = 0;
    double d = 0;
};

// The type-independent part of a field.
struct FieldCore {
    std::string key;
    Kind kind = Kind::Integer;
    std::string doc;
    bool required = false;
    bool file_path = false;  // a String naming a file, resolved against the config file's folder
    bool is_int32 = false;  // Integer fields of type int32_t are also bounded by its limits
    // A section whose schema has required keys is parsed as {} when absent, so that each missing key is named.
    bool parse_when_absent = false;
    std::optional<Bound> lo;
    std::optional<Bound> hi;
    std::vector<std::string> choices;  // Kind::Choice: the accepted strings, in declaration order
};

// A bound as declared: an integer, a real, or a unit value (which must match the field's kind).
struct BoundArg {
    bool floating = false;
    std::int64_t i = 0;
    double d = 0;
    std::optional<Kind> unit;
};

template <class>
inline constexpr bool kAlwaysFalse = false;

template <class A>
BoundArg bound_arg(A a) {
    if constexpr (std::is_same_v<A, Time>) {
        return {false, a.count(), 0, Kind::Duration};
    } else if constexpr (std::is_same_v<A, Bytes>) {
        return {false, a.count(), 0, Kind::Size};
    } else if constexpr (std::is_same_v<A, Bandwidth>) {
        return {false, a.bits_per_s(), 0, Kind::Rate};
    } else if constexpr (std::is_same_v<A, Frequency>) {
        return {false, a.hertz(), 0, Kind::Frequency};
    } else if constexpr (std::is_integral_v<A> && !std::is_same_v<A, bool>) {
        if constexpr (std::is_unsigned_v<A>) {
            constexpr auto max = static_cast<unsigned long long>(std::numeric_limits<std::int64_t>::max());
            return {false, static_cast<std::int64_t>(static_cast<unsigned long long>(a) > max ? max : a), 0, {}};
        } else {
            return {false, static_cast<std::int64_t>(a), 0, {}};
        }
    } else if constexpr (std::is_floating_point_v<A>) {
        return {true, 0, static_cast<double>(a), {}};
    } else {
        static_assert(kAlwaysFalse<A>, "a bound is an integer, a real, or a Time/Bytes/Bandwidth/Frequency");
    }
}

// Stores a lower (or upper) bound on `core`, rounding real bounds inward for integer-valued kinds.
// A bound on a kind that has no order (boolean, string, choice, section) is a declaration bug.
void set_bound(FieldCore& core, const BoundArg& bound, bool lower);
FieldCore make_core(std::string key, Kind kind, std::string doc);

template <class V>
struct IsOptional : std::false_type {};
template <class V>
struct IsOptional<std::optional<V>> : std::true_type {};

template <class V>
constexpr Kind kind_of() {
    if constexpr (IsOptional<V>::value) {
        static_assert(!std::is_same_v<typename V::value_type, std::vector<std::int64_t>>,
                      "an integer list is never optional: use an empty list");
        return kind_of<typename V::value_type>();
    } else if constexpr (std::is_same_v<V, std::int64_t> || std::is_same_v<V, std::int32_t>) {
        return Kind::Integer;
    } else if constexpr (std::is_same_v<V, double>) {
        return Kind::Number;
    } else if constexpr (std::is_same_v<V, bool>) {
        return Kind::Boolean;
    } else if constexpr (std::is_same_v<V, std::string>) {
        return Kind::String;
    } else if constexpr (std::is_same_v<V, Time>) {
        return Kind::Duration;
    } else if constexpr (std::is_same_v<V, Bytes>) {
        return Kind::Size;
    } else if constexpr (std::is_same_v<V, Bandwidth>) {
        return Kind::Rate;
    } else if constexpr (std::is_same_v<V, Frequency>) {
        return Kind::Frequency;
    } else if constexpr (std::is_same_v<V, std::vector<std::int64_t>>) {
        return Kind::IntegerList;
    } else {
        static_assert(kAlwaysFalse<V>,
                      "Schema::field supports std::int64_t, std::int32_t, double, bool, std::string, Time, Bytes, "
                      "Bandwidth, Frequency, std::vector<std::int64_t> and std::optional of the scalars");
        return Kind::Integer;
    }
}

// Each reads `v` into `out` when it has the right type and lies in the field's range; otherwise it leaves `out`
// alone, adds one error at `pointer` and returns false.
bool read(const Json& v, const std::string& pointer, const FieldCore& core, std::int64_t& out, Errors& errors);
bool read(const Json& v, const std::string& pointer, const FieldCore& core, std::int32_t& out, Errors& errors);
bool read(const Json& v, const std::string& pointer, const FieldCore& core, double& out, Errors& errors);
bool read(const Json& v, const std::string& pointer, const FieldCore& core, bool& out, Errors& errors);
bool read(const Json& v, const std::string& pointer, const FieldCore& core, std::string& out, Errors& errors);
bool read(const Json& v, const std::string& pointer, const FieldCore& core, Time& out, Errors& errors);
bool read(const Json& v, const std::string& pointer, const FieldCore& core, Bytes& out, Errors& errors);
bool read(const Json& v, const std::string& pointer, const FieldCore& core, Bandwidth& out, Errors& errors);
bool read(const Json& v, const std::string& pointer, const FieldCore& core, Frequency& out, Errors& errors);
bool read(const Json& v, const std::string& pointer, const FieldCore& core, std::vector<std::int64_t>& out,
          Errors& errors);
// Index into core.choices of the string `v`.
bool read_choice(const Json& v, const std::string& pointer, const FieldCore& core, std::size_t& index,
                 Errors& errors);
// True if `v` is an array whose length lies in the field's range; otherwise one error.
bool check_list(const Json& v, const std::string& pointer, const FieldCore& core, Errors& errors);
// True if `v` is an object; otherwise one error.
bool check_object(const Json& v, const std::string& pointer, Errors& errors);

template <class V>
bool read(const Json& v, const std::string& pointer, const FieldCore& core, std::optional<V>& out, Errors& errors) {
    if (v.is_null()) {
        out.reset();
        return true;
    }
    V value{};
    if (!read(v, pointer, core, value, errors)) return false;
    out = std::move(value);
    return true;
}

// Values as a config writes them (units via loom::to_string).
Json write(std::int64_t v);
Json write(std::int32_t v);
Json write(double v);
Json write(bool v);
Json write(const std::string& v);
Json write(Time v);
Json write(Bytes v);
Json write(Bandwidth v);
Json write(Frequency v);
Json write(const std::vector<std::int64_t>& v);
template <class V>
Json write(const std::optional<V>& v) {
    return v ? write(*v) : Json(nullptr);
}

// Visits each key of `object` (sorted): a declared one goes to `visit(field index, value, pointer)`, others are
// reported as unknown; then reports each missing required field.
void visit_object(const Json& object, const std::string& pointer, const std::vector<const FieldCore*>& cores,
                  Errors& errors, const std::function<void(std::size_t, const Json&, const std::string&)>& visit);

// FieldInfo without children; `default_value` is ignored for required fields.
FieldInfo make_info(const FieldCore& core, Json default_value);
// Sets the children's defaults from the parent's default object (a section's default may differ from S{}).
void apply_defaults(std::vector<FieldInfo>& children, const Json& defaults);

}  // namespace detail

template <class T>
struct Field<T>::Impl {
    detail::FieldCore core;
    std::function<void(const detail::FieldCore&, const Json&, const std::string&, T&, Errors&)> parse;
    std::function<Json(const T&, bool skip_required)> render;  // skip_required: leave out required fields
    std::function<std::vector<FieldInfo>()> children;  // empty for scalars and choices
};

template <class T>
template <class A, class B>
Field<T>& Field<T>::range(A lo, B hi) {
    detail::set_bound(impl_->core, detail::bound_arg(lo), true);
    detail::set_bound(impl_->core, detail::bound_arg(hi), false);
    return *this;
}

template <class T>
template <class A>
Field<T>& Field<T>::at_least(A lo) {
    detail::set_bound(impl_->core, detail::bound_arg(lo), true);
    return *this;
}

template <class T>
template <class A>
Field<T>& Field<T>::at_most(A hi) {
    detail::set_bound(impl_->core, detail::bound_arg(hi), false);
    return *this;
}

template <class T>
Field<T>& Field<T>::required() {
    impl_->core.required = true;
    return *this;
}

template <class T>
Field<T>& Field<T>::file_path() {
    impl_->core.file_path = true;
    return *this;
}

template <class T>
Field<T> Schema<T>::add(std::shared_ptr<typename Field<T>::Impl> impl) {
    for (const auto& f : fields_) {
        LOOM_ASSERT(f->core.key != impl->core.key, "config key '" + impl->core.key + "' declared twice");
    }
    fields_.push_back(impl);
    return Field<T>(std::move(impl));
}

template <class T>
template <class V>
Field<T> Schema<T>::field(std::string key, V T::*member, std::string doc) {
    auto impl = std::make_shared<typename Field<T>::Impl>();
    impl->core = detail::make_core(std::move(key), detail::kind_of<V>(), std::move(doc));
    impl->core.is_int32 = std::is_same_v<V, std::int32_t> || std::is_same_v<V, std::optional<std::int32_t>>;
    impl->parse = [member](const detail::FieldCore& core, const Json& v, const std::string& pointer, T& out,
                           Errors& errors) { detail::read(v, pointer, core, out.*member, errors); };
    impl->render = [member](const T& value, bool) { return detail::write(value.*member); };
    return add(std::move(impl));
}

template <class T>
template <class E>
Field<T> Schema<T>::choice(std::string key, E T::*member, std::vector<std::pair<std::string, E>> choices,
                           std::string doc) {
    LOOM_ASSERT(!choices.empty(), "choice '" + key + "' has no choices");
    auto impl = std::make_shared<typename Field<T>::Impl>();
    impl->core = detail::make_core(std::move(key), Kind::Choice, std::move(doc));
    for (const auto& c : choices) impl->core.choices.push_back(c.first);
    std::vector<E> values;
    for (const auto& c : choices) values.push_back(c.second);
    impl->parse = [member, values](const detail::FieldCore& core, const Json& v, const std::string& pointer, T& out,
                                   Errors& errors) {
        std::size_t index = 0;
        if (detail::read_choice(v, pointer, core, index, errors)) out.*member = values[index];
    };
    impl->render = [member, choices = std::move(choices)](const T& value, bool) {
        for (const auto& c : choices) {
            if (c.second == value.*member) return Json(c.first);
        }
        return Json(nullptr);
    };
    return add(std::move(impl));
}

template <class T>
template <class S>
Field<T> Schema<T>::section(std::string key, S T::*member, const Schema<S>& schema, std::string doc) {
    auto impl = std::make_shared<typename Field<T>::Impl>();
    impl->core = detail::make_core(std::move(key), Kind::Section, std::move(doc));
    for (const auto& f : schema.fields_) impl->core.parse_when_absent = impl->core.parse_when_absent || f->core.required;
    impl->parse = [member, schema](const detail::FieldCore&, const Json& v, const std::string& pointer, T& out,
                                   Errors& errors) { schema.parse(v, pointer, out.*member, errors); };
    impl->render = [member, schema](const T& value, bool skip_required) {
        return schema.render(value.*member, skip_required);
    };
    impl->children = [schema] { return schema.describe(); };
    return add(std::move(impl));
}

template <class T>
template <class S>
Field<T> Schema<T>::list(std::string key, std::vector<S> T::*member, const Schema<S>& schema, std::string doc) {
    auto impl = std::make_shared<typename Field<T>::Impl>();
    impl->core = detail::make_core(std::move(key), Kind::List, std::move(doc));
    impl->parse = [member, schema](const detail::FieldCore& core, const Json& v, const std::string& pointer, T& out,
                                   Errors& errors) {
        if (!detail::check_list(v, pointer, core, errors)) return;
        const std::size_t before = errors.size();
        std::vector<S> elements;
        elements.reserve(v.size());
        for (std::size_t i = 0; i < v.size(); ++i) {
            S element{};
            schema.parse(v[i], child_pointer(pointer, i), element, errors);
            elements.push_back(std::move(element));
        }
        if (errors.size() == before) out.*member = std::move(elements);
    };
    impl->render = [member, schema](const T& value, bool skip_required) {
        Json array = Json::array();
        for (const S& element : value.*member) array.push_back(schema.render(element, skip_required));
        return array;
    };
    impl->children = [schema] { return schema.describe(); };
    return add(std::move(impl));
}

template <class T>
void Schema<T>::check(std::string key, std::function<std::optional<std::string>(const T&)> rule) {
    checks_.emplace_back(std::move(key), std::move(rule));
}

template <class T>
void Schema<T>::parse(const Json& value, const std::string& pointer, T& out, Errors& errors) const {
    if (!detail::check_object(value, pointer, errors)) return;
    const std::size_t before = errors.size();
    std::vector<const detail::FieldCore*> cores;
    cores.reserve(fields_.size());
    for (const auto& f : fields_) cores.push_back(&f->core);
    detail::visit_object(value, pointer, cores, errors,
                         [&](std::size_t i, const Json& v, const std::string& p) {
                             fields_[i]->parse(fields_[i]->core, v, p, out, errors);
                         });
    // Cross-field rules only make sense on values that parsed.
    if (errors.size() != before) return;
    for (const auto& [key, rule] : checks_) {
        if (auto message = rule(out)) errors.add(key.empty() ? pointer : child_pointer(pointer, key), *message);
    }
}

template <class T>
Json Schema<T>::render(const T& value, bool skip_required) const {
    Json object = Json::object();
    for (const auto& f : fields_) {
        if (skip_required && f->core.required) continue;
        object[f->core.key] = f->render(value, skip_required);
    }
    return object;
}

template <class T>
Json Schema<T>::to_json(const T& value) const {
    return render(value, false);
}

template <class T>
Json Schema<T>::defaults() const {
    return render(T{}, true);
}

template <class T>
std::vector<FieldInfo> Schema<T>::describe() const {
    const T defaults{};
    std::vector<FieldInfo> infos;
    infos.reserve(fields_.size());
    for (const auto& f : fields_) {
        FieldInfo info = detail::make_info(f->core, f->render(defaults, true));
        if (f->children) {
            info.children = f->children();
            if (f->core.kind == Kind::Section && !f->core.required) detail::apply_defaults(info.children, info.default_value);
        }
        infos.push_back(std::move(info));
    }
    return infos;
}

}  // namespace loom::config
