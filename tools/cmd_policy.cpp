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
#include "tools/policy_commands.h"

namespace toolcage::cli {

namespace {

struct PolicyOptions {
    std::string name;
    std::string file;
    std::string profile_dir;
    std::string openshell_name;
    std::string relay_path;
    bool rules_long = false;
    bool rules_json = false;
    std::string install_file;
    std::string install_name;
    bool install_force = false;
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
    auto* validate = sub->add_subcommand("validate", "Check a policy (a file or an installed name): every error");
    validate->add_option("policy", o->file, "Policy file or installed policy's name")->required();
    auto* which = sub->add_subcommand("which", "Say which policy a profile gets, and why");
    which->add_option("--profile-dir", o->profile_dir,
                      "The agent profile's directory (default: $HERMES_HOME, else the current one)");
    auto* rules = sub->add_subcommand("rules", "List the built-in rule ids (for overrides)");
    rules->add_flag("--long,-l", o->rules_long, "With each rule's default verdict, what it matches and why");
    rules->add_flag("--json", o->rules_json, "One JSON array of {id, verdict, matches, reason}");
    auto* install = sub->add_subcommand("install", "Validate a policy file and install it as your own");
    install->add_option("file", o->install_file, "The policy file")->required();
    install->add_option("--name", o->install_name, "Install under this name (default: the file's name)");
    install->add_flag("--force", o->install_force, "Replace a policy of yours of the same name");
    auto* openshell = sub->add_subcommand(
        "openshell", "Print the OpenShell network policy that lets only the relay out");
    openshell->add_option("name", o->openshell_name, "Policy name or file")->required();
    openshell->add_option("--relay", o->relay_path, "Path of toolcage-relay as installed in the sandbox");
    return {sub, [=] {
                if (list->parsed()) return list_cmd();
                if (show->parsed()) return show_cmd(o->name);
                if (validate->parsed()) return policy_validate(o->file);
                if (rules->parsed()) return policy_rules(o->rules_long, o->rules_json);
                if (which->parsed()) return policy_which(o->profile_dir);
                if (install->parsed()) return policy_install(o->install_file, o->install_name, o->install_force);
                if (openshell->parsed()) {
                    std::cout << relay::openshell_policy_yaml(load_checked_policy(o->openshell_name),
                                                              relay_binary_path(o->relay_path));
                    return 0;
                }
                return kExitBlock;
            }};
}

}  // namespace toolcage::cli
