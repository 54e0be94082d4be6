// npm's `registry` setting, read the way npm reads it (its variables and npmrc files, then its
// built-in default) without starting npm: `npm config get registry` costs some 170 ms a step.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cage/environment.h"

namespace toolcage::cage {

// What npm would answer. `known` false: npm's layout here is not the one this reader knows
// (not .../bin/npm-cli.js run by node, its defaults not found): ask npm itself.
struct NpmRegistry {
    bool known = false;
    std::optional<std::string> url;  // nullopt: npm is not installed (with `known`)
};

// `npm config get registry` run in `cwd` with `env` as its whole environment, in npm's order:
// npm_config_registry (any case), the project's .npmrc (the nearest directory at or above
// `cwd` with a package.json or node_modules, else `cwd`), the user's (userconfig, else
// ~/.npmrc), the global one (globalconfig, else <prefix>/etc/npmrc), npm's built-in npmrc,
// then npm's default. Values are read as npm's ini parser reads them (quotes, comments,
// sections, ${VAR} from `env`). Workspace roots above `cwd` are not looked for.
NpmRegistry npm_registry_setting(const Environment& env, const std::string& cwd = "/");

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
