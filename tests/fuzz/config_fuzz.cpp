// libFuzzer target: the config reader. Arbitrary bytes go through what every command does to a config file
// (parse with the depth, number and duplicate-key checks, a schema parse covering every field kind, --set
// overrides, the canonical hash and the dump written to config.json). Bad input must end in a loom::Error;
// anything else (a crash, a sanitizer report, another exception) is a finding.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "loom/base/error.hpp"
#include "loom/config/document.hpp"
#include "loom/config/schema.hpp"
#include "loom/config/units.hpp"

namespace {

using loom::Bandwidth;
using loom::Bytes;
using loom::Frequency;
using loom::Time;
using loom::config::Json;
using loom::config::Schema;

enum class Shape { Ring, Tree };

struct Item {
    std::int64_t bytes = 320;
    std::vector<std::int64_t> after;
};
struct Inner {
    Time latency = Time::ps(1000);
    Bandwidth rate;
    std::optional<Time> deadline;
};
struct Root {
    std::string model;
    std::int64_t seed = 1;
    std::int32_t count = 4;
    double share = 0.5;
    bool enabled = false;
    Bytes memory;
    Frequency clock;
    Shape shape = Shape::Ring;
    std::string file;
    Inner inner;
    std::vector<Item> items;
};

const Schema<Root>& schema() {
    static const Schema<Root> s = [] {
        Schema<Item> item("an element");
        item.field("bytes", &Item::bytes, "size").range(1, std::int64_t{1} << 40);
        item.field("after", &Item::after, "dependencies").range(0, 1 << 20);
        Schema<Inner> inner("a section");
        inner.field("latency", &Inner::latency, "latency").at_least(Time::ps(1));
        inner.field("rate", &Inner::rate, "rate");
        inner.field("deadline", &Inner::deadline, "optional time");
        Schema<Root> r("root");
        r.field("model", &Root::model, "model").required();
        r.field("seed", &Root::seed, "seed").at_least(0);
        r.field("count", &Root::count, "count").range(1, 1000);
        r.field("share", &Root::share, "share").range(0.0, 1.0);
        r.field("enabled", &Root::enabled, "flag");
        r.field("memory", &Root::memory, "size");
        r.field("clock", &Root::clock, "frequency");
        r.choice("shape", &Root::shape, {{"ring", Shape::Ring}, {"tree", Shape::Tree}}, "shape");
        r.field("file", &Root::file, "a file").file_path();
        r.section("inner", &Root::inner, inner, "inner");
        r.list("items", &Root::items, item, "items").at_most(64);
        return r;
    }();
    return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    // The first line, when it has an '=', is also tried as a --set override on the document.
    const std::size_t nl = text.find('\n');
    const std::string first_line(text.substr(0, nl == std::string_view::npos ? text.size() : nl));
    try {
        Json doc = loom::config::parse_json_text(text, "fuzz.json");
        loom::config::Errors errors;
        Root root;
        schema().parse(doc, "", root, errors);
        if (errors.empty()) (void)schema().to_json(root).dump();
        if (first_line.find('=') != std::string::npos) loom::config::apply_override(doc, first_line);
        (void)loom::config::canonical_hash(doc);
        (void)doc.dump(2);
    } catch (const loom::Error&) {
        // bad input, reported as such
    }
    try {
        (void)loom::config::parse_override_value(first_line);
    } catch (const loom::Error&) {
    }
    return 0;
}
