// `toolcage doctor [--policy NAME] [--json]`: what this kernel offers the cage and what
// `toolcage run` would enforce with the policy, right by right. Exit 1 when run would refuse.
#include <filesystem>
#include <iostream>
#include <memory>

#include "cage/doctor.h"
#include "tools/commands.h"
#include "tools/policy_access.h"

namespace toolcage::cli {

namespace {

struct DoctorOptions {
    std::string policy = "default";
    std::string workdir;
    bool json = false;
    int max_abi = -1;
};

int run_doctor(const DoctorOptions& o) {
    Policy p = load_checked_policy(o.policy);
    std::string wd = o.workdir.empty() ? std::filesystem::current_path().string() : o.workdir;
    cage::DoctorReport r = cage::diagnose(p, wd, o.max_abi, /*relay_linked=*/true);
    if (o.json)
        std::cout << cage::to_json(r).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    else
        std::cout << cage::to_text(r);
    return r.would_run ? 0 : 1;
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
    sub->add_option("--landlock-abi", o->max_abi, "Act as if the kernel offered at most this ABI")
        ->group("");
    return {sub, [o] { return run_doctor(*o); }};
}

}  // namespace toolcage::cli
