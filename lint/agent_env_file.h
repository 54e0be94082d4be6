// An agent's environment file (a Hermes profile's .env, a dotenv file): which variables it sets.
// Secret values are never kept; a *_BASE_URL value is, since it says where a key is sent.
#pragma once

#include <string>
#include <vector>

namespace toolcage::lint {

struct EnvVariable {
    std::string name;
    std::string value;  // only for names ending in _BASE_URL, _API_BASE or _ENDPOINT; else empty
    int line = 0;
};

// The variables the file sets to a non-empty value, in order. Lines are `KEY=VALUE`, optionally
// after `export `; blank lines and `#` comments are skipped; a quoted value may span lines.
// Throws Error naming the file, the line and the fix for an unreadable file or a line that is
// not an assignment (a credential must not hide in a line the lint cannot read).
std::vector<EnvVariable> read_agent_env_file(const std::string& path);
std::vector<EnvVariable> parse_agent_env(const std::string& text, const std::string& file);

}  // namespace toolcage::lint
