// cargo's configuration files that the cage cannot read. cargo reads .cargo/config.toml from
// the step's directory up to / and then $CARGO_HOME's, and stops with "Permission denied" at the
// first it cannot read; the user's may hold a token (registry.token, [env]). Each such file is
// either granted as it is (it holds only inert settings) or, in the step's own mount namespace,
// covered by a filtered copy: registries and sources, never a credential, a proxy or a program.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cage/step/workspace.h"

namespace toolcage::cage {

// A cargo config text reduced to settings that name no credential, proxy, environment or
// wrapper program (registries' index and protocol, sources' replacement, net, term, build's
// jobs and flags, aliases, profiles, targets' linker, runner and flags), without any value that
// carries a URL with userinfo. nullopt when the text is not TOML (cargo would refuse it too).
std::optional<std::string> step_cargo_config(const std::string& text);

// One configuration file cargo would read in the step and the cage would refuse it.
struct CargoConfigFile {
    std::string path;
    // Every setting in it is one step_cargo_config() keeps: the cage may read it as it is.
    bool inert = false;
    std::string filtered;  // what the step reads instead when it is not inert
};

// The files cargo reads for a step in `workdir` (.cargo/config and .cargo/config.toml in
// `workdir` and each directory above it, then in each of `cargo_homes`) that are regular files
// outside every entry of `cage.read`.
std::vector<CargoConfigFile> unreadable_cargo_configs(const ExpandedCage& cage, const std::string& workdir,
                                                      const std::vector<std::string>& cargo_homes);

// Where cargo may take its home from in the step: $CARGO_HOME (`cargo_home_var`) when absolute,
// and <home>/.cargo (the step's environment may not carry CARGO_HOME on).
std::vector<std::string> cargo_homes_of(const std::string& cargo_home_var, const std::string& home);

}  // namespace toolcage::cage
