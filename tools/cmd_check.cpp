// `toolcage check`: the classifier's verdict on a command, for people and for scripts.
// --batch reads JSON Lines and answers one JSON object per line, in order; a bad line gets a
// deny result with the reason, never a crash and never a skipped line.
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/analysis_budget.h"
#include "common/error.h"
#include "hook/classify/classifier.h"
#include "tools/commands.h"
#include "tools/policy_access.h"
#include "tools/workspace_place.h"

namespace toolcage::cli {

namespace {

struct CheckOptions {
    std::string policy;
    std::string cwd;
    bool json = false;
    bool batch = false;
    bool explain = false;
    std::vector<std::string> command;
};

std::string join_words(const std::vector<std::string>& words) {
    std::string s;
    for (const auto& w : words) s += (s.empty() ? "" : " ") + w;
    return s;
}

nlohmann::json verdict_json(const Verdict& v) {
    return {{"verdict", std::string(to_string(v.decision))}, {"rule", v.rule}, {"reason", v.reason}};
}

// The place walks up to the git top level; a batch often repeats the same cwd.
const WorkspacePlace& place_for(const std::string& cwd, const Policy& policy,
                                std::map<std::string, WorkspacePlace>& cache) {
    auto it = cache.find(cwd);
    if (it == cache.end()) it = cache.emplace(cwd, workspace_place(cwd, policy)).first;
    return it->second;
}

Verdict bad_line(const std::string& why) { return {Decision::deny, "input.invalid", why}; }

// A relative working directory ("." or "sub") is the one it names from here: the classifier
// compares it with the workspace, which is absolute.
std::string absolute_cwd(const std::string& cwd) {
    if (cwd.empty() || cwd[0] == '/') return cwd;
    std::error_code ec;
    std::filesystem::path p = std::filesystem::absolute(cwd, ec);
    return ec ? cwd : p.lexically_normal().string();
}

int run_batch(const CheckOptions& o, const Policy& policy) {
    std::map<std::string, WorkspacePlace> places;
    std::string line;
    std::size_t n = 0;
    while (std::getline(std::cin, line)) {
        ++n;
        Verdict v;
        try {
            if (budget::json_too_deep_at(line) != std::string_view::npos) {
                v = bad_line("line " + std::to_string(n) + ": nested more than " +
                             std::to_string(budget::kMaxJsonDepth) + " deep");
            } else if (auto j = nlohmann::json::parse(line); !j.is_object() || !j.contains("command") || !j["command"].is_string()) {
                v = bad_line("line " + std::to_string(n) +
                             ": expected {\"command\": \"…\", \"cwd\": \"…\"} with a string command");
            } else if (j.contains("cwd") && !j["cwd"].is_string()) {
                v = bad_line("line " + std::to_string(n) + ": \"cwd\" must be a string");
            } else {
                std::string cwd = absolute_cwd(j.value("cwd", o.cwd));
                const WorkspacePlace& place = place_for(cwd, policy, places);
                const std::string command = j["command"].get<std::string>();
                v = placed_verdict(classify::classify_command(command, place.context, policy), command, place, policy);
            }
        } catch (const nlohmann::json::exception&) {
            v = bad_line("line " + std::to_string(n) + ": not valid JSON");
        }
        std::cout << verdict_json(v).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    }
    std::cout.flush();
    return std::cout.good() ? 0 : kExitBlock;
}

int run_check(CheckOptions o) {
    o.cwd = absolute_cwd(o.cwd);
    if (o.cwd.size() > 1 && o.cwd.back() == '/') o.cwd.pop_back();
    if (o.batch && !o.command.empty())
        throw Error("check: --batch reads the commands from stdin, one JSON object a line; give no command "
                    "after -- (or drop --batch)");
    if (o.explain && !o.batch) return run_explain(o.policy, o.cwd, o.command, o.json);
    Policy policy = load_checked_policy(o.policy);
    if (o.batch) return run_batch(o, policy);
    if (o.command.empty()) throw Error("check: no command given; write toolcage check -- 'COMMAND'");
    std::string command = join_words(o.command);
    // The verdict the hook answers: a caged command where no workspace may be is asked about.
    const WorkspacePlace place = workspace_place(o.cwd, policy);
    Verdict v = placed_verdict(classify::classify_command(command, place.context, policy), command, place, policy);
    if (o.json) {
        auto j = verdict_json(v);
        j["policy"] = policy.name;
        j["workspace"] = workspace_json(place.choice);
        std::cout << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    } else {
        std::cout << "verdict: " << to_string(v.decision) << "\nrule:    " << v.rule
                  << "\nreason:  " << v.reason << "\npolicy:  " << policy.name
                  << "\nworkspace: " << (place.choice.ok() ? place.choice.dir : "none (" + place.choice.reason + ")")
                  << '\n';
    }
    return 0;
}

}  // namespace

Subcommand add_check_command(CLI::App& app) {
    auto opts = std::make_shared<CheckOptions>();
    auto* sub = app.add_subcommand("check", "Classify a shell command: allow, cage, ask or deny");
    sub->add_option("--policy", opts->policy, "An installed policy's name or a policy file");
    sub->add_option("--cwd,--workdir", opts->cwd, "The working directory the command would run in");
    sub->add_flag("--json", opts->json, "Print one JSON object");
    sub->add_flag("--batch", opts->batch,
                  "Read JSON Lines {\"command\", \"cwd\"} on stdin, write one result per line");
    sub->add_flag("--explain", opts->explain,
                  "Show the parse, the programs, every rule that fired and the override that changes the verdict");
    sub->add_option("command", opts->command, "The command (after --)");
    return {sub, [opts] { return run_check(*opts); }};
}

}  // namespace toolcage::cli
