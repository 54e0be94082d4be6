// The files Hermes reads from a session's directory into its system prompt (context files): a
// write to one is what the agent leaves for every later session started there.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace toolcage::hook {

// `path` (absolute) is one Hermes 0.19/0.20 loads into a session's prompt from the project:
// .hermes.md and HERMES.md (the nearest, up to the git top level), AGENTS.md, CLAUDE.md,
// .cursorrules (the session's directory), .cursor/rules/*.mdc, AGENTS.override.md (0.20's
// subdirectory hints) and anything under .agents/skills/ or .hermes/skills/ (0.20's project
// skills); names compared without regard to case, so that a case-insensitive file system's
// spelling counts too.
bool is_context_file(const std::string& path);

// What a file tool writes, as a person approves it: write_file's content, patch's old and new
// strings, or its patch text.
std::string written_text(const nlohmann::json& input);

}  // namespace toolcage::hook
