#include "lint/lint.h"

#include <algorithm>

#include "lint/checks.h"

namespace toolcage::lint {

bool failing(const Findings& findings) {
    return std::any_of(findings.begin(), findings.end(), [](const Finding& f) { return !f.note; });
}

Findings run_lint(const LintInput& input) {
    Findings notes;
    const std::vector<CredentialHost> hosts = credential_hosts(input, notes);
    Findings out;
    check_credential_hosts(input, hosts, out);
    check_credential_layers(input, hosts, out, notes);
    check_inspection_fields(input, out, notes);
    check_refusals(input, hosts, out);
    check_ambiguity(input, out);
    out.insert(out.end(), notes.begin(), notes.end());
    return out;
}

}  // namespace toolcage::lint
