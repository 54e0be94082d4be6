// Running one argv: functions and aliases first (they shadow programs), then the program's name
// resolved the way the shell would (a path-qualified name is not the trusted system program),
// then the program's table entry. Unknown programs are caged, never allowed.
#include <algorithm>
#include <cctype>

#include "hook/classify/analyzer.h"
#include "hook/classify/paths.h"
#include "hook/classify/program_table.h"
#include "hook/classify/text.h"

namespace toolcage::classify::detail {

namespace {

// Variables that change what a program loads or runs: library and module search paths, shell
// start-up files, interpreter options, git's and the config directories. Others (LANG, TZ,
// DEBUG=1, …) only change behaviour the program already has.
bool harmless_env(std::string_view name) {
    static const std::string_view kExact[] = {"BASH_ENV",
                                              "ENV",
                                              "IFS",
                                              "PS4",
                                              "SHELLOPTS",
                                              "BASHOPTS",
                                              "PROMPT_COMMAND",
                                              "PYTHONSTARTUP",
                                              "PYTHONHOME",
                                              "PYTHONINSPECT",
                                              "HOME",
                                              "ZDOTDIR",
                                              "INPUTRC",
                                              "LESSKEY",
                                              "TERMINFO",
                                              "MAKEFLAGS",
                                              "MFLAGS",
                                              "SHELL",
                                              "CC",
                                              "CXX",
                                              "LD",
                                              "CPP",
                                              "PKG_CONFIG",
                                              "BROWSER"};
    static const std::string_view kPrefix[] = {
        "LD_",   "DYLD_",   "GIT_",    "XDG_",       "NPM_CONFIG", "npm_config", "PIP_", "CARGO_",
        "RUSTC", "GOFLAGS", "DOCKER_", "KUBECONFIG", "SSH_",       "GNUPG",      "PERL", "RUBY",
        "NODE_", "JAVA_",   "_JAVA",   "BUNDLE_",    "GEM_",       "CONDA"};
    for (std::string_view e : kExact) {
        if (name == e) return false;
    }
    for (std::string_view p : kPrefix) {
        if (name.substr(0, p.size()) == p) return name == "NODE_ENV";
    }
    if (name.find("PATH") != std::string_view::npos || name.find("LIB") != std::string_view::npos)
        return false;
    if (name.size() >= 4 &&
        (name.substr(name.size() - 4) == "OPTS" || name.substr(name.size() - 3) == "OPT"))
        return false;
    if (name.size() >= 7 && name.substr(name.size() - 7) == "OPTIONS") return false;
    return true;
}

bool system_bin_dir(std::string_view dir) {
    return dir == "/bin" || dir == "/usr/bin" || dir == "/sbin" || dir == "/usr/sbin" ||
           dir == "/usr/local/bin" || dir == "/usr/local/sbin";
}

// No name is in two registries (a test checks it), so their order does not matter.
Handler lookup(std::string_view name) {
    if (Handler h = readonly_handler(name)) return h;
    for (ProgramRegistry registry : program_registries()) {
        if (const ProgramEntry* e = find_by_name(registry(), name)) return e->handler;
    }
    return nullptr;
}

// python3.11 -> python3 -> python; gcc-12 -> gcc; mkfs.ext4 -> mkfs.
std::string_view base_name_variant(std::string_view n) {
    while (!n.empty() && (std::isdigit(static_cast<unsigned char>(n.back())) || n.back() == '.' ||
                          n.back() == '-')) {
        n.remove_suffix(1);
    }
    return n;
}

}  // namespace

std::span<const ProgramRegistry> program_registries() {
    static constexpr ProgramRegistry kRegistries[] = {
        builtin_programs, wrapper_programs, launcher_programs, admin_programs, shell_programs,       git_programs, file_programs,
        delete_programs,  system_programs,  interpreter_programs, sql_programs, build_programs};
    return kRegistries;
}

Handler find_handler(std::string_view name) {
    if (Handler h = lookup(name)) return h;
    if (name.substr(0, 5) == "mkfs.") return lookup("mkfs");
    std::string_view b = base_name_variant(name);
    if (b != name && !b.empty()) return lookup(b);
    return nullptr;
}

void handle_readonly(Analyzer& a, Call& c, std::string_view rule) {
    a.hit(Decision::allow, rule, "`" + c.name + "` only reads");
}

void handle_runs_code(Analyzer& a, Call& c, std::string_view rule, std::string_view what) {
    a.hit(Decision::cage, rule, "`" + c.name + "` " + std::string(what));
}

void Analyzer::check_env(const std::vector<std::pair<std::string, Value>>& env, Scope& scope) {
    static const std::string_view kCommands[] = {"PAGER",
                                                 "GIT_PAGER",
                                                 "MANPAGER",
                                                 "EDITOR",
                                                 "VISUAL",
                                                 "GIT_EDITOR",
                                                 "GIT_SEQUENCE_EDITOR",
                                                 "GIT_SSH_COMMAND",
                                                 "GIT_SSH",
                                                 "GIT_EXTERNAL_DIFF",
                                                 "GIT_PROXY_COMMAND",
                                                 "LESSOPEN",
                                                 "LESSCLOSE",
                                                 "BROWSER",
                                                 "SUDO_ASKPASS",
                                                 "SSH_ASKPASS",
                                                 "GIT_ASKPASS",
                                                 "PROMPT_COMMAND",
                                                 "SYSTEMD_PAGER",
                                                 "RSYNC_RSH",
                                                 "FCEDIT"};
    for (const auto& [name, value] : env) {
        if (std::find(std::begin(kCommands), std::end(kCommands), name) != std::end(kCommands)) {
            Value code = value;
            if (name == "LESSOPEN" || name == "LESSCLOSE") {
                // "|cmd %s" or "cmd %s"
                if (!code.text.empty() && code.text[0] == '|') code.text.erase(0, 1);
                if (!code.text.empty() && code.text[0] == '|') code.text.erase(0, 1);
            }
            if (code.known() && code.text.empty()) continue;
            run_string(code, scope, false, Stream(), "the command in " + name);
            continue;
        }
        if (name == "BASH_ENV" || name == "ENV") {
            // A file every shell started with this variable reads first: its text is code.
            std::string who = "the start-up file in " + name;
            if (value.procsub) {
                Call reader;
                reader.scope = &scope;
                shell_reads(*value.procsub, scope, who, reader);
            } else if (!refuse_tainted_script(value, scope, who)) {
                if (const std::string* text = file_text(value, scope)) {
                    run_string(Value::literal(*text), scope, false, Stream(), who);
                }
            }
        }
        if (!harmless_env(name)) {
            hit(Decision::cage, "env.code-variable",
                "setting " + name + " for a program can change what it loads or runs");
        }
    }
}

// A variable that holds a command (PAGER, GIT_SSH_COMMAND, BASH_ENV…) set in the shell rather
// than for one program: any later program may run it, so a destructive value is refused where
// it is set. A harmless one (EDITOR=vim) is left to the program that uses it.
void Analyzer::judge_command_variable(const std::string& name, const Value& value, Scope& scope) {
    static const std::string_view kNames[] = {"PAGER", "GIT_PAGER", "MANPAGER", "EDITOR", "VISUAL", "GIT_EDITOR",
                                              "GIT_SEQUENCE_EDITOR", "GIT_SSH_COMMAND", "GIT_SSH", "GIT_EXTERNAL_DIFF",
                                              "GIT_PROXY_COMMAND", "LESSOPEN", "LESSCLOSE", "BROWSER", "SUDO_ASKPASS",
                                              "SSH_ASKPASS", "GIT_ASKPASS", "PROMPT_COMMAND", "SYSTEMD_PAGER",
                                              "RSYNC_RSH", "FCEDIT", "BASH_ENV", "ENV"};
    if (std::find(std::begin(kNames), std::end(kNames), name) == std::end(kNames)) return;
    ++probing;
    Decision saved = probe_max;
    probe_max = Decision::allow;
    check_env({{name, value}}, scope);
    Decision got = probe_max;
    probe_max = saved;
    --probing;
    if (got == Decision::deny) {
        hit(Decision::deny, "env.code-variable",
            name + " is set to a command that would be destructive when a program runs it (`" + value.shown() + "`)");
    }
}

Stream Analyzer::exec_argv(std::vector<Value> argv, Call proto) {
    if (argv.empty()) return Stream();
    struct Level {
        int& n;
        explicit Level(int& v) : n(v) { ++n; }
        ~Level() { --n; }
        Level(const Level&) = delete;
        Level& operator=(const Level&) = delete;
    } level(exec_level);
    spend_command();
    Call call = std::move(proto);
    Value cmd = std::move(argv[0]);
    call.args.assign(std::make_move_iterator(argv.begin() + 1),
                     std::make_move_iterator(argv.end()));
    call.out = Stream::unknown_data();
    Scope& scope = *call.scope;
    if (trace && probing == 0) trace->programs.push_back(cmd.shown());
    check_env(call.env, scope);
    if (!cmd.known() || cmd.text.empty() || cmd.glob) {
        if (cmd.text.empty() && cmd.known()) {
            hit(Decision::allow, "shell.builtin", "an empty command does nothing");
            return Stream();
        }
        dynamic_program(cmd, call);
        apply_extra_rules(call);
        return call.out;
    }
    std::string name = cmd.text;
    if (name.find('/') == std::string::npos) {
        auto f = scope.functions.find(name);
        if (f != scope.functions.end()) {
            call.name = name;
            call_function(name, *f->second, call);
            return call.out;
        }
        auto al = scope.aliases.find(name);
        if (al != scope.aliases.end() && depth < 4) {
            Value text = Value::literal(al->second);
            if (!call.args.empty()) text.text += " " + join_as_shell(call.args);
            std::string saved = al->second;
            scope.aliases.erase(al);  // an alias is not expanded inside itself
            Stream out = run_string(text, scope, true, call.in, "alias `" + name + "`");
            scope.aliases.insert_or_assign(name, saved);
            return out;
        }
        if (scope.path_untrusted) {
            hit(Decision::cage, "env.path-changed",
                "PATH was changed, so `" + name + "` may be any program with that name");
        }
    } else {
        std::string dir = name.substr(0, name.rfind('/'));
        std::string norm =
            dir.empty() ? "/" : (dir[0] == '/' ? normalize_path(dir) : std::string());
        std::string shown = name;
        name = std::string(basename_of(name));
        if (!system_bin_dir(norm)) {
            hit(Decision::cage, "path.untrusted-program",
                "`" + shown + "` is a file named by path, not the system's " + name +
                    "; it runs in the cage");
            if (!refuse_tainted_script(Value::literal(shown), scope, "running a file by path")) {
                call.name = name;
                if (run_known_script(Value::literal(shown), call, "shell")) return call.out;
            }
        }
    }
    call.name = name;
    judge_name_subscripts(*this, call);
    if (Handler h = find_handler(name)) {
        const DryRun* outer = dry;
        int outer_level = dry_level;
        if (const DryRun* d = dry_run_of(call)) {
            dry = d;
            dry_level = exec_level;
        }
        h(*this, call);
        dry = outer;
        dry_level = outer_level;
    } else {
        hit(Decision::cage, "unknown.program",
            "`" + name + "` is not a program known to be read-only; it runs in the cage");
        judge_unknown_shape(call);
        judge_sql_options(*this, call);
        probe_unknown_wrapper(call);
    }
    judge_host_lockout(*this, call);
    pass_output_origin(call);
    check_framework_db(call);
    if (call.elevated) {
        hit(Decision::cage, "sudo.elevated",
            "`" + call.via + name + "` runs with elevated privileges");
    }
    apply_extra_rules(call);
    return call.out;
}

// Where the output came from: what a program reads on stdin reaches its output (remote data
// stays remote through any chain, the environment stays a secret through any filter), a
// decoder's output is code nobody has read, and >( … ) files are read by their commands.
void Analyzer::pass_output_origin(Call& call) {
    if (call.out.kind != Stream::Kind::none) {
        Taint t = call.in.kind != Stream::Kind::none ? call.in.taint : Taint::none;
        if (decodes_input(call)) t = std::max(t, Taint::filtered);
        call.out.taint = std::max(call.out.taint, t);
        call.out.secret = call.out.secret || call.in.secret;
    }
    if (prints_environment(call)) {
        if (call.out.kind == Stream::Kind::none) call.out = Stream::unknown_data();
        call.out.secret = true;
    }
    for (const Value& v : call.args) {
        if (!v.writes_to) continue;
        Stream data = call.out.kind != Stream::Kind::none ? call.out : call.in;
        Scope copy = copy_scope(*call.scope);
        for (const shell::Script& s : *v.writes_to) walk_script(s, copy, data);
    }
}

// An unknown program may be a wrapper that runs its arguments (pipenv run, dotenv --, a
// project script): when they spell a known program doing something destructive, refuse.
void Analyzer::probe_unknown_wrapper(Call& call) {
    size_t i = 0;
    for (; i < call.args.size() && i < 4; ++i) {
        const Value& a = call.args[i];
        if (!a.known() || is_flag(a) || a.text.empty()) continue;
        if (a.text.find('=') != std::string::npos && a.text[0] != '/') continue;
        if (find_handler(basename_of(a.text))) break;
    }
    if (i >= call.args.size() || i >= 4) return;
    Call probe;
    probe.scope = call.scope;
    probe.in = call.in;
    probe.elevated = call.elevated;
    probe.via = call.via + call.name + " ";
    ++probing;
    Decision saved = probe_max;
    probe_max = Decision::allow;
    exec_argv(std::vector<Value>(call.args.begin() + static_cast<long>(i), call.args.end()), probe);
    Decision got = probe_max;
    probe_max = saved;
    --probing;
    if (got == Decision::deny) {
        hit(Decision::deny, "unknown.wrapper-destructive",
            "`" + call.name + "` may run its arguments, and `" + join_plain(call.args, i) +
                "` would be destructive");
    }
}

// Framework commands that drop or reset a whole database (rails db:drop, prisma migrate reset,
// php artisan migrate:fresh, manage.py flush): the data is gone.
void Analyzer::check_framework_db(const Call& call) {
    static const std::string_view kTasks[] = {"db:drop",        "db:reset",       "db:purge",
                                              "db:schema:load", "migrate:fresh",  "migrate:reset",
                                              "schema:drop",    "--force-reset",  "db:drop:all",
                                              "reset_db",       "db:seed:replant"};
    bool manage = false, prisma = call.name == "prisma";
    for (size_t i = 0; i < call.args.size(); ++i) {
        const std::string& t = call.args[i].text;
        if (std::find(std::begin(kTasks), std::end(kTasks), t) != std::end(kTasks)) {
            hit(Decision::deny, "db.destroy",
                "`" + call.name + " " + t + "` drops or resets the whole database");
            return;
        }
        if (t == "manage.py" || basename_of(t) == "manage.py" || call.name == "django-admin")
            manage = true;
        if (manage && (t == "flush" || t == "sqlflush")) {
            hit(Decision::deny, "db.destroy",
                "`manage.py flush` deletes every row of the database");
            return;
        }
        if (prisma && t == "reset" && i > 0 && call.args[i - 1].text == "migrate") {
            hit(Decision::deny, "db.destroy", "`prisma migrate reset` drops the database");
            return;
        }
    }
}

void Analyzer::dynamic_program(const Value& cmd, Call& call) {
    call.name = cmd.shown();
    if (cmd.taint == Taint::remote) {
        hit(Decision::deny, "pipe.remote-to-shell",
            "the program to run comes from the network (`" + cmd.shown() + "`)");
        return;
    }
    // What would the arguments do if the name turned out to be rm, git or dd?
    static const std::string_view kProbes[] = {"rm",   "git",   "dd",   "chmod",
                                               "mkfs", "shred", "find", "sh"};
    Decision worst = Decision::allow;
    std::string as;
    for (std::string_view p : kProbes) {
        bool plausible = false;
        for (const Value& a : call.args) {
            const std::string& t = a.text;
            if (p == "rm" || p == "shred" || p == "chmod") {
                if (is_flag(a) && t[1] != '-' && t.find_first_of("rRf") != std::string::npos)
                    plausible = true;
                if (t == "--recursive" || t == "--force" || t == "--no-preserve-root")
                    plausible = true;
            } else if (p == "git") {
                plausible = !call.args.empty() &&
                            (call.args[0].text == "reset" || call.args[0].text == "clean" ||
                             call.args[0].text == "push" || call.args[0].text == "checkout" ||
                             call.args[0].text == "branch" || call.args[0].text == "stash" ||
                             call.args[0].text == "restore" || call.args[0].text == "reflog");
            } else if (p == "dd") {
                if (t.rfind("of=", 0) == 0) plausible = true;
            } else if (p == "mkfs") {
                if (t.rfind("/dev/", 0) == 0) plausible = true;
            } else if (p == "find") {
                if (t == "-delete" || t == "-exec") plausible = true;
            } else if (p == "sh") {
                // $SHELL -c '…', ${SHELL:-bash} -lc '…'
                if (is_flag(a) && t[1] != '-' && t.back() == 'c') plausible = true;
            }
        }
        if (!plausible) continue;
        Call probe = call;
        probe.name = std::string(p);
        ++probing;
        Decision saved = probe_max;
        probe_max = Decision::allow;
        if (Handler h = find_handler(p)) h(*this, probe);
        Decision got = probe_max;
        probe_max = saved;
        --probing;
        if (static_cast<int>(got) > static_cast<int>(worst)) {
            worst = got;
            as = std::string(p);
        }
    }
    if (worst == Decision::deny || worst == Decision::ask) {
        hit(worst, "unknown.program-destructive",
            "the program name is only known at run time (`" + cmd.shown() +
                "`) and with these arguments `" + as + "` would be destructive");
        return;
    }
    if (cmd.taint == Taint::decoded) {
        hit(Decision::deny, "pipe.decoded-to-shell",
            "the program to run is decoded at run time (`" + cmd.shown() + "`)");
        return;
    }
    hit(Decision::cage, "unknown.dynamic-program",
        "the program name is only known at run time (`" + cmd.shown() + "`); it runs in the cage");
}

}  // namespace toolcage::classify::detail
