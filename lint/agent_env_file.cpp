#include "lint/agent_env_file.h"

#include <sstream>

#include "lint/yaml_read.h"

namespace toolcage::lint {
namespace {

bool is_name(const std::string& s) {
    if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
    for (char c : s)
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
            return false;
    return true;
}

std::string trim(const std::string& s) {
    auto b = s.find_first_not_of(" \t\r");
    if (b == std::string::npos) return "";
    return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

bool keeps_value(const std::string& name) {
    return name.ends_with("_BASE_URL") || name.ends_with("_API_BASE") || name.ends_with("_ENDPOINT");
}

}  // namespace

std::vector<EnvVariable> parse_agent_env(const std::string& text, const std::string& file) {
    std::vector<EnvVariable> out;
    std::istringstream in(text);
    std::string raw;
    int number = 0;
    while (std::getline(in, raw)) {
        ++number;
        std::string line = trim(raw);
        if (line.empty() || line[0] == '#') continue;
        if (line.starts_with("export ")) line = trim(line.substr(7));
        auto eq = line.find('=');
        std::string name = eq == std::string::npos ? line : trim(line.substr(0, eq));
        if (eq == std::string::npos || !is_name(name))
            yaml::fail(file, "line " + std::to_string(number), "not a KEY=VALUE assignment",
                       "write `KEY=VALUE` (or comment the line out with #)");
        const int at = number;
        std::string value = trim(line.substr(eq + 1));
        if (!value.empty() && (value[0] == '"' || value[0] == '\'')) {
            // A quoted value ends at its closing quote, maybe lines later (dotenv's multi-line).
            const char q = value[0];
            std::string body = value.substr(1);
            while (body.find(q) == std::string::npos && std::getline(in, raw)) {
                ++number;
                body += "\n" + raw;
            }
            auto close = body.find(q);
            if (close == std::string::npos)
                yaml::fail(file, "line " + std::to_string(at) + " (" + name + ")",
                           "the quoted value never ends", "close the quote");
            value = body.substr(0, close);
        } else if (auto hash = value.find(" #"); hash != std::string::npos) {
            value = trim(value.substr(0, hash));  // an unquoted value ends at a comment
        }
        if (value.empty()) continue;
        out.push_back({name, keeps_value(name) ? value : "", at});
    }
    return out;
}

std::vector<EnvVariable> read_agent_env_file(const std::string& path) {
    return parse_agent_env(yaml::read_text(path, "the agent's environment file"), path);
}

}  // namespace toolcage::lint
