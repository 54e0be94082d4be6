// Finding, merging and validating policy files. Every error names the file, the JSON pointer
// of the offending field and the fix; nothing half-valid is ever returned.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "common/policy.h"

namespace toolcage {

// The directories searched for installed policies, in order: beside an installed binary
// (<prefix>/share/toolcage/profiles) and in the build tree (<build>/share/toolcage/profiles).
std::vector<std::filesystem::path> profile_dirs();

// Names of the installed policies (files <name>.json in the first profile dir that has them).
std::vector<std::string> list_policies();

// True when `s` is a policy name (letters, digits, '-', '_'), not a path.
bool is_policy_name(const std::string& s);

// `name_or_path`: an installed policy's name, or the path of a policy file (contains '/' or
// ends in .json). Follows "extends" (names only, at most 8 deep, no cycles). Throws Error.
Policy load_policy(const std::string& name_or_path);

// Loads a policy whose file is given, for `toolcage policy validate`. Throws Error.
Policy load_policy_file(const std::filesystem::path& file);

}  // namespace toolcage
