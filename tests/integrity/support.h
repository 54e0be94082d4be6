// What the integrity tests share: running a program (as root or as nobody) with a chosen
// environment, and a scratch git workspace every user can reach.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace integrity {

namespace fs = std::filesystem;

enum class As { root, nobody };
const char* name_of(As who);

struct Result {
    int status = -1;  // exit code, or 128+signal
    std::string out;  // stdout and stderr together
};

// Runs argv in `cwd` with exactly `env`, stdin from /dev/null.
Result run(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
           const std::string& cwd = "/");

// argv behind setpriv for nobody (65534); unchanged for root.
std::vector<std::string> as_user(As who, std::vector<std::string> argv);

// toolcage's state directory for `who` (common/user_home.h): ~/.local/state/toolcage of the
// user database's home, or /tmp/toolcage-state-<uid> where that home does not exist.
std::string state_dir_of(As who);

// base/ws: a git repository with one commit (README, .gitmodules), owned by the user the test
// runs as; base/home: HOME (which toolcage ignores); log_file(): TOOLCAGE_LOG; base/marker-*: what a
// planted command would create.
struct Workspace {
    As who;
    fs::path base, ws, home, logs;

    explicit Workspace(As who);
    ~Workspace();
    Workspace(const Workspace&) = delete;
    Workspace& operator=(const Workspace&) = delete;

    std::map<std::string, std::string> env() const;
    // The test's own decision log ($TOOLCAGE_LOG), under toolcage's state directory of the
    // user the test runs as (only there does toolcage accept it; common/user_home.h).
    std::string log_file() const;
    std::string marker(const std::string& name) const { return (base / ("marker-" + name)).string(); }
    // A script that creates marker(name) when run: what a step plants.
    std::string evil_script(const std::string& name) const;

    // `git ARGS` in the workspace, outside any cage, as the test's user.
    Result git(const std::vector<std::string>& args) const;
    // A shell command outside any cage, as the test's user.
    Result shell(const std::string& script) const;
    // `toolcage run --policy POLICY --workdir ws -- /bin/sh -c SCRIPT`, as the test's user.
    Result caged(const std::string& script, const std::string& policy,
                 const std::map<std::string, std::string>& extra_env = {}) const;
    // The shipped default policy, renamed, written to base (readable by everyone); `drop_protected`
    // leaves cage.protected_paths out to show the built-in list; `protect` is cage.protect.
    std::string policy(bool drop_protected = false, const std::string& protect = "check") const;
    // policy() with cage.layer "off": the step writes in place and the snapshot and restore judge
    // it, for the tests of that mechanism (layer_tests.cpp has the layer's).
    std::string snapshot_policy() const;
    // policy() with cage.layer "auto": the step writes into a layer where the kernel allows it.
    std::string layer_policy() const;
    // That policy named `name`, with `patch` merged into it as `extends` merges (objects merge,
    // lists add), written to base.
    std::string policy_with(const std::string& name, const nlohmann::json& patch) const;
    // `toolcage hook --agent claude` on a Bash `ls` in the workspace, as the test's user, with
    // exactly `environment`: its exit code and its stdout and stderr together.
    Result hook(const std::map<std::string, std::string>& environment) const;
    // Gives the workspace tree to the test's user (after writing into it as root).
    void own() const;

    std::string read(const std::string& rel) const;
    void put(const std::string& rel, const std::string& text, mode_t mode = 0644) const;
    std::vector<std::string> log_lines() const;
};

// A child running `args` as `w`'s user, with `w`'s environment and the suite's state, in the
// workspace, its output on a pipe: a step (or `toolcage undo`) a test watches or kills while it
// runs.
struct WatchedRun {
    pid_t pid = -1;
    int out = -1;
    std::string seen;  // its output so far

    WatchedRun(const Workspace& w, const std::vector<std::string>& args);
    ~WatchedRun();
    WatchedRun(const WatchedRun&) = delete;
    WatchedRun& operator=(const WatchedRun&) = delete;

    // Reads until `word` has been printed; false when the output ends first.
    bool wait_for(const std::string& word);
    // Waits for it, the rest of its output in `seen`: its exit code, or 128+signal.
    int finish();
    void kill_now();
};

}  // namespace integrity
