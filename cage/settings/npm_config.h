// npm's settings as toolcage reads them from the user's own files: the registry the relay
// allows ({npm_registry}), and an npmrc's top-level settings for the step's filtered copy.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cage/settings/environment.h"

namespace toolcage::cage {

// npm's own default registry.
inline constexpr const char* kNpmDefaultRegistry = "https://registry.npmjs.org/";

// The registry npm uses by default for this user, read from the user's own files only:
// `registry` in <home>/.npmrc (the user database's home), else in `global_npmrc`, else npm's
// default. Never npm_config_* nor a userconfig a variable names (the agent's shell sets those),
// never an .npmrc of a project (the workspace is the step's to write), and npm is never run.
std::string npm_registry_from_files(const std::string& home, const std::string& global_npmrc = "/etc/npmrc");

// The top-level settings of an npmrc (before its first [section]), read as npm's ini parser
// reads them, `${VAR}` replaced from `env`; a bare key is "true"; arrays (`key[]=`) are left out.
struct NpmrcSetting {
    std::string key;
    std::string value;
};
std::vector<NpmrcSetting> npmrc_settings(const std::string& text, const Environment& env);

// A regular file's whole text, up to 4 MiB; false when it cannot be read or is larger.
bool read_small_file(const std::string& path, std::string& out);

}  // namespace toolcage::cage
