// `toolcage install` / `toolcage uninstall`: wire toolcage's hook into an agent's own
// configuration (Hermes Agent's config.yaml and hook allowlist, Claude Code's settings.json,
// OpenClaw's plugin config) and take it out again, leaving everything else as it was.
#pragma once

#include <string>

namespace toolcage::install {

// What to print and the exit code. Bad input throws toolcage::Error instead (exit 2).
struct Outcome {
    int exit_code = 0;
    std::string out;  // stdout: what changed
    std::string err;  // stderr: why nothing could be changed, and what to do by hand
};

struct HermesOptions {
    std::string profile;      // a named profile (~/.hermes/profiles/NAME); "default": ~/.hermes
    std::string hermes_home;  // or the profile's directory itself
    std::string policy;       // install: the policy to name in SOUL.md; empty: leave it
    std::string plugin_dir;   // the plugin to copy; empty: <prefix>/share/toolcage/plugins/hermes
    std::string hermes_version;  // X.Y.Z; empty: asked of the `hermes` on PATH
    bool print = false;       // print what install writes (an image template); change nothing
    bool dry_run = false;
};

struct ClaudeOptions {
    std::string settings;  // settings.json; empty: ~/.claude/settings.json
    std::string policy;    // passed to the hook as --policy; empty: the default
    std::string claude_version;  // X.Y.Z; empty: asked of the `claude` on PATH
    bool dry_run = false;
};

struct OpenClawOptions {
    std::string
        config;  // openclaw.json; empty: $OPENCLAW_CONFIG_PATH, else ~/.openclaw/openclaw.json
    std::string plugin_dir;  // the plugin; empty: <prefix>/share/toolcage/plugins/openclaw
    std::string policy;      // install: passed to the hook (the plugin's config); empty: the default
    bool dry_run = false;
};

Outcome install_hermes(const HermesOptions& o);
Outcome uninstall_hermes(const HermesOptions& o);
Outcome install_claude(const ClaudeOptions& o);
Outcome uninstall_claude(const ClaudeOptions& o);
Outcome install_openclaw(const OpenClawOptions& o);
Outcome uninstall_openclaw(const OpenClawOptions& o);

}  // namespace toolcage::install
