// The hosts that hold a credential, gathered from everything the lint was given: provider
// profiles, OpenShell endpoints with a credential binding, and the agent's environment files.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lint/findings.h"
#include "lint/lint.h"

namespace toolcage::lint {

struct CredentialHost {
    std::string pattern;               // host pattern (`*`, `**` globs)
    std::vector<std::uint32_t> ports;  // where the credential is accepted
    std::string evidence;              // what holds it and where that is written
    // Bound by OpenShell itself (a provider profile, a credential_binding), not inferred from an
    // environment file: OpenShell's own refusals follow only these.
    bool provider = false;
    std::string file;  // the file that says so: an OpenShell policy, a provider profile, a .env
};

// The credential hosts; unknown credential-looking variables become notes in `notes`.
std::vector<CredentialHost> credential_hosts(const LintInput& input, Findings& notes);

}  // namespace toolcage::lint
