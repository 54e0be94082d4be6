#include "common/hermes_channels.h"

namespace toolcage {

const HermesChannel* find_hermes_channel(std::string_view key) {
    for (const auto& c : kHermesChannels)
        if (c.key == key) return &c;
    return nullptr;
}

std::map<std::string, Decision> default_hermes_channels() {
    std::map<std::string, Decision> out;
    for (const auto& c : kHermesChannels) out.emplace(std::string(c.key), Decision::ask);
    return out;
}

}  // namespace toolcage
