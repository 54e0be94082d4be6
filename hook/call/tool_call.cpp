#include "hook/call/tool_call.h"

namespace toolcage::hook {

std::string_view to_string(Agent a) {
    switch (a) {
        case Agent::hermes: return "hermes";
        case Agent::claude: return "claude";
        case Agent::openclaw: return "openclaw";
    }
    return "unknown";
}

std::optional<Agent> agent_from_string(std::string_view s) {
    if (s == "hermes") return Agent::hermes;
    if (s == "claude") return Agent::claude;
    if (s == "openclaw") return Agent::openclaw;
    return std::nullopt;
}

}  // namespace toolcage::hook
