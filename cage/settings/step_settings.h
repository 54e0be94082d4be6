// The step's own git, npm and pip settings: the user's (and the system's git config) keeping
// only what names no credential, program or other file, written into the step's TMPDIR, with
// the variables that make each tool read them instead of the home's files (unreadable in the
// cage, and holding tokens the worker must never see).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "cage/settings/environment.h"

namespace toolcage::cage {

// True when `text` holds a URL with userinfo (`scheme://user:token@host`), where a token hides.
bool has_userinfo(const std::string& text);

// Git config texts (in the order git reads them) reduced to the keys gitconfig::is_inert
// keeps, without any value that carries userinfo. A text git could not read gives nothing.
std::string step_git_config(const std::vector<std::string>& texts);

// An npmrc reduced to registry settings and inert switches (no `_authToken`, `_auth`,
// `_password`, `username`, `//host/:…`, certificates, proxies, scripts or paths); a value with
// `${VAR}` is left out (no variable of the caller's is read).
std::string step_npmrc(const std::string& text);

// pip.conf texts (later wins) reduced to index and install switches; URLs with userinfo are
// dropped (index-url, extra-index-url, find-links).
std::string step_pip_conf(const std::vector<std::string>& texts);

// Writes <tmpdir>/.toolcage/{gitconfig,gitconfig-system,npmrc,pip.conf} from the user's own
// files under `home` (the user database's: ~/.config/git/config and ~/.gitconfig, ~/.npmrc,
// ~/.pip/pip.conf and ~/.config/pip/pip.conf) and /etc/gitconfig, never from a file a variable
// names, and points GIT_CONFIG_GLOBAL, GIT_CONFIG_SYSTEM, NPM_CONFIG_USERCONFIG and
// PIP_CONFIG_FILE at them in `env`, except where the policy's env_set already names the
// variable. The user's global git ignore and attributes files (core.excludesFile /
// core.attributesFile, else ~/.config/git/ignore and attributes) are copied there too, as
// gitignore and gitattributes, and named in the step's git config. A file that would be empty
// is not made: its variable (or git's core.*File) names /dev/null, except pip.conf's (to pip,
// /dev/null means no configuration at all). Throws Error when a file cannot be written.
void add_step_settings(const std::string& home, const std::string& tmpdir,
                       const std::map<std::string, std::string>& env_set, Environment& env);

}  // namespace toolcage::cage
