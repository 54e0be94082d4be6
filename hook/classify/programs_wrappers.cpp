// Wrappers: programs that run another program given on their command line (sudo, env, nice,
// timeout, xargs, watch, flock, …). Each is unwrapped with its own option arities so that the
// program it runs is judged as if it were written alone; sudo and friends add elevation.
#include <algorithm>
#include <cctype>

#include "hook/classify/analyzer.h"
#include "hook/classify/paths.h"
#include "hook/classify/program_table.h"
#include "hook/classify/text.h"

namespace toolcage::classify::detail {

// Runs args[from..] (plus `append`) as the wrapped command, with this wrapper's name added to
// the messages' "via". `scope` replaces the caller's when the wrapper changes directory.
void run_wrapped(Analyzer& a, Call& c, size_t from, bool elevate, std::vector<Value> append,
                 Scope* scope) {
    if (from >= c.argc() && append.empty()) {
        if (elevate) {
            a.hit(Decision::cage, "sudo.elevated",
                  "`" + c.name + "` without a command still uses elevated privileges");
        } else {
            a.hit(Decision::allow, "wrapper.no-command",
                  "`" + c.name + "` without a command runs nothing");
        }
        return;
    }
    Call proto;
    proto.scope = scope ? scope : c.scope;
    proto.in = c.in;
    proto.elevated = c.elevated || elevate;
    proto.in_pipeline = c.in_pipeline;
    proto.background = c.background;
    proto.remote = c.remote;
    proto.env = c.env;
    proto.via = c.via + c.name + " ";
    std::vector<Value> argv(c.args.begin() + static_cast<long>(std::min(from, c.argc())),
                            c.args.end());
    for (Value& v : append) argv.push_back(std::move(v));
    c.out = a.exec_argv(std::move(argv), proto);
}

// Runs a string through `sh -c` on the wrapper's behalf (watch, su -c, script -c, sudo -s).
void run_wrapped_string(Analyzer& a, Call& c, const Value& code, bool elevate) {
    Call proto = c;
    proto.args = {Value::literal("-c"), code};
    proto.name = "sh";
    proto.elevated = c.elevated || elevate;
    proto.via = c.via + c.name + " ";
    std::vector<Value> argv{Value::literal("sh"), Value::literal("-c"), code};
    c.out = a.exec_argv(std::move(argv), proto);
}

namespace {

// NAME=VALUE before the command (env, sudo).
bool is_env_assignment(const Value& v) {
    size_t eq = v.text.find('=');
    if (eq == std::string::npos || eq == 0) return false;
    for (size_t i = 0; i < eq; ++i) {
        char ch = v.text[i];
        if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '_')) return false;
    }
    return true;
}

std::pair<std::string, Value> split_env_assignment(const Value& v) {
    size_t eq = v.text.find('=');
    Value val = v;
    val.text = v.text.substr(eq + 1);
    val.unknown = val.text.find(kUnknown) != std::string::npos;
    return {v.text.substr(0, eq), val};
}

// Index of the first operand, given the options that take a separate argument.
size_t skip_options(const Call& c, size_t from, std::string_view short_with_arg,
                    std::initializer_list<std::string_view> long_with_arg) {
    Opts o = parse_opts(c.args, from, short_with_arg, long_with_arg, true);
    return o.end;
}

void sudo_wrapper(Analyzer& a, Call& c) {
    Opts o = parse_opts(c.args, 0, "ugCDprtTU",
                        {"--user", "--group", "--close-from", "--chdir", "--prompt", "--role",
                         "--type", "--command-timeout", "--other-user", "--host"},
                        true);
    size_t i = o.end;
    std::vector<std::pair<std::string, Value>> env;
    while (i < c.argc() && is_env_assignment(c.args[i])) {
        env.push_back(split_env_assignment(c.args[i]));
        ++i;
    }
    if (o.has_any({"-e", "--edit"})) {
        a.hit(Decision::cage, "sudo.elevated", "`sudo -e` edits files as root");
        return;
    }
    Scope moved;
    Scope* scope = nullptr;
    if (auto dir = o.value("-D") ? o.value("-D") : o.value("--chdir")) {
        moved = *c.scope;
        moved.cwd = !dir->empty() && (*dir)[0] == '/' ? normalize_path(*dir)
                                                      : normalize_path(moved.cwd + "/" + *dir);
        scope = &moved;
    }
    if (o.has_any({"-s", "--shell", "-i", "--login"}) && i < c.argc()) {
        run_wrapped_string(a, c, join_values(c.args, i, " "), true);
        return;
    }
    Call inner = c;
    inner.env.insert(inner.env.end(), env.begin(), env.end());
    run_wrapped(a, inner, i, true, {}, scope);
    c.out = inner.out;
}

void doas_wrapper(Analyzer& a, Call& c) {
    size_t i = skip_options(c, 0, "uC", {});
    if (std::any_of(c.args.begin(), c.args.begin() + static_cast<long>(i),
                    [](const Value& v) { return v.text == "-s"; }) &&
        i >= c.argc()) {
        a.hit(Decision::cage, "sudo.elevated", "`doas -s` opens a root shell");
        return;
    }
    run_wrapped(a, c, i, true);
}

void su_wrapper(Analyzer& a, Call& c) {
    Opts o = parse_opts(c.args, 0, "cgGsw",
                        {"--command", "--group", "--supp-group", "--shell",
                         "--whitelist-environment", "--session-command"},
                        false);
    std::vector<std::string> cmds = o.values("-c");
    for (const std::string& s : o.values("--command")) cmds.push_back(s);
    for (const std::string& s : o.values("--session-command")) cmds.push_back(s);
    if (cmds.empty()) {
        a.hit(Decision::cage, "sudo.elevated", "`su` opens a shell as another user");
        return;
    }
    for (const Opts::Flag& f : o.flags) {
        if ((f.name == "-c" || f.name.rfind("--command", 0) == 0 ||
             f.name.rfind("--session", 0) == 0)) {
            Value code = f.value ? *f.value : Value::literal(f.inline_value);
            run_wrapped_string(a, c, code, true);
        }
    }
}

void pkexec_wrapper(Analyzer& a, Call& c) {
    run_wrapped(a, c, skip_options(c, 0, "", {"--user"}), true);
}

void runuser_wrapper(Analyzer& a, Call& c) {
    Opts o = parse_opts(c.args, 0, "ugGcsw",
                        {"--user", "--group", "--supp-group", "--command", "--shell"}, true);
    if (auto cmd = o.value("-c") ? o.value("-c") : o.value("--command")) {
        run_wrapped_string(a, c, Value::literal(*cmd), true);
        return;
    }
    size_t i = o.end;
    if (!o.has("-u") && !o.has("--user") && i < c.argc()) {
        ++i;  // runuser [-] USER ARGS…: the arguments go to the user's shell, -c STRING included
        if (i + 1 < c.argc() && c.arg(i) == "-c") {
            run_wrapped_string(a, c, c.args[i + 1], true);
            return;
        }
    }
    run_wrapped(a, c, i, true);
}

void chroot_wrapper(Analyzer& a, Call& c) {
    size_t i = skip_options(c, 0, "", {"--userspec", "--groups"});
    run_wrapped(a, c, i + 1, true);
}

void env_wrapper(Analyzer& a, Call& c) {
    Opts o = parse_opts(c.args, 0, "uCSP",
                        {"--unset", "--chdir", "--split-string", "--block-signal",
                         "--default-signal", "--ignore-signal"},
                        true);
    size_t i = o.end;
    while (i < c.argc() && c.arg(i) == "-") ++i;  // `env -` is env -i
    Call inner = c;
    while (i < c.argc() && is_env_assignment(c.args[i])) {
        inner.env.push_back(split_env_assignment(c.args[i]));
        ++i;
    }
    Scope moved;
    Scope* scope = nullptr;
    if (auto dir = o.value("-C") ? o.value("-C") : o.value("--chdir")) {
        moved = *c.scope;
        moved.cwd = !dir->empty() && (*dir)[0] == '/' ? normalize_path(*dir)
                                                      : normalize_path(moved.cwd + "/" + *dir);
        scope = &moved;
    }
    for (const Opts::Flag& f : o.flags) {
        bool split = f.name == "-S" || (f.name.size() > 3 &&
                                        std::string_view("--split-string").rfind(f.name, 0) == 0);
        if (!split) continue;
        // env -S splits its string itself (and expands ${VAR}): judge it as shell text.
        Value code = f.value ? *f.value : Value::literal(f.inline_value);
        std::vector<Value> rest(c.args.begin() + static_cast<long>(i), c.args.end());
        if (!rest.empty()) code.text += " " + join_as_shell(rest);
        a.check_env(inner.env, *c.scope);
        c.out = a.run_string(code, scope ? *scope : *c.scope, false, c.in, "env -S");
        return;
    }
    if (i >= c.argc()) {
        a.hit(Decision::allow, "readonly.env", "`env` without a command prints the environment");
        return;
    }
    run_wrapped(a, inner, i, false, {}, scope);
    c.out = inner.out;
}

void nice_wrapper(Analyzer& a, Call& c) {
    size_t i = 0;
    while (i < c.argc() && is_flag(c.args[i])) {
        const std::string& t = c.arg(i);
        if (t == "--") {
            ++i;
            break;
        }
        if (t == "-n" || t == "--adjustment") ++i;
        ++i;
    }
    run_wrapped(a, c, i, false);
}

void ionice_wrapper(Analyzer& a, Call& c) {
    Opts o =
        parse_opts(c.args, 0, "cnp", {"--class", "--classdata", "--pid", "--pgid", "--uid"}, true);
    if (o.has("-p") || o.has("--pid") || o.has("-P") || o.has("-u")) {
        a.hit(Decision::cage, "wrapper.priority", "ionice changes another process's priority");
        return;
    }
    run_wrapped(a, c, o.end, false);
}

void timeout_wrapper(Analyzer& a, Call& c) {
    size_t i = skip_options(c, 0, "sk", {"--signal", "--kill-after"});
    run_wrapped(a, c, i + 1, false);  // the duration, then the command
}

void time_wrapper(Analyzer& a, Call& c) {
    Opts o = parse_opts(c.args, 0, "fo", {"--format", "--output"}, true);
    for (const std::string& f : o.values("-o"))
        a.check_write(Value::literal(f), o.has("-a") ? WriteMode::append : WriteMode::truncate,
                      "time -o", *c.scope);
    for (const std::string& f : o.values("--output"))
        a.check_write(Value::literal(f), WriteMode::truncate, "time --output", *c.scope);
    run_wrapped(a, c, o.end, false);
}

void stdbuf_wrapper(Analyzer& a, Call& c) {
    size_t i = skip_options(c, 0, "ioe", {"--input", "--output", "--error"});
    run_wrapped(a, c, i, false);
}

void flock_wrapper(Analyzer& a, Call& c) {
    Opts o =
        parse_opts(c.args, 0, "wEc", {"--timeout", "--conflict-exit-code", "--command"}, false);
    for (const Opts::Flag& f : o.flags) {
        if (f.name == "-c" || f.name.rfind("--comm", 0) == 0) {
            run_wrapped_string(a, c, f.value ? *f.value : Value::literal(f.inline_value), false);
            return;
        }
    }
    // flock [options] FILE COMMAND…: options stop at the lock file.
    Opts s = parse_opts(c.args, 0, "wE", {"--timeout", "--conflict-exit-code"}, true);
    if (s.end + 1 >= c.argc()) {
        a.hit(Decision::allow, "wrapper.no-command", "flock on a descriptor runs nothing");
        return;
    }
    run_wrapped(a, c, s.end + 1, false);
}

void watch_wrapper(Analyzer& a, Call& c) {
    Opts o = parse_opts(c.args, 0, "nq", {"--interval", "--equexit", "--differences"}, true);
    if (o.end >= c.argc()) {
        a.hit(Decision::allow, "wrapper.no-command", "watch without a command");
        return;
    }
    if (o.has_any({"-x", "--exec"})) {
        run_wrapped(a, c, o.end, false);
        return;
    }
    run_wrapped_string(a, c, join_values(c.args, o.end, " "), false);
}

void script_wrapper(Analyzer& a, Call& c) {
    Opts o = parse_opts(c.args, 0, "cEIOBTt",
                        {"--command", "--echo", "--log-in", "--log-out", "--log-io", "--log-timing",
                         "--logging-format", "--output-limit"},
                        false);
    for (size_t k : o.operands)
        a.check_write(c.args[k],
                      o.has_any({"-a", "--append"}) ? WriteMode::append : WriteMode::truncate,
                      "script's log file", *c.scope);
    if (o.operands.empty())
        a.check_write(Value::literal("typescript"), WriteMode::truncate, "script's log file",
                      *c.scope);
    for (const Opts::Flag& f : o.flags) {
        if (f.name == "-c" || f.name.rfind("--comm", 0) == 0) {
            run_wrapped_string(a, c, f.value ? *f.value : Value::literal(f.inline_value), false);
            return;
        }
    }
    a.hit(Decision::cage, "wrapper.shell", "`script` starts an interactive shell");
}

void busybox_wrapper(Analyzer& a, Call& c) {
    if (c.args.empty() || is_flag(c.args[0])) {
        a.hit(Decision::allow, "wrapper.no-command", "busybox without an applet lists its applets");
        return;
    }
    run_wrapped(a, c, 0, false);
}

void strace_wrapper(Analyzer& a, Call& c) {
    Opts o = parse_opts(c.args, 0, "oeEpPsSuabIXU",
                        {"--output", "--expr", "--attach", "--string-limit", "--user"}, true);
    for (const std::string& f : o.values("-o"))
        a.check_write(Value::literal(f), WriteMode::truncate, c.name + " -o", *c.scope);
    if (o.has("-p") || o.has("--attach")) {
        a.hit(Decision::cage, "wrapper.trace", "`" + c.name + "` attaches to a running process");
        return;
    }
    run_wrapped(a, c, o.end, false);
}

// ---- xargs and parallel: the command gets its arguments from stdin.

// xargs's -d value: a character or a backslash escape.
char delimiter_of(const std::string& d) {
    if (d.size() >= 2 && d[0] == '\\') {
        switch (d[1]) {
            case 'n':
                return '\n';
            case 't':
                return '\t';
            case '0':
                return '\0';
            default:
                return d[1];
        }
    }
    return d.empty() ? '\n' : d[0];
}

// The items xargs reads: lines with -I (or a delimiter), else blank-separated words.
std::vector<Value> items_from(const Stream& in, char delim, bool lines) {
    std::vector<Value> items;
    if (lines && !delim) delim = '\n';
    if (in.kind == Stream::Kind::literal) {
        std::vector<std::string> words;
        if (delim) {
            std::string cur;
            for (char ch : in.text) {
                if (ch == delim) {
                    if (!cur.empty()) words.push_back(cur);
                    cur.clear();
                } else {
                    cur += ch;
                }
            }
            if (!cur.empty()) words.push_back(cur);
        } else {
            words = split_ws(in.text);
        }
        if (lines) {
            for (std::string& w : words) {
                size_t b = w.find_first_not_of(" \t");
                w = b == std::string::npos ? std::string() : w.substr(b);
            }
        }
        // Items are arguments, not code: a filter's output stays data (remote stays remote).
        Taint item_taint = in.taint == Taint::filtered ? Taint::computed : in.taint;
        for (std::string& w : words) {
            Value v = Value::literal(std::move(w));
            v.taint = std::max(Taint::computed, item_taint);
            v.secret = in.secret;
            items.push_back(std::move(v));
        }
        if (items.size() > 64) items.resize(64);
        return items;
    }
    if (in.kind == Stream::Kind::paths) return in.paths;
    items.push_back(Value::unknown_value(false, in.taint == Taint::filtered ? Taint::computed : in.taint));
    items.back().secret = in.secret;
    return items;
}

void xargs_wrapper(Analyzer& a, Call& c) {
    size_t i = 0;
    std::string repl;
    bool from_file = false;
    char delim = 0;
    for (; i < c.argc() && is_flag(c.args[i]); ++i) {
        const std::string& t = c.arg(i);
        if (t == "--") {
            ++i;
            break;
        }
        auto value = [&](size_t skip) -> std::string {
            if (t.size() > skip) return t.substr(skip);
            return i + 1 < c.argc() ? c.arg(++i) : std::string();
        };
        if (t.rfind("--", 0) == 0) {
            size_t eq = t.find('=');
            std::string name = t.substr(0, eq);
            std::string val = eq == std::string::npos ? std::string() : t.substr(eq + 1);
            bool takes = name == "--arg-file" || name == "--delimiter" || name == "--max-args" ||
                         name == "--max-procs" || name == "--max-chars" || name == "--max-lines" ||
                         name == "--process-slot-var" || name == "--eof";
            if (takes && eq == std::string::npos && i + 1 < c.argc()) val = c.arg(++i);
            if (name == "--arg-file") {
                from_file = true;
                a.check_read(Value::literal(val), "xargs -a", *c.scope);
            }
            if (name == "--replace") repl = eq == std::string::npos ? "{}" : val;
            if (name == "--null") delim = '\0';
            if (name == "--delimiter" && !val.empty()) delim = delimiter_of(val);
            continue;
        }
        char f = t[1];
        if (f == 'a') {
            from_file = true;
            a.check_read(Value::literal(value(2)), "xargs -a", *c.scope);
        } else if (f == 'I' || f == 'J') {
            repl = value(2);
        } else if (f == 'i') {
            repl = t.size() > 2 ? t.substr(2) : "{}";
        } else if (f == 'd') {
            std::string d = value(2);
            if (!d.empty()) delim = delimiter_of(d);
        } else if (f == 'E' || f == 'L' || f == 'n' || f == 'P' || f == 's') {
            value(2);
        } else if (f == '0') {
            delim = '\n';
        }
    }
    Stream in = from_file ? Stream::unknown_data() : c.in;
    std::vector<Value> items = items_from(in, delim, !repl.empty());
    // `xargs bash -c`: the item is the shell's code, not an argument; a filter's output stays
    // what it is (a decoder into a shell).
    if (in.taint == Taint::filtered && repl.empty() && c.argc() >= i + 2) {
        const std::string& last = c.arg(c.argc() - 1);
        std::string_view shell = basename_of(c.arg(i));
        bool is_shell = shell == "sh" || shell == "bash" || shell == "dash" || shell == "zsh" || shell == "ksh";
        if (is_shell && last.size() > 1 && last[0] == '-' && last[1] != '-' && last.back() == 'c') {
            for (Value& item : items) item.taint = Taint::filtered;
        }
    }
    if (i >= c.argc()) {
        a.hit(Decision::allow, "readonly.echo", "xargs without a command echoes its input");
        return;
    }
    if (!repl.empty()) {
        for (const Value& item : items) {
            Call inner = c;
            inner.in = Stream();
            std::vector<Value> argv;
            for (size_t k = i; k < c.argc(); ++k)
                argv.push_back(substitute_placeholder(c.args[k], repl, item));
            inner.args = std::move(argv);
            run_wrapped(a, inner, 0, false);
        }
        return;
    }
    Call inner = c;
    inner.in = Stream();
    run_wrapped(a, inner, i, false, items);
}

void parallel_wrapper(Analyzer& a, Call& c) {
    size_t sep = c.argc();
    for (size_t k = 0; k < c.argc(); ++k) {
        if (c.arg(k) == ":::" || c.arg(k) == "::::" || c.arg(k) == ":::+" || c.arg(k) == "::::+") {
            sep = k;
            break;
        }
    }
    size_t i = 0;
    std::string repl = "{}";
    while (i < sep && is_flag(c.args[i])) {
        const std::string& t = c.arg(i);
        static const std::string_view kArg[] = {
            "-j",          "--jobs",    "-S",           "--sshlogin",  "-d",
            "--delimiter", "-a",        "--arg-file",   "-n",          "--max-args",
            "-N",          "--joblog",  "--results",    "-E",          "--tmpdir",
            "--timeout",   "--retries", "--tag-string", "--workdir",   "--wd",
            "-I",          "--colsep",  "-L",           "--max-lines", "--env"};
        if (t == "-I" && i + 1 < sep) repl = c.arg(i + 1);
        if (std::find(std::begin(kArg), std::end(kArg), t) != std::end(kArg)) ++i;
        ++i;
    }
    std::vector<Value> items;
    if (sep < c.argc()) {
        bool file_items = c.arg(sep).rfind("::::", 0) == 0;
        for (size_t k = sep + 1; k < c.argc(); ++k) {
            if (c.arg(k).rfind(":::", 0) == 0) {
                file_items = c.arg(k).rfind("::::", 0) == 0;
                continue;
            }
            if (file_items) {
                a.check_read(c.args[k], "parallel ::::", *c.scope);
                items.push_back(Value::unknown_value());
            } else {
                items.push_back(c.args[k]);
            }
        }
    } else {
        items = items_from(c.in, '\n', false);
    }
    if (items.size() > 16) items.resize(16);
    std::vector<Value> cmd(c.args.begin() + static_cast<long>(i),
                           c.args.begin() + static_cast<long>(sep));
    for (const Value& item : items) {
        std::vector<Value> codes;
        if (cmd.empty()) {
            codes.push_back(item);  // the items are the commands
        } else {
            // parallel joins the command words with spaces (quoting them only with -q) and
            // inserts each item shell-quoted; judge both readings of the words.
            Value quoted = item;
            if (item.known()) quoted.text = shell_quote(item.text);
            for (int reading = 0; reading < 2; ++reading) {
                bool placeholder = false;
                std::vector<Value> words;
                for (const Value& w : cmd) {
                    if (w.text.find(repl) != std::string::npos) placeholder = true;
                    Value word = substitute_placeholder(w, repl, quoted);
                    if (reading == 1 && word.known()) {
                        Value q = w;
                        q.text = shell_quote(w.text);
                        word = substitute_placeholder(q, repl, quoted);
                    }
                    words.push_back(word);
                }
                if (!placeholder) words.push_back(quoted);
                codes.push_back(join_values(words, 0, " "));
            }
        }
        for (const Value& code : codes) {
            Call proto = c;
            std::vector<Value> argv{Value::literal("sh"), Value::literal("-c"), code};
            proto.via = c.via + "parallel ";
            a.exec_argv(std::move(argv), proto);
        }
    }
    if (items.empty()) a.hit(Decision::cage, "wrapper.runs", "parallel runs commands");
}

}  // namespace

namespace {
constexpr auto kWrapperPrograms = sorted_by_name(std::to_array<ProgramEntry>({
    {"sudo", sudo_wrapper},
    {"doas", doas_wrapper},
    {"su", su_wrapper},
    {"pkexec", pkexec_wrapper},
    {"runuser", runuser_wrapper},
    {"chroot", chroot_wrapper},
    {"env", env_wrapper},
    {"nice", nice_wrapper},
    {"renice", ionice_wrapper},
    {"ionice", ionice_wrapper},
    {"timeout", timeout_wrapper},
    {"gtimeout", timeout_wrapper},
    {"time", time_wrapper},
    {"stdbuf", stdbuf_wrapper},
    {"flock", flock_wrapper},
    {"watch", watch_wrapper},
    {"script", script_wrapper},
    {"busybox", busybox_wrapper},
    {"strace", strace_wrapper},
    {"ltrace", strace_wrapper},
    {"xargs", xargs_wrapper},
    {"parallel", parallel_wrapper},
}));
}  // namespace

std::span<const ProgramEntry> wrapper_programs() {
    return kWrapperPrograms;
}

}  // namespace toolcage::classify::detail
