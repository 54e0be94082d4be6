// `toolcage explain [--policy P] [--cwd D] -- COMMAND`: the classifier's reading of a command,
// step by step (tools/explain_report.h).
#include <iostream>
#include <memory>

#include "common/error.h"
#include "tools/commands.h"
#include "tools/explain_report.h"
#include "tools/policy_access.h"

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
        throw Error("explain: no command given; write toolcage explain -- 'COMMAND'");
    Policy policy = load_checked_policy(policy_name);
    std::string command;
    for (const auto& w : words) command += (command.empty() ? "" : " ") + w;
    auto e = classify::explain_command(command, classify::make_context(cwd), policy);
    if (json)
        std::cout << explain_json(command, e, policy).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
                  << '\n';
    else
        std::cout << explain_text(command, e, policy);
    return 0;
}

Subcommand add_explain_command(CLI::App& app) {
    auto o = std::make_shared<ExplainOptions>();
    auto* sub = app.add_subcommand(
        "explain",
        "Explain a verdict: the parse, programs, rules, and the override that changes it");
    sub->add_option("--policy", o->policy, "An installed policy's name or a policy file");
    sub->add_option("--cwd", o->cwd, "The working directory the command would run in");
    sub->add_flag("--json", o->json, "Print one JSON object");
    sub->add_option("command", o->command, "The command (after --)");
    return {sub, [o] { return run_explain(o->policy, o->cwd, o->command, o->json); }};
}

}  // namespace toolcage::cli
