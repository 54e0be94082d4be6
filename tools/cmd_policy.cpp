// `toolcage policy`: list, show and validate policies, say which one a profile gets, list the
// built-in rule ids, and print the OpenShell network policy for the relay.
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/policy_loader.h"
#include "common/policy_schema.h"
#include "hook/adapters/soul.h"
#include "hook/classify/rules.h"
#include "relay/openshell_policy.h"
#include "tools/commands.h"
#include "tools/policy_access.h"

namespace toolcage::cli {

namespace {

struct PolicyOptions {
    std::string name;
    std::string file;
    std::string profile_dir;
    std::string openshell_name;
    std::string relay_path;
};

int list_cmd() {
    auto names = list_policies();
    if (names.empty()) {
        std::string dirs;
        for (const auto& d : profile_dirs()) dirs += " " + d.string();
        throw Error("no installed policies found (searched:" + (dirs.empty() ? std::string(" nothing") : dirs) +
                    "); run ./install.sh, or run the toolcage binary from its build directory");
    }
    for (const auto& n : names) {
        Policy p = load_policy(n);
        std::cout << n << "\t" << p.description << '\n';
    }
    return 0;
}

int show_cmd(const std::string& name) {
    std::cout << policy_to_json(load_checked_policy(name)).dump(2) << '\n';
    return 0;
}

int validate_cmd(const std::string& file) {
    Policy p = load_policy_file(file);
    load_checked_policy(p.file);  // override ids against the built-in rules
    std::cout << file << ": valid (policy \"" << p.name << "\")\n";
    return 0;
}

int rules_cmd() {
    for (const auto& id : classify::builtin_rule_ids()) std::cout << id << '\n';
    return 0;
}

std::string relay_binary_path(const std::string& given) {
    if (!given.empty()) return given;
    std::error_code ec;
    auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec) throw Error("cannot find the toolcage-relay binary; pass --relay PATH");
    return (exe.parent_path() / "toolcage-relay").string();
}

}  // namespace

Subcommand add_policy_command(CLI::App& app) {
    auto o = std::make_shared<PolicyOptions>();
    auto* sub = app.add_subcommand("policy", "List, show, validate and choose policies");
    sub->require_subcommand(1);
    auto* list = sub->add_subcommand("list", "List the installed policies");
    auto* show = sub->add_subcommand("show", "Print a policy, merged with what it extends");
    show->add_option("name", o->name, "Policy name or file")->required();
    auto* validate = sub->add_subcommand("validate", "Check a policy file");
    validate->add_option("file", o->file, "Policy file")->required();
    auto* which = sub->add_subcommand("which", "Say which policy a profile gets, and why");
    which->add_option("--profile-dir", o->profile_dir,
                      "The agent profile's directory (default: $HERMES_HOME, else the current one)");
    auto* rules = sub->add_subcommand("rules", "List the built-in rule ids (for overrides)");
    auto* openshell = sub->add_subcommand(
        "openshell", "Print the OpenShell network policy that lets only the relay out");
    openshell->add_option("name", o->openshell_name, "Policy name or file")->required();
    openshell->add_option("--relay", o->relay_path, "Path of toolcage-relay as installed in the sandbox");
    return {sub, [=] {
                if (list->parsed()) return list_cmd();
                if (show->parsed()) return show_cmd(o->name);
                if (validate->parsed()) return validate_cmd(o->file);
                if (rules->parsed()) return rules_cmd();
                if (which->parsed()) {
                    std::cout << hook::which_policy_report(o->profile_dir);
                    return 0;
                }
                if (openshell->parsed()) {
                    std::cout << relay::openshell_policy_yaml(load_checked_policy(o->openshell_name),
                                                              relay_binary_path(o->relay_path));
                    return 0;
                }
                return kExitBlock;
            }};
}

}  // namespace toolcage::cli
