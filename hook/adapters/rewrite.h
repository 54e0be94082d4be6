// The command that runs an agent's command inside the cage instead:
// '<dir>/toolcage' run --policy <policy> --workdir '<dir>' -- /bin/bash -c '<original>'.
#pragma once

#include <string>
#include <string_view>

namespace toolcage::hook {

// `s` in single quotes, each ' written as '\'' — bash reads it back byte for byte.
std::string shell_quote(std::string_view s);

// `toolcage_bin`: absolute path of the toolcage binary; `policy`: the name (or file) the hook
// chose; `workdir`: absolute directory the command runs in.
std::string cage_rewrite(const std::string& toolcage_bin, const std::string& policy,
                         const std::string& workdir, const std::string& command);

}  // namespace toolcage::hook
