// A file tool's write through a symlink in the workspace that leads out of it is refused,
// whatever lies at its end: the agent resolves the path after the hook looked, and a caged step
// (which may make any link in the workspace) can swap the link's target in between.
#pragma once

#include <optional>
#include <string>

#include "common/path_resolver.h"
#include "common/verdict.h"
#include "hook/classify/classifier.h"

namespace toolcage::hook {

// `ctx` with every place by its real name (common/path_resolver): the cwd, the workspace, the
// homes and the temp directory, to compare resolved paths with.
classify::Context real_context(const classify::Context& ctx);

// `written` (as the agent sent it) reached `r`: the refusal naming the first link in
// `workspace` (real) that leads out of it, or nothing.
std::optional<Verdict> link_escape(const std::string& written, const Resolution& r,
                                   const std::string& workspace);

}  // namespace toolcage::hook
