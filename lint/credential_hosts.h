// Well-known credential variables and the hosts that accept them: what an agent's environment
// file says about where its keys may be sent. A sorted compile-time table, a reason per entry.
#pragma once

#include <span>
#include <string_view>

namespace toolcage::lint {

struct CredentialVariable {
    std::string_view name;      // the environment variable
    std::string_view hosts;     // host patterns, space-separated (`**.x` = any depth); "" = none
    std::string_view base_url;  // the variable that sends the key elsewhere, "" when none
    std::string_view reason;    // what the credential is, and why these hosts
};

// The table, sorted by name.
std::span<const CredentialVariable> credential_variables();

// The entry for `name`, or nullptr.
const CredentialVariable* find_credential_variable(std::string_view name);

// Whether a variable not in the table looks like a secret by its name (…_API_KEY, …_TOKEN,
// …_SECRET, …_PASSWORD, …): the lint cannot say where it is sent, so it says so.
bool looks_like_credential(std::string_view name);

}  // namespace toolcage::lint
