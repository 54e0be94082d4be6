// Commands that start a project in a work root (`git clone URL DIR`, `mkdir DIR`, `npm create X
// DIR`, `cargo new DIR`, `uv init DIR`): the new directory, and the same step as it runs inside
// that directory once `toolcage run --new-project` has made it (empty) and made it the step's
// workspace, its only writable place.
#pragma once

#include <optional>
#include <string>

namespace toolcage::hook {

struct NewProject {
    std::string dir;      // the new directory, as named (one plain name: no '/', not . or ..)
    std::string command;  // what runs inside it: `git clone URL .`, `cargo init`, `:` for mkdir
};

// nullopt unless `command` is one simple command of plain literal words, no redirections or
// assignments, of a form the table knows, naming one new directory directly in the working
// directory.
std::optional<NewProject> new_project(const std::string& command);

}  // namespace toolcage::hook
