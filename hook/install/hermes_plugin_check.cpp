#include <yaml-cpp/yaml.h>

#include <fstream>
#include <sstream>
#include <system_error>

#include "hook/install/hermes_plugin.h"

namespace toolcage::install {

namespace {

std::optional<std::string> slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) return std::nullopt;
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// The name a plugin.yaml declares, as Hermes reads it (PyYAML: the top-level `name`); nullopt
// when it declares none; "?" when the file cannot be read as YAML.
std::optional<std::string> declared_name(const std::string& text) {
    try {
        YAML::Node doc = YAML::Load(text);
        if (doc.IsMap() && doc["name"] && doc["name"].IsScalar()) return doc["name"].Scalar();
        return std::nullopt;
    } catch (const std::exception&) {
        return std::string("?");
    }
}

}  // namespace

std::vector<std::string> hermes_plugin_problems(const fs::path& hermes_home, const fs::path& source,
                                                const std::vector<fs::path>& other_plugin_dirs) {
    std::vector<std::string> problems;
    const fs::path ours = hermes_home / "plugins" / kHermesPluginName;
    for (const char* f : {"plugin.yaml", "__init__.py"}) {
        auto want = slurp(source / f);
        auto have = slurp(ours / f);
        if (!have)
            problems.push_back((ours / f).string() + ": missing; run `toolcage install hermes` again");
        else if (want && *want != *have)
            problems.push_back((ours / f).string() + ": differs from toolcage's own plugin (" + (source / f).string() +
                               "); run `toolcage install hermes` again, and find out who changed it");
    }
    // Hermes keys plugins by the name their plugin.yaml declares, a later one replacing an
    // earlier: any other directory declaring toolcage's name can take its place.
    std::vector<fs::path> dirs{hermes_home / "plugins"};
    dirs.insert(dirs.end(), other_plugin_dirs.begin(), other_plugin_dirs.end());
    for (const auto& dir : dirs) {
        std::error_code ec;
        for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
            if (it->path() == ours) continue;
            for (const char* manifest : {"plugin.yaml", "plugin.yml"}) {
                auto text = slurp(it->path() / manifest);
                if (!text) continue;
                auto name = declared_name(*text);
                bool hit = name == std::string(kHermesPluginName) ||
                           (name == std::string("?") && text->find(kHermesPluginName) != std::string::npos);
                if (hit)
                    problems.push_back((it->path() / manifest).string() +
                                       ": declares the plugin name \"toolcage\" (or may: it is not YAML "
                                       "toolcage can read); Hermes would load it in place of toolcage's own "
                                       "plugin. Remove that directory");
            }
        }
    }
    return problems;
}

}  // namespace toolcage::install
