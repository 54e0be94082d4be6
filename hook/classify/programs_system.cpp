// System state, remote systems and the network: signals, cron, power, services, publishing,
// containers, cloud CLIs, ssh and downloads. What cannot be undone (killing every process,
// powering off, publishing, deleting volumes or cloud resources) is refused.
#include <algorithm>

#include "hook/classify/analyzer.h"
#include "hook/classify/program_table.h"
#include "hook/classify/text.h"

namespace toolcage::classify::detail {

namespace {

bool any_arg(const Call& c, std::initializer_list<std::string_view> words) {
    for (const Value& v : c.args) {
        for (std::string_view w : words) {
            if (v.text == w) return true;
        }
    }
    return false;
}

// The first words that are not options (subcommands), up to n of them.
std::vector<std::string> subcommands(const Call& c, size_t n,
                                     std::initializer_list<std::string_view> with_arg = {}) {
    std::vector<std::string> out;
    for (size_t i = 0; i < c.argc() && out.size() < n; ++i) {
        const Value& v = c.args[i];
        if (is_flag(v)) {
            if (v.text.find('=') == std::string::npos &&
                std::find(with_arg.begin(), with_arg.end(), v.text) != with_arg.end()) {
                ++i;
            }
            continue;
        }
        out.push_back(v.text);
    }
    return out;
}

bool is_version_query(const Call& c) {
    if (c.argc() != 1) return false;
    const std::string& t = c.arg(0);
    return t == "--version" || t == "-v" || t == "-V" || t == "version" || t == "--help" ||
           t == "-h" || t == "help";
}

std::vector<std::string> split_ws_lines(const std::string& text) {
    std::vector<std::string> out;
    size_t b = 0;
    while (b < text.size()) {
        size_t e = text.find('\n', b);
        if (e == std::string::npos) e = text.size();
        out.push_back(text.substr(b, e - b));
        b = e + 1;
    }
    return out;
}

// The command of one crontab line: after five time fields or an @nickname; "" for comments,
// blank lines and VAR=value lines.
std::string cron_command(const std::string& line) {
    std::vector<std::string> w = split_ws(line);
    if (w.empty() || w[0][0] == '#') return {};
    if (w[0].find('=') != std::string::npos && w[0][0] != '@' && w[0][0] != '*') return {};
    size_t fields = w[0][0] == '@' ? 1 : 5;
    size_t at = 0;
    for (size_t k = 0; k < fields; ++k) {
        at = line.find_first_not_of(" \t", at);
        if (at == std::string::npos) return {};
        at = line.find_first_of(" \t", at);
        if (at == std::string::npos) return {};
    }
    size_t b = line.find_first_not_of(" \t", at);
    return b == std::string::npos ? std::string() : line.substr(b);
}

// ---- processes, cron, power

void kill_program(Analyzer& a, Call& c) {
    size_t i = 0;
    std::string sig;
    if (i < c.argc() && is_flag(c.args[i]) && c.arg(i) != "--") {
        const std::string& t = c.arg(i);
        if (t == "-l" || t == "-L" || t == "--list" || t == "--table") {
            a.hit(Decision::allow, "kill.list", "`kill -l` lists signal names");
            return;
        }
        if ((t == "-s" || t == "-n" || t == "--signal") && i + 1 < c.argc()) {
            sig = c.arg(i + 1);
            i += 2;
        } else {
            sig = t.substr(1);
            ++i;
        }
    }
    if (i < c.argc() && c.arg(i) == "--") ++i;
    bool any_target = false;
    for (; i < c.argc(); ++i) {
        const Value& v = c.args[i];
        any_target = true;
        if (v.text == "-1") {
            a.hit(Decision::deny, "kill.all",
                  "`kill " + (sig.empty() ? "" : "-" + sig + " ") +
                      "-1` signals every process the user can reach");
            return;
        }
        if (v.text == "1") {
            a.hit(Decision::deny, "kill.init",
                  "`kill 1` signals init; as root it brings the system down");
            return;
        }
    }
    if (sig == "0" || sig == "s0") {
        a.hit(Decision::allow, "kill.check", "`kill -0` only checks that a process exists");
        return;
    }
    a.hit(any_target ? Decision::cage : Decision::allow, "kill.process",
          "`kill` sends a signal to processes");
}

// pkill, killall, skill: by name they are caged; by user, group, session or a pattern that
// matches every process they kill everything the user runs (the agent and its shell too).
void killall_program(Analyzer& a, Call& c) {
    if (c.name == "killall5") {
        a.hit(Decision::deny, "kill.all", "`killall5` signals every process on the system");
        return;
    }
    static const std::string_view kBroad[] = {"-u", "-U", "-G", "-g", "-s", "--euid", "--uid", "--group",
                                              "--pgroup", "--session", "--user", "-P", "--parent"};
    static const std::string_view kWithValue[] = {"-u", "-U", "-G", "-g", "-s", "-P", "-t", "--euid", "--uid",
                                                  "--group", "--pgroup", "--session", "--user", "--parent",
                                                  "--terminal", "--signal", "--ns", "--nslist", "-o", "-y",
                                                  "--older-than", "--younger-than", "-n"};
    // Signal 0 only tests that processes exist, whoever they belong to.
    for (size_t i = 0; i < c.argc(); ++i) {
        const std::string& t = c.arg(i);
        if (t == "-0" || t == "--signal=0" || t == "-SIG0" || ((t == "--signal" || (c.name == "killall" && t == "-s")) &&
                                                               i + 1 < c.argc() && c.arg(i + 1) == "0")) {
            a.hit(Decision::allow, "kill.check", "signal 0 only checks that the processes exist");
            return;
        }
    }
    bool zero = false;
    std::vector<std::string> patterns;
    for (size_t i = 0; i < c.argc(); ++i) {
        const Value& v = c.args[i];
        const std::string& t = v.text;
        if (!v.known()) {
            patterns.push_back(std::string(1, kUnknown));
            continue;
        }
        if (!is_flag(v)) {
            patterns.push_back(t);
            continue;
        }
        std::string name = t.substr(0, t.find('='));
        if (std::find(std::begin(kBroad), std::end(kBroad), name) != std::end(kBroad) &&
            !(c.name == "killall" && (name == "-s" || name == "-g"))) {
            a.hit(Decision::deny, "kill.all",
                  "`" + c.via + c.name + " " + t + "` signals every process of a user, group or session");
            return;
        }
        if (c.name == "killall" && (name == "-u" || name == "--user")) {
            a.hit(Decision::deny, "kill.all", "`killall -u` signals every process of a user");
            return;
        }
        std::string sig;
        if (name == "--signal" || (c.name == "killall" && name == "-s")) {
            sig = t.find('=') != std::string::npos ? t.substr(t.find('=') + 1) : (i + 1 < c.argc() ? c.arg(i + 1) : "");
        } else if (t.size() > 1 && t[1] != '-' && std::find(std::begin(kWithValue), std::end(kWithValue), name) == std::end(kWithValue)) {
            sig = t.substr(1);
        }
        if (sig == "0" || sig == "SIG0") zero = true;
        if (std::find(std::begin(kWithValue), std::end(kWithValue), name) != std::end(kWithValue) &&
            t.find('=') == std::string::npos && (name.size() > 2 || t.size() == 2)) {
            ++i;
        }
    }
    for (const std::string& p : patterns) {
        // A pattern every process name matches: ".", ".*", "^", "", an unknown value.
        std::string q = p;
        bool all = q.find(kUnknown) != std::string::npos;
        while (!q.empty() && (q.front() == '^' || q.front() == '.' || q.front() == '*')) q.erase(0, 1);
        while (!q.empty() && (q.back() == '$' || q.back() == '*' || q.back() == '.')) q.pop_back();
        if (q.empty() || all) {
            if (zero) break;
            a.hit(Decision::deny, "kill.all",
                  "`" + c.via + c.name + " " + shell_quote(p) + "` matches every process");
            return;
        }
    }
    if (zero) {
        a.hit(Decision::allow, "kill.check", "signal 0 only checks that the processes exist");
        return;
    }
    a.hit(Decision::cage, "kill.process", "`" + c.name + "` kills processes by name");
}

// crontab -l lists, -e edits, -r removes; any other form installs a crontab from a file or
// stdin: the user's jobs are replaced (nothing keeps the old ones) by jobs cron runs later,
// outside any cage. Both are refused; what the jobs would run is judged too, for the reason.
void crontab_program(Analyzer& a, Call& c) {
    bool edit = false, list = false;
    std::vector<size_t> files;
    for (size_t i = 0; i < c.argc(); ++i) {
        const Value& v = c.args[i];
        if (!is_flag(v)) {
            files.push_back(i);
            continue;
        }
        const std::string& t = v.text;
        if (t[1] != '-' && t.find('r') != std::string::npos) {
            a.hit(Decision::deny, "crontab.remove",
                  "`crontab -r` deletes the user's crontab without a copy");
            return;
        }
        if (t == "-u" || t == "-s") ++i;
        if (t.find('l') != std::string::npos) list = true;
        if (t.find('e') != std::string::npos) edit = true;
        if (t == "-T" || t == "-V" || t == "--help" || t == "-h") list = true;
    }
    if (list) {
        a.hit(Decision::allow, "crontab.list", "`crontab -l` prints the crontab");
        return;
    }
    if (edit) {
        a.hit(Decision::cage, "crontab.edit", "`crontab -e` edits the user's scheduled jobs");
        return;
    }
    // The jobs, when their text is known: each line after its schedule is a shell command.
    const std::string* text = nullptr;
    std::string from_stdin;
    bool reads_stdin = files.empty() || c.arg(files[0]) == "-";
    if (reads_stdin && c.in.kind == Stream::Kind::literal) {
        from_stdin = c.in.text;
        text = &from_stdin;
    } else if (!reads_stdin) {
        text = a.file_text(c.args[files[0]], *c.scope);
    }
    if (text) {
        ++a.probing;  // judged for the reason only: the install itself is refused below
        Decision saved = a.probe_max;
        a.probe_max = Decision::allow;
        for (const std::string& line : split_ws_lines(*text)) {
            std::string cmd = cron_command(line);
            if (!cmd.empty()) a.run_string(Value::literal(cmd), *c.scope, false, Stream(), "a crontab job");
        }
        Decision jobs = a.probe_max;
        a.probe_max = saved;
        --a.probing;
        if (jobs == Decision::deny) {
            a.hit(Decision::deny, "crontab.install", "`crontab` installs a job that would be destructive");
            return;
        }
    }
    a.hit(Decision::deny, "crontab.install",
          "`crontab " + (reads_stdin ? std::string("-") : c.arg(files[0])) +
              "` replaces the user's whole crontab (the old jobs are not kept) with jobs that run "
              "later, outside any cage");
}

void power_program(Analyzer& a, Call& c) {
    if (is_version_query(c) || (c.name == "shutdown" && any_arg(c, {"-c"}))) {
        a.hit(Decision::allow, "system.power-query", "`" + c.name + "` without action");
        return;
    }
    if ((c.name == "init" || c.name == "telinit") &&
        !(c.argc() == 1 &&
          std::string_view("0123456sSqQuU").find(c.arg(0)) != std::string_view::npos &&
          c.arg(0).size() == 1)) {
        a.hit(Decision::cage, "system.service", "`" + c.name + "` with these arguments");
        return;
    }
    a.hit(Decision::deny, "system.power",
          "`" + c.via + c.name + "` powers off, reboots or halts the machine");
}

void systemctl_program(Analyzer& a, Call& c) {
    std::vector<std::string> sub =
        subcommands(c, 1,
                    {"-H", "--host", "-M", "--machine", "-p", "--property", "-t", "--type", "-s",
                     "--signal", "--state", "-n", "--lines", "-o", "--output"});
    std::string s = sub.empty() ? "list-units" : sub[0];
    static const std::string_view kPower[] = {
        "poweroff", "reboot",    "halt",         "kexec",
        "suspend",  "hibernate", "hybrid-sleep", "suspend-then-hibernate",
        "rescue",   "emergency", "isolate",      "soft-reboot",
        "default",  "exit"};
    if (std::find(std::begin(kPower), std::end(kPower), s) != std::end(kPower)) {
        a.hit(Decision::deny, "system.power",
              "`systemctl " + s + "` changes the machine's power or run state");
        return;
    }
    if (s.rfind("list-", 0) == 0 || s.rfind("is-", 0) == 0 || s == "status" || s == "show" ||
        s == "cat" || s == "get-default" || s == "help" || s == "--version" ||
        s == "show-environment") {
        a.hit(Decision::allow, "systemctl.query", "`systemctl " + s + "` only reads");
        return;
    }
    a.hit(Decision::cage, "system.service", "`systemctl " + s + "` changes services");
}

void service_program(Analyzer& a, Call& c) {
    if (c.argc() >= 2 && (c.arg(1) == "status")) {
        a.hit(Decision::allow, "systemctl.query", "`service … status` only reads");
        return;
    }
    if (c.argc() == 1 && c.arg(0) == "--status-all") {
        a.hit(Decision::allow, "systemctl.query", "`service --status-all` only reads");
        return;
    }
    a.hit(Decision::cage, "system.service", "`service` starts or stops services");
}

// ---- containers

void container_program(Analyzer& a, Call& c) {
    std::vector<std::string> sub = subcommands(
        c, 3,
        {"-H", "--host", "--context", "-c", "--config", "-l", "--log-level", "-f", "--file", "-p",
         "--project-name", "--profile", "--env-file", "--project-directory"});
    bool compose = c.name == "docker-compose" || c.name == "podman-compose" ||
                   (!sub.empty() && sub[0] == "compose");
    std::string s = sub.empty() ? ""
                                : sub[compose && c.name.find("compose") == std::string::npos
                                          ? std::min<size_t>(1, sub.size() - 1)
                                          : 0];
    if (compose) {
        if (s == "down" && (any_arg(c, {"-v", "--volumes"}))) {
            a.hit(Decision::deny, "docker.volumes",
                  "`compose down -v` deletes the project's named volumes and their data");
            return;
        }
        if (s == "rm" && any_arg(c, {"-v", "--volumes"})) {
            a.hit(Decision::deny, "docker.volumes", "`compose rm -v` deletes volumes");
            return;
        }
        if (s == "ps" || s == "logs" || s == "config" || s == "ls" || s == "images" || s == "top" ||
            s == "version") {
            a.hit(Decision::allow, "docker.query", "`compose " + s + "` only reads");
            return;
        }
        a.hit(Decision::cage, "docker.run", "`compose " + s + "` starts or changes containers");
        return;
    }
    std::string s2 = sub.size() > 1 ? sub[1] : "";
    // -a inside a bundle (-af) counts as -a.
    bool all = any_arg(c, {"-a", "--all", "--volumes"}) ||
               std::any_of(c.args.begin(), c.args.end(), [](const Value& v) {
                   return v.text.size() > 2 && v.text[0] == '-' && v.text[1] != '-' &&
                          v.text.find('a') != std::string::npos;
               });
    // rm -v deletes the container's anonymous volumes with it; secrets, configs and stacks have
    // no copy; -f on a run-time list (`docker rm -f $(docker ps -aq)`) kills and deletes every
    // container, running ones too.
    bool container_rm = s == "rm" || (s == "container" && (s2 == "rm" || s2 == "remove"));
    if (container_rm) {
        bool volumes = std::any_of(c.args.begin(), c.args.end(), [](const Value& v) {
            return v.text == "--volumes" ||
                   (v.text.size() > 1 && v.text[0] == '-' && v.text[1] != '-' && v.text.find('v') != std::string::npos);
        });
        bool force = std::any_of(c.args.begin(), c.args.end(), [](const Value& v) {
            return v.text == "--force" ||
                   (v.text.size() > 1 && v.text[0] == '-' && v.text[1] != '-' && v.text.find('f') != std::string::npos);
        });
        // A whole run-time word split into names (unquoted $(docker ps -q), xargs' items).
        bool from_xargs = c.via.find("xargs") != std::string::npos;
        bool listing = std::any_of(c.args.begin(), c.args.end(), [&](const Value& v) {
            return (v.splits || from_xargs) && v.unknown && v.text.find_first_not_of(kUnknown) == std::string::npos;
        });
        if (volumes) {
            a.hit(Decision::deny, "docker.volumes",
                  "`" + c.name + " rm -v` deletes the container's volumes with their data; `" + c.name +
                      " rm` without -v keeps them");
            return;
        }
        if (force && listing) {
            a.hit(Decision::deny, "docker.remove-all",
                  "`" + c.name + " rm -f` of a list made at run time kills and deletes every container it names, "
                  "running ones too; `" + c.name + " container prune` deletes only stopped ones");
            return;
        }
    }
    if ((s == "secret" || s == "config") && (s2 == "rm" || s2 == "remove")) {
        a.hit(Decision::deny, "docker.volumes",
              "`" + c.name + " " + s + " " + s2 + "` deletes the " + s + " for good: the swarm keeps no copy");
        return;
    }
    if ((s == "stack" && (s2 == "rm" || s2 == "remove" || s2 == "down")) ||
        (s == "swarm" && s2 == "leave" && any_arg(c, {"--force", "-f"}))) {
        a.hit(Decision::deny, "docker.volumes",
              "`" + c.name + " " + s + " " + s2 + "` removes a whole stack or swarm with its services, secrets and "
              "networks");
        return;
    }
    if ((s == "volume" && (s2 == "rm" || s2 == "prune" || s2 == "remove")) ||
        (s == "system" && s2 == "prune" && all)) {
        a.hit(Decision::deny, "docker.volumes",
              "`" + c.name + " " + s + " " + s2 + "` deletes volumes or all images for good");
        return;
    }
    // The whole engine back to its first state: every container, image, volume and network.
    if ((s == "system" && s2 == "reset") || (c.name == "podman" && s == "machine" && s2 == "reset")) {
        a.hit(Decision::deny, "docker.volumes",
              "`" + c.name + " " + s + " " + s2 +
                  "` deletes every container, image and volume with their data");
        return;
    }
    if (s == "push" || (s == "image" && s2 == "push") || (s == "manifest" && s2 == "push")) {
        a.hit(Decision::deny, "publish.image", "`" + c.name + " push` publishes an image");
        return;
    }
    static const std::string_view kRead[] = {"ps",     "images", "logs",   "inspect",   "version",
                                             "info",   "stats",  "top",    "port",      "history",
                                             "events", "diff",   "search", "--version", "-v"};
    if (std::find(std::begin(kRead), std::end(kRead), s) != std::end(kRead) ||
        ((s == "image" || s == "container" || s == "volume" || s == "network" || s == "context") &&
         (s2 == "ls" || s2 == "list" || s2 == "inspect"))) {
        a.hit(Decision::allow, "docker.query", "`" + c.name + " " + s + "` only reads");
        return;
    }
    if (s == "run" || s == "create" || (s == "container" && (s2 == "run" || s2 == "create"))) {
        // Host access from a container: privileged mode or bind mounts of the system or home.
        for (size_t i = 0; i < c.argc(); ++i) {
            const std::string& t = c.arg(i);
            if (t == "--privileged" || t == "--pid=host" ||
                t.rfind("--cap-add=SYS_ADMIN", 0) == 0 || t == "--cap-add=ALL") {
                a.hit(Decision::deny, "docker.host-access",
                      "`" + c.name + " run " + t + "` gives the container control of the host");
                continue;
            }
            std::string src;
            if ((t == "-v" || t == "--volume") && i + 1 < c.argc()) src = c.arg(i + 1);
            if (t.rfind("-v", 0) == 0 && t.size() > 2 && t[2] != '-') src = t.substr(2);
            if (t.rfind("--volume=", 0) == 0) src = t.substr(9);
            std::string mount;
            if (t == "--mount" && i + 1 < c.argc()) mount = c.arg(i + 1);
            if (t.rfind("--mount=", 0) == 0) mount = t.substr(8);
            if (!mount.empty()) {
                for (const char* key : {"source=", "src="}) {
                    size_t k = mount.find(key);
                    if (k != std::string::npos)
                        src = mount.substr(k + std::string_view(key).size(),
                                           mount.find(',', k) - k - std::string_view(key).size());
                }
            }
            if (src.empty()) continue;
            src = src.substr(0, src.find(':'));
            if (src.empty() || (src[0] != '/' && src[0] != '.' && src[0] != '~'))
                continue;  // a named volume
            Value v = (i + 1 < c.argc() && (t == "-v" || t == "--volume")) ? c.args[i + 1]
                                                                           : Value::literal(src);
            v.text = src;
            if (src[0] == '~') v.text = a.ctx().home + src.substr(1);
            for (const PathInfo& p : a.resolve(v, *c.scope)) {
                if (p.cls == PathClass::root || p.cls == PathClass::system || p.secret ||
                    p.secret_dir) {
                    a.hit(Decision::deny, "docker.host-access",
                          "`" + c.name + " run -v " + src + "` lets the container change " + src +
                              " on the host");
                }
            }
        }
    }
    if (s == "exec" && sub.size() >= 3) {
        // The command runs inside a long-lived container: judge it there.
        size_t i = 0;
        while (i < c.argc() && c.arg(i) != "exec") ++i;
        ++i;
        while (i < c.argc() && is_flag(c.args[i])) {
            const std::string& t = c.arg(i);
            if (t == "-e" || t == "--env" || t == "-u" || t == "--user" || t == "-w" ||
                t == "--workdir" || t == "--env-file" || t == "--detach-keys") {
                ++i;
            }
            ++i;
        }
        if (i + 1 < c.argc()) {
            bool was = a.remote();
            a.set_remote(true);
            Scope remote;
            remote.cwd = a.ctx().cwd;
            Call proto;
            proto.scope = &remote;
            proto.remote = true;
            proto.in = c.in;  // docker exec -i: what it reads reaches the command inside
            a.exec_argv(std::vector<Value>(c.args.begin() + static_cast<long>(i) + 1, c.args.end()),
                        proto);
            a.set_remote(was);
        }
    }
    a.hit(Decision::cage, "docker.run", "`" + c.name + " " + s + "` runs or changes containers");
}

// ---- cloud and infrastructure CLIs

void cloud_program(Analyzer& a, Call& c) {
    if (is_version_query(c)) {
        a.hit(Decision::allow, "readonly.version", "`" + c.name + "` prints its version");
        return;
    }
    std::vector<std::string> sub = subcommands(c, 8);
    judge_sql_options(a, c);
    if (c.name == "vault" && !sub.empty()) {
        // seal: every secret is locked until the key holders unseal it; revoke: tokens and
        // leases (the credentials they gave out) stop working; disable: a secrets engine's or
        // auth method's data is deleted with it.
        const std::string& s0 = sub[0];
        const std::string s1 = sub.size() > 1 ? sub[1] : "";
        bool seal = s0 == "seal" || (s0 == "operator" && s1 == "seal");
        bool revoke = s0 == "revoke" || s1 == "revoke" || s1 == "revoke-orphan" || s1 == "revoke-self";
        bool disable = (s0 == "secrets" || s0 == "auth" || s0 == "audit") && s1 == "disable";
        if (seal || revoke || disable) {
            a.hit(Decision::deny, "cloud.delete",
                  "`vault " + s0 + (s1.empty() ? "" : " " + s1) + "` " +
                      (seal ? "seals the vault: no secret can be read until its key holders unseal it"
                            : revoke ? "revokes tokens or leases: what used them is locked out"
                                     : "disables a secrets engine or auth method, deleting its data"));
            return;
        }
    }
    if (c.name == "aws" && sub.size() >= 2 && sub[0] == "s3") {
        if (sub[1] == "rm" || sub[1] == "rb") {
            a.hit(Decision::deny, "cloud.delete",
                  "`aws s3 " + sub[1] + "` deletes objects or buckets");
            return;
        }
        if (sub[1] == "sync" && any_arg(c, {"--delete"})) {
            a.hit(Decision::deny, "cloud.delete",
                  "`aws s3 sync --delete` deletes objects missing from the source");
            return;
        }
    }
    static const std::string_view kWords[] = {"delete",   "destroy",       "remove", "terminate",
                                              "purge",    "wipe",          "rb",     "rm",
                                              "pg:reset", "reset-database", "del"};
    for (const std::string& s : sub) {
        bool del = std::find(std::begin(kWords), std::end(kWords), s) != std::end(kWords) ||
                   s.rfind("delete-", 0) == 0 || s.rfind("terminate-", 0) == 0 ||
                   s.rfind("remove-", 0) == 0 || s.rfind("destroy", 0) == 0 ||
                   s.rfind("deregister-", 0) == 0 || s.rfind("purge-", 0) == 0 ||
                   contains(s, ":delete") || contains(s, ":destroy") || contains(s, ":remove");
        if (del) {
            a.hit(Decision::deny, "cloud.delete",
                  "`" + c.name + " … " + s + "` deletes cloud resources");
            return;
        }
    }
    a.hit(Decision::cage, "cloud.cli", "`" + c.name + "` acts on cloud resources");
}

void terraform_program(Analyzer& a, Call& c) {
    std::vector<std::string> sub = subcommands(c, 3, {"-chdir"});
    std::string s = sub.empty() ? "" : sub[0];
    // terragrunt run-all destroy, terragrunt run -- destroy
    if ((s == "run-all" || s == "run") && sub.size() > 1) s = sub[1];
    bool replace = std::any_of(c.args.begin(), c.args.end(), [](const Value& v) {
        return v.text == "-replace" || v.text.rfind("-replace=", 0) == 0 || v.text == "--replace" ||
               v.text.rfind("--replace=", 0) == 0;
    });
    if ((s == "apply" && replace) || s == "taint") {
        a.hit(Decision::deny, "infra.destroy",
              "`" + c.name + " " + s + (replace ? " -replace" : "") +
                  "` destroys the resource and creates a new one: its data (a database, a disk) is lost. `" +
                  c.name + " plan -replace=…` shows what would go");
        return;
    }
    if (s == "destroy" || (s == "apply" && any_arg(c, {"-destroy", "--destroy"})) ||
        (s == "state" && sub.size() > 1 && (sub[1] == "rm" || sub[1] == "push")) ||
        (s == "workspace" && sub.size() > 1 && sub[1] == "delete")) {
        a.hit(Decision::deny, "infra.destroy",
              "`" + c.name + " " + s + "` destroys infrastructure or its state");
        return;
    }
    if (s == "version" || s == "-version" || s == "--version" || s == "fmt" || s == "validate" ||
        s == "show" || s == "output") {
        a.hit(Decision::cage, "infra.read", "`" + c.name + " " + s + "` reads configuration");
        return;
    }
    a.hit(Decision::cage, "infra.change",
          "`" + c.name + " " + s + "` plans or changes infrastructure");
}

void pulumi_program(Analyzer& a, Call& c) {
    std::vector<std::string> sub = subcommands(c, 2);
    if (!sub.empty() &&
        (sub[0] == "destroy" || (sub[0] == "stack" && sub.size() > 1 && sub[1] == "rm"))) {
        a.hit(Decision::deny, "infra.destroy", "`pulumi " + sub[0] + "` destroys infrastructure");
        return;
    }
    a.hit(Decision::cage, "infra.change", "`pulumi` plans or changes infrastructure");
}

void kubectl_program(Analyzer& a, Call& c) {
    std::vector<std::string> sub = subcommands(
        c, 2,
        {"-n", "--namespace", "--context", "--kubeconfig", "-l", "--selector", "-o", "--output",
         "-f", "--filename", "-c", "--container", "--cluster", "--user", "-s", "--server"});
    std::string s = sub.empty() ? "" : sub[0];
    if (s == "drain" && std::any_of(c.args.begin(), c.args.end(), [](const Value& v) {
            return v.text == "--force" || v.text.rfind("--force=", 0) == 0 ||
                   v.text.rfind("--delete-emptydir-data", 0) == 0 || v.text.rfind("--delete-local-data", 0) == 0 ||
                   v.text.rfind("--disable-eviction", 0) == 0;
        })) {
        a.hit(Decision::deny, "kubectl.delete",
              "`kubectl drain --force` deletes the node's pods, those no controller recreates too, with their "
              "emptyDir data; `kubectl cordon` stops new pods without deleting any");
        return;
    }
    if (s == "delete" || (s == "replace" && any_arg(c, {"--force"})) ||
        (s == "apply" && any_arg(c, {"--prune"}))) {
        a.hit(Decision::deny, "kubectl.delete", "`kubectl " + s + "` deletes cluster resources");
        return;
    }
    static const std::string_view kRead[] = {
        "get",     "describe",      "logs",         "top",          "explain",
        "version", "api-resources", "api-versions", "cluster-info", "diff"};
    if (std::find(std::begin(kRead), std::end(kRead), s) != std::end(kRead) ||
        (s == "config" && sub.size() > 1 &&
         (sub[1] == "view" || sub[1].rfind("get-", 0) == 0 || sub[1] == "current-context")) ||
        (s == "auth" && sub.size() > 1 && sub[1] == "can-i")) {
        a.hit(Decision::allow, "kubectl.query", "`kubectl " + s + "` only reads");
        return;
    }
    if (s == "exec") {
        size_t i = 0;
        while (i < c.argc() && c.arg(i) != "--") ++i;
        if (i + 1 < c.argc()) {
            bool was = a.remote();
            a.set_remote(true);
            Scope remote;
            remote.cwd = a.ctx().cwd;
            Call proto;
            proto.scope = &remote;
            proto.remote = true;
            proto.in = c.in;  // kubectl exec -i: what it reads reaches the command inside
            a.exec_argv(std::vector<Value>(c.args.begin() + static_cast<long>(i) + 1, c.args.end()),
                        proto);
            a.set_remote(was);
        }
    }
    a.hit(Decision::cage, "kubectl.change", "`kubectl " + s + "` changes the cluster");
}

void helm_program(Analyzer& a, Call& c) {
    std::vector<std::string> sub =
        subcommands(c, 1, {"-n", "--namespace", "--kube-context", "--kubeconfig"});
    std::string s = sub.empty() ? "" : sub[0];
    if (s == "uninstall" || s == "delete" || s == "del" || s == "un") {
        a.hit(Decision::deny, "kubectl.delete",
              "`helm " + s + "` deletes a release and its resources");
        return;
    }
    if (s == "push") {
        a.hit(Decision::deny, "publish.package", "`helm push` publishes a chart");
        return;
    }
    if (s == "list" || s == "ls" || s == "status" || s == "get" || s == "history" || s == "show" ||
        s == "template" || s == "lint" || s == "version" || s == "search" || s == "env") {
        a.hit(Decision::allow, "kubectl.query", "`helm " + s + "` only reads");
        return;
    }
    a.hit(Decision::cage, "kubectl.change", "`helm " + s + "` changes the cluster");
}

void gh_program(Analyzer& a, Call& c) {
    std::vector<std::string> sub =
        subcommands(c, 2, {"-R", "--repo", "-X", "--method", "-H", "--header"});
    std::string s0 = sub.size() > 0 ? sub[0] : "", s1 = sub.size() > 1 ? sub[1] : "";
    if ((s0 == "release" &&
         (s1 == "create" || s1 == "delete" || s1 == "upload" || s1 == "delete-asset")) ||
        (s0 == "repo" && (s1 == "delete" || s1 == "archive")) ||
        // issues, labels, secrets, keys, codespaces, runs: GitHub keeps no copy (caches are rebuilt)
        ((s1 == "delete" || s1 == "remove" || s1 == "rm") && s0 != "cache")) {
        a.hit(Decision::deny, "publish.release",
              "`gh " + s0 + " " + s1 + "` publishes or deletes on GitHub");
        return;
    }
    // Files handed to GitHub (gist create FILE, release upload FILE, --body-file, api --input,
    // api -F key=@file): credentials among them would be published.
    bool takes_files = (s0 == "gist" && (s1 == "create" || s1 == "new" || s1 == "edit")) ||
                       (s0 == "release" && s1 == "upload");
    for (size_t i = 0; i < c.argc(); ++i) {
        const Value& v = c.args[i];
        const std::string& t = v.text;
        if ((t == "-F" || t == "--body-file" || t == "--input" || t == "--field") &&
            i + 1 < c.argc()) {
            Value file = c.args[i + 1];
            size_t at = file.text.find("=@");
            if (t == "--field" || (t == "-F" && s0 == "api")) {  // elsewhere -F is --body-file
                if (at == std::string::npos) continue;
                file.text = file.text.substr(at + 2);
            }
            if (file.text == "-") {
                judge_secrets_sent(a, c, true);
            } else {
                a.check_read(file, "gh " + s0 + " " + t, *c.scope);
            }
        } else if (takes_files && !is_flag(v) && t != s0 && t != s1) {
            if (t == "-") {
                judge_secrets_sent(a, c, true);
            } else {
                a.check_read(v, "gh " + s0 + " " + s1, *c.scope);
            }
        }
    }
    // A private repository made public: its code, history and any secret ever committed are
    // published at once.
    bool to_public = false;
    if (s0 == "repo" && (s1 == "edit" || s1 == "create")) {
        for (size_t i = 0; i < c.argc(); ++i) {
            const std::string& t = c.arg(i);
            if ((t == "--visibility" && i + 1 < c.argc() && lower(c.arg(i + 1)) == "public") ||
                lower(t) == "--visibility=public") {
                to_public = true;
            }
            if (s1 == "create" && t == "--public" &&
                std::any_of(c.args.begin(), c.args.end(), [](const Value& v) {
                    return v.text == "--push" || v.text == "-s" || v.text.rfind("--source", 0) == 0;
                })) {
                to_public = true;
            }
        }
    }
    if (s0 == "api") {
        std::string m;
        for (size_t i = 0; i < c.argc(); ++i) {
            const std::string& t = c.arg(i);
            if ((t == "-X" || t == "--method") && i + 1 < c.argc()) m = c.arg(i + 1);
            if (t.rfind("--method=", 0) == 0) m = t.substr(9);
            if (t.rfind("-X", 0) == 0 && t.size() > 2) m = t.substr(2);
            std::string l = lower(t);
            if (l == "visibility=public" || l == "private=false") to_public = true;
        }
        if (lower(m) == "delete") {
            a.hit(Decision::deny, "publish.release", "`gh api -X DELETE` deletes on GitHub");
            return;
        }
    }
    if (to_public) {
        a.hit(Decision::deny, "publish.visibility",
              "`gh " + s0 + " " + s1 +
                  "` makes a repository public: its code, its history and every secret ever committed "
                  "are published");
        return;
    }
    a.hit(Decision::cage, "net.service", "`gh " + s0 + "` talks to GitHub");
}

// ---- remote shells and downloads

void ssh_program(Analyzer& a, Call& c) {
    Opts o = parse_opts(c.args, 0, "BbcDEeFIiJLlmOopQRSWw", {}, true);
    for (const std::string& opt : o.values("-o")) {
        std::string l = lower(opt);
        for (const char* key : {"proxycommand", "localcommand", "knownhostscommand"}) {
            if (l.rfind(key, 0) == 0) {
                std::string cmd = opt.substr(std::string_view(key).size());
                while (!cmd.empty() && (cmd[0] == '=' || cmd[0] == ' ')) cmd.erase(0, 1);
                a.run_string(Value::literal(cmd), *c.scope, false, Stream(),
                             "ssh -o " + std::string(key));
            }
        }
    }
    if (o.end >= c.argc()) {
        a.hit(Decision::cage, "ssh.session", "`ssh` without a host");
        return;
    }
    judge_secrets_sent(a, c, true);
    size_t cmd_at = o.end + 1;
    bool was = a.remote();
    a.set_remote(true);
    Scope remote;
    remote.cwd = a.ctx().cwd;
    if (cmd_at < c.argc()) {
        // ssh joins its arguments with spaces and the remote shell parses them again.
        a.run_string(join_values(c.args, cmd_at, " "), remote, true, c.in,
                     "the command run on " + c.arg(o.end));
        a.set_remote(was);
        a.hit(Decision::cage, "ssh.remote-command",
              "`ssh " + c.arg(o.end) + "` runs a command on another host");
        return;
    }
    if (c.in.kind == Stream::Kind::literal) {
        a.run_string(Value::literal(c.in.text), remote, true, Stream(),
                     "the script sent to " + c.arg(o.end));
    }
    a.set_remote(was);
    a.hit(Decision::cage, "ssh.session",
          "`ssh " + c.arg(o.end) + "` opens a session on another host");
}

std::string url_basename(const std::string& url) {
    std::string u = url;
    size_t q = u.find_first_of("?#");
    if (q != std::string::npos) u = u.substr(0, q);
    size_t scheme = u.find("://");
    std::string path = scheme == std::string::npos ? u : u.substr(scheme + 3);
    size_t slash = path.find('/');
    if (slash == std::string::npos) return "index.html";
    std::string base(basename_of(path));
    return base.empty() || base == path.substr(0, slash) ? "index.html" : base;
}

void remember_download(Analyzer& a, Call& c, const Value& file) {
    a.remember_taint(file, Taint::remote, *c.scope);
}

void curl_program(Analyzer& a, Call& c) {
    if (is_version_query(c)) {
        a.hit(Decision::allow, "readonly.version", "`curl --version` prints its version");
        return;
    }
    Opts o = parse_opts(c.args, 0, "odFTHAuXebcKwxmrzEYyCDQU",
                        {"--output",       "--data",          "--data-binary",
                         "--data-raw",     "--data-ascii",    "--data-urlencode",
                         "--form",         "--form-string",   "--upload-file",
                         "--header",       "--user-agent",    "--user",
                         "--request",      "--referer",       "--cookie",
                         "--cookie-jar",   "--config",        "--write-out",
                         "--proxy",        "--max-time",      "--connect-timeout",
                         "--range",        "--time-cond",     "--cert",
                         "--key",          "--cacert",        "--capath",
                         "--continue-at",  "--retry",         "--resolve",
                         "--url",          "--interface",     "--dump-header",
                         "--trace",        "--trace-ascii",   "--stderr",
                         "--output-dir",   "--netrc-file",    "--quote",
                         "--limit-rate",   "--proxy-user",    "--json",
                         "--libcurl",      "--retry-delay",   "--retry-max-time",
                         "--max-filesize", "--oauth2-bearer", "--aws-sigv4"},
                        false);
    bool to_stdout = true;
    bool sends_stdin = false;
    std::string method;
    std::vector<std::string> urls;
    for (size_t k : o.operands) urls.push_back(c.arg(k));
    for (const Opts::Flag& f : o.flags) {
        Value v = f.value ? *f.value : Value::literal(f.inline_value);
        const std::string& n = f.name;
        auto is = [&](std::string_view s, std::string_view l) {
            return n == s || (n.size() > 3 && l.rfind(n, 0) == 0 && n[1] == '-');
        };
        // What reads stdin or a file into the request: @-, <-, -T -, @/dev/stdin, @<(…).
        if (is("-d", "--data") || n == "--data-binary" || n == "--data-ascii" || n == "--json" ||
            n == "--data-urlencode" || n == "--data-raw" || is("-F", "--form") || is("-T", "--upload-file")) {
            const std::string& t = v.text;
            bool upload = is("-T", "--upload-file");
            if ((upload && (t == "-" || t == ".")) || contains(t, "@-") || contains(t, "<-") ||
                contains(t, "/dev/stdin") || contains(t, "/dev/fd/0")) {
                sends_stdin = true;
            }
            if (v.procsub && v.procsub->secret) {
                Call from = c;
                from.in = *v.procsub;
                judge_secrets_sent(a, from, true);
            }
            if (!upload && method.empty()) method = "POST";
        }
        if (is("-X", "--request")) method = v.text;
        if (n == "--url") urls.push_back(v.text);
        if (is("-o", "--output")) {
            to_stdout = v.text == "-";
            if (!to_stdout) {
                a.check_write(v, WriteMode::truncate, "curl -o", *c.scope);
                remember_download(a, c, v);
            }
        } else if (n == "-O" || n == "--remote-name" || n == "--remote-name-all") {
            to_stdout = false;
            for (size_t k : o.operands) {
                Value file = Value::literal(url_basename(c.arg(k)));
                a.check_write(file, WriteMode::truncate, "curl -O", *c.scope);
                remember_download(a, c, file);
            }
        } else if (is("-c", "--cookie-jar") || is("-D", "--dump-header") || n == "--trace" ||
                   n == "--trace-ascii" || n == "--stderr" || n == "--libcurl") {
            if (v.text != "-") a.check_write(v, WriteMode::truncate, "curl " + n, *c.scope);
        } else if (is("-d", "--data") || n == "--data-binary" || n == "--data-ascii" ||
                   n == "--json" || n == "--data-urlencode") {
            size_t at = v.text.find('@');
            if (at != std::string::npos && (at == 0 || n == "--data-urlencode")) {
                Value file = v;
                file.text = v.text.substr(at + 1);
                if (file.text != "-") a.check_read(file, "curl " + n, *c.scope);
            }
        } else if (is("-F", "--form")) {
            size_t eq = v.text.find('=');
            if (eq != std::string::npos && eq + 1 < v.text.size() &&
                (v.text[eq + 1] == '@' || v.text[eq + 1] == '<')) {
                Value file = v;
                file.text = v.text.substr(eq + 2);
                size_t semi = file.text.find(';');
                if (semi != std::string::npos) file.text = file.text.substr(0, semi);
                a.check_read(file, "curl " + n, *c.scope);
            }
        } else if (is("-T", "--upload-file") || is("-K", "--config") || n == "--netrc-file") {
            a.check_read(v, "curl " + n, *c.scope);
        }
    }
    for (size_t k : o.operands) {
        const std::string& u = c.arg(k);
        if (lower(u).rfind("file://", 0) == 0)
            a.check_read(Value::literal(u.substr(7)), "curl file://", *c.scope);
    }
    judge_secrets_sent(a, c, sends_stdin);
    judge_http_request(a, c, method, urls);
    if (to_stdout) c.out = Stream::unknown_data(Taint::remote);
    a.hit(Decision::cage, "net.fetch", "`curl` talks to the network");
}

void wget_program(Analyzer& a, Call& c) {
    if (is_version_query(c)) {
        a.hit(Decision::allow, "readonly.version", "`wget --version` prints its version");
        return;
    }
    Opts o =
        parse_opts(c.args, 0, "OoaPiUeTtwlQAR",
                   {"--output-document", "--output-file",  "--append-output", "--directory-prefix",
                    "--input-file",      "--post-file",    "--body-file",     "--post-data",
                    "--body-data",       "--load-cookies", "--save-cookies",  "--user-agent",
                    "--header",          "--user",         "--password",      "--timeout",
                    "--tries",           "--wait",         "--execute",       "--method",
                    "--level",           "--accept",       "--reject",        "--referer"},
                   false);
    bool to_stdout = false;
    bool named = false;
    std::string dir = ".";
    std::string method;
    bool sends_stdin = false;
    std::vector<std::string> urls;
    for (size_t k : o.operands) urls.push_back(c.arg(k));
    for (const Opts::Flag& f : o.flags) {
        Value v = f.value ? *f.value : Value::literal(f.inline_value);
        const std::string& n = f.name;
        if (n == "--method") method = v.text;
        if (method.empty() && (n.rfind("--post-", 0) == 0 || n.rfind("--body-", 0) == 0)) method = "POST";
        if ((n == "--post-file" || n == "--body-file") &&
            (v.text == "-" || v.text == "/dev/stdin" || v.text == "/dev/fd/0")) {
            sends_stdin = true;
        }
        if (n == "-O" || n.rfind("--output-d", 0) == 0) {
            named = true;
            if (v.text == "-") {
                to_stdout = true;
            } else {
                a.check_write(v, WriteMode::truncate, "wget -O", *c.scope);
                remember_download(a, c, v);
            }
        } else if (n == "-o" || n == "-a" || n.rfind("--output-f", 0) == 0 ||
                   n.rfind("--append", 0) == 0 || n == "--save-cookies") {
            a.check_write(v, n == "-a" ? WriteMode::append : WriteMode::truncate, "wget " + n,
                          *c.scope);
        } else if (n == "-P" || n.rfind("--directory", 0) == 0) {
            dir = v.text;
        } else if (n == "--post-file" || n == "--body-file" || n == "-i" || n == "--input-file" ||
                   n == "--load-cookies") {
            a.check_read(v, "wget " + n, *c.scope);
        } else if (n == "-e" || n == "--execute") {
            a.hit(Decision::cage, "net.fetch", "wget -e runs wgetrc commands");
        }
    }
    if (!named) {
        for (size_t k : o.operands) {
            Value file = Value::literal(dir + "/" + url_basename(c.arg(k)));
            a.check_write(file, WriteMode::truncate, "wget", *c.scope);
            remember_download(a, c, file);
            remember_download(a, c, Value::literal(url_basename(c.arg(k))));
        }
    }
    judge_secrets_sent(a, c, sends_stdin);
    judge_http_request(a, c, method, urls);
    if (to_stdout) c.out = Stream::unknown_data(Taint::remote);
    a.hit(Decision::cage, "net.fetch", "`wget` downloads from the network");
}

void net_stdout_program(Analyzer& a, Call& c) {
    // httpie, nc, socat, …: what they print came from the network, and they send what they read.
    bool httpie = c.name == "http" || c.name == "https" || c.name == "xh" || c.name == "xhs";
    bool ignores_stdin = false;
    std::vector<std::string> operands;
    for (const Value& v : c.args) {
        if (v.text == "--ignore-stdin" || v.text == "-I") ignores_stdin = true;
        if (!is_flag(v)) operands.push_back(v.text);
    }
    judge_secrets_sent(a, c,
                       !ignores_stdin && c.name != "aria2c" && c.name != "lynx" && c.name != "w3m" && c.name != "fetch");
    if (httpie && !operands.empty()) {
        // http [METHOD] URL [items]: the method is a word of letters before the URL.
        // (an option's value, such as -a user:pw, may come before it).
        static const std::string_view kMethods[] = {"get", "head", "post", "put", "patch", "delete", "options"};
        size_t m = 0;
        while (m + 1 < operands.size() &&
               std::find(std::begin(kMethods), std::end(kMethods), lower(operands[m])) == std::end(kMethods))
            ++m;
        bool has_method = m + 1 < operands.size();
        std::string method = has_method ? lower(operands[m]) : (operands.size() > 1 ? "post" : "get");
        std::vector<std::string> urls;
        for (size_t k = has_method ? m + 1 : 0; k < operands.size(); ++k) urls.push_back(operands[k]);
        judge_http_request(a, c, method, urls);
    }
    for (size_t i = 0; i < c.argc(); ++i) {
        const std::string& t = c.arg(i);
        if ((t == "-e" || t == "-c") &&
            (c.name == "nc" || c.name == "ncat" || c.name == "netcat")) {
            a.hit(Decision::cage, "net.fetch",
                  "`" + c.name + " " + t + "` runs a program for the connection");
        }
        if ((t == "--download" || t == "-d") &&
            (c.name == "http" || c.name == "https" || c.name == "xh")) {
            a.hit(Decision::cage, "net.fetch", "downloads a file");
        }
        if (!t.empty() && t[0] == '@' &&
            (c.name == "http" || c.name == "https" || c.name == "xh")) {
            Value f = c.args[i];
            f.text = t.substr(1);
            a.check_read(f, c.name, *c.scope);
        }
        size_t at = t.find("=@");
        if (at != std::string::npos && (c.name == "http" || c.name == "https" || c.name == "xh")) {
            a.check_read(Value::literal(t.substr(at + 2)), c.name, *c.scope);
        }
    }
    c.out = Stream::unknown_data(Taint::remote);
    a.hit(Decision::cage, "net.fetch", "`" + c.name + "` talks to the network");
}

void openssl_program(Analyzer& a, Call& c) {
    std::string sub = c.args.empty() ? "" : c.arg(0);
    bool decode =
        std::any_of(c.args.begin(), c.args.end(), [](const Value& v) { return v.text == "-d"; });
    if (sub == "s_client") {
        judge_secrets_sent(a, c, true);
        c.out = Stream::unknown_data(Taint::remote);
        a.hit(Decision::cage, "net.fetch", "`openssl s_client` talks to the network");
        return;
    }
    for (size_t i = 0; i + 1 < c.argc(); ++i) {
        if (c.arg(i) == "-in") a.check_read(c.args[i + 1], "openssl", *c.scope);
        if (c.arg(i) == "-out")
            a.check_write(c.args[i + 1], WriteMode::truncate, "openssl -out", *c.scope);
    }
    if (decode) c.out = Stream::unknown_data(Taint::decoded);
    if (sub == "version" || sub == "x509" || sub == "dgst" || sub == "rand" || sub == "list") {
        a.hit(Decision::allow, "readonly.version", "`openssl " + sub + "` only computes or prints");
        return;
    }
    a.hit(Decision::cage, "crypto.tool",
          "`openssl " + sub + "` encrypts, decrypts or converts data");
}

void gpg_program(Analyzer& a, Call& c) {
    for (const Value& v : c.args) {
        if (v.text.rfind("--export-secret", 0) == 0 || v.text == "--export-ssh-key") {
            a.hit(Decision::deny, "secret.read", "`gpg " + v.text + "` prints private keys");
            return;
        }
        if (v.text == "--delete-secret-keys" || v.text == "--delete-secret-and-public-key" ||
            v.text == "--delete-keys") {
            a.hit(Decision::deny, "rm.home", "`gpg " + v.text + "` deletes keys from the keyring");
            return;
        }
    }
    for (const Value& v : c.args) {
        if (!is_flag(v)) a.check_read(v, "gpg", *c.scope);
    }
    a.hit(Decision::cage, "crypto.tool", "`gpg` signs, encrypts or manages keys");
}

void user_program(Analyzer& a, Call& c) {
    bool removes = std::any_of(c.args.begin(), c.args.end(), [](const Value& v) {
        return v.text == "-r" || v.text == "--remove" || v.text == "--remove-home" ||
               v.text == "--remove-all-files" ||
               (is_flag(v) && v.text[1] != '-' && v.text.find('r') != std::string::npos);
    });
    if ((c.name == "userdel" || c.name == "deluser") && removes) {
        a.hit(Decision::deny, "system.user-delete",
              "`" + c.name + "` removes a user together with their home directory");
        return;
    }
    a.hit(Decision::cage, "system.service", "`" + c.name + "` changes system accounts");
}

}  // namespace

namespace {
constexpr auto kSystemPrograms = sorted_by_name(std::to_array<ProgramEntry>({
    {"kill", kill_program},
    {"pkill", killall_program},
    {"killall", killall_program},
    {"killall5", killall_program},
    {"skill", killall_program},
    {"crontab", crontab_program},
    {"shutdown", power_program},
    {"reboot", power_program},
    {"halt", power_program},
    {"poweroff", power_program},
    {"init", power_program},
    {"telinit", power_program},
    {"systemctl", systemctl_program},
    {"service", service_program},
    {"docker", container_program},
    {"podman", container_program},
    {"nerdctl", container_program},
    {"docker-compose", container_program},
    {"podman-compose", container_program},
    {"aws", cloud_program},
    {"gcloud", cloud_program},
    {"gsutil", cloud_program},
    {"az", cloud_program},
    {"doctl", cloud_program},
    {"hcloud", cloud_program},
    {"linode-cli", cloud_program},
    {"oci", cloud_program},
    {"heroku", cloud_program},
    {"flyctl", cloud_program},
    {"fly", cloud_program},
    {"vercel", cloud_program},
    {"netlify", cloud_program},
    {"firebase", cloud_program},
    {"eksctl", cloud_program},
    {"bq", cloud_program},
    {"s3cmd", cloud_program},
    {"etcdctl", cloud_program},
    {"consul", cloud_program},
    {"vault", cloud_program},
    {"influx", cloud_program},
    {"terraform", terraform_program},
    {"tofu", terraform_program},
    {"terragrunt", terraform_program},
    {"pulumi", pulumi_program},
    {"kubectl", kubectl_program},
    {"oc", kubectl_program},
    {"helm", helm_program},
    {"gh", gh_program},
    {"ssh", ssh_program},
    {"curl", curl_program},
    {"wget", wget_program},
    {"http", net_stdout_program},
    {"https", net_stdout_program},
    {"xh", net_stdout_program},
    {"xhs", net_stdout_program},
    {"nc", net_stdout_program},
    {"ncat", net_stdout_program},
    {"netcat", net_stdout_program},
    {"socat", net_stdout_program},
    {"telnet", net_stdout_program},
    {"aria2c", net_stdout_program},
    {"lynx", net_stdout_program},
    {"w3m", net_stdout_program},
    {"fetch", net_stdout_program},
    {"openssl", openssl_program},
    {"gpg", gpg_program},
    {"gpg2", gpg_program},
    {"userdel", user_program},
    {"deluser", user_program},
    {"useradd", user_program},
    {"usermod", user_program},
    {"passwd", user_program},
    {"groupdel", user_program},
}));
}  // namespace

std::span<const ProgramEntry> system_programs() {
    return kSystemPrograms;
}

}  // namespace toolcage::classify::detail
