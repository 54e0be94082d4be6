// `toolcage install hermes|claude|openclaw` and `toolcage uninstall ...`: wire the hook into an
// agent's configuration, or take it out again.
#include <iostream>
#include <memory>

#include "hook/install/install.h"
#include "tools/commands.h"

namespace toolcage::cli {

namespace {

struct AgentOptions {
    install::HermesOptions hermes;
    install::ClaudeOptions claude;
    install::OpenClawOptions openclaw;
    bool dry_run = false;
};

int report(const install::Outcome& o) {
    std::cout << o.out << std::flush;
    std::cerr << o.err << std::flush;
    return o.exit_code;
}

Subcommand add_agent_commands(CLI::App& app, bool installing) {
    auto o = std::make_shared<AgentOptions>();
    const char* verb = installing ? "install" : "uninstall";
    auto* sub = app.add_subcommand(
        verb, installing ? "Wire toolcage's hook into an agent's configuration"
                         : "Take toolcage's hook out of an agent's configuration");
    sub->require_subcommand(1);
    sub->add_flag("--dry-run", o->dry_run, "Say what would change, change nothing");

    auto* hermes = sub->add_subcommand(
        "hermes", "Hermes Agent: the toolcage plugin, the config.yaml hook, its approval, SOUL.md policy");
    auto* profile = hermes->add_option(
        "--profile", o->hermes.profile,
        "Profile name (~/.hermes/profiles/NAME; default: $HERMES_HOME, else ~/.hermes)");
    hermes->add_option("--hermes-home", o->hermes.hermes_home, "The profile's directory itself")
        ->excludes(profile);
    hermes->add_option("--plugin-dir", o->hermes.plugin_dir,
                       "The plugin to install (default: <prefix>/share/toolcage/plugins/hermes)");
    hermes->add_option("--hermes-version", o->hermes.hermes_version,
                       "The Hermes version to report for (default: asked of `hermes` on PATH)");

    auto* claude = sub->add_subcommand("claude", "Claude Code: a PreToolUse hook in settings.json");
    claude->add_option("--settings", o->claude.settings,
                       "settings.json (default: ~/.claude/settings.json)");
    claude->add_option("--claude-version", o->claude.claude_version,
                       "The Claude Code version to report for (default: asked of `claude` on PATH)");

    auto* openclaw = sub->add_subcommand("openclaw", "OpenClaw: load and enable toolcage's plugin");
    openclaw->add_option(
        "--config", o->openclaw.config,
        "openclaw.json (default: $OPENCLAW_CONFIG_PATH, else ~/.openclaw/openclaw.json)");
    openclaw->add_option("--plugin-dir", o->openclaw.plugin_dir,
                         "The plugin (default: <prefix>/share/toolcage/plugins/openclaw)");
    if (installing) {
        hermes->add_option("--policy", o->hermes.policy,
                           "Set this installed policy in the profile's SOUL.md");
        hermes->add_flag("--print", o->hermes.print,
                         "Print everything install writes, for an image template; change nothing");
        claude->add_option("--policy", o->claude.policy, "Run the hook with this installed policy");
        openclaw->add_option("--policy", o->openclaw.policy,
                             "Run the hook with this installed policy (the plugin's config)");
    }
    for (auto* a : {hermes, claude, openclaw})
        a->add_flag("--dry-run", o->dry_run, "Say what would change, change nothing");

    return {sub, [=] {
                o->hermes.dry_run = o->claude.dry_run = o->openclaw.dry_run = o->dry_run;
                if (hermes->parsed())
                    return report(installing ? install::install_hermes(o->hermes)
                                             : install::uninstall_hermes(o->hermes));
                if (claude->parsed())
                    return report(installing ? install::install_claude(o->claude)
                                             : install::uninstall_claude(o->claude));
                if (openclaw->parsed())
                    return report(installing ? install::install_openclaw(o->openclaw)
                                             : install::uninstall_openclaw(o->openclaw));
                return kExitBlock;
            }};
}

}  // namespace

Subcommand add_install_command(CLI::App& app) {
    return add_agent_commands(app, true);
}
Subcommand add_uninstall_command(CLI::App& app) {
    return add_agent_commands(app, false);
}

}  // namespace toolcage::cli
