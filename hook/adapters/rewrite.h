// The command that runs an agent's command inside the cage instead:
// '<dir>/toolcage' run --policy <policy> --workdir '<dir>' -- /bin/bash -c '<original>'.
// Also the reverse: whether a command is exactly one of these rewrites, and of what.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace toolcage::hook {

// `s` in single quotes, each ' written as '\'' — bash reads it back byte for byte.
std::string shell_quote(std::string_view s);

// `toolcage_bin`: absolute path of the toolcage binary; `policy`: the name (or file) the hook
// chose; `workdir`: absolute directory the command runs in.
std::string cage_rewrite(const std::string& toolcage_bin, const std::string& policy,
                         const std::string& workdir, const std::string& command);

// What a rewrite is made of.
struct RewriteParts {
    std::string toolcage_bin, policy, workdir, command;
};

// Every form of rewrite this file produces from these parts. A new form (another wrapper, a
// variant of `run`) is added here too: the recogniser below accepts only these strings.
std::vector<std::string> rewrite_forms(const RewriteParts& p);

// The parts of `text` when it is, byte for byte, one of rewrite_forms() of the parts its own
// `toolcage run` words name; nullopt for anything else (including look-alikes).
std::optional<RewriteParts> parse_rewrite(const std::string& text);

}  // namespace toolcage::hook
