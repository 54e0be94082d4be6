// Starting toolcage-relay for one step: a fresh token, the policy's allowlist with its
// placeholders filled, the policy's upstream proxy, and a lifeline that ends it with the step.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cage/run.h"
#include "cage/settings/environment.h"

namespace toolcage::cage {

struct RelayLaunchConfig {
    std::string relay_binary;  // toolcage-relay
    std::string log_path;      // the relay's JSON lines; empty: none
    // The user's npm registry (cage/settings/npm_config.h), asked only when an allow entry says
    // {npm_registry}.
    std::function<std::optional<std::string>()> npm_registry;
    // Where the private directory for the token file is made.
    std::string token_base;
    // The step's id the relay tags its lines with (`toolcage run --step-id`); empty: a fresh one.
    std::string step_id;
    // Where toolcage's inspection CA is made and kept (relay.inspect): a directory in toolcage's
    // state directory, which no step is ever granted.
    std::string ca_dir;
};

// The launcher's own configuration, none of it from its environment (the agent's shell's):
// toolcage-relay beside /proc/self/exe, the log in toolcage's state directory
// (common/user_home.h), the token under /run/user/<uid> when that is a private directory of the
// user's (else /tmp). The relay's upstream proxy is the policy's relay.upstream alone.
RelayLaunchConfig relay_launch_defaults();

RelayStarter make_relay_starter(RelayLaunchConfig config);

// "https://registry.example.org/" -> "registry.example.org"; an explicit port is kept
// ("host:8443"), http:// without one gets ":80". nullopt for anything else.
std::optional<std::string> registry_allow_entry(const std::string& url);

// The policy's relay.allow with {npm_registry} replaced (asked once, only if present); an entry
// that cannot be filled is dropped and explained in `notes`.
std::vector<std::string> expand_relay_allow(
    const std::vector<std::string>& allow,
    const std::function<std::optional<std::string>()>& npm_registry,
    std::vector<std::string>& notes);

// The registry npm uses for this user, from the user's own ~/.npmrc (the user database's home)
// and /etc/npmrc, else npm's default (cage/settings/npm_config.h); npm is never run.
std::optional<std::string> npm_config_registry();

}  // namespace toolcage::cage
