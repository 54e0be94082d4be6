// Starting toolcage-relay for one step: a fresh token, the policy's allowlist with its
// placeholders filled, the launcher's upstream proxy, and a lifeline that ends it with the step.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cage/environment.h"
#include "cage/run.h"

namespace toolcage::cage {

struct RelayLaunchConfig {
    std::string relay_binary;  // toolcage-relay
    std::string log_path;      // the relay's JSON lines; empty: none
    std::string upstream;      // the launcher's proxy, used when the policy names none
    // `npm config get registry`, asked only when an allow entry says {npm_registry}.
    std::function<std::optional<std::string>()> npm_registry;
    // Where the private directory for the token file is made.
    std::string token_base;
};

// The launcher's own configuration: toolcage-relay beside /proc/self/exe, the log in
// $XDG_STATE_HOME/toolcage (else ~/.local/state/toolcage), the upstream from the launcher's
// https_proxy/HTTPS_PROXY/http_proxy, the token under $XDG_RUNTIME_DIR (else /tmp).
RelayLaunchConfig relay_launch_defaults(const Environment& launcher_env);

RelayStarter make_relay_starter(RelayLaunchConfig config);

// The launcher's proxy for the relay's --upstream: https_proxy, HTTPS_PROXY, http_proxy in that
// order; "http://" is added when the value has no scheme. Empty when none is set.
std::string upstream_from_environment(const Environment& env);

// "https://registry.example.org/" -> "registry.example.org"; an explicit port is kept
// ("host:8443"), http:// without one gets ":80". nullopt for anything else.
std::optional<std::string> registry_allow_entry(const std::string& url);

// The policy's relay.allow with {npm_registry} replaced (asked once, only if present); an entry
// that cannot be filled is dropped and explained in `notes`.
std::vector<std::string> expand_relay_allow(
    const std::vector<std::string>& allow,
    const std::function<std::optional<std::string>()>& npm_registry,
    std::vector<std::string>& notes);

// What `npm config get registry` answers run from "/" with the launcher's environment, so that
// an .npmrc in the workspace (which the cage may write) has no say: read from npm's files and
// variables (cage/npm_config.h), npm run only where its layout is not the one known there.
// nullopt when npm is missing or fails.
std::optional<std::string> npm_config_registry();

}  // namespace toolcage::cage
