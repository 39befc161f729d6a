#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "loom/base/error.hpp"
#include "loom/config/document.hpp"

using loom::InputError;
using loom::config::apply_override;
using loom::config::Json;

namespace {

// A scratch file under the build tree, written fresh by each test that needs one.
std::string write_file(const std::string& name, const std::string& text) {
    const std::filesystem::path dir = std::filesystem::path(LOOM_BINARY_DIR) / "test_scratch" / "config_document";
    std::filesystem::create_directories(dir);
    const std::filesystem::path file = dir / name;
    std::ofstream(file, std::ios::binary) << text;
    return file.string();
}

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const InputError& e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace

TEST_CASE("A JSON file loads into a document") {
    const std::string path = write_file("ok.json", R"({"model": "phold", "phold": {"lps": 8}})");
    const Json doc = loom::config::load_json_file(path);
    CHECK(doc["phold"]["lps"] == 8);
}

TEST_CASE("A missing file is an input error naming the path") {
    const std::string path = write_file("x.json", "{}") + ".absent";
    CHECK(error_of([&] { loom::config::load_json_file(path); }) == path + ": cannot open file");
}

TEST_CASE("Malformed JSON is reported with its line and column") {
    const std::string path = write_file("bad.json", "{\n  \"a\": 1,\n  \"b\": tru\n}\n");
    const std::string message = error_of([&] { loom::config::load_json_file(path); });
    CHECK(message.rfind(path + ":3:11: malformed JSON: ", 0) == 0);
    CHECK(message.find("invalid literal") != std::string::npos);
    CHECK(message.find('\n') == std::string::npos);

    CHECK(error_of([] { loom::config::parse_json_text("{\"a\": 1,}", "x.json"); }).rfind("x.json:1:9: malformed JSON: ", 0) ==
          0);
    CHECK(error_of([] { loom::config::parse_json_text("", "empty.json"); }).rfind("empty.json:1:1: malformed JSON: ", 0) ==
          0);
    CHECK(error_of([] { loom::config::parse_json_text("[1, 2", "t.json"); }).rfind("t.json:1:6: malformed JSON: ", 0) ==
          0);
}

TEST_CASE("A repeated key is an error instead of silently winning") {
    CHECK(error_of([] { loom::config::parse_json_text(R"({"p": {"lps": 1, "lps": 2}})", "d.json"); }) ==
          "d.json: /p: duplicate key 'lps'");
    CHECK(error_of([] { loom::config::parse_json_text(R"({"a": [{}, {"x": 1, "x": 1}]})", "d.json"); }) ==
          "d.json: /a/1: duplicate key 'x'");
    CHECK(error_of([] { loom::config::parse_json_text(R"({"x": 1, "x": 1})", "d.json"); }) ==
          "d.json: /: duplicate key 'x'");
    CHECK_NOTHROW(loom::config::parse_json_text(R"({"a": {"x": 1}, "b": {"x": 1}})", "d.json"));
}

TEST_CASE("An override sets a nested value parsed as JSON") {
    Json doc = Json::parse(R"({"phold": {"lps": 8}})");
    apply_override(doc, "phold.lps=64");
    apply_override(doc, "phold.trace=true");
    apply_override(doc, "phold.ratio=0.5");
    apply_override(doc, "phold.list=[1,2]");
    apply_override(doc, "phold.obj={\"a\":null}");
    CHECK(doc == Json::parse(R"({"phold": {"lps": 64, "trace": true, "ratio": 0.5, "list": [1, 2], "obj": {"a": null}}})"));
}

TEST_CASE("An override value that is not JSON is taken as a string") {
    Json doc = Json::object();
    apply_override(doc, "links.rate=25Gbps");
    apply_override(doc, "description=a b=c");
    apply_override(doc, "empty=");
    apply_override(doc, "quoted=\"42\"");
    CHECK(doc["links"]["rate"] == "25Gbps");
    CHECK(doc["description"] == "a b=c");
    CHECK(doc["empty"] == "");
    CHECK(doc["quoted"] == "42");
}

TEST_CASE("An override creates missing intermediate objects") {
    Json doc;
    apply_override(doc, "a.b.c=1");
    CHECK(doc == Json::parse(R"({"a": {"b": {"c": 1}}})"));
}

TEST_CASE("An override addresses array elements by number") {
    Json doc = Json::parse(R"({"transfers": [{"src": 0}, {"src": 1}], "ids": [5, 6]})");
    apply_override(doc, "transfers.1.src=7");
    apply_override(doc, "ids.0=9");
    CHECK(doc["transfers"][1]["src"] == 7);
    CHECK(doc["ids"] == Json::array({9, 6}));
}

TEST_CASE("A bad override path is an input error naming the assignment") {
    Json doc = Json::parse(R"({"phold": {"lps": 8}, "ids": [5, 6]})");
    CHECK(error_of([&] { apply_override(doc, "phold.lps.x=3"); }) ==
          "--set phold.lps.x: 'phold.lps' is a number, not an object or array");
    CHECK(error_of([&] { apply_override(doc, "ids.2=1"); }) == "--set ids.2: 'ids' has 2 elements: index 2 is out of range");
    CHECK(error_of([&] { apply_override(doc, "ids.first=1"); }) ==
          "--set ids.first: 'ids' is an array: 'first' is not an element number");
    CHECK(error_of([&] { apply_override(doc, "phold..lps=1"); }) == "--set phold..lps: empty key in path 'phold..lps'");
    CHECK(error_of([&] { apply_override(doc, "phold.lps"); }) == "--set phold.lps: expected PATH=VALUE");
    CHECK(error_of([&] { apply_override(doc, "=5"); }) == "--set =5: empty path");
    Json scalar = 5;
    CHECK(error_of([&] { apply_override(scalar, "a=1"); }) == "--set a: the document is a number, not an object or array");
    CHECK(doc["phold"]["lps"] == 8);
}

TEST_CASE("Dotted paths convert to JSON Pointers") {
    CHECK(loom::config::dotted_to_pointer("phold.lps") == "/phold/lps");
    CHECK(loom::config::dotted_to_pointer("transfers.0.src") == "/transfers/0/src");
    CHECK(loom::config::dotted_to_pointer("a/b") == "/a~1b");
    CHECK(loom::config::dotted_to_pointer("") == "");
}

TEST_CASE("The canonical hash ignores key order and sees every value") {
    const Json a = Json::parse(R"({"model": "phold", "phold": {"lps": 8, "lookahead": "10ns"}, "seed": 1})");
    const Json b = Json::parse(R"({"seed": 1, "phold": {"lookahead": "10ns", "lps": 8}, "model": "phold"})");
    const Json c = Json::parse(R"({"seed": 2, "phold": {"lookahead": "10ns", "lps": 8}, "model": "phold"})");
    const std::string h = loom::config::canonical_hash(a);
    CHECK(h.size() == 16);
    CHECK(h.find_first_not_of("0123456789abcdef") == std::string::npos);
    CHECK(loom::config::canonical_hash(b) == h);
    CHECK(loom::config::canonical_hash(c) != h);
    // Pinned: the hash names configs in stored outputs, so it must not change between versions.
    CHECK(loom::config::canonical_hash(Json::object()) == "08f44b07b5901a25");
}

TEST_CASE("JSON nested deeper than the limit is an input error naming where") {
    const std::string deep = std::string(200, '[') + std::string(200, ']');
    CHECK(error_of([&] { loom::config::parse_json_text("{\"a\": " + deep + "}", "x.json"); }) ==
          "x.json: /a/0/0/0/0/0/0/0/...: JSON nested deeper than 128 levels");
    Json doc = Json::object();
    CHECK(error_of([&] { apply_override(doc, "a=" + deep); }) ==
          "--set a: /0/0/0/0/0/0/0/0/...: JSON nested deeper than 128 levels");
    const std::string ok = std::string(100, '[') + std::string(100, ']');
    CHECK_NOTHROW(loom::config::parse_json_text(ok, "x.json"));
}

TEST_CASE("A number a double cannot hold is an input error naming its pointer") {
    CHECK(error_of([] { loom::config::parse_json_text(R"({"a": [1, 1e400]})", "x.json"); }) ==
          "x.json: /a/1: number 1e400 is out of range");
    Json doc = Json::object();
    CHECK(error_of([&] { apply_override(doc, "a.b=-1e999"); }) == "--set a.b: /: number -1e999 is out of range");
}

TEST_CASE("An override with bytes that are not UTF-8 is an input error") {
    Json doc = Json::object();
    CHECK(error_of([&] { apply_override(doc, "a=caf\xe9"); }) ==
          "--set: not valid UTF-8 (truncated UTF-8 sequence at offset 5)");
    CHECK(error_of([&] { apply_override(doc, "a=\xff"); }) == "--set: not valid UTF-8 (invalid UTF-8 byte 0xff at offset 2)");
    CHECK(!loom::config::utf8_problem("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"));
    CHECK(loom::config::utf8_problem("\xc0\xaf"));  // overlong
    CHECK(loom::config::utf8_problem("\xed\xa0\x80"));  // a surrogate
}

TEST_CASE("A file that is not a regular file is refused before it is opened") {
    CHECK(error_of([] { loom::config::load_json_file("/dev/zero"); }) ==
          "/dev/zero: not a regular file (a character device)");
    CHECK(error_of([] { loom::config::load_json_file("/"); }) == "/: not a regular file (a directory)");
}
