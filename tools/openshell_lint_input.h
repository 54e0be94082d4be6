// What `toolcage policy lint` and `toolcage policy openshell` check, gathered from the command
// line: the policy with its placeholders filled as the cage fills them, the relay's generated
// OpenShell policy, and the sandbox's files (OpenShell policies, providers, agent env files).
#pragma once

#include <string>
#include <vector>

#include "common/policy.h"
#include "lint/lint.h"

namespace toolcage::cli {

struct OpenShellOptions {
    std::vector<std::string> openshell_policies;  // --openshell-policy FILE…
    std::string providers;                        // --providers FILE
    std::vector<std::string> agent_envs;          // --agent-env FILE…
    std::string npm_registry;                     // --npm-registry URL (else npm's own setting)
    std::string relay_path;                       // --relay PATH (else beside this binary)
};

// relay.allow and relay.credentialed with {npm_registry} filled: from `npm_registry` when given,
// else what `npm config get registry` answers, as the cage does when the relay starts. An entry
// that cannot be filled is dropped and explained in `notes`.
Policy with_placeholders_filled(Policy policy, const std::string& npm_registry,
                                std::vector<std::string>& notes);

// The relay's path as OpenShell will see it: `given`, else toolcage-relay beside this binary.
std::string relay_binary_path(const std::string& given);

// The lint's input for `policy` (placeholders already filled), the relay policy `generated_yaml`
// (empty: none) and the files of `options`. Throws Error naming a file that cannot be read.
lint::LintInput lint_input(const Policy& policy, const std::string& generated_yaml,
                           const OpenShellOptions& options);

}  // namespace toolcage::cli
