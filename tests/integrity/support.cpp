#include "support.h"

#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "../hook/run_binary.h"
#include "tests/other_user.h"

namespace integrity {

const char* name_of(As who) {
    return who == As::root ? "root" : "nobody";
}

Result run(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
           const std::string& cwd) {
    int p[2];
    REQUIRE(::pipe2(p, O_CLOEXEC) == 0);
    std::vector<std::string> env_s;
    for (const auto& [k, v] : env) env_s.push_back(k + "=" + v);
    testsupport::keep_suite_state(env_s);
    std::vector<char*> envp;
    for (auto& e : env_s) envp.push_back(e.data());
    envp.push_back(nullptr);
    std::vector<std::string> args_s = argv;
    std::vector<char*> args;
    for (auto& a : args_s) args.push_back(a.data());
    args.push_back(nullptr);
    pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        ::dup2(p[1], 1);
        ::dup2(p[1], 2);
        int null = ::open("/dev/null", O_RDONLY);
        ::dup2(null, 0);
        if (::chdir(cwd.c_str()) != 0) _exit(98);
        ::execve(args[0], args.data(), envp.data());
        std::fprintf(stderr, "execve %s: %s\n", args[0], std::strerror(errno));
        _exit(99);
    }
    ::close(p[1]);
    Result r;
    char buf[4096];
    ssize_t n;
    while ((n = ::read(p[0], buf, sizeof buf)) > 0) r.out.append(buf, static_cast<std::size_t>(n));
    ::close(p[0]);
    int st = 0;
    ::waitpid(pid, &st, 0);
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    return r;
}

std::vector<std::string> as_user(As who, std::vector<std::string> argv) {
    if (who == As::root) return argv;
    std::vector<std::string> out = testsupport::as_nobody_prefix();
    out.insert(out.end(), argv.begin(), argv.end());
    return out;
}

Workspace::Workspace(As w) : who(w) {
    char tmpl[] = "/tmp/toolcage-integrity-XXXXXX";
    REQUIRE(::mkdtemp(tmpl));
    base = tmpl;
    ::chmod(tmpl, 0755);
    ws = base / "ws";
    home = base / "home";
    logs = base / "logs";
    for (const auto& d : {ws, home, logs}) fs::create_directories(d);
    ::chmod(logs.c_str(), 0777);
    // Markers are created by planted commands, run as the test's user.
    ::chmod(tmpl, 0777);
    put("README", "hello\n");
    put(".gitmodules", "[submodule \"lib\"]\n\tpath = lib\n\turl = https://example.org/lib.git\n");
    own();
    Result init = shell("git init -q . && git add README .gitmodules && git commit -q -m first");
    INFO(init.out);
    REQUIRE(init.status == 0);
}

Workspace::~Workspace() {
    std::error_code ec;
    fs::remove_all(base, ec);
    fs::remove(log_file(), ec);
}

std::string state_dir_of(As who) {
    return testsupport::state_dir_for(testsupport::case_uid(who == As::nobody));
}

std::string Workspace::log_file() const {
    return state_dir_of(who) + "/test-" + base.filename().string() + ".jsonl";
}

std::map<std::string, std::string> Workspace::env() const {
    return {{"PATH", "/usr/local/bin:/usr/bin:/bin"},
            {"HOME", home.string()},
            {"TOOLCAGE_LOG", log_file()},
            {"GIT_CONFIG_GLOBAL", "/dev/null"},
            {"GIT_CONFIG_NOSYSTEM", "1"},
            {"GIT_AUTHOR_NAME", "t"},
            {"GIT_AUTHOR_EMAIL", "t@example.org"},
            {"GIT_COMMITTER_NAME", "t"},
            {"GIT_COMMITTER_EMAIL", "t@example.org"}};
}

std::string Workspace::evil_script(const std::string& name) const {
    return "#!/bin/sh\ntouch " + marker(name) + "\n";
}

Result Workspace::git(const std::vector<std::string>& args) const {
    std::vector<std::string> argv = {"/usr/bin/git"};
    argv.insert(argv.end(), args.begin(), args.end());
    return run(as_user(who, argv), env(), ws.string());
}

Result Workspace::shell(const std::string& script) const {
    return run(as_user(who, {"/bin/sh", "-c", script}), env(), ws.string());
}

Result Workspace::caged(const std::string& script, const std::string& policy_file,
                        const std::map<std::string, std::string>& extra_env) const {
    auto e = env();
    for (const auto& [k, v] : extra_env) e[k] = v;
    return run(as_user(who, {testsupport::reachable(TOOLCAGE_BIN), "run", "--policy", policy_file,
                             "--workdir", ws.string(), "--", "/bin/sh", "-c", script}),
               e, ws.string());
}

std::string Workspace::policy(bool drop_protected, const std::string& protect) const {
    std::ifstream f(std::string(TOOLCAGE_SOURCE_DIR) + "/profiles/default.json");
    nlohmann::json p = nlohmann::json::parse(f, nullptr, true, true);
    p["name"] = drop_protected       ? "integrity-floor"
                : protect == "check" ? "integrity-test"
                                     : "integrity-" + protect;
    if (drop_protected) p["cage"].erase("protected_paths");
    p["cage"]["protect"] = protect;
    fs::path file = base / (std::string(p["name"]) + ".json");
    std::ofstream(file) << p.dump(2);
    ::chmod(file.c_str(), 0644);
    return file.string();
}

std::string Workspace::snapshot_policy() const {
    const std::string file = policy();
    std::ifstream f(file);
    nlohmann::json p = nlohmann::json::parse(f);
    p["cage"]["layer"] = "off";
    std::ofstream(file) << p.dump(2);
    ::chmod(file.c_str(), 0644);
    return file;
}

std::string Workspace::layer_policy() const {
    const std::string file = policy();
    std::ifstream f(file);
    nlohmann::json p = nlohmann::json::parse(f);
    p["cage"]["layer"] = "auto";
    std::ofstream(file) << p.dump(2);
    ::chmod(file.c_str(), 0644);
    return file;
}

void Workspace::own() const {
    if (who == As::root) return;
    ::lchown(ws.c_str(), 65534, 65534);
    ::lchown(home.c_str(), 65534, 65534);
    for (const auto& e : fs::recursive_directory_iterator(ws))
        ::lchown(e.path().c_str(), 65534, 65534);
}

namespace {

// As a policy's `extends` merges: objects merge, lists add to the base's, other values replace.
void extend(nlohmann::json& base, const nlohmann::json& patch) {
    for (const auto& [k, v] : patch.items()) {
        if (base.contains(k) && base[k].is_object() && v.is_object())
            extend(base[k], v);
        else if (base.contains(k) && base[k].is_array() && v.is_array())
            base[k].insert(base[k].end(), v.begin(), v.end());
        else
            base[k] = v;
    }
}

}  // namespace

std::string Workspace::policy_with(const std::string& name, const nlohmann::json& patch) const {
    std::ifstream f(policy());
    nlohmann::json p = nlohmann::json::parse(f);
    p["name"] = name;
    extend(p, patch);
    const fs::path file = base / (name + ".json");
    std::ofstream(file) << p.dump(2);
    ::chmod(file.c_str(), 0644);
    return file.string();
}

Result Workspace::hook(const std::map<std::string, std::string>& environment) const {
    nlohmann::json payload = {{"session_id", "s"},   {"transcript_path", "/dev/null"},
                              {"cwd", ws.string()},  {"hook_event_name", "PreToolUse"},
                              {"tool_name", "Bash"}, {"tool_input", {{"command", "ls"}}}};
    // Nobody runs a copy it can reach: the build tree may lie where only its owner enters.
    const std::string toolcage =
        who == As::nobody ? testsupport::reachable(TOOLCAGE_BIN) : TOOLCAGE_BIN;
    std::vector<std::string> args = as_user(who, {toolcage, "hook", "--agent", "claude"});
    const std::string bin = args.front();
    args.erase(args.begin());
    auto r = toolcage::test::run_binary(bin, args, payload.dump(), environment);
    return {r.exit_code, r.out + r.err};
}

std::string Workspace::read(const std::string& rel) const {
    std::ifstream f(ws / rel, std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

void Workspace::put(const std::string& rel, const std::string& text, mode_t mode) const {
    fs::path p = ws / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    ::chmod(p.c_str(), mode);
    if (who == As::nobody) ::lchown(p.c_str(), 65534, 65534);
}

std::vector<std::string> Workspace::log_lines() const {
    std::vector<std::string> out;
    std::ifstream f(log_file());
    for (std::string line; std::getline(f, line);) out.push_back(line);
    return out;
}

WatchedRun::WatchedRun(const Workspace& w, const std::vector<std::string>& args) {
    std::vector<std::string> argv = as_user(w.who, args);
    std::vector<std::string> env_s;
    for (const auto& [k, v] : w.env()) env_s.push_back(k + "=" + v);
    testsupport::keep_suite_state(env_s);
    int p[2];
    REQUIRE(::pipe2(p, O_CLOEXEC) == 0);
    pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        std::vector<char*> a, envp;
        for (auto& s : argv) a.push_back(s.data());
        a.push_back(nullptr);
        for (auto& e : env_s) envp.push_back(e.data());
        envp.push_back(nullptr);
        int null = ::open("/dev/null", O_RDWR);
        ::dup2(null, 0);
        ::dup2(p[1], 1);
        ::dup2(p[1], 2);
        if (::chdir(w.ws.c_str()) != 0) _exit(98);
        ::execve(a[0], a.data(), envp.data());
        _exit(99);
    }
    ::close(p[1]);
    out = p[0];
}

bool WatchedRun::wait_for(const std::string& word) {
    char buf[512];
    while (seen.find(word) == std::string::npos) {
        ssize_t n = ::read(out, buf, sizeof buf);
        if (n <= 0) return false;
        seen.append(buf, static_cast<std::size_t>(n));
    }
    return true;
}

int WatchedRun::finish() {
    int st = 0;
    ::waitpid(pid, &st, 0);
    char buf[512];
    for (ssize_t n; (n = ::read(out, buf, sizeof buf)) > 0;)
        seen.append(buf, static_cast<std::size_t>(n));
    ::close(out);
    out = -1;
    pid = -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

void WatchedRun::kill_now() {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    pid = -1;
}

WatchedRun::~WatchedRun() {
    if (pid > 0) kill_now();
    if (out >= 0) ::close(out);
}

}  // namespace integrity
