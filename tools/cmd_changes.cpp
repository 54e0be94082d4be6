// `toolcage changes [--step STEP] [--all] [--json]`: what caged steps changed in the workspace,
// step by step: the changes held for a person (files that configure how tools run, or run later:
// cage/integrity/hold_rule.h) and those that landed at once.
// `toolcage land STEP [PATH...]`: lands a step's held changes, all or those at or below PATH;
// refused inside a caged step (cage/integrity/change_store.h).
// `toolcage undo STEP`: puts the workspace back as it was before a step that ran in a layer;
// refused inside a caged step, and when a later change touched what the step landed
// (cage/integrity/step_undo.h).
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cage/integrity/change_store.h"
#include "cage/integrity/step_undo.h"
#include "common/error.h"
#include "common/user_home.h"
#include "tools/commands.h"
#include "tools/grant_summary.h"

namespace toolcage::cli {

namespace {

using nlohmann::json;

struct ChangesOptions {
    std::string workdir;
    std::string step;
    bool all = false;
    bool json = false;
};

// The step's record concerns the directory at hand: its workspace is that directory or holds it.
bool concerns(const json& record, const std::string& wd) {
    const std::string ws = record.value("workspace", "");
    return wd == ws || lies_under(wd, ws);
}

void print_record(const json& r) {
    const std::string step = r.value("step", "");
    std::cout << "step " << step << "  " << r.value("time", "") << "  in "
              << r.value("workspace", "") << "  (policy " << r.value("policy", "") << ")\n";
    std::cout << "  command: " << r.value("command", "") << '\n';
    if (!r.value("undone", "").empty())
        std::cout << "  undone: " << r.value("undone", "")
                  << " (the workspace was put back as before the step)\n";
    else if (r.value("layer", false))
        std::cout << "  undo it: toolcage undo " << step << '\n';
    const json& held = r.value("held", json::array());
    std::size_t waiting = 0;
    for (const auto& h : held)
        if (h.value("state", "") == "held") ++waiting;
    std::cout << "  held: " << held.size() << " (" << waiting << " waiting to land)\n";
    for (const auto& h : held) {
        const std::string path = h.value("path", "");
        std::cout << "    " << path << "  " << h.value("change", "") << "  ["
                  << h.value("state", "") << "]  " << h.value("why", "") << '\n';
        if (!h.value("note", "").empty())
            std::cout << "      note: " << h.value("note", "") << '\n';
        if (h.value("state", "") == "held")
            std::cout << "      land it: toolcage land " << step << " " << path << '\n';
    }
    const json& landed = r.value("landed", json::array());
    std::cout << "  landed: " << landed.size() + r.value("landed_more", std::size_t{0}) << '\n';
    for (const auto& c : landed)
        std::cout << "    " << c.value("path", "") << "  " << c.value("change", "") << '\n';
    if (r.value("landed_more", std::size_t{0}) > 0)
        std::cout << "    ... and " << r.value("landed_more", std::size_t{0}) << " more\n";
}

int run_changes(const ChangesOptions& o) {
    const std::string wd = resolve_workdir(o.workdir, "changes");
    // A landing cut short in this workspace is finished before anything is shown.
    for (const auto& r : cage::step_records(""))
        if (concerns(r, wd))
            if (std::string e = cage::finish_landings(r.value("workspace", ""), stderr); !e.empty())
                std::fprintf(stderr,
                             "toolcage changes: warning: a landing could not be finished: %s\n",
                             e.c_str());
    json out = json::array();
    for (auto& r : cage::step_records("")) {
        if (!o.step.empty() && r.value("step", "") != o.step) continue;
        if (o.step.empty() && !o.all && !concerns(r, wd)) continue;
        out.push_back(std::move(r));
    }
    if (o.json) {
        std::cout << out.dump(2, ' ', false, json::error_handler_t::replace) << '\n';
        return 0;
    }
    if (out.empty()) {
        std::cout << (o.step.empty() ? "no step has changed " + wd + " (or a workspace holding it)"
                                     : "no step " + o.step + " has recorded changes")
                  << '\n';
        return 0;
    }
    for (const auto& r : out) print_record(r);
    return 0;
}

struct LandOptions {
    std::string step;
    std::vector<std::string> paths;
};

struct UndoOptions {
    std::string step;
};

}  // namespace

Subcommand add_changes_command(CLI::App& app) {
    auto o = std::make_shared<ChangesOptions>();
    auto* sub = app.add_subcommand(
        "changes", "List what caged steps changed: held changes and those that landed");
    sub->add_option("--workdir", o->workdir,
                    "The directory whose workspace's steps are listed (default: the current one)");
    sub->add_option("--step", o->step, "Only this step (its id, as toolcage run printed it)");
    sub->add_flag("--all", o->all, "Every workspace's steps");
    sub->add_flag("--json", o->json, "The steps' records as one JSON array");
    return {sub, [o] { return run_changes(*o); }};
}

Subcommand add_land_command(CLI::App& app) {
    auto o = std::make_shared<LandOptions>();
    auto* sub = app.add_subcommand(
        "land", "Land a step's held changes in the workspace (a person, not a step)");
    sub->add_option("step", o->step, "The step's id (toolcage changes lists them)")->required();
    sub->add_option("paths", o->paths,
                    "Only these workspace-relative paths (and what lies below them)");
    return {sub, [o] {
                std::size_t left = cage::land_step(o->step, o->paths, stdout);
                return left == 0 ? 0 : 1;
            }};
}

Subcommand add_undo_command(CLI::App& app) {
    auto o = std::make_shared<UndoOptions>();
    auto* sub = app.add_subcommand("undo",
                                   "Put the workspace back as it was before a step that ran in a "
                                   "layer (a person, not a step)");
    sub->add_option("step", o->step, "The step's id (toolcage changes lists them)")->required();
    return {sub, [o] { return cage::undo_step(o->step, stdout) == 0 ? 0 : 1; }};
}

}  // namespace toolcage::cli
