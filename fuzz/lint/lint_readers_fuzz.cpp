// libFuzzer target: a file handed to `toolcage policy lint` (an OpenShell policy, provider
// profiles, an agent's .env). Each reader either returns plain data or throws toolcage::Error;
// anything else (a crash, another exception) is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "common/error.h"
#include "lint/agent_env_file.h"
#include "lint/lint.h"
#include "lint/openshell_merge.h"
#include "lint/openshell_policy_file.h"
#include "lint/providers_file.h"

using namespace toolcage::lint;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        OpenShellPolicy policy = parse_openshell_policy(text, "f.yaml");
        for (const auto& rule : policy.rules)
            for (const auto& e : rule.endpoints)
                if (e.ports.empty()) std::abort();  // a port is required, so always read
        // What the lint decides of an accepted policy, and what the merge prints into it: the
        // merge either refuses or prints a policy the same reader accepts.
        LintInput in;
        in.openshell.push_back(policy);
        run_lint(in);
        RelayAccess relay{"toolcage_relay_f", "toolcage-relay f", "/usr/bin/toolcage-relay",
                          {{"registry.npmjs.org", 443, false, "registry.npmjs.org"},
                           {"**.example.com", 443, false, "*.example.com"}}};
        std::string merged = merged_policy_yaml(relay, text, "f.yaml");
        try {
            parse_openshell_policy(merged, "merged.yaml");
        } catch (const toolcage::Error&) {
            std::abort();
        }
    } catch (const toolcage::Error&) {
    }
    try {
        for (const auto& p : parse_providers(text, "f.yaml"))
            if (p.id.empty()) std::abort();
    } catch (const toolcage::Error&) {
    }
    try {
        for (const auto& v : parse_agent_env(text, "f.env"))
            if (v.name.empty() || v.line < 1) std::abort();
    } catch (const toolcage::Error&) {
    }
    return 0;
}
