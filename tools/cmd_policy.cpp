// `toolcage policy`: list, show and validate policies, say which one a profile gets, list the
// built-in rule ids, print the OpenShell network policy for the relay, and lint a deployment.
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/host_pattern.h"
#include "common/policy_loader.h"
#include "common/policy_schema.h"
#include "hook/classify/rules.h"
#include "hook/decision/soul.h"
#include "lint/openshell_merge.h"
#include "lint/report.h"
#include "lint/yaml_read.h"
#include "relay/openshell_policy.h"
#include "tools/commands.h"
#include "tools/openshell_lint_input.h"
#include "tools/policy_access.h"
#include "tools/policy_commands.h"

namespace toolcage::cli {

namespace {

struct PolicyOptions {
    std::string name;
    std::string file;
    std::string profile_dir;
    std::string openshell_name;
    std::string lint_name;
    std::string base;  // --base FILE: the sandbox's current policy to merge into
    OpenShellOptions openshell;
    bool force = false;
    bool json = false;
    bool rules_long = false;
    bool rules_json = false;
    std::string rules_policy;
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

// The merged policy on stdout, as a policy file that validates and loads as it is (`policy show
// forge > mine.json`); which files it was merged from on stderr.
int show_cmd(const std::string& name) {
    nlohmann::json j = policy_to_json(load_checked_policy(name));
    std::string from;
    for (const auto& f : j.value("files", nlohmann::json::array()))
        if (f.is_string()) from += (from.empty() ? "" : ", ") + f.get<std::string>();
    j.erase("files");
    if (!from.empty()) std::cerr << "toolcage policy show: " << name << ", merged from " << from << '\n';
    std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    return 0;
}

// The relay's OpenShell policy for `p`, placeholders filled (notes on stderr, prefixed `who`);
// empty when the policy's relay reaches nothing and `required` is false.
std::string generated_relay_policy(const Policy& p, const OpenShellOptions& o, const char* who,
                                   bool required) {
    std::vector<std::string> notes;
    Policy filled = with_placeholders_filled(p, o.npm_registry, notes);
    for (const auto& n : notes) std::cerr << who << ": note: " << n << '\n';
    if (filled.relay.allow.empty() && !p.relay.enabled) {
        if (!required) return "";
        throw Error("relay in " + (p.file.empty() ? p.name : p.file) +
                    ": the relay is disabled and allows nothing, so this policy's cage has no network "
                    "and needs no OpenShell rule; choose a policy with a relay (e.g. forge)");
    }
    return relay::openshell_policy_yaml(filled, relay_binary_path(o.relay_path));
}

// The relay's access as the merge reads it: each relay.allow entry as OpenShell's host pattern.
lint::RelayAccess relay_access(const Policy& filled, const std::string& relay_path) {
    const std::string where = "relay.allow in " + (filled.file.empty() ? filled.name : filled.file);
    if (filled.relay.allow.empty())
        throw Error(where + ": empty (list the hosts the relay may reach, e.g. \"api.example.com\")");
    lint::RelayAccess access;
    access.rule_key = relay::relay_rule_key(filled.name);
    access.display_name = "toolcage-relay " + filled.name;
    access.relay_binary = relay_binary_path(relay_path);
    relay::check_relay_binary_path(access.relay_binary);
    std::vector<AllowEntry> credentialed;
    for (const auto& c : filled.relay.credentialed)
        credentialed.push_back(parse_allow_entry(c, "relay.credentialed"));
    for (const auto& text : filled.relay.allow) {
        AllowEntry e = parse_allow_entry(text, where);
        access.endpoints.push_back(
            {relay_host_pattern(e), e.port, relay::declared_credentialed(e, credentialed), text});
    }
    return access;
}

// `--base FILE`: FILE with the relay's access merged in; the base's provider layers (which the
// output leaves to the gateway) are kept for the checks.
std::string merged_relay_policy(const Policy& p, const PolicyOptions& o, lint::OpenShellPolicy& layers) {
    std::vector<std::string> notes;
    Policy filled = with_placeholders_filled(p, o.openshell.npm_registry, notes);
    for (const auto& n : notes) std::cerr << "toolcage policy openshell: note: " << n << '\n';
    const std::string text = lint::yaml::read_text(o.base, "the base policy");
    std::string merged = lint::merged_policy_yaml(relay_access(filled, o.openshell.relay_path), text, o.base);
    layers = lint::parse_openshell_policy(text, o.base + " (provider layers)");
    std::erase_if(layers.rules, [](const lint::NetworkRule& r) { return !r.provider_layer(); });
    layers.middlewares.clear();  // already in the merged policy
    return merged;
}

// `policy openshell`: the same checks as `policy lint` on the policy about to be printed; a
// policy that breaks them is not printed (exit 2) unless --force, which says so on stderr.
int openshell_cmd(const PolicyOptions& o) {
    Policy p = load_checked_policy(o.openshell_name);
    lint::OpenShellPolicy layers;
    std::string yaml = o.base.empty()
                           ? generated_relay_policy(p, o.openshell, "toolcage policy openshell", true)
                           : merged_relay_policy(p, o, layers);
    lint::LintInput input = lint_input(p, yaml, o.openshell);
    if (!layers.rules.empty()) input.openshell.push_back(layers);
    lint::Findings findings = lint::run_lint(input);
    if (lint::failing(findings)) {
        std::cerr << lint::text_report(findings, "the OpenShell policy for " + p.name);
        if (!o.force) {
            std::cerr << "toolcage policy openshell: not printed: fix the findings above, or pass "
                         "--force to print it anyway\n";
            return kExitBlock;
        }
        std::cerr << "toolcage policy openshell: WARNING: printed with --force despite the findings "
                     "above; OpenShell may refuse it, or it may hand a credential to the worker\n";
    } else if (!findings.empty()) {
        std::cerr << lint::text_report(findings, "the OpenShell policy for " + p.name);
    }
    std::cout << yaml;
    return 0;
}

// `policy lint`: 0 clean, 1 findings, 2 an error of its own (a file it cannot read).
int lint_cmd(const PolicyOptions& o) {
    Policy p = load_checked_policy(o.lint_name);
    std::string yaml = generated_relay_policy(p, o.openshell, "toolcage policy lint", false);
    lint::Findings findings = lint::run_lint(lint_input(p, yaml, o.openshell));
    if (o.json)
        std::cout << lint::json_report(findings).dump(2) << '\n';
    else
        std::cout << lint::text_report(findings, p.file.empty() ? p.name : p.file);
    return lint::failing(findings) ? 1 : 0;
}

void add_openshell_inputs(CLI::App* cmd, OpenShellOptions& o) {
    cmd->add_option("--openshell-policy", o.openshell_policies,
                    "An OpenShell policy file of the sandbox (YAML, version 1); repeatable");
    cmd->add_option("--providers", o.providers,
                    "OpenShell provider profiles (YAML or JSON, as `openshell provider profile export` "
                    "or `list-profiles -o yaml` print them)");
    cmd->add_option("--agent-env", o.agent_envs,
                    "The agent's environment file (e.g. a Hermes profile's .env); repeatable");
    cmd->add_option("--npm-registry", o.npm_registry,
                    "The registry URL for {npm_registry} (default: npm's own setting here)");
    cmd->add_option("--relay", o.relay_path, "Path of toolcage-relay as installed in the sandbox");
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
    rules->add_option("--policy", o->rules_policy,
                      "Also list this policy's own rules (an installed name or a file), its examples checked");
    auto* install = sub->add_subcommand("install", "Validate a policy file and install it as your own");
    install->add_option("file", o->install_file, "The policy file")->required();
    install->add_option("--name", o->install_name, "Install under this name (default: the file's name)");
    install->add_flag("--force", o->install_force, "Replace a policy of yours of the same name");
    auto* openshell = sub->add_subcommand(
        "openshell", "Print the OpenShell network policy that lets only the relay out");
    openshell->add_option("name", o->openshell_name, "Policy name or file")->required();
    add_openshell_inputs(openshell, o->openshell);
    openshell->add_option("--base", o->base,
                          "The sandbox's current policy (`openshell policy get NAME --full` saved "
                          "to a file): print it with the relay's access merged in");
    openshell->add_flag("--force", o->force, "Print the policy even when the checks find problems");
    auto* lint = sub->add_subcommand(
        "lint", "Check a policy's OpenShell deployment: credential hosts, ambiguous endpoints");
    lint->add_option("name", o->lint_name, "Policy name or file")->required();
    add_openshell_inputs(lint, o->openshell);
    lint->add_flag("--json", o->json, "Write the findings as JSON (for CI)");
    return {sub, [=] {
                if (list->parsed()) return list_cmd();
                if (show->parsed()) return show_cmd(o->name);
                if (validate->parsed()) return policy_validate(o->file);
                if (rules->parsed()) return policy_rules(o->rules_long, o->rules_json, o->rules_policy);
                if (which->parsed()) return policy_which(o->profile_dir);
                if (install->parsed()) return policy_install(o->install_file, o->install_name, o->install_force);
                if (openshell->parsed()) return openshell_cmd(*o);
                if (lint->parsed()) return lint_cmd(*o);
                return kExitBlock;
            }};
}

}  // namespace toolcage::cli
