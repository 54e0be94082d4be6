// `toolcage run [--policy NAME|FILE] [--step-id ID] [--workdir DIR] [--workspace DIR]
// [--new-project DIR] [--read-only] [--best-effort] -- PROGRAM ARGS...`: one command inside the cage (or the read-only cage);
// exits with its status (128+n for a death by signal n).
#include <iostream>
#include <memory>

#include "cage/relay_launch.h"
#include "cage/run.h"
#include "common/step_id.h"
#include "tools/commands.h"
#include "tools/grant_summary.h"
#include "tools/policy_access.h"

namespace toolcage::cli {

Subcommand add_run_command(CLI::App& app) {
    auto o = std::make_shared<cage::RunOptions>();
    auto* sub = app.add_subcommand("run", "Run one command inside the cage (Landlock + seccomp)");
    sub->add_option("--policy", o->policy, "An installed policy's name or a policy file")
        ->default_str("default");
    sub->add_option("--step-id", o->step_id,
                    "The step's id in the logs (16 hex characters; toolcage hook names it in its "
                    "rewrite so that the decision and the step share it; default: a fresh one)");
    sub->add_option("--workdir,--cwd", o->workdir,
                    "Where the command runs; its git top level is {workspace} (default: here)");
    sub->add_option("--workspace", o->workspace,
                    "The workspace ({workspace}) when it is not chosen from --workdir");
    sub->add_option("--new-project", o->new_project,
                    "Start a project: make this new directory (empty) in a work root of the policy and run there, "
                    "with it as the workspace");
    sub->add_flag("--read-only", o->read_only,
                  "The read-only cage: no writes but /dev/null and the terminal, no network");
    sub->add_flag("--best-effort", o->best_effort,
                  "Run even when the kernel offers less than the policy's min_abi");
    sub->add_flag("--verbose", o->verbose, "Say what the cage enforces");
    sub->add_option("--landlock-abi", o->max_landlock_abi,
                    "Act as if the kernel offered at most this Landlock ABI (testing)")
        ->group("");
    sub->add_option("command", o->argv, "The program and its arguments (after --)")->required();
    return {sub, [o] {
                o->load_policy = [](const std::string& name) { return load_checked_policy(name); };
                // --verbose: first what the step is granted, in words; the path rules follow.
                if (o->verbose && !o->new_project.empty())
                    std::cerr << "a new project: " << o->new_project << " is made (empty) in the work root and is "
                                 "the step's workspace, its only writable place\n";
                else if (o->verbose)
                    std::cerr << grant_summary(load_checked_policy(o->policy), resolve_workdir(o->workdir, "run"),
                                               o->read_only,
                                               o->workspace.empty() ? "" : resolve_workdir(o->workspace, "run"),
                                               /*list_reads=*/true);
                // The relay's configuration is the launcher's own (the policy and the user's
                // files, never an environment variable), read only when a policy enables it.
                // One id for the step from the start: its relay's lines, its log line and its
                // held changes (toolcage land STEP) share it.
                if (o->step_id.empty()) o->step_id = new_step_id();
                o->start_relay = [step_id = o->step_id](const RelayPolicy& relay, std::uint16_t inside_port) {
                    auto config = cage::relay_launch_defaults();
                    config.step_id = step_id;  // checked by run_caged before any relay starts
                    auto start = cage::make_relay_starter(config);
                    return start(relay, inside_port);
                };
                return cage::run_caged(*o);
            }};
}

}  // namespace toolcage::cli
