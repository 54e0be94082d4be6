// `toolcage run` as a separate process for the network tests: a scratch workspace and policy
// every user can reach, a clean environment (no proxy of the machine's), root or nobody, and a
// way to take user namespaces away (the sysctl where it can be written, else a seccomp filter
// that refuses CLONE_NEWUSER, as container runtimes do).
#pragma once

#include <sys/types.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace steptest {

enum class As { root, nobody };
const char* name_of(As who);

struct Result {
    int status = -1;  // exit code, or 128+signal
    std::string out;  // stdout and stderr
};

// A scratch tree: base (0755), base/ws (the workspace, 0777), base/state (XDG_STATE_HOME and
// HOME, 0777), base/policy.json from profiles/default.json with `policy` edits.
struct Scratch {
    std::string base, ws, state;
    nlohmann::json policy;
    Scratch();
    ~Scratch();
    Scratch(const Scratch&) = delete;
    Scratch& operator=(const Scratch&) = delete;
    std::string policy_file() const;  // writes the policy and returns its path
};

struct Launch {
    As who = As::root;
    bool no_userns = false;        // a seccomp filter refuses CLONE_NEWUSER to toolcage
    std::vector<std::string> env;  // added to PATH, HOME, XDG_STATE_HOME, LANG (replacing one of them)
    // As in a container that masks part of /proc: toolcage starts in a user and mount namespace
    // of its own where /proc/sys is covered, so the kernel refuses the step a fresh /proc.
    bool masked_proc = false;
    // toolcage's stderr a pipe nobody reads any more (an agent that stopped listening): its
    // writes there fail with EPIPE. Result.out then holds its stdout alone.
    bool stderr_reader_gone = false;
    // A seccomp filter refuses signalfd to toolcage, as some sandboxes do.
    bool no_signalfd = false;
    // stdin one end of a socket pair, as Node.js gives its children (OpenClaw's exec); else
    // /dev/null.
    bool socket_stdin = false;
};

// toolcage ARGS..., waited for.
Result run_toolcage(const Scratch& s, const std::vector<std::string>& args, const Launch& how = {});

// toolcage ARGS... left running; wait() collects it.
class Background {
  public:
    Background(const Scratch& s, const std::vector<std::string>& args, const Launch& how = {});
    ~Background();
    pid_t pid() const { return pid_; }
    Result wait();

  private:
    pid_t pid_ = -1;
    int out_ = -1;
};

// A shell command line (popen), its stdout read whole; `status` is its wait status.
std::string run_shell(const std::string& command, int& status);

// Every directory below `base` 0777 and every file 0644, `base` itself 0755: a scratch home an
// unprivileged user can use too (what keeps files from a step is then the cage, not a mode).
void open_to_everyone(const std::string& base);

// Waits up to `ms` for `path` to exist.
bool wait_for_file(const std::string& path, int ms);

// Processes whose command line contains `needle` (read from /proc/*/cmdline).
std::vector<pid_t> processes_with(const std::string& needle);
pid_t parent_of(pid_t pid);         // from /proc/PID/stat, -1 when gone
char state_of(pid_t pid);           // 'R', 'S', 'Z', ...; 0 when gone
std::string cmdline_of(pid_t pid);  // arguments joined by spaces
bool is_ancestor(pid_t ancestor, pid_t pid);

// Sets user.max_user_namespaces to 0 and restores it when destroyed. `active()` is false when
// the sysctl cannot be written here (a container's read-only /proc/sys).
class UsernsSysctlOff {
  public:
    UsernsSysctlOff();
    ~UsernsSysctlOff();
    bool active() const { return !old_.empty(); }

  private:
    std::string old_;
};

}  // namespace steptest
