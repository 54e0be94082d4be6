// Launchers: programs whose job is to run a command given to them, often detached from the
// caller (setsid, nohup, tmux, screen, at, gdb, expect). A launcher adds nothing to what the
// command does, so the command is judged as `bash -c` of it: a destructive command is refused
// whatever launches it, and a command that cannot be known is caged, never allowed.
#include <algorithm>

#include "hook/classify/analyzer.h"
#include "hook/classify/program_table.h"
#include "hook/classify/text.h"

namespace toolcage::classify::detail {

namespace {

std::vector<std::string> split_lines(const std::string& text) {
    std::vector<std::string> out;
    size_t b = 0;
    while (b <= text.size()) {
        size_t e = text.find('\n', b);
        if (e == std::string::npos) e = text.size();
        out.push_back(text.substr(b, e - b));
        b = e + 1;
    }
    return out;
}

// ---- launchers that take the command as their operands (or as one option's string)

struct Launcher {
    std::string_view name;
    std::string_view short_with_arg;  // short options that take a value
    std::string_view long_with_arg;   // long options that take a value (space-separated)
    std::string_view code_options;    // options whose value is shell code (space-separated)
    unsigned char operands_before;    // operands before the command: chroot DIR, sg GROUP
    bool elevates;                    // the command gets other privileges or namespaces
    std::string_view reason;
};

constexpr auto kLaunchers = sorted_by_name(std::to_array<Launcher>({
    {"caffeinate", "tw", "", "", 0, false, "keeps the machine awake while its command runs"},
    {"catchsegv", "", "", "", 0, false, "runs its command and reports a crash"},
    {"cgexec", "g", "", "", 0, true, "runs its command in a control group"},
    {"chpst", "uUbe/nlLmdofcrt", "", "", 0, true, "runs its command with changed limits or user"},
    {"chronic", "", "", "", 0, false, "runs its command and hides its output unless it fails"},
    {"chrt", "", "--pid", "", 1, false, "runs its command with a real-time priority"},
    {"dbus-launch", "", "--config-file --autolaunch", "", 0, false, "runs its command with a session bus"},
    {"dbus-run-session", "", "--config-file --dbus-daemon", "", 0, false, "runs its command with a session bus"},
    {"dumb-init", "r", "--rewrite", "", 0, false, "an init that runs its command"},
    {"eatmydata", "", "", "", 0, false, "runs its command with fsync disabled"},
    {"faketime", "f", "", "", 1, false, "runs its command with a faked clock"},
    {"fakeroot", "lsi", "--lib --faked", "", 0, false, "runs its command as a faked root"},
    {"firejail", "", "", "", 0, true, "runs its command in a sandbox of its own rules"},
    {"gosu", "", "", "", 1, true, "runs its command as another user"},
    {"linux32", "", "", "", 0, false, "runs its command with another personality"},
    {"linux64", "", "", "", 0, false, "runs its command with another personality"},
    {"nocache", "n", "", "", 0, false, "runs its command without filling the page cache"},
    {"nohup", "", "", "", 0, false, "runs its command immune to hangups, after the caller is gone"},
    {"nsenter", "tSGw", "--target --setuid --setgid --wd --wdns --env", "", 0, true,
     "runs its command in another process's namespaces"},
    {"numactl", "NmCpi", "--cpunodebind --membind --physcpubind --preferred --interleave", "", 0, false,
     "runs its command with a memory and CPU placement"},
    {"prlimit", "p", "--pid", "", 0, false, "runs its command with changed limits"},
    {"proxychains", "f", "", "", 0, false, "runs its command through proxies"},
    {"proxychains4", "f", "", "", 0, false, "runs its command through proxies"},
    {"run-one", "", "", "", 0, false, "runs its command unless a copy already runs"},
    {"setarch", "", "--uname-2.6", "", 1, false, "runs its command with another architecture"},
    {"setpriv", "",
     "--reuid --regid --ruid --euid --rgid --egid --groups --inh-caps --ambient-caps --bounding-set "
     "--securebits --selinux-label --apparmor-profile --pdeathsig --landlock-access --landlock-rule",
     "", 0, true, "runs its command with other credentials"},
    {"setsid", "", "", "", 0, false, "runs its command in a new session, detached from the caller"},
    {"sg", "", "", "-c", 1, true, "runs its command with another group"},
    {"ssh-agent", "aEtPO", "", "", 0, false, "runs its command with a key agent"},
    {"su-exec", "", "", "", 1, true, "runs its command as another user"},
    {"systemd-inhibit", "", "--what --who --why --mode", "", 0, false, "runs its command holding an inhibitor lock"},
    {"systemd-run", "pEuMHs",
     "--property --setenv --unit --machine --host --description --slice --working-directory --uid --gid "
     "--nice --on-calendar --on-active --on-boot --on-startup --on-unit-active --on-unit-inactive "
     "--timer-property --path-property --socket-property --service-type --send-sighup --expand-environment",
     "", 0, true, "runs its command as a systemd unit, outside the caller's process tree"},
    {"taskset", "", "", "", 1, false, "runs its command on chosen CPUs"},
    {"tini", "pe", "", "", 0, false, "an init that runs its command"},
    {"torify", "", "", "", 0, false, "runs its command through Tor"},
    {"torsocks", "upaP", "", "", 0, false, "runs its command through Tor"},
    {"trickle", "dutwLn", "", "", 0, false, "runs its command with a bandwidth limit"},
    {"tsocks", "", "", "", 0, false, "runs its command through a SOCKS proxy"},
    {"unbuffer", "", "", "", 0, false, "runs its command on a pseudo-terminal"},
    {"unshare", "RwSG",
     "--propagation --setgroups --map-user --map-group --map-users --map-groups --root --wd --setuid --setgid",
     "", 0, true, "runs its command in new namespaces"},
    {"valgrind", "", "", "", 0, false, "runs its command under instrumentation"},
    {"xvfb-run", "nsfewp", "--server-num --server-args --auth-file --error-file --wait --xauth-protocol", "", 0,
     false, "runs its command with a virtual display"},
}));

const Launcher* find_launcher(std::string_view name) { return find_by_name<Launcher>(kLaunchers, name); }

// Options of one launcher: skips them, and returns the first shell-code option's value if any.
struct Scan {
    size_t end = 0;                   // index of the first operand
    std::optional<Value> code;        // -c STRING (sg, su-like launchers)
};

Scan scan_options(const Call& c, size_t i, std::string_view short_arg, std::string_view long_arg,
                  std::string_view code_opts) {
    Scan s;
    for (; i < c.argc(); ++i) {
        const Value& v = c.args[i];
        if (!is_flag(v)) break;
        const std::string& t = v.text;
        if (t == "--") {
            ++i;
            break;
        }
        if (t.rfind("--", 0) == 0) {
            size_t eq = t.find('=');
            std::string name = t.substr(0, eq);
            bool code = word_listed(code_opts, name);
            if (eq != std::string::npos) {
                if (code) s.code = Value::literal(t.substr(eq + 1));
                continue;
            }
            if ((code || word_listed(long_arg, name)) && i + 1 < c.argc()) {
                ++i;
                if (code) s.code = c.args[i];
            }
            continue;
        }
        for (size_t k = 1; k < t.size(); ++k) {
            char f = t[k];
            std::string one = std::string("-") + f;
            bool code = word_listed(code_opts, one);
            if (code || short_arg.find(f) != std::string_view::npos) {
                Value val;
                if (k + 1 < t.size()) {
                    val = v;
                    val.text = t.substr(k + 1);
                } else if (i + 1 < c.argc()) {
                    val = c.args[++i];
                }
                if (code) s.code = val;
                break;
            }
        }
    }
    s.end = i;
    return s;
}

void launcher_program(Analyzer& a, Call& c) {
    const Launcher* l = find_launcher(c.name);
    if (!l) return;
    Scan s = scan_options(c, 0, l->short_with_arg, l->long_with_arg, l->code_options);
    size_t i = s.end;
    for (unsigned k = 0; k < l->operands_before && i < c.argc() && !s.code; ++k) ++i;
    if (!s.code && l->operands_before) {
        // sg GROUP -c 'cmd': options may follow the fixed operands.
        Scan after = scan_options(c, i, l->short_with_arg, l->long_with_arg, l->code_options);
        if (after.code) s.code = after.code;
        i = after.end;
    }
    if (l->elevates)
        a.hit(Decision::cage, "wrapper.runs", "`" + c.name + "` " + std::string(l->reason));
    if (s.code) {
        run_wrapped_string(a, c, *s.code, l->elevates);
        return;
    }
    run_wrapped(a, c, i, l->elevates);
}

// ---- terminals: `xterm -e cmd args`, `gnome-terminal -- cmd`, `tilix -e 'string'`

void terminal_program(Analyzer& a, Call& c) {
    // Emulators whose -e takes one shell string rather than the rest of the line.
    bool e_is_string = c.name == "gnome-terminal" || c.name == "tilix" || c.name == "terminator" ||
                       c.name == "xfce4-terminal" || c.name == "mate-terminal";
    for (size_t i = 0; i < c.argc(); ++i) {
        const std::string& t = c.arg(i);
        if (t == "--" || t == "-x" || t == "--execute" || (t == "-e" && !e_is_string)) {
            // One word with blanks after -e is run by a shell (xterm, urxvt, konsole do so).
            if (t == "-e" && i + 2 == c.argc() && c.arg(i + 1).find(' ') != std::string::npos) {
                run_wrapped_string(a, c, c.args[i + 1], false);
                return;
            }
            run_wrapped(a, c, i + 1, false);
            return;
        }
        if ((t == "-e" || t == "--command") && i + 1 < c.argc()) {
            run_wrapped_string(a, c, c.args[i + 1], false);
            return;
        }
        if (t.rfind("--command=", 0) == 0) {
            run_wrapped_string(a, c, Value::literal(t.substr(10)), false);
            return;
        }
    }
    a.hit(Decision::cage, "wrapper.shell", "`" + c.name + "` opens a terminal with a shell");
}

// ---- entr: runs its utility when files change; -s makes the utility a shell string

void entr_program(Analyzer& a, Call& c) {
    Scan s = scan_options(c, 0, "", "", "");
    bool shell = false;
    for (size_t k = 0; k < s.end; ++k) {
        if (c.arg(k).find('s') != std::string::npos && c.arg(k)[0] == '-') shell = true;
    }
    Call inner = c;
    inner.in = Stream();  // entr reads file names on stdin, not the command's input
    if (shell && s.end < c.argc()) {
        run_wrapped_string(a, inner, c.args[s.end], false);
    } else {
        run_wrapped(a, inner, s.end, false);
    }
    c.out = inner.out;
}

// ---- environments that run a command: nix-shell --run, direnv exec DIR cmd

void nix_shell_program(Analyzer& a, Call& c) {
    a.hit(Decision::cage, "pkg.exec", "`" + c.name + "` builds an environment and runs a shell in it");
    for (size_t i = 0; i + 1 < c.argc(); ++i) {
        if (c.arg(i) == "--run" || c.arg(i) == "--command") run_wrapped_string(a, c, c.args[i + 1], false);
    }
}

void direnv_program(Analyzer& a, Call& c) {
    if (c.argc() >= 2 && c.arg(0) == "exec") {
        a.hit(Decision::cage, "pkg.exec", "`direnv exec` runs a command with a directory's .envrc loaded");
        run_wrapped(a, c, 2, false);
        return;
    }
    if (c.argc() >= 1 && (c.arg(0) == "status" || c.arg(0) == "version" || c.arg(0) == "help")) {
        a.hit(Decision::allow, "launch.query", "`direnv " + c.arg(0) + "` only prints");
        return;
    }
    a.hit(Decision::cage, "pkg.exec", "`direnv` loads or approves an .envrc, which runs code");
}

// ---- capsh: everything after `--` goes to /bin/bash

void capsh_program(Analyzer& a, Call& c) {
    a.hit(Decision::cage, "wrapper.runs", "`capsh` runs a shell with changed capabilities");
    for (size_t i = 0; i < c.argc(); ++i) {
        if (c.arg(i) == "--") {
            std::vector<Value> argv{Value::literal("bash")};
            argv.insert(argv.end(), c.args.begin() + static_cast<long>(i + 1), c.args.end());
            Call proto = c;
            proto.via = c.via + "capsh ";
            proto.elevated = true;
            c.out = a.exec_argv(std::move(argv), proto);
            return;
        }
        if (c.arg(i).rfind("--shell=", 0) == 0) continue;
    }
}

// ---- hyperfine: every operand is a shell command it benchmarks

void hyperfine_program(Analyzer& a, Call& c) {
    Scan s = scan_options(c, 0, "wrmMspcCunNS",
                          "--warmup --runs --min-runs --max-runs --setup --prepare --cleanup --conclude "
                          "--parameter-scan --parameter-step-size --parameter-list --shell --style --sort "
                          "--time-unit --export-asciidoc --export-csv --export-json --export-markdown "
                          "--export-orgmode --command-name --output --reference --input",
                          "--setup --prepare --cleanup --conclude -s -p -c");
    if (s.code) run_wrapped_string(a, c, *s.code, false);
    for (size_t i = 0; i < c.argc(); ++i) {
        // Every code option (they may repeat), then every operand.
        const std::string& t = c.arg(i);
        if ((t == "--setup" || t == "--prepare" || t == "--cleanup" || t == "--conclude" || t == "-s" ||
             t == "-p" || t == "-c") &&
            i + 1 < c.argc()) {
            run_wrapped_string(a, c, c.args[i + 1], false);
        }
    }
    for (size_t i = s.end; i < c.argc(); ++i) run_wrapped_string(a, c, c.args[i], false);
    a.hit(Decision::cage, "wrapper.runs", "`hyperfine` runs the commands it benchmarks");
}

// ---- perf: `perf stat|record|trace [options] cmd`

void perf_program(Analyzer& a, Call& c) {
    if (c.argc() == 0 || is_flag(c.args[0])) {
        a.hit(Decision::cage, "wrapper.trace", "`perf` samples the system");
        return;
    }
    const std::string& sub = c.arg(0);
    if (sub != "stat" && sub != "record" && sub != "trace" && sub != "mem" && sub != "c2c" &&
        sub != "kmem" && sub != "lock" && sub != "sched" && sub != "kvm") {
        a.hit(Decision::cage, "wrapper.trace", "`perf " + sub + "` reads or records profiles");
        return;
    }
    Scan s = scan_options(c, 1, "eoGCtcFIrSjpumDLT", "--event --output --cgroup --cpu --pid --tid --repeat --freq", "");
    a.hit(Decision::cage, "wrapper.trace", "`perf " + sub + "` runs its command under the profiler");
    run_wrapped(a, c, s.end, false);
}


// ---- tmux: commands separated by `;`; several of them run shell commands or type into a shell

// Text typed by `send-keys`: key names that end a line become newlines.
Value typed_keys(const std::vector<Value>& keys, bool literal) {
    Value out = Value::literal("");
    for (const Value& k : keys) {
        const std::string& t = k.text;
        if (!literal && (t == "Enter" || t == "C-m" || t == "C-j" || t == "KPEnter" || t == "^M" || t == "^J")) {
            out.text += '\n';
            continue;
        }
        if (!literal && t == "Space") {
            out.text += ' ';
            continue;
        }
        if (!literal && (t == "Tab" || t == "Escape" || t == "BSpace" || t == "C-c" || t == "C-d" ||
                         t == "C-u" || t == "C-l" || t == "Up" || t == "Down" || t == "Left" || t == "Right")) {
            continue;
        }
        out.text += t;
        out.unknown = out.unknown || k.unknown;
        out.alt_unknown = out.alt_unknown || k.alt_unknown;
        out.taint = std::max(out.taint, k.taint);
    }
    return out;
}

struct TmuxCommand {
    std::string_view name;
    std::string_view alias;
    std::string_view with_arg;  // short options taking a value
    enum What : unsigned char { reads, types, runs_shell, first_is_shell, other } what;
};

// tmux(1): the commands that run a shell command, type keys, or only show state.
constexpr TmuxCommand kTmuxCommands[] = {
    {"send-keys", "send", "Nt", TmuxCommand::types},
    {"new-session", "new", "cefFnstxy", TmuxCommand::runs_shell},
    {"new-window", "neww", "ceFnt", TmuxCommand::runs_shell},
    {"split-window", "splitw", "celtFp", TmuxCommand::runs_shell},
    {"respawn-pane", "respawnp", "cet", TmuxCommand::runs_shell},
    {"respawn-window", "respawnw", "cet", TmuxCommand::runs_shell},
    {"run-shell", "run", "cdt", TmuxCommand::runs_shell},
    {"pipe-pane", "pipep", "t", TmuxCommand::runs_shell},
    {"display-popup", "popup", "bcdehsStTwxy", TmuxCommand::runs_shell},
    {"if-shell", "if", "t", TmuxCommand::first_is_shell},
    {"list-sessions", "ls", "Ff", TmuxCommand::reads},
    {"list-windows", "lsw", "Fft", TmuxCommand::reads},
    {"list-panes", "lsp", "Fft", TmuxCommand::reads},
    {"list-clients", "lsc", "Fft", TmuxCommand::reads},
    {"list-buffers", "lsb", "Ff", TmuxCommand::reads},
    {"list-keys", "lsk", "NPT", TmuxCommand::reads},
    {"list-commands", "lscm", "F", TmuxCommand::reads},
    {"has-session", "has", "t", TmuxCommand::reads},
    {"show-options", "show", "t", TmuxCommand::reads},
    {"show-environment", "showenv", "t", TmuxCommand::reads},
    {"capture-pane", "capturep", "bEStN", TmuxCommand::reads},
    {"display-message", "display", "cdFt", TmuxCommand::reads},
    {"show-buffer", "showb", "b", TmuxCommand::reads},
    {"info", "", "", TmuxCommand::reads},
};

void tmux_command(Analyzer& a, Call& c, size_t from, size_t to) {
    if (from >= to) {
        a.hit(Decision::cage, "launch.session", "`tmux` starts a session running a shell");
        return;
    }
    const std::string& name = c.arg(from);
    const TmuxCommand* cmd = nullptr;
    for (const TmuxCommand& t : kTmuxCommands) {
        if (name == t.name || (!t.alias.empty() && name == t.alias)) cmd = &t;
    }
    if (!cmd) {
        a.hit(Decision::cage, "launch.session", "`tmux " + name + "` changes sessions or runs tmux commands");
        return;
    }
    // Options of the command, then its operands.
    size_t i = from + 1;
    bool literal = false, tmux_cmd = false;
    for (; i < to && is_flag(c.args[i]); ++i) {
        const std::string& t = c.arg(i);
        if (t == "--") {
            ++i;
            break;
        }
        for (size_t k = 1; k < t.size(); ++k) {
            if (t[k] == 'l' && cmd->what == TmuxCommand::types) literal = true;
            if (t[k] == 'C' && cmd->name == "run-shell") tmux_cmd = true;
            if (t[k] == 'H' && cmd->what == TmuxCommand::types) {
                a.hit(Decision::cage, "launch.types", "`tmux send-keys -H` types keys given in hex");
            }
            if (cmd->with_arg.find(t[k]) != std::string_view::npos) {
                if (k + 1 == t.size()) ++i;
                break;
            }
        }
    }
    std::vector<Value> rest(c.args.begin() + static_cast<long>(std::min(i, to)),
                            c.args.begin() + static_cast<long>(to));
    switch (cmd->what) {
        case TmuxCommand::reads:
            a.hit(Decision::allow, "launch.query", "`tmux " + name + "` only shows sessions");
            return;
        case TmuxCommand::types: {
            a.hit(Decision::cage, "launch.types", "`tmux send-keys` types into a pane's shell");
            Value text = typed_keys(rest, literal);
            if (!text.text.empty()) a.run_string(text, *c.scope, false, Stream(), "the keys `tmux send-keys` types");
            return;
        }
        case TmuxCommand::first_is_shell:
            a.hit(Decision::cage, "launch.session", "`tmux " + name + "` runs a shell command");
            if (!rest.empty()) a.run_string(rest[0], *c.scope, false, Stream(), "`tmux " + name + "`");
            return;
        case TmuxCommand::runs_shell:
            a.hit(Decision::cage, "launch.session", "`tmux " + name + "` runs a shell command");
            if (tmux_cmd) return;
            if (rest.size() == 1) {
                a.run_string(rest[0], *c.scope, false, Stream(), "`tmux " + name + "`");
            } else if (!rest.empty()) {
                Call proto;
                proto.scope = c.scope;
                proto.elevated = c.elevated;
                proto.via = c.via + "tmux " + name + " ";
                a.exec_argv(rest, proto);
            }
            return;
        case TmuxCommand::other:
            break;
    }
    a.hit(Decision::cage, "launch.session", "`tmux " + name + "` runs tmux commands");
}

void tmux_program(Analyzer& a, Call& c) {
    // Global options: -c runs a shell command, as a shell's -c does.
    size_t i = 0;
    for (; i < c.argc() && is_flag(c.args[i]); ++i) {
        const std::string& t = c.arg(i);
        if (t == "--") {
            ++i;
            break;
        }
        if (t == "-V") {
            a.hit(Decision::allow, "readonly.version", "`tmux -V` prints its version");
            return;
        }
        for (size_t k = 1; k < t.size(); ++k) {
            if (std::string_view("cfLST").find(t[k]) == std::string_view::npos) continue;
            Value val;
            if (k + 1 < t.size()) {
                val = c.args[i];
                val.text = t.substr(k + 1);
            } else if (i + 1 < c.argc()) {
                val = c.args[++i];
            }
            if (t[k] == 'c') {
                a.hit(Decision::cage, "launch.session", "`tmux -c` runs a shell command");
                a.run_string(val, *c.scope, false, c.in, "`tmux -c`");
                return;
            }
            break;
        }
    }
    // Commands are separated by a `;` word (or a word ending in `\;`).
    size_t start = i;
    for (size_t k = i; k <= c.argc(); ++k) {
        if (k == c.argc() || c.arg(k) == ";" || c.arg(k) == "\\;") {
            tmux_command(a, c, start, k);
            start = k + 1;
        }
    }
}

// ---- screen: -X sends a screen command to a session; otherwise the operands are a program

void screen_command(Analyzer& a, Call& c, size_t from) {
    if (from >= c.argc()) return;
    const std::string& cmd = c.arg(from);
    if (cmd == "stuff") {
        a.hit(Decision::cage, "launch.types", "`screen -X stuff` types into a window's shell");
        Value text = from + 1 < c.argc() ? c.args[from + 1] : Value::literal("");
        // screen reads ^M, ^J, \n and \r in the string as line ends.
        std::string out;
        for (size_t k = 0; k < text.text.size(); ++k) {
            char ch = text.text[k];
            if (k + 1 < text.text.size() && (ch == '^' || ch == '\\') &&
                std::string_view("MJnr").find(text.text[k + 1]) != std::string_view::npos) {
                out += '\n';
                ++k;
                continue;
            }
            out += ch == '\r' ? '\n' : ch;
        }
        text.text = out;
        a.run_string(text, *c.scope, false, Stream(), "the text `screen -X stuff` types");
        return;
    }
    if (cmd == "exec" || cmd == "screen") {
        a.hit(Decision::cage, "launch.session", "`screen -X " + cmd + "` runs a program");
        size_t k = from + 1;
        while (k < c.argc() && is_flag(c.args[k])) ++k;  // screen's own options, exec's fd spec
        if (cmd == "exec" && k < c.argc() && c.arg(k).find_first_not_of(".!|:") == std::string::npos) ++k;
        Call proto;
        proto.scope = c.scope;
        proto.elevated = c.elevated;
        proto.via = c.via + "screen -X ";
        a.exec_argv(std::vector<Value>(c.args.begin() + static_cast<long>(k), c.args.end()), proto);
        return;
    }
    a.hit(Decision::cage, "launch.session", "`screen -X " + cmd + "` controls a running session");
}

void screen_program(Analyzer& a, Call& c) {
    size_t i = 0;
    for (; i < c.argc() && is_flag(c.args[i]); ++i) {
        const std::string& t = c.arg(i);
        if (t == "-ls" || t == "-list" || t == "-v" || t == "-version" || t == "--version") {
            a.hit(Decision::allow, "launch.query", "`screen " + t + "` only lists sessions");
            return;
        }
        if (t == "-X") {
            screen_command(a, c, i + 1);
            return;
        }
        if (t == "-Logfile") {
            if (i + 1 < c.argc()) a.check_write(c.args[i + 1], WriteMode::append, "screen -Logfile", *c.scope);
            ++i;
            continue;
        }
        if (t == "-wipe") {
            a.hit(Decision::cage, "launch.session", "`screen -wipe` removes dead sessions");
            return;
        }
        for (size_t k = 1; k < t.size(); ++k) {
            if (t[k] == 'X') {
                screen_command(a, c, i + 1);
                return;
            }
            if (std::string_view("SptcehsT").find(t[k]) != std::string_view::npos) {
                if (k + 1 == t.size()) ++i;
                break;
            }
        }
    }
    a.hit(Decision::cage, "launch.session", "`screen` starts a session");
    if (i < c.argc()) run_wrapped(a, c, i, false);
}

// ---- at and batch: the job is read from stdin or from -f FILE, and runs later under atd

void at_program(Analyzer& a, Call& c) {
    const bool queue_tool = c.name == "atq";
    std::optional<Value> file;
    bool listing = queue_tool, removing = c.name == "atrm", showing = false;
    for (size_t i = 0; i < c.argc(); ++i) {
        const Value& v = c.args[i];
        if (!is_flag(v)) continue;
        const std::string& t = v.text;
        for (size_t k = 1; k < t.size(); ++k) {
            char f = t[k];
            if (f == 'l') listing = true;
            if (f == 'r' || f == 'd') removing = true;
            if (f == 'c') showing = true;
            if (f == 'V' && c.argc() == 1) listing = true;
            if (f == 'f' || f == 'q' || f == 't') {
                Value val = v;
                if (k + 1 < t.size()) {
                    val.text = t.substr(k + 1);
                } else if (i + 1 < c.argc()) {
                    val = c.args[++i];
                }
                if (f == 'f') file = val;
                break;
            }
        }
    }
    if (listing || showing) {
        a.hit(Decision::allow, "launch.query", "`" + c.name + "` only lists or shows queued jobs");
        return;
    }
    if (removing) {
        a.hit(Decision::cage, "launch.schedule", "`" + c.name + "` removes queued jobs");
        return;
    }
    a.hit(Decision::cage, "launch.schedule", "`" + c.name + "` queues a job that runs later, outside this command");
    std::string who = "the job `" + c.name + "` queues";
    if (file && (file->text == "/dev/stdin" || file->text == "-" || file->text == "/dev/fd/0")) file.reset();
    if (file) {
        if (a.refuse_tainted_script(*file, *c.scope, who)) return;
        if (const std::string* text = a.file_text(*file, *c.scope)) {
            a.run_string(Value::literal(*text), *c.scope, false, Stream(), who);
        }
        return;
    }
    if (c.in.kind == Stream::Kind::none) return;  // read from the agent's terminal: nothing here
    a.shell_reads(c.in, *c.scope, c.name, c);
}

// ---- gdb: its commands (-ex, --eval-command, -iex) may run shell or python code

void gdb_commands(Analyzer& a, Call& c, const Value& cmd) {
    std::string t = cmd.text;
    size_t b = t.find_first_not_of(" \t");
    if (b == std::string::npos) return;
    t.erase(0, b);
    auto rest_after = [&](size_t n) {
        Value v = cmd;
        v.text = t.substr(std::min(n, t.size()));
        size_t s = v.text.find_first_not_of(" \t");
        v.text = s == std::string::npos ? std::string() : v.text.substr(s);
        return v;
    };
    auto word_is = [&](std::string_view w) {
        return t.rfind(w, 0) == 0 && (t.size() == w.size() || t[w.size()] == ' ' || t[w.size()] == '\t');
    };
    if (t[0] == '!') {
        a.run_string(rest_after(1), *c.scope, false, Stream(), "gdb's `!` command");
        return;
    }
    if (word_is("shell")) {
        a.run_string(rest_after(5), *c.scope, false, Stream(), "gdb's `shell` command");
        return;
    }
    for (std::string_view py : {"python", "py", "python-interactive", "pi"}) {
        if (word_is(py)) {
            a.interpreter_code("python", rest_after(py.size()), c);
            return;
        }
    }
    if (t[0] == '|' || word_is("pipe")) {
        // pipe [COMMAND] | SHELL_COMMAND: the shell command after the last `|`.
        size_t bar = t.rfind('|');
        a.run_string(rest_after(bar + 1), *c.scope, false, Stream(), "gdb's `pipe` command");
        return;
    }
    // call system("…") / print system("…"): the inferior runs it.
    size_t sys = t.find("system(");
    if (sys != std::string::npos) {
        size_t q = t.find('"', sys);
        size_t e = q == std::string::npos ? q : t.find('"', q + 1);
        if (e != std::string::npos) {
            Value v = cmd;
            v.text = t.substr(q + 1, e - q - 1);
            a.run_string(v, *c.scope, false, Stream(), "system() called from gdb");
        } else {
            a.hit(Decision::cage, "launch.debugger", "gdb calls system() with a command built at run time");
        }
    }
}

void gdb_program(Analyzer& a, Call& c) {
    static const std::string_view kWithArg[] = {
        "-ex", "--ex", "-eval-command", "--eval-command", "-iex", "--iex", "-init-eval-command",
        "--init-eval-command", "-x", "--x", "-command", "--command", "-ix", "--ix", "-init-command",
        "--init-command", "-p", "--pid", "-pid", "-c", "--core", "-core", "-d", "--directory", "-directory",
        "-s", "--symbols", "-symbols", "-e", "--exec", "-exec", "-se", "--se", "-cd", "--cd", "-tty", "--tty",
        "-data-directory", "--data-directory", "-D", "-i", "--interpreter", "-interpreter", "-b", "-l"};
    if (c.argc() == 1 && (c.arg(0) == "--version" || c.arg(0) == "-v" || c.arg(0) == "--help")) {
        a.hit(Decision::allow, "readonly.version", "`gdb " + c.arg(0) + "` prints its version");
        return;
    }
    a.hit(Decision::cage, "launch.debugger", "`" + c.name + "` runs and controls programs");
    for (size_t i = 0; i < c.argc(); ++i) {
        const Value& v = c.args[i];
        const std::string& t = v.text;
        if (t == "--args" || t == "-args") {
            run_wrapped(a, c, i + 1, false);  // the program it debugs, as `run` starts it
            return;
        }
        size_t eq = t.find('=');
        std::string name = t.substr(0, eq);
        if (std::find(std::begin(kWithArg), std::end(kWithArg), name) == std::end(kWithArg)) continue;
        Value val = v;
        if (eq != std::string::npos) {
            val.text = t.substr(eq + 1);
        } else if (i + 1 < c.argc()) {
            val = c.args[++i];
        } else {
            continue;
        }
        bool file = name == "-x" || name == "--x" || name == "-command" || name == "--command" || name == "-ix" ||
                    name == "--ix" || name == "-init-command" || name == "--init-command";
        bool command = !file && (name.find("ex") != std::string::npos || name.find("eval") != std::string::npos);
        if (command && !file) {
            gdb_commands(a, c, val);
        } else if (file) {
            if (a.refuse_tainted_script(val, *c.scope, "the gdb command file", false)) return;
            if (const std::string* text = a.file_text(val, *c.scope)) {
                for (const std::string& line : split_lines(*text)) gdb_commands(a, c, Value::literal(line));
            }
        }
    }
}

// ---- expect: a Tcl script; spawn and exec run programs, send types into what was spawned

// Tcl words of one command: "…" with backslash escapes, {…} literal, bare words.
std::vector<std::vector<std::string>> tcl_commands(std::string_view s) {
    std::vector<std::vector<std::string>> cmds(1);
    size_t i = 0;
    while (i < s.size()) {
        char ch = s[i];
        if (ch == ';' || ch == '\n') {
            if (!cmds.back().empty()) cmds.emplace_back();
            ++i;
            continue;
        }
        if (ch == ' ' || ch == '\t' || ch == '\r') {
            ++i;
            continue;
        }
        if (ch == '#' && cmds.back().empty()) {
            while (i < s.size() && s[i] != '\n') ++i;
            continue;
        }
        std::string w;
        if (ch == '{') {
            int d = 0;
            size_t j = i;
            for (; j < s.size(); ++j) {
                if (s[j] == '{') ++d;
                if (s[j] == '}' && --d == 0) break;
            }
            w = std::string(s.substr(i + 1, j - i - 1));
            i = j + 1;
        } else if (ch == '"') {
            ++i;
            while (i < s.size() && s[i] != '"') {
                if (s[i] == '\\' && i + 1 < s.size()) {
                    char e = s[++i];
                    w += e == 'r' || e == 'n' ? '\n' : e == 't' ? '\t' : e;
                    ++i;
                    continue;
                }
                w += s[i++];
            }
            ++i;
        } else {
            while (i < s.size() && s[i] != ' ' && s[i] != '\t' && s[i] != ';' && s[i] != '\n') w += s[i++];
        }
        cmds.back().push_back(std::move(w));
    }
    return cmds;
}

bool is_shell_name(std::string_view p) {
    std::string_view b = basename_of(p);
    return b == "sh" || b == "bash" || b == "dash" || b == "zsh" || b == "ksh" || b == "ash" || b == "fish";
}

void expect_script(Analyzer& a, Call& c, const std::string& script) {
    bool shell_spawned = false, other_spawned = false;
    for (const std::vector<std::string>& w : tcl_commands(script)) {
        if (w.empty()) continue;
        const std::string& cmd = w[0];
        size_t k = 1;
        while (k < w.size() && w[k].size() > 1 && w[k][0] == '-' && w[k] != "--") ++k;  // -noecho, -i id
        if (k < w.size() && w[k] == "--") ++k;
        std::vector<Value> argv;
        for (size_t j = k; j < w.size(); ++j) argv.push_back(Value::literal(w[j]));
        if (cmd == "spawn" || cmd == "exec") {
            if (argv.empty()) continue;
            if (cmd == "spawn") (is_shell_name(argv[0].text) ? shell_spawned : other_spawned) = true;
            if (cmd == "spawn" && is_shell_name(argv[0].text) && argv.size() == 1) continue;
            // As a command line: each word quoted, but a leading ~ left to expand (read the
            // way a person reading the script would).
            std::string line;
            for (const Value& v : argv) {
                line += line.empty() ? "" : " ";
                line += !v.text.empty() && (v.text[0] == '~' || v.text[0] == '$') &&
                                v.text.find_first_of(" '\"`\\;&|<>()") == std::string::npos
                            ? v.text
                            : shell_quote(v.text);
            }
            a.run_string(Value::literal(line), *c.scope, false, Stream(), "expect's " + cmd);
        } else if (cmd == "system") {
            a.run_string(join_values(argv, 0, " "), *c.scope, false, Stream(), "expect's system");
        } else if (cmd == "send" && !argv.empty()) {
            if (shell_spawned) {
                a.run_string(argv.back(), *c.scope, false, Stream(), "the text expect types into a shell");
            } else if (!other_spawned) {
                a.hit(Decision::cage, "launch.types", "expect types text into a program it did not start");
            }
        } else if (cmd == "eval" || cmd == "uplevel" || cmd == "source" || cmd == "interp") {
            a.hit(Decision::cage, "launch.session", "the expect script runs Tcl code built at run time");
        }
    }
}

void expect_program(Analyzer& a, Call& c) {
    a.hit(Decision::cage, "launch.session", "`expect` runs and drives programs");
    bool any = false;
    for (size_t i = 0; i < c.argc(); ++i) {
        const std::string& t = c.arg(i);
        if (t == "-c" && i + 1 < c.argc()) {
            any = true;
            if (!c.args[i + 1].known()) continue;
            expect_script(a, c, c.arg(++i));
        } else if ((t == "-f" || t == "-b") && i + 1 < c.argc()) {
            any = true;
            const Value& f = c.args[++i];
            if (a.refuse_tainted_script(f, *c.scope, "the expect script", false)) return;
            if (const std::string* text = a.file_text(f, *c.scope)) expect_script(a, c, *text);
        } else if (!is_flag(c.args[i]) && !any) {
            if (a.refuse_tainted_script(c.args[i], *c.scope, "the expect script", false)) return;
            if (const std::string* text = a.file_text(c.args[i], *c.scope)) expect_script(a, c, *text);
            return;
        }
    }
    if (!any && c.in.kind != Stream::Kind::none) {
        if (c.in.taint >= Taint::decoded) a.shell_reads(c.in, *c.scope, "expect", c);
        if (c.in.kind == Stream::Kind::literal) expect_script(a, c, c.in.text);
    }
}

}  // namespace

namespace {
// Every launcher of the table, plus those whose command needs more than option arities.
constexpr auto kLauncherPrograms = [] {
    constexpr ProgramEntry kSpecial[] = {
        {"alacritty", terminal_program},  {"capsh", capsh_program},       {"entr", entr_program},
        {"gnome-terminal", terminal_program}, {"hyperfine", hyperfine_program}, {"kitty", terminal_program},
        {"konsole", terminal_program},    {"nix-shell", nix_shell_program}, {"direnv", direnv_program},    {"mate-terminal", terminal_program}, {"perf", perf_program},
        {"terminator", terminal_program}, {"tilix", terminal_program},    {"urxvt", terminal_program},
        {"xfce4-terminal", terminal_program}, {"xterm", terminal_program}, {"tmux", tmux_program},
        {"screen", screen_program}, {"at", at_program}, {"batch", at_program}, {"atq", at_program},
        {"atrm", at_program}, {"gdb", gdb_program}, {"gdb-multiarch", gdb_program}, {"expect", expect_program},
    };
    std::array<ProgramEntry, kLaunchers.size() + std::size(kSpecial)> out{};
    size_t i = 0;
    for (const Launcher& l : kLaunchers) out[i++] = {l.name, launcher_program};
    for (const ProgramEntry& e : kSpecial) out[i++] = e;
    return sorted_by_name(out);
}();
}  // namespace

std::span<const ProgramEntry> launcher_programs() { return kLauncherPrograms; }

}  // namespace toolcage::classify::detail
