// cargo's configuration in the cage (cage/settings/cargo_config.h): the user's registry and source
// settings reach the step, a token, [env] or proxy never does; as root and as nobody, with the
// step's own mount namespace and without one (a user namespace where no further one may be
// made, as in containers that refuse them). The real cargo runs when Debian's is installed.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "cage/explain/refusals.h"
#include "cage/settings/cargo_config.h"
#include "step_harness.h"
#include "tests/other_user.h"

namespace fs = std::filesystem;
using toolcage::cage::ExpandedCage;
using toolcage::cage::step_cargo_config;
using toolcage::cage::unreadable_cargo_configs;

namespace {

const char* kMark = "CARGOSECRET";

// A user's ~/.cargo/config.toml as they are written: a token where cargo still reads one, a
// credential provider, [env] for build scripts, a proxy with a password, a wrapper, a private
// registry, a source replacement (to a vendored directory), aliases and build settings.
std::string user_config(const std::string& vendor) {
    return "[registry]\n"
           "token = \"CARGOSECRETregistry\"\n"
           "default = \"internal\"\n"
           "global-credential-providers = [\"cargo:token\", \"/usr/local/bin/CARGOSECREThelper\"]\n"
           "[registries.internal]\n"
           "index = \"sparse+https://crates.internal.example/index/\"\n"
           "token = \"CARGOSECRETinternal\"\n"
           "credential-provider = \"cargo:libsecret\"\n"
           "[registries.leaky]\n"
           "index = \"https://bot:CARGOSECRETuserinfo@git.example/index.git\"\n"
           "[source.crates-io]\n"
           "replace-with = \"vendored\"\n"
           "[source.vendored]\n"
           "directory = \"" + vendor + "\"\n"
           "[env]\n"
           "AWS_SECRET_ACCESS_KEY = \"CARGOSECRETenv\"\n"
           "[http]\n"
           "proxy = \"http://u:CARGOSECRETproxy@proxy.example:3128\"\n"
           "cainfo = \"/etc/ssl/certs/corp.pem\"\n"
           "timeout = 30\n"
           "[net]\n"
           "retry = 3\n"
           "git-fetch-with-cli = true\n"
           "[build]\n"
           "jobs = 2\n"
           "rustc-wrapper = \"/usr/local/bin/sccache\"\n"
           "[target.x86_64-unknown-linux-gnu]\n"
           "linker = \"cc\"\n"
           "rustflags = [\"-C\", \"target-cpu=native\"]\n"
           "[alias]\n"
           "answer = \"run -q\"\n"
           "[profile.release]\n"
           "opt-level = 3\n";
}

}  // namespace

TEST_CASE("the step's cargo config keeps registries, sources and build settings, never a credential",
          "[cage][cargo]") {
    auto out = step_cargo_config(user_config("/w/vendor"));
    REQUIRE(out);
    INFO(*out);
    CHECK(out->find(kMark) == std::string::npos);
    for (const char* kept : {"default = 'internal'", "[registries.internal]",
                             "index = 'sparse+https://crates.internal.example/index/'", "replace-with = 'vendored'",
                             "directory = '/w/vendor'", "timeout = 30", "cainfo = '/etc/ssl/certs/corp.pem'", "retry = 3", "git-fetch-with-cli = true",
                             "jobs = 2", "linker = 'cc'", "target-cpu=native", "answer = 'run -q'",
                             "[profile.release]", "opt-level = 3"})
        CHECK(out->find(kept) != std::string::npos);
    for (const char* gone : {"token", "credential-provider", "[env]", "proxy", "rustc-wrapper", "leaky"})
        CHECK(out->find(gone) == std::string::npos);

    // What it keeps, it keeps whole: the filter of its own output is the same text.
    CHECK(step_cargo_config(*out) == out);
    // Not TOML: nothing (cargo would refuse it too).
    CHECK_FALSE(step_cargo_config("[registry\ntoken = "));
    CHECK(step_cargo_config("") == std::string("\n"));
}

TEST_CASE("the cargo configs a step would read and the cage would not: cargo's order, inert or not",
          "[cage][cargo]") {
    char tmpl[] = "/tmp/toolcage-cargo-XXXXXX";
    REQUIRE(::mkdtemp(tmpl));
    const std::string base = tmpl, home = base + "/home", ws = home + "/src/proj";
    for (const auto& d : {home + "/.cargo", home + "/src/.cargo", ws + "/.cargo", ws + "/sub"}) fs::create_directories(d);
    std::ofstream(home + "/.cargo/config.toml") << "[registry]\ntoken = \"CARGOSECRET\"\n[net]\nretry = 2\n";
    std::ofstream(home + "/src/.cargo/config") << "[alias]\nb = \"build\"\n";
    std::ofstream(ws + "/.cargo/config.toml") << "[env]\nX = \"the project's own\"\n";

    ExpandedCage cage;
    cage.read = {"/usr", ws};
    auto files = unreadable_cargo_configs(cage, ws + "/sub", {home + "/.cargo"});
    REQUIRE(files.size() == 2);
    CHECK(files[0].path == home + "/src/.cargo/config");
    CHECK(files[0].inert);
    CHECK(files[1].path == home + "/.cargo/config.toml");
    CHECK_FALSE(files[1].inert);
    CHECK(files[1].filtered.find("retry = 2") != std::string::npos);
    CHECK(files[1].filtered.find(kMark) == std::string::npos);

    // $CARGO_HOME elsewhere is read after the walk; a readable one is left alone.
    fs::create_directories(base + "/cargohome");
    std::ofstream(base + "/cargohome/config.toml") << "[net]\nretry = 1\n";
    files = unreadable_cargo_configs(cage, ws, {base + "/cargohome", home + "/.cargo"});
    // Both homes cargo may take (the variable's, and ~/.cargo for a step without it), each once.
    REQUIRE(files.size() == 3);
    CHECK(files[2].path == base + "/cargohome/config.toml");
    cage.read.push_back(base + "/cargohome");
    CHECK(unreadable_cargo_configs(cage, ws, {base + "/cargohome", home + "/.cargo"}).size() == 2);
    using toolcage::cage::cargo_homes_of;
    CHECK(cargo_homes_of("/opt/cargo", "/home/u") == std::vector<std::string>{"/opt/cargo", "/home/u/.cargo"});
    CHECK(cargo_homes_of("relative", "/home/u") == std::vector<std::string>{"/home/u/.cargo"});
    CHECK(cargo_homes_of("", "").empty());
    fs::remove_all(base);
}

namespace {

struct CargoHome {
    std::string base, home, proj;
    CargoHome() {
        char tmpl[] = "/tmp/toolcage-cargohome-XXXXXX";  // a home under /tmp, as on CI runners
        REQUIRE(::mkdtemp(tmpl));
        base = tmpl;
        home = base + "/home";
        proj = home + "/src/proj";  // under the home: cargo's walk passes ~/.cargo
        for (const auto& d : {home + "/.cargo", proj + "/src", proj + "/vendor/tinydep/src", base + "/log"})
            fs::create_directories(d);
        write(home + "/.cargo/config.toml", user_config(proj + "/vendor"));
        write(home + "/.cargo/credentials.toml", "[registry]\ntoken = \"CARGOSECRETcredentials\"\n");
        write(proj + "/Cargo.toml",
              "[package]\nname = \"proj\"\nversion = \"0.1.0\"\nedition = \"2018\"\n"
              "[dependencies]\ntinydep = \"0.1\"\n");
        write(proj + "/src/main.rs", "fn main() { println!(\"answer={}\", tinydep::answer()); }\n");
        // The vendored crate exists only through the user's source replacement: the build
        // finds it only if the user's settings reached cargo.
        write(proj + "/vendor/tinydep/Cargo.toml",
              "[package]\nname = \"tinydep\"\nversion = \"0.1.0\"\nedition = \"2018\"\n");
        write(proj + "/vendor/tinydep/src/lib.rs", "pub fn answer() -> u32 { 42 }\n");
        write(proj + "/vendor/tinydep/.cargo-checksum.json", "{\"files\":{},\"package\":null}\n");
        steptest::open_to_everyone(base);
    }
    ~CargoHome() {
        std::error_code ec;
        fs::remove_all(base, ec);
    }
    static void write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }
    // What a build left, so that the next one (maybe another user's) starts afresh.
    void clean_build() const {
        fs::remove_all(proj + "/target");
        fs::remove(proj + "/Cargo.lock");
        fs::remove(base + "/log/decisions.jsonl");
    }
};

// Debian's cargo (rustup's lives in a home nobody may read).
bool have_cargo() { return ::access("/usr/bin/cargo", X_OK) == 0; }

// `toolcage run` as root or nobody, optionally in a user namespace that may make no further
// one (then the step has no mount namespace of its own).
std::string run_toolcage(const CargoHome& h, bool nobody, bool no_userns, const std::string& args, int& status) {
    std::string cmd = (nobody ? testsupport::as_nobody_shell_prefix() : std::string()) +
                      (no_userns ? "unshare --user --map-root-user sh -c "
                                   "'echo 0 > /proc/sys/user/max_user_namespaces && exec \"$@\"' sh "
                                 : "") +
                      "env -i " + testsupport::suite_state_word(nobody) + "PATH=/usr/bin:/bin HOME=" + h.home + " LANG=C.UTF-8 TOOLCAGE_LOG=" + h.base +
                      "/log/decisions.jsonl " + testsupport::reachable(TOOLCAGE_BIN) + " " + args + " 2>&1";
    return steptest::run_shell("cd " + h.proj + " && " + cmd, status);
}

}  // namespace

TEST_CASE("a caged cargo reads the user's registry settings and never their token", "[cage][cargo]") {
    if (!have_cargo()) WARN("skipped the cargo build: /usr/bin/cargo is not installed (install.sh installs it)");
    for (bool nobody : {false, true}) {
        CargoHome h;
        INFO((nobody ? "as nobody" : "as root"));
        int status = 0;
        std::string out = run_toolcage(h, nobody, false,
                                   "run --policy default -- /bin/sh -c 'cat \"" + h.home + "/.cargo/config.toml\" "
                                   "\"" + h.home + "/.cargo/credentials.toml\"; env; ls -a /dev/shm; echo END'",
                                   status);
        INFO(out);
        CHECK(out.find("END") != std::string::npos);
        CHECK(out.find("replace-with = 'vendored'") != std::string::npos);
        CHECK(out.find("[registries.internal]") != std::string::npos);
        CHECK(out.find(kMark) == std::string::npos);
        CHECK(out.find(".toolcage-cover") == std::string::npos);  // the copy is not left in /dev/shm
        if (!have_cargo()) continue;
        out = run_toolcage(h, nobody, false, "run --policy default -- cargo answer --offline", status);
        INFO(out);
        CHECK(status == 0);
        CHECK(out.find("answer=42") != std::string::npos);
        CHECK(out.find(kMark) == std::string::npos);
        // The read-only cage reads the same settings (metadata resolves through the vendored
        // source offline) and writes nothing.
        out = run_toolcage(h, nobody, false,
                       "run --read-only --policy default -- cargo metadata --offline --format-version 1", status);
        CHECK(status == 0);
        CHECK(out.find("tinydep") != std::string::npos);
        CHECK(out.find(kMark) == std::string::npos);
    }
}

TEST_CASE("without a mount namespace, an inert cargo config is read as it is and a tokened one is explained",
          "[cage][cargo]") {
    if (!testsupport::can_switch_user()) {
        // --map-root-user makes this user uid 0, whose home (/root) is not theirs: toolcage then
        // has no state directory for its journal and refuses the step, as it should.
        WARN("skipped: only root keeps a state directory when mapped to root in a user namespace");
        return;
    }
    CargoHome h;
    int status = 0;
    // The token stays unreadable, and the refusal names the file and the fix.
    std::string out = run_toolcage(h, false, true,
                               "run --policy default -- /bin/sh -c 'cat \"" + h.home + "/.cargo/config.toml\"; echo END'", status);
    INFO(out);
    CHECK(out.find("END") != std::string::npos);
    CHECK(out.find(kMark) == std::string::npos);
    CHECK(out.find("replace-with") == std::string::npos);
    if (have_cargo()) {
        out = run_toolcage(h, false, true, "run --policy default -- cargo build --offline", status);
        INFO(out);
        CHECK(status != 0);
        CHECK(out.find("refused read " + h.home + "/.cargo/config.toml") != std::string::npos);
        CHECK(out.find("move the token to credentials.toml") != std::string::npos);
        CHECK(out.find(kMark) == std::string::npos);
    }

    // Without the token and the rest the filter leaves out, the file is granted as it is.
    CargoHome::write(h.home + "/.cargo/config.toml",
                     "[source.crates-io]\nreplace-with = \"vendored\"\n[source.vendored]\ndirectory = \"" + h.proj +
                         "/vendor\"\n[alias]\nanswer = \"run -q\"\n");
    for (bool nobody : {false, true}) {
        INFO((nobody ? "as nobody" : "as root"));
        out = run_toolcage(h, nobody, true,
                       "run --policy default -- /bin/sh -c 'cat \"" + h.home + "/.cargo/credentials.toml\"; "
                       "cat \"" + h.home + "/.cargo/config.toml\"'",
                       status);
        INFO(out);
        CHECK(out.find("replace-with = \"vendored\"") != std::string::npos);
        CHECK(out.find(kMark) == std::string::npos);
        if (!have_cargo()) continue;
        h.clean_build();
        out = run_toolcage(h, nobody, true, "run --policy default -- cargo answer --offline", status);
        INFO(out);
        CHECK(status == 0);
        CHECK(out.find("answer=42") != std::string::npos);
    }
}

TEST_CASE("an unread cargo config is explained from cargo's own lines, never as a read to allow",
          "[cage][cargo]") {
    using toolcage::cage::unread_cargo_config_refusals;
    const std::vector<std::string> files = {"/home/u/.cargo/config.toml", "/home/u/src/.cargo/config"};
    // cargo: the file on one line, "Permission denied (os error 13)" on another.
    auto r = unread_cargo_config_refusals({"  failed to read configuration file `/home/u/.cargo/config.toml`",
                                           "  Permission denied (os error 13)"},
                                          files);
    REQUIRE(r.size() == 1);
    CHECK(r[0].access == "read");
    CHECK(r[0].target == "/home/u/.cargo/config.toml");
    CHECK(r[0].field.empty());  // nothing to add to the policy
    CHECK(r[0].fix.find("credentials.toml") != std::string::npos);
    CHECK(unread_cargo_config_refusals({"error: could not compile `x`"}, files).empty());
}
