#include "loom/stats/series.hpp"

#include <catch2/catch.hpp>

using loom::Time;
using loom::stats::Json;
using loom::stats::Series;

TEST_CASE("a series writes one array per column and one CSV line per sample", "[stats][series]") {
    Series s(Time::ns(10), {"/stats/a", "/stats/b,c"});
    s.add_row(Time::zero(), {Json(0), Json(1.5)});
    s.add_row(Time::ns(10), {Json(4), Json(true)});
    CHECK(s.rows() == 2);
    CHECK(s.to_json() == Json::parse(R"({"interval_ps": 10000, "samples": 2, "time_ps": [0, 10000],
                                        "values": {"/stats/a": [0, 4], "/stats/b,c": [1.5, true]}})"));
    CHECK(s.to_csv() == "time_ps,/stats/a,\"/stats/b,c\"\n0,0,1.5\n10000,4,true\n");
}

TEST_CASE("an empty series has a header and no samples", "[stats][series]") {
    Series s(Time::ms(1), {"/x"});
    CHECK(s.to_csv() == "time_ps,/x\n");
    CHECK(s.to_json().at("samples") == 0);
}
