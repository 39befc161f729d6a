// Config documents: reading JSON files (errors carry file:line:column), `--set a.b.c=value` overrides on dotted
// paths, and the canonical hash that names a config in every output document.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "loom/config/schema.hpp"

namespace loom::config {

// Limits on hostile input: deeper nesting than any config needs, and a file larger than any config should be.
inline constexpr std::size_t kMaxJsonDepth = 128;
inline constexpr std::uint64_t kMaxJsonFileBytes = std::uint64_t{64} << 20;

// Reads and parses a JSON file. Throws InputError: "configs/x.json: cannot open file",
// "configs/x.json: not a regular file (a pipe)" (devices and FIFOs are refused before opening: they may never
// end or never answer), "configs/x.json: file is larger than 64 MiB ...", "configs/x.json: /a/0/...: JSON nested
// deeper than 128 levels", "configs/x.json: /phold/rate: number 1e400 is out of range",
// "configs/x.json:3:14: malformed JSON: <what went wrong>" (1-based line and byte column), or
// "configs/x.json: /phold: duplicate key 'lps'" (a repeated key would otherwise silently win).
Json load_json_file(const std::string& path);
// The same for text already in memory; `origin` names it in messages in place of the file path.
Json parse_json_text(std::string_view text, const std::string& origin);

// Applies one `--set PATH=VALUE`: PATH is dotted ("phold.lps", "axes.0.path": array elements by number), VALUE
// is parsed as JSON and otherwise taken as a string ("25Gbps"). Missing intermediate objects are created; an
// array index must already exist. Throws InputError naming the assignment ("--set phold.lps.x: 'phold.lps' is a
// number, not an object or array").
void apply_override(Json& doc, const std::string& assignment);
// Non-UTF-8 bytes anywhere in the assignment, JSON nested too deep or a number out of range are InputErrors too.
// VALUE of an override: its JSON meaning, or the text itself as a string if it is not JSON. Throws InputError
// (without the "--set" prefix) for JSON nested too deep or a number out of range.
Json parse_override_value(std::string_view text);
// Sets `value` at dotted `path` exactly as apply_override does; returns what is wrong with the path instead of
// throwing (nullopt on success), so that sweeps can report it at their own JSON Pointer.
std::optional<std::string> try_set_dotted(Json& doc, const std::string& path, Json value);

// What is wrong with `text` as UTF-8 ("invalid UTF-8 byte 0xff at offset 3"), or nullopt when it is valid.
std::optional<std::string> utf8_problem(std::string_view text);

// "phold.lps" -> "/phold/lps" ("" -> "", the root); '~' and '/' inside keys are escaped.
std::string dotted_to_pointer(const std::string& dotted);

// 16 hex digits: 64-bit FNV-1a of the compact dump with sorted keys. Equal documents hash equally whatever the
// key order of their source text; it names a config as `config_hash` in the stats document.
std::string canonical_hash(const Json& doc);

}  // namespace loom::config
