// The answers written when the hook itself cannot decide: always a refusal.
#include "hook/adapters/adapters.h"

namespace toolcage::hook {

using nlohmann::json;

std::string verdict_message(const Verdict& v) {
    return "toolcage: " + (v.rule.empty() ? std::string("hook") : v.rule) + ": " + v.reason;
}

Answer failure_answer(std::optional<Agent> agent, const std::string& reason) {
    constexpr int kBlockExit = 2;
    std::string message = "toolcage: hook.error: " + reason;
    if (agent == Agent::claude) return {"", kBlockExit};  // Claude Code reads stderr on exit 2
    if (agent == Agent::openclaw)
        return {dump_line({{"decision", "deny"}, {"rule", "hook.error"}, {"reason", message}}),
                kBlockExit};
    // Hermes, or nobody knows: a Hermes block, which the other agents ignore on exit 2.
    return {dump_line({{"action", "block"}, {"message", message}}), kBlockExit};
}

}  // namespace toolcage::hook
