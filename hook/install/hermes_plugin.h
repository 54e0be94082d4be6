// The Hermes plugin's half of `toolcage install hermes`: its files in the profile's
// plugins/toolcage/ (with config.json naming this toolcage binary), and its name in
// `plugins: enabled:` of config.yaml, fenced so that uninstall takes out exactly that.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "hook/install/change_set.h"
#include "hook/install/text_lines.h"

namespace toolcage::install {

namespace fs = std::filesystem;

inline constexpr const char* kHermesPluginName = "toolcage";

// The plugin as installed with toolcage: `given`, else <prefix>/share/toolcage/plugins/hermes.
// Throws Error naming the fix when its files are not there.
fs::path hermes_plugin_source(const std::string& given);

// What the plugin's config.json holds for this binary and profile.
std::string hermes_plugin_config(const std::string& toolcage_bin, const fs::path& hermes_home,
                                 bool made_plugins_dir = false);

struct PluginFilesPlan {
    fs::path dir;                   // <profile>/plugins/toolcage
    std::vector<FileEdit> edits;    // plugin.yaml, __init__.py, config.json
    bool made_plugins_dir = false;  // uninstall: install made <profile>/plugins
};

// Install: the files as they should be. Throws Error when the directory holds a plugin
// toolcage did not write.
PluginFilesPlan plan_plugin_files(const fs::path& hermes_home, const fs::path& source,
                                  const std::string& toolcage_bin);
// Uninstall: removing the files toolcage wrote (nothing when it wrote none).
PluginFilesPlan plan_plugin_removal(const fs::path& hermes_home);
// After the edits: create the directory first (install) / remove it when empty (uninstall).
void make_plugin_dir(const PluginFilesPlan& p);
void remove_plugin_dir_if_empty(const PluginFilesPlan& p);

// config.yaml with `toolcage` in plugins.enabled: the new text, what changed, or (nullopt
// text, non-empty `refused`) why a line scan cannot do it safely.
struct EnableEdit {
    std::optional<std::string> text;  // nullopt: already enabled (or refused)
    std::string what;
    std::string refused;
};
EnableEdit enable_plugin(const std::string& config_text);
// config.yaml without toolcage's fenced plugins lines, or else without the `- toolcage` merged by
// hand into `plugins: enabled:` from the lines install printed (and the `enabled:` and `plugins:`
// it leaves empty); nullopt when it has neither.
std::optional<std::string> disable_plugin(const std::string& config_text, const std::string& file);

// Why the plugin Hermes loads under the name "toolcage" from `hermes_home` may not be
// toolcage's own: its files differ from `source`, or another directory in the profile's plugins
// (or in `other_plugin_dirs`: a project's .hermes/plugins) declares that name. Empty: it is.
std::vector<std::string> hermes_plugin_problems(const fs::path& hermes_home, const fs::path& source,
                                                const std::vector<fs::path>& other_plugin_dirs = {});

// The lines to merge by hand into config.yaml for the plugin.
std::vector<std::string> plugin_enable_lines();

}  // namespace toolcage::install
