// Reading YAML documents with yaml-cpp into the lint's plain structs, as strictly as OpenShell's
// serde reader: every error names the file, the field (a YAML path such as
// network_policies.github.endpoints[0].port) and the fix.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "lint/openshell_policy_file.h"

namespace toolcage::lint::yaml {

// OpenShell refuses a policy whose serialized form exceeds 256 KiB (MAX_POLICY_SIZE); no file
// the lint reads needs more.
inline constexpr std::size_t kMaxFileBytes = 262'144;

// All documents of a YAML stream (a file may hold several, separated by ---), blank or
// comment-only ones left out. Throws Error naming `file` and the line of a syntax error.
std::vector<YAML::Node> load_all(const std::string& text, const std::string& file);

// The one document of `text`, as OpenShell reads a policy: none, or more than one, is an error.
YAML::Node load_one(const std::string& text, const std::string& file, const std::string& what);

// The file's text. Opened without blocking (a FIFO cannot hang the lint), refused unless a
// regular file of at most kMaxFileBytes, the size checked before anything is read. Throws Error
// naming the file, the reason and the fix.
std::string read_text(const std::string& path, const std::string& what);

[[noreturn]] void fail(const std::string& file, const std::string& field, const std::string& what,
                       const std::string& fix);

// The field path `field.key` (or `key` at the top).
std::string at(const std::string& field, const std::string& key);

// Refuses a key of `map` not in `known` (serde's deny_unknown_fields), naming the closest one.
void only_keys(const YAML::Node& map, std::initializer_list<const char*> known,
               const std::string& file, const std::string& field);

// A scalar field as a string ("" when absent); an error when present but not a scalar.
std::string scalar(const YAML::Node& map, const char* key, const std::string& file,
                   const std::string& field);

// A boolean field (false when absent; nullopt from optional_boolean); a plain true or false.
bool boolean(const YAML::Node& map, const char* key, const std::string& file, const std::string& field);
std::optional<bool> optional_boolean(const YAML::Node& map, const char* key, const std::string& file,
                                     const std::string& field);

// An unsigned integer field written as a plain (unquoted) decimal number, at most `max`;
// nullopt when absent.
std::optional<std::uint64_t> integer(const YAML::Node& map, const char* key, std::uint64_t max,
                                     const std::string& file, const std::string& field);

// A list of strings (empty when absent).
std::vector<std::string> strings(const YAML::Node& map, const char* key, const std::string& file,
                                 const std::string& field);

// One endpoint object of OpenShell's network policy schema. `strict`: every field checked as
// OpenShell's policy reader does (a policy file); otherwise the fields the lint needs are read
// and others left alone (a provider profile, whose schema is OpenShell's provider catalog's).
Endpoint endpoint(const YAML::Node& node, const std::string& file, const std::string& field,
                  bool strict);

// A `binaries` list of a policy: objects with `path` (plain strings are refused, as by
// OpenShell); or of a provider profile (`strict` false): plain strings or objects.
std::vector<std::string> binaries(const YAML::Node& node, const std::string& file,
                                  const std::string& field, bool strict);

}  // namespace toolcage::lint::yaml
