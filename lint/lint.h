// `toolcage policy lint`: the credential rule and the ambiguity rule of an OpenShell deployment,
// checked before it is made. Input is plain data (read by the other files of this folder).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/policy.h"
#include "lint/agent_env_file.h"
#include "lint/findings.h"
#include "lint/openshell_policy_file.h"
#include "lint/providers_file.h"

namespace toolcage::lint {

// One entry of relay.allow or relay.credentialed, placeholders filled, and where it is written.
struct PolicyEntry {
    std::string entry;  // e.g. "registry.npmjs.org" (from "{npm_registry}")
    std::string file;   // the policy file that lists it (maybe a base it extends)
    std::string field;  // e.g. "/relay/allow/3"
};

struct EnvFile {
    std::string file;
    std::vector<EnvVariable> variables;
};

struct LintInput {
    std::string policy_name;
    std::vector<PolicyEntry> allow;         // relay.allow
    std::vector<PolicyEntry> credentialed;  // relay.credentialed
    std::optional<OpenShellPolicy> generated;  // the relay's OpenShell policy, as printed
    std::string relay_binary;                  // the one binary it may grant
    std::vector<OpenShellPolicy> openshell;    // the sandbox's other policies
    std::vector<ProviderProfile> providers;
    std::vector<EnvFile> env_files;
};

// Every finding, in a stable order: credential hosts, then what OpenShell would refuse.
Findings run_lint(const LintInput& input);

}  // namespace toolcage::lint
