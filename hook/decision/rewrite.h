// The command that runs an agent's command inside the cage instead:
// '<dir>/toolcage' run --policy <policy> --step-id <id> --workdir '<dir>' -- /bin/bash -c
// '<original>',
// with --workspace and --read-only when the decision names them, and toolcage's own text for
// leading directory moves kept in the agent's shell in front (hook/decision/shell_state.h).
// Also the reverse: whether a command is exactly one of these rewrites, and of what.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace toolcage::hook {

// `toolcage_bin`: absolute path of the toolcage binary; `policy`: the name (or file) the hook
// chose; `step_id`: the step's id (common/step_id.h); `workdir`: absolute directory the command
// runs in.
std::string cage_rewrite(const std::string& toolcage_bin, const std::string& policy,
                         const std::string& step_id, const std::string& workdir,
                         const std::string& command);

struct CageRewrite {
    std::string toolcage_bin;  // absolute path of the toolcage binary
    std::string policy;        // the name (or file) the hook chose
    std::string step_id;       // the step's id, 16 hex characters (common/step_id.h): the
                               // decision's log line and the step's carry it
    std::string workdir;       // where the command runs (the call's cwd)
    std::string workspace;     // the workspace the hook chose (empty: run chooses from workdir)
    bool read_only = false;    // the read-only cage, for an allowed command
    std::string command;       // the agent's command, as sent
    // A project started in a work root (hook/decision/new_project.h): the new directory, which
    // `run --new-project` makes and the step works in; empty for every other step.
    std::string new_project{};
};

// Without a prefix of moves: '<bin>' run --policy P --step-id ID --workdir W [--workspace S]
// [--new-project D] [--read-only] -- /bin/bash -c 'CMD'. With one: `builtin cd './DIR' && '<bin>' run --policy P
// --step-id ID [--workspace S] [--read-only] -- /bin/bash -c '<rest>'`: the step starts where the agent's
// shell is once the prefix has moved it.
std::string cage_rewrite(const CageRewrite& r);

// A command recognised as one of the rewrites above. `run.command` is what runs in the cage;
// `outside` the moves (toolcage's text) that run in the agent's shell (empty when there is none);
// `run.workdir` is empty in the prefixed form, which has none.
struct RewriteParts {
    CageRewrite run;
    std::string outside;
};

// The parts of `text` when its `toolcage run` words, written back by cage_rewrite() above, give
// `text` byte for byte (and a prefix, if any, is moves alone); nullopt for anything else,
// look-alikes included: a prefix must be byte for byte what only_moves() writes, and the step's
// id 16 hex characters.
std::optional<RewriteParts> parse_rewrite(const std::string& text);

}  // namespace toolcage::hook
