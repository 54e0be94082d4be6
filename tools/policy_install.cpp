// `toolcage policy install FILE [--name NAME] [--force]`: a policy of one's own, validated, into
// the user's profiles directory, where `--policy NAME` and the profile directives find it.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <sstream>

#include "common/error.h"
#include "common/policy_loader.h"
#include "hook/install/atomic_file.h"
#include "profiles/compiled_profiles.h"
#include "tools/policy_access.h"
#include "tools/policy_commands.h"

namespace toolcage::cli {

namespace fs = std::filesystem;

namespace {

bool shipped(const std::string& name) {
    for (const auto& dir : shipped_profile_dirs()) {
        std::error_code ec;
        if (fs::exists(dir / (name + ".json"), ec)) return true;
    }
    return std::any_of(compiled_profiles().begin(), compiled_profiles().end(),
                       [&](const CompiledProfile& c) { return c.policy().name == name; });
}

void make_private_dirs(const fs::path& dir) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw Error("policy install: cannot create " + dir.string() + ": " + ec.message());
    ::chmod(dir.c_str(), 0700);
}

}  // namespace

int policy_install(const std::string& file, const std::string& given_name, bool force) {
    std::error_code ec;
    if (!fs::is_regular_file(file, ec))
        throw Error("policy install: " + file +
                    (fs::is_directory(file, ec) ? ": is a directory, not a policy file"
                     : fs::exists(file, ec)     ? ": not a regular file"
                                                : ": no such file") +
                    "; give the path of a policy .json file");
    std::string name = given_name.empty() ? fs::path(file).stem().string() : given_name;
    if (!is_policy_name(name))
        throw Error("policy install: \"" + name +
                    "\" is not a policy name (letters, digits, - and _); pass --name NAME");
    if (shipped(name))
        throw Error(
            "policy install: \"" + name +
            "\" is a shipped policy's name, and shipped policies are found first: yours would "
            "never be used; install it under another name (--name my-" +
            name + ") and extend the shipped one with \"extends\": \"" + name + "\"");
    fs::path dir = user_profile_dir();
    if (dir.empty())
        throw Error("policy install: neither XDG_CONFIG_HOME nor HOME is set; set HOME");
    fs::path target = dir / (name + ".json");
    if (fs::exists(target, ec) && !force)
        throw Error("policy install: " + target.string() +
                    " exists; pass --force to replace it (`toolcage policy show " + name +
                    "` shows it)");

    // Validated where it will live: its "extends" then resolves as it will when installed.
    std::ifstream in(file, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    if (!in && !in.eof()) throw Error("policy install: " + file + ": cannot read it");
    make_private_dirs(dir);
    fs::path staged = dir / ("." + name + ".json.validating");
    install::write_atomic(staged, text.str(), 0600, ::getuid(), ::getgid());
    std::vector<std::string> errors = policy_errors(staged.string(), compiled_profiles());
    if (errors.empty()) {
        try {
            Policy p = load_policy_file(staged, compiled_profiles());
            errors = classifier_policy_errors(p);
            if (!p.name.starts_with(".") && p.name != name)
                errors.push_back(file + ": /name: \"" + p.name +
                                 "\": the policy names itself otherwise than "
                                 "it would be installed (\"" +
                                 name + "\"); change its \"name\" or pass --name " + p.name);
        } catch (const Error& e) {
            errors.push_back(e.what());
        }
    }
    if (!errors.empty()) {
        install::remove_file(staged);
        for (auto& e : errors) {
            // Errors name the file the user wrote, not the staged copy.
            if (auto at = e.find(staged.string()); at != std::string::npos)
                e.replace(at, staged.string().size(), file);
            std::cerr << e << '\n';
        }
        std::cerr << file << ": " << errors.size() << (errors.size() == 1 ? " error" : " errors")
                  << "; nothing installed\n";
        return 1;
    }
    fs::rename(staged, target, ec);
    if (ec) {
        install::remove_file(staged);
        throw Error("policy install: rename(" + staged.string() + ", " + target.string() +
                    "): " + ec.message());
    }
    std::cout << "installed policy \"" << name << "\" as " << target.string()
              << "\nuse it with --policy " << name << ", or `toolcage: " << name
              << "` in a profile's SOUL.md\n";
    return 0;
}

}  // namespace toolcage::cli
