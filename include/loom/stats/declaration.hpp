// Statistics declared once, as parameters are: the JSON Pointer of each value in the stats document (with '*'
// where a member's name varies, as for per-Mux entries), its unit and a one-line description. The declarations
// drive `loom list`, the check that a document holds nothing undeclared, and which keys a time series samples.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "loom/stats/json.hpp"

namespace loom::stats {

// What a declared pointer holds, and so how much of the document it covers.
enum class StatShape {
    Scalar,       // a number, boolean or string at exactly this pointer (numbers can be sampled as a series)
    Histogram,    // Histogram::to_json: count, min, max, mean, p50, p90, p99, p999, sum (unit-suffixed), negative
    TimeAverage,  // TimeAverage::to_json: avg, max, final
    Record,       // an object whose members the description names (a small table); covers its whole subtree
    List,         // an array (of values or records); covers every element
};
const char* shape_name(StatShape shape);  // "scalar", "histogram", "time_average", "record", "list"

// One declared statistic.
//   pointer: a JSON Pointer into the stats document ("/stats/ananta/muxes/*/forwarded"). Each reference token
//            may hold '*', which matches any run of characters within one token ("/stats/*.tsp*/instructions"
//            matches "/stats/sys.rack0.node1.tsp5/instructions"). Tokens are written as the document's keys
//            are, '~' and '/' escaped as "~0" and "~1" (RFC 6901).
//   unit:    what one unit of the value is: "packets", "ps", "bytes", "bit/s", "ratio" (dimensionless), "bool",
//            "text" (a string), "count"; for a histogram the unit of its samples; for a record or list the
//            unit of its values or "mixed" when the description says which member has which.
//   doc:     one line: what is counted or measured, and when.
struct StatDecl {
    std::string pointer;
    std::string unit;
    std::string doc;
    StatShape shape = StatShape::Scalar;
};

// Whether concrete pointer `pointer` (no wildcard) matches `pattern` token by token ('*' as above).
bool pointer_matches(std::string_view pattern, std::string_view pointer);

// The declarations of one model (or of what every document holds). Each declaration is one line:
//     d.scalar("/stats/ananta/muxes/*/forwarded", "packets", "packets the Mux sent on to a DIP");
//     d.histogram("/stats/tsp/transfer_latency", "ps", "first send to last delivery, per transfer");
// Declaring the same pointer twice keeps both (the check of a model's list reports it).
class StatDecls {
public:
    StatDecls& scalar(std::string pointer, std::string unit, std::string doc);
    StatDecls& histogram(std::string pointer, std::string unit, std::string doc);
    StatDecls& time_average(std::string pointer, std::string unit, std::string doc);
    StatDecls& record(std::string pointer, std::string unit, std::string doc);
    StatDecls& list(std::string pointer, std::string unit, std::string doc);
    StatDecls& add(StatDecl decl);
    StatDecls& append(const StatDecls& other);

    const std::vector<StatDecl>& all() const { return decls_; }
    bool empty() const { return decls_.empty(); }
    std::size_t size() const { return decls_.size(); }

    // The scalar declaration whose pointer matches concrete `pointer`, or whose pattern is `pointer` itself
    // (a series may name a pattern to sample every instance); nullptr if none.
    const StatDecl* find_scalar(std::string_view pointer) const;
    // The declaration that covers concrete `pointer`: a scalar matching it, or a histogram, time average,
    // record or list matching it or one of its ancestors. nullptr if none does.
    const StatDecl* covering(std::string_view pointer) const;
    // Every value of `document` that no declaration covers, as JSON Pointers in document order: leaves (and
    // empty objects or arrays) that no declaration covers. An array is one value (a list declaration covers
    // it) unless declarations lie below it: then its elements are visited by index, so "/x/*/name" declares
    // the "name" of every element of /x. An empty result means the document is declared.
    std::vector<std::string> undeclared(const Json& document) const;
    // Declarations that are not usable: a pointer that is not a JSON Pointer, an empty unit or description, a
    // description of more than one line, a pointer declared twice. One message per problem, naming the pointer.
    std::vector<std::string> problems() const;

    // [{pointer, shape, unit, doc}] in declaration order, for `loom list --format json`.
    Json to_json() const;

private:
    std::vector<StatDecl> decls_;
};

}  // namespace loom::stats
