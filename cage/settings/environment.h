// The environment a caged step sees: a short keep-list of the caller's variables, the policy's
// additions, a PATH cut down to what the cage may execute, the step's TMPDIR and the proxy.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace toolcage::cage {

using Environment = std::map<std::string, std::string>;

// "K=V" strings (as in environ) to a map; entries without '=' are dropped.
Environment parse_environ(char** envp);

// True when the variable survives into the cage: the built-in keep-list (PATH HOME USER
// LOGNAME LANG LC_* TERM TZ SHELL PWD) or the policy's env_keep (a trailing '*' is a prefix).
bool is_kept_variable(const std::string& name, const std::vector<std::string>& env_keep);

// A value toolcage never passes on, even for a kept name: a secret manager's reference.
bool is_secret_reference(const std::string& value);

// PATH entries the cage may execute from (at or under an execute directory, compared after
// resolving symlinks); `/usr/local/bin:/usr/bin:/bin` when none is left.
std::string filter_path(const std::string& path, const std::vector<std::string>& execute);

// The absolute PATH entries filter_path leaves out, each once, in order.
std::vector<std::string> left_out_of_path(const std::string& path, const std::vector<std::string>& execute);

// http_proxy/HTTP_PROXY/https_proxy/HTTPS_PROXY at the relay; no_proxy/NO_PROXY for loopback.
void set_proxy_environment(Environment& env, const std::string& relay_url);

struct EnvironmentSpec {
    std::vector<std::string> env_keep;
    std::map<std::string, std::string> env_set;  // placeholders already expanded
    std::vector<std::string> execute;            // expanded execute paths
    std::string workdir;                         // PWD
    std::string tmpdir;                          // TMPDIR
    std::string relay_url;                       // empty: no relay
    std::string home;                            // HOME: the user database's, never the caller's
};

Environment build_environment(const Environment& outer, const EnvironmentSpec& spec);

// "K=V" strings for execve.
std::vector<std::string> flatten_environment(const Environment& env);

}  // namespace toolcage::cage
