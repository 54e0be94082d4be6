// The lint's rules, one function each; run_lint (lint.cpp) calls them in order.
#pragma once

#include <vector>

#include "lint/credential_sources.h"
#include "lint/findings.h"
#include "lint/lint.h"

namespace toolcage::lint {

// Credentials follow the endpoint: a relay.allow entry that reaches a credential host, and a
// relay.inspect entry that reaches a host where OpenShell injects one, unless relay.credentialed
// declares it the worker's job.
void check_credential_hosts(const LintInput& input, const std::vector<CredentialHost>& hosts,
                            Findings& out);

// Which layer holds which secret when toolcage runs inside OpenShell: a relay.credentials host
// OpenShell also injects for (two layers, one endpoint) is a finding; each host with a credential
// gets a note saying whether OpenShell's provider or toolcage's relay injects it.
void check_credential_layers(const LintInput& input, const std::vector<CredentialHost>& hosts,
                             Findings& out, Findings& notes);

// relay.credentials and relay.upstream_ca as the lint can see them before a step runs: a secret
// file inside a cage grant or readable by others, an upstream_ca that holds no certificate.
void check_inspection_fields(const LintInput& input, Findings& out, Findings& notes);

// OpenShell's endpoint ambiguity rule: endpoints that can match one connection must agree on
// the metadata that decides how it is handled, or the whole submission is refused. Endpoints
// are indexed by port, host suffix and shape, so the check stays linear in their number.
void check_ambiguity(const LintInput& input, Findings& out);

// What OpenShell would refuse, or what the generated policy must never do: a binary other than
// the relay, an uninspected endpoint (`tls: skip`, or no protocol) bound to a credential without
// `allow_uninspected_credentials` (policies, `_provider_` rules and provider profiles, each host
// once), and a `tls: skip` endpoint that a fail-closed middleware selects.
void check_refusals(const LintInput& input, const std::vector<CredentialHost>& hosts,
                    Findings& out);

}  // namespace toolcage::lint
