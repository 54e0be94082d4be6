// What `toolcage policy lint` reports: one finding per problem, each naming the file, the field
// and the fix, so that a person or a CI job can act on it without reading toolcage's source.
#pragma once

#include <string>
#include <vector>

namespace toolcage::lint {

// The rules, as they appear in reports and in --json.
inline constexpr const char* kCredentialHost = "relay.credential-host";
inline constexpr const char* kAmbiguity = "openshell.ambiguity";
inline constexpr const char* kForeignBinary = "openshell.foreign-binary";
inline constexpr const char* kUninspectedCredential = "openshell.uninspected-credential";
inline constexpr const char* kMiddlewareTlsSkip = "openshell.middleware-tls-skip";
inline constexpr const char* kUnknownCredential = "env.unknown-credential";
inline constexpr const char* kTwoLayers = "relay.two-layer-credential";
inline constexpr const char* kCredentialLayer = "credential.layer";
inline constexpr const char* kInspectionField = "relay.inspection";

struct Finding {
    std::string rule;     // one of the k* names above
    std::string file;     // where the problem is written
    std::string field;    // JSON pointer (toolcage policy) or YAML path (OpenShell), or KEY (env)
    std::string message;  // what is wrong, with the evidence
    std::string fix;      // what to change
    bool note = false;    // worth reading, but not a failure (does not change the exit status)
};

using Findings = std::vector<Finding>;

// Whether any finding is a failure (not a note).
bool failing(const Findings& findings);

}  // namespace toolcage::lint
