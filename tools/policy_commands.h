// The `toolcage policy` subcommands that live in files of their own (tools/policy_*.cpp):
// validate, rules, which and install. Each returns the exit code.
#pragma once

#include <string>

namespace toolcage::cli {

// Every error of the policy (a file or an installed name) and of what it extends; exit 1 when any.
int policy_validate(const std::string& name_or_file);

// The built-in rules: ids only, or with `long_form` their verdict, what they match and why; or
// JSON.
int policy_rules(bool long_form, bool json, const std::string& policy_name = {});

// The report of which policy a profile gets; exit 1 when every call would be refused or the
// profile directory does not exist.
int policy_which(const std::string& profile_dir);

// Validates FILE and installs it as the user's policy NAME (default: the file's name without
// .json) in the user's profiles directory, atomically. Refuses a shipped policy's name, and an
// existing policy of the user's unless `force`.
int policy_install(const std::string& file, const std::string& name, bool force);

}  // namespace toolcage::cli
