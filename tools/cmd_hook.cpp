// `toolcage hook [--agent hermes|claude|openclaw] [--policy NAME]`: reads one tool call as JSON
// on stdin and answers in the agent's own format. Any failure refuses the call (exit 2).
#include <memory>

#include "hook/pipeline/hook.h"
#include "tools/commands.h"
#include "tools/policy_access.h"

namespace toolcage::cli {

Subcommand add_hook_command(CLI::App& app) {
    auto opts = std::make_shared<hook::HookOptions>();
    auto* sub = app.add_subcommand("hook", "Decide one agent tool call (JSON on stdin)");
    sub->add_option("--agent", opts->agent,
                    "hermes, claude or openclaw (default: from the payload's shape)");
    sub->add_option("--policy", opts->policy,
                    "Policy name or file (default: the profile's SOUL.md, toolcage.json, default)");
    return {sub, [opts] { return hook::run_hook(*opts, load_checked_policy); }};
}

}  // namespace toolcage::cli
