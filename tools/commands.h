// The subcommands of `toolcage`. Each add_*_command registers its options on the app and
// returns the action to run when that subcommand was chosen; the action returns the exit code.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace toolcage::cli {

using Action = std::function<int()>;

struct Subcommand {
    CLI::App* app = nullptr;
    Action run;
};

Subcommand add_check_command(CLI::App& app);
Subcommand add_policy_command(CLI::App& app);
Subcommand add_hook_command(CLI::App& app);
Subcommand add_run_command(CLI::App& app);
Subcommand add_doctor_command(CLI::App& app);
Subcommand add_install_command(CLI::App& app);
Subcommand add_uninstall_command(CLI::App& app);
Subcommand add_log_command(CLI::App& app);
Subcommand add_explain_command(CLI::App& app);
Subcommand add_changes_command(CLI::App& app);
Subcommand add_land_command(CLI::App& app);
Subcommand add_undo_command(CLI::App& app);

// `toolcage explain` (and `check --explain`): prints the classifier's reading of the command,
// as text or (json) as one JSON object.
int run_explain(const std::string& policy, const std::string& cwd,
                const std::vector<std::string>& words, bool json);

// Exit code every agent treats as a block, and that toolcage uses for any error of its own.
inline constexpr int kExitBlock = 2;

}  // namespace toolcage::cli
