#include "common/verdict.h"

namespace toolcage {

std::string_view to_string(Decision d) {
    switch (d) {
        case Decision::allow: return "allow";
        case Decision::cage: return "cage";
        case Decision::ask: return "ask";
        case Decision::deny: return "deny";
    }
    return "deny";
}

std::optional<Decision> decision_from_string(std::string_view s) {
    if (s == "allow") return Decision::allow;
    if (s == "cage") return Decision::cage;
    if (s == "ask") return Decision::ask;
    if (s == "deny") return Decision::deny;
    return std::nullopt;
}

}  // namespace toolcage
