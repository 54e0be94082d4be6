// The files Hermes reads from a session's directory into its system prompt (context files): a
// write to one is what the agent leaves for every later session started there.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace toolcage::hook {

// `path` (absolute) is one Hermes 0.19/0.20 loads as a context file: .hermes.md and HERMES.md
// (the nearest, up to the git top level), AGENTS.md, CLAUDE.md, .cursorrules (the session's
// directory) and .cursor/rules/*.mdc; names compared without regard to case, so that a
// case-insensitive file system's spelling counts too.
bool is_context_file(const std::string& path);

// What a file tool writes, as a person approves it: write_file's content, patch's old and new
// strings, or its patch text.
std::string written_text(const nlohmann::json& input);

}  // namespace toolcage::hook
