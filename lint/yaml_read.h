// Reading YAML documents with yaml-cpp into the lint's plain structs: every error names the
// file, the field (a YAML path such as network_policies.github.endpoints[0].port) and the fix.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "lint/openshell_policy_file.h"

namespace toolcage::lint::yaml {

// All documents of a YAML stream (a file may hold several, separated by ---), blank or
// comment-only ones left out. Throws Error naming `file` and the line of a syntax error.
std::vector<YAML::Node> load_all(const std::string& text, const std::string& file);

// The file's text; throws Error naming the file, the system's reason and the fix.
std::string read_text(const std::string& path, const std::string& what);

[[noreturn]] void fail(const std::string& file, const std::string& field, const std::string& what,
                       const std::string& fix);

// A scalar field as a string ("" when absent); an error when present but not a scalar.
std::string scalar(const YAML::Node& map, const char* key, const std::string& file,
                   const std::string& field);

// A boolean field (false when absent).
bool boolean(const YAML::Node& map, const char* key, const std::string& file, const std::string& field);

// One endpoint object of OpenShell's network policy schema (also used by provider profiles).
Endpoint endpoint(const YAML::Node& node, const std::string& file, const std::string& field);

// A `binaries` list: objects with `path` (policies) or plain strings (provider profiles).
std::vector<std::string> binaries(const YAML::Node& node, const std::string& file,
                                  const std::string& field);

}  // namespace toolcage::lint::yaml
