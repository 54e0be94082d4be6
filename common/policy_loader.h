// Finding, merging and validating policy files. Every error names the file, the JSON pointer
// of the offending field and the fix; nothing half-valid is ever returned.
#pragma once

#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/policy.h"

namespace toolcage {

// The directories searched for installed policies, in order: beside an installed binary
// (<prefix>/share/toolcage/profiles), in the build tree (<build>/share/toolcage/profiles), and
// the user's own (user_profile_dir(), when it exists).
std::vector<std::filesystem::path> profile_dirs();

// The shipped directories alone (beside the binary, or in the build tree).
std::vector<std::filesystem::path> shipped_profile_dirs();

// Where `toolcage policy install` puts a user's own policies: ~/.config/toolcage/profiles of the
// user database's home, never $XDG_CONFIG_HOME's or $HOME's (listed by profile_dirs() after the
// shipped ones, once it exists). Empty when the user has no home.
std::filesystem::path user_profile_dir();

// Names of the installed policies (files <name>.json in the first profile dir that has them).
std::vector<std::string> list_policies();

// True when `s` is a policy name (letters, digits, '-', '_'), not a path.
bool is_policy_name(const std::string& s);

// A shipped profile compiled into the binary: its exact text, the profile it extends (by name,
// and the compiled entry that name resolved to at build time) and the policy it loads to.
struct CompiledProfile {
    std::string_view text;
    std::string_view extends;     // empty when it extends nothing
    const CompiledProfile* base;  // the compiled `extends`, or nullptr
    Policy (*policy)();           // everything but `file` and `chain`
};

// `name_or_path`: an installed policy's name, or the path of a policy file (contains '/' or
// ends in .json). Follows "extends" (names only, at most 8 deep, no cycles). Throws Error.
// A file whose bytes, and those of every file it extends, are a `compiled` profile's is not
// parsed again: its compiled policy is returned (the hook loads a policy before every call).
// A policy whose cage.read, write or execute names toolcage's own state directory, or a
// directory above it, is refused (common/user_home.h): a step must never reach the journal.
Policy load_policy(const std::string& name_or_path, std::span<const CompiledProfile> compiled = {});

// Loads a policy whose file is given, for `toolcage policy validate`. Throws Error.
Policy load_policy_file(const std::filesystem::path& file,
                        std::span<const CompiledProfile> compiled = {});

// Every error of a policy (an installed name or a file) and of each file it extends, for
// `toolcage policy validate`: not only the first. Empty when it loads.
std::vector<std::string> policy_errors(const std::string& name_or_path,
                                       std::span<const CompiledProfile> compiled = {});

}  // namespace toolcage
