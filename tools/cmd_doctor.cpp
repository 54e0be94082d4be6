// `toolcage doctor [--policy NAME] [--json]`: what this kernel offers the cage and what
// `toolcage run` would enforce with the policy, right by right. Exit 1 when run would refuse.
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cage/doctor.h"
#include "common/error.h"
#include "common/user_home.h"
#include "hook/install/failure_report.h"
#include "hook/install/hermes_plugin.h"
#include "relay/inspect/ca_status.h"
#include "tools/commands.h"
#include "tools/grant_summary.h"
#include "tools/policy_access.h"

namespace toolcage::cli {

namespace {

struct DoctorOptions {
    std::string policy = "default";
    std::string workdir;
    bool json = false;
    int max_abi = -1;
    std::string hermes_home;  // check the Hermes plugin of this profile too
    std::string plugin_dir;   // toolcage's plugin to compare with (default: the installed one)
};

// The plugin Hermes loads as "toolcage" from that profile is toolcage's own.
int check_hermes_plugin(const DoctorOptions& o, const std::string& wd) {
    auto problems =
        install::hermes_plugin_problems(o.hermes_home, install::hermes_plugin_source(o.plugin_dir),
                                        {std::filesystem::path(wd) / ".hermes" / "plugins"});
    if (o.json) return problems.empty() ? 0 : 1;  // the JSON report stays one object
    for (const auto& why : problems) std::cout << "hermes plugin: " << why << '\n';
    if (problems.empty())
        std::cout << "hermes plugin: " << o.hermes_home
                  << "/plugins/toolcage is toolcage's own, and no other plugin takes its name\n";
    return problems.empty() ? 0 : 1;
}

// toolcage's inspection CA (<state>/relay-ca, as toolcage run hands it to the relay): there or
// not, its key's mode and owner, its expiry. Read without making the state directory.
relay::CaStatus relay_ca_status() {
    std::string state = state_dir(false);
    return relay::read_ca_status((state.empty() ? primary_state_dir() : state) + "/relay-ca");
}

int run_doctor(const DoctorOptions& o) {
    std::string wd = resolve_workdir(o.workdir, "doctor");
    Policy p = load_checked_policy(o.policy);
    cage::DoctorReport r = cage::diagnose(p, wd, o.max_abi, /*relay_linked=*/true);
    // relay.allow_ranges: the non-public ranges this network's resolver may answer with, which
    // the relay dials although it refuses every other private or reserved address.
    const auto agents = install::agent_failure_reports(wd);
    if (o.json) {
        nlohmann::json j = cage::to_json(r);
        if (p.relay.enabled) j["relay_allow_ranges"] = p.relay.allow_ranges;
        if (p.relay.enabled) j["relay_require_sni"] = p.relay.require_sni;
        relay::CaStatus ca = relay_ca_status();
        bool ca_warn = false;
        std::string ca_line = relay::ca_status_line(ca, ca_warn);
        j["relay_ca"] = {
            {"dir", ca.dir}, {"present", ca.present}, {"warning", ca_warn}, {"line", ca_line}};
        if (ca.present && ca.problem.empty()) {
            j["relay_ca"]["key_mode"] = ca.key_mode;
            j["relay_ca"]["key_owner"] = ca.key_owner;
            j["relay_ca"]["expires"] = ca.expires;
            j["relay_ca"]["days_left"] = ca.days_left;
        }
        j["agents"] = nlohmann::json::array();
        for (const auto& a : agents)
            j["agents"].push_back({{"agent", a.agent},
                                   {"where", a.where},
                                   {"blocks_when_hook_fails", a.blocks},
                                   {"detail", a.detail}});
        std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    } else {
        std::cout << grant_summary(p, wd, /*read_only=*/false) << cage::to_text(r);
        if (p.relay.enabled && !p.relay.allow_ranges.empty()) {
            std::string ranges;
            for (const auto& range : p.relay.allow_ranges)
                ranges += (ranges.empty() ? "" : ", ") + range;
            std::cout << "relay.allow_ranges: " << ranges
                      << " (the relay may dial these although they are not public addresses)\n";
        }
        // Weaker than the default, so said: a handshake without a server name goes unchecked.
        if (p.relay.enabled && !p.relay.require_sni)
            std::cout << "relay.require_sni: false (a TLS handshake that names no server passes "
                         "to the CONNECT host unchecked)\n";
        bool ca_warn = false;
        std::cout << relay::ca_status_line(relay_ca_status(), ca_warn) << '\n';
        // Whether each agent blocks a call when the hook is dead or slow: the agent decides then.
        for (const auto& a : agents)
            std::cout << "agent " << a.agent << " (" << a.where << "): "
                      << (a.blocks ? "a dead or slow hook blocks the call: "
                                   : "A DEAD OR SLOW HOOK LETS THE CALL RUN: ")
                      << a.detail << '\n';
    }
    int plugin = o.hermes_home.empty() ? 0 : check_hermes_plugin(o, wd);
    return r.would_run && plugin == 0 ? 0 : 1;
}

}  // namespace

Subcommand add_doctor_command(CLI::App& app) {
    auto o = std::make_shared<DoctorOptions>();
    auto* sub =
        app.add_subcommand("doctor", "What the kernel offers the cage, and what run enforces");
    sub->add_option("--policy", o->policy, "An installed policy's name or a policy file")
        ->default_str("default");
    sub->add_option("--workdir,--cwd", o->workdir, "The working directory a step would have");
    sub->add_flag("--json", o->json, "Print one JSON object");
    sub->add_option(
        "--hermes-home", o->hermes_home,
        "Also check that the plugin this Hermes profile loads as toolcage is toolcage's own");
    sub->add_option("--plugin-dir", o->plugin_dir, "toolcage's Hermes plugin to compare with")
        ->group("");
    sub->add_option("--landlock-abi", o->max_abi, "Act as if the kernel offered at most this ABI")
        ->group("");
    return {sub, [o] { return run_doctor(*o); }};
}

}  // namespace toolcage::cli
