// JSON configuration files edited in place: key order and indentation kept, and an uninstall
// that brings the content back to what a backup holds writes that backup's exact bytes.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "hook/install/atomic_file.h"

namespace toolcage::install {

using ojson = nlohmann::ordered_json;

// Strict JSON (what the agent itself reads). Throws Error: file, line and column, and `fix`.
ojson parse_json_file(const FileState& file, const std::string& fix);

// `value` printed with the indentation `original` uses (two spaces for a new file), ending in a
// newline when `original` did (or is new).
std::string dump_like(const ojson& value, const std::string& original);

// The bytes of the newest backup of `path` whose JSON equals `value`, if any.
std::optional<std::string> backup_with_value(const fs::path& path, const ojson& value);

// `parent[key]` as an object, created when absent. Throws Error naming `pointer` when it is
// something else.
ojson& object_member(ojson& parent, const std::string& key, const std::string& pointer,
                     const FileState& file);
ojson& array_member(ojson& parent, const std::string& key, const std::string& pointer,
                    const FileState& file);

// `word` quoted for a POSIX shell (and for shlex, which Hermes splits hook commands with),
// unchanged when it needs no quotes.
std::string shell_quote(const std::string& word);

}  // namespace toolcage::install
