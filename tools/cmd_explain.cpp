// `toolcage explain [--policy P] [--cwd|--workdir D] -- COMMAND`: the classifier's reading of a command,
// step by step (tools/explain_report.h).
#include <iostream>
#include <memory>

#include "common/error.h"
#include "tools/commands.h"
#include "tools/explain_report.h"
#include "tools/policy_selection.h"
#include "tools/policy_access.h"
#include "tools/workspace_place.h"

namespace toolcage::cli {

namespace {

struct ExplainOptions {
    std::string policy;
    std::string cwd;
    bool json = false;
    std::vector<std::string> command;
};

}  // namespace

int run_explain(const std::string& policy_name, const std::string& cwd,
                const std::vector<std::string>& words, bool json) {
    if (words.empty())
        throw Error("no command given; write toolcage explain -- 'COMMAND'");
    Policy policy = load_checked_policy(policy_name);
    std::string command;
    for (const auto& w : words) command += (command.empty() ? "" : " ") + w;
    const WorkspacePlace place = workspace_place(cwd, policy);
    auto e = classify::explain_command(command, place.context, policy);
    // The verdict the hook answers (a caged command where no workspace may be is asked about).
    e.verdict = placed_verdict(e.verdict, command, place, policy);
    // Claude Code's project settings lie in the project: the workspace, else where it runs.
    const auto select = policy_selections(place.choice.ok() ? place.choice.dir : place.context.cwd, "NAME");
    if (json) {
        auto j = explain_json(command, e, policy, select);
        j["workspace"] = workspace_json(place.choice);
        std::cout << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    } else {
        std::cout << explain_text(command, e, policy, select)
                  << "workspace: " << (place.choice.ok() ? place.choice.dir : "none: " + place.choice.reason) << '\n';
    }
    return 0;
}

Subcommand add_explain_command(CLI::App& app) {
    auto o = std::make_shared<ExplainOptions>();
    auto* sub = app.add_subcommand(
        "explain",
        "Explain a verdict: the parse, programs, rules, and the override that changes it");
    sub->add_option("--policy", o->policy, "An installed policy's name or a policy file");
    sub->add_option("--cwd,--workdir", o->cwd, "The working directory the command would run in");
    sub->add_flag("--json", o->json, "Print one JSON object");
    sub->add_option("command", o->command, "The command (after --)");
    return {sub, [o] { return run_explain(o->policy, o->cwd, o->command, o->json); }};
}

}  // namespace toolcage::cli
