// The file an agent's file tool touches, found as that agent finds it: `~`, the agent's cwd,
// then every symlink on the way (common/path_resolver). The decision judges what this finds.
#pragma once

#include <string>
#include <vector>

#include "common/path_resolver.h"
#include "hook/call/tool_call.h"

namespace toolcage::hook {

struct FileTarget {
    std::string lexical;              // the path as text (absolute_path): names are compared by it
    std::vector<Resolution> reached;  // each place the tool may land, with the links on the way
    std::string error;  // set: the path cannot be resolved (a loop, PATH_MAX, a lookup refused)
};

// `path` as `agent`'s file tool resolves it from `cwd`, with `home` for `~`. Hermes resolves the
// path as written (Path.resolve: a link first, then `..`); Claude Code and OpenClaw are Node
// programs that may fold the text first (path.resolve) or hand it on as written: both are reached.
FileTarget file_target(const std::string& path, const std::string& cwd, const std::string& home,
                       Agent agent);

}  // namespace toolcage::hook
