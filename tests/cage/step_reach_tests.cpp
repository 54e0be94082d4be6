// What a step can still change beside what Landlock governs: the mode, times and owner of files
// outside its write grants (every mount read-only in its mount namespace but the grants), the
// files no policy can open (a {home} grant is narrowed), and what it sees of the host's network
// (/proc/net, in a network namespace of its own). As root and as nobody, read-only and caged,
// with and without user namespaces, each beside the legitimate path.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "../relay/relay_harness.h"
#include "common/user_home.h"
#include "step_harness.h"
#include "tests/other_user.h"

using namespace steptest;

namespace {

uid_t uid_of(As who) { return testsupport::case_uid(who == As::nobody); }

void make_file(const std::string& path, const std::string& text, As who, mode_t mode) {
    std::ofstream(path) << text;
    REQUIRE(::chown(path.c_str(), uid_of(who), uid_of(who)) == 0);
    REQUIRE(::chmod(path.c_str(), mode) == 0);
}

std::string slurp(const std::string& path) {
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

bool exists(const std::string& path) {
    struct stat st {};
    return ::lstat(path.c_str(), &st) == 0;
}

Result step(const Scratch& s, const Launch& how, bool read_only, const std::string& script) {
    std::vector<std::string> args = {"run", "--policy", s.policy_file(), "--workdir", s.ws};
    if (read_only) args.push_back("--read-only");
    for (const char* a : {"--", "/bin/bash", "-c"}) args.emplace_back(a);
    args.push_back(script);
    return run_toolcage(s, args, how);
}

}  // namespace

TEST_CASE("a step cannot change the mode or times of a file outside its write grants; chmod +x in the workspace works",
          "[cage][attributes]") {
    for (As who : {As::root, As::nobody})
        for (bool read_only : {true, false})
            for (bool no_userns : {false, true}) {
                Scratch s;
                INFO(name_of(who) << (read_only ? ", read-only" : ", caged")
                                  << (no_userns ? ", no user namespaces" : ""));
                Launch how{who, no_userns, {}};
                // A key of the user's own, outside every grant (the step cannot even read it).
                const std::string key = s.base + "/id_ed25519";
                make_file(key, "secret\n", who, 0600);
                struct stat before {};
                REQUIRE(::stat(key.c_str(), &before) == 0);
                std::string script = "chmod 644 " + key + "; touch -d 2001-01-01 " + key + "; ";
                if (!read_only)
                    script += "printf '#!/bin/sh\\necho built-and-ran\\n' > out.sh && chmod +x out.sh && ./out.sh";
                Result r = step(s, how, read_only, script);
                INFO(r.out);
                struct stat after {};
                REQUIRE(::stat(key.c_str(), &after) == 0);
                if (!read_only) {
                    CHECK(r.status == 0);
                    CHECK(r.out.find("built-and-ran") != std::string::npos);
                }
                // Without a mount namespace only Landlock's opens are governed (README: Known
                // limits); `toolcage doctor` says so.
                if (no_userns) continue;
                CHECK((after.st_mode & 07777) == 0600);
                CHECK(after.st_mtim.tv_sec == before.st_mtim.tv_sec);
            }
}

TEST_CASE("doctor says whether a step can change file attributes outside its grants", "[cage][attributes]") {
    for (bool no_userns : {false, true}) {
        Scratch s;
        INFO((no_userns ? "no user namespaces" : "user namespaces"));
        Result r = run_toolcage(s, {"doctor", "--policy", s.policy_file()}, Launch{As::root, no_userns, {}});
        INFO(r.out);
        if (no_userns) {
            CHECK(r.out.find("mounts stay writable") != std::string::npos);
            CHECK(r.out.find("see the host's /proc/net") != std::string::npos);
        } else {
            CHECK(r.out.find("every mount read-only in a step but its write grants") != std::string::npos);
            CHECK(r.out.find("a network namespace of its own") != std::string::npos);
        }
    }
}

TEST_CASE("a read-only or default step does not see the host's sockets in /proc/net", "[cage][network]") {
    // A listening socket of the host's: its port shows in the host's /proc/net/tcp.
    relaytest::EchoServer host_server;
    char port[16];
    std::snprintf(port, sizeof port, ":%04X ", static_cast<unsigned>(host_server.port()));
    REQUIRE(slurp("/proc/net/tcp").find(port) != std::string::npos);

    for (As who : {As::root, As::nobody})
        for (bool read_only : {true, false}) {
            Scratch s;
            INFO(name_of(who) << (read_only ? ", read-only" : ", caged") << ", port " << port);
            Result r = step(s, Launch{who, false, {}}, read_only, "cat /proc/net/tcp; echo read-it");
            INFO(r.out);
            CHECK(r.status == 0);
            CHECK(r.out.find("read-it") != std::string::npos);
            CHECK(r.out.find(port) == std::string::npos);
        }
}

TEST_CASE("a {home} grant is refused: the home holds toolcage's own state", "[cage][never-writable]") {
    // {home} is the user database's home, which holds toolcage's state (the journal and the
    // decision log): a policy that grants it is refused when it loads, naming why, and nothing
    // runs.
    for (const char* right : {"write", "read"}) {
        Scratch s;
        INFO(right);
        s.policy["cage"][right].push_back("{home}");
        Result r = step(s, Launch{As::root, false, {}}, false, "echo ran-the-step");
        INFO(r.out);
        CHECK(r.status == 2);
        CHECK(r.out.find("ran-the-step") == std::string::npos);
        CHECK(r.out.find("toolcage's own state") != std::string::npos);
    }
}

TEST_CASE("forge: cargo builds a fresh dependency in the steps' own cache, never in the user's", "[cage][caches]") {
    if (::access("/usr/bin/cargo", X_OK) != 0) {
        WARN("skipped: /usr/bin/cargo is not installed (install.sh installs it)");
        return;
    }
    // As root only: the caches live in the user database's home, and nobody's is /nonexistent.
    for (As who : {As::root}) {
        Scratch s;
        INFO(name_of(who));
        // A local registry holding one crate, and a project whose own cargo settings use it: the
        // build extracts the crate into $CARGO_HOME/registry/src, which forge makes the steps' own.
        const std::string reg = s.base + "/registry";
        int st = 0;
        std::string made = run_shell(
            "set -e; cd " + s.base + " && mkdir -p crate/tinydep-0.1.0/src " + reg + "/index/ti/ny && "
            "printf '[package]\\nname = \"tinydep\"\\nversion = \"0.1.0\"\\nedition = \"2018\"\\n' > crate/tinydep-0.1.0/Cargo.toml && "
            "echo 'pub fn answer() -> u32 { 42 }' > crate/tinydep-0.1.0/src/lib.rs && "
            "tar -C crate -czf " + reg + "/tinydep-0.1.0.crate tinydep-0.1.0 && "
            "sum=$(sha256sum " + reg + "/tinydep-0.1.0.crate | cut -d' ' -f1) && "
            "printf '{\"name\":\"tinydep\",\"vers\":\"0.1.0\",\"deps\":[],\"cksum\":\"%s\",\"features\":{},\"yanked\":false}\\n' "
            "\"$sum\" > " + reg + "/index/ti/ny/tinydep && "
            "cd " + s.ws + " && mkdir -p src .cargo && "
            "printf '[package]\\nname = \"proj\"\\nversion = \"0.1.0\"\\nedition = \"2018\"\\n[dependencies]\\ntinydep = \"0.1\"\\n' > Cargo.toml && "
            "echo 'fn main() { println!(\"answer={}\", tinydep::answer()); }' > src/main.rs && "
            "printf '[source.crates-io]\\nreplace-with = \"local\"\\n[source.local]\\nlocal-registry = \"" + reg + "\"\\n' > .cargo/config.toml && "
            "echo made 2>&1",
            st);
        INFO(made);
        REQUIRE(made.find("made") != std::string::npos);
        open_to_everyone(s.base);
        s.policy = {{"name", "forge-offline"}, {"extends", "forge"}, {"relay", {{"enabled", false}}}};
        s.policy["cage"]["read"] = {reg};
        Result r = run_toolcage(s, {"run", "--policy", s.policy_file(), "--workdir", s.ws, "--", "/usr/bin/cargo", "run",
                                    "-q", "--offline"},
                                Launch{who, false, {}});
        INFO(r.out);
        CHECK(r.status == 0);
        CHECK(r.out.find("answer=42") != std::string::npos);
        // {home} is the user database's home: the steps' own cache is made there.
        CHECK(exists(toolcage::user_home() + "/.cache/toolcage-steps/cargo/registry/src"));
    }
}

TEST_CASE("policy validate warns about broad grants and names what they expose", "[cage][never-writable]") {
    Scratch s;
    Result plain = run_toolcage(s, {"policy", "validate", s.policy_file()});
    INFO(plain.out);
    CHECK(plain.status == 0);
    CHECK(plain.out.find("warning") == std::string::npos);
    s.policy["cage"]["write"].push_back("/etc");
    s.policy["cage"]["write"].push_back("/usr");
    Result broad = run_toolcage(s, {"policy", "validate", s.policy_file()});
    INFO(broad.out);
    CHECK(broad.status == 0);
    CHECK(broad.out.find("warning: cage.write \"/etc\"") != std::string::npos);
    CHECK(broad.out.find("warning: cage.write \"/usr\"") != std::string::npos);
    // {home} holds toolcage's own state: more than a warning, the policy is refused.
    s.policy["cage"]["write"].push_back("{home}");
    Result home = run_toolcage(s, {"policy", "validate", s.policy_file()});
    INFO(home.out);
    CHECK(home.status != 0);
    CHECK(home.out.find("toolcage's own state") != std::string::npos);
}
