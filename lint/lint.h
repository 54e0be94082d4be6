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

// One binding of relay.credentials (the secret stays in its file: the lint never reads it).
struct CredentialEntry {
    RelayCredential binding;
    std::string file;   // the policy file that lists it
    std::string field;  // e.g. "/relay/credentials/0"
};

struct EnvFile {
    std::string file;
    std::vector<EnvVariable> variables;
};

struct LintInput {
    std::string policy_name;
    std::vector<PolicyEntry> allow;            // relay.allow
    std::vector<PolicyEntry> credentialed;     // relay.credentialed
    std::vector<PolicyEntry> inspect;          // relay.inspect
    std::vector<CredentialEntry> credentials;  // relay.credentials
    std::optional<PolicyEntry> upstream_ca;    // relay.upstream_ca, when set
    // cage.read, cage.write and cage.execute with {home} filled; {workspace} and {tmp} are
    // known only when a step runs (toolcage run checks those itself).
    std::vector<PolicyEntry> grants;
    std::optional<OpenShellPolicy> generated;  // the relay's OpenShell policy, as printed
    std::string relay_binary;                  // the one binary it may grant
    std::vector<OpenShellPolicy> openshell;    // the sandbox's other policies
    std::vector<ProviderProfile> providers;
    std::vector<EnvFile> env_files;
};

// Every finding, in a stable order: credential hosts, the relay's inspection fields, then what
// OpenShell would refuse, then notes (which layer holds which secret among them).
Findings run_lint(const LintInput& input);

}  // namespace toolcage::lint
