// Shell builtins that change what later commands mean (cd, pushd, export, unset, set, alias,
// source) or that run strings as code (eval, trap, alias). The working directory and variables
// they set are carried in the Scope; code they run goes back through run_string().
#include <algorithm>

#include "hook/classify/analyzer.h"
#include "hook/classify/paths.h"
#include "hook/classify/program_table.h"
#include "hook/classify/text.h"

namespace toolcage::classify::detail {

namespace {

void change_dir(Analyzer& a, Scope& scope, const Value& target) {
    std::string old = scope.cwd_known ? scope.cwd : std::string();
    bool old_known = scope.cwd_known;
    if (!target.known() || target.glob) {
        scope.cwd_known = false;
        scope.cwd_guarded = target.guarded && !target.alt_unknown;
        scope.alt_cwds.clear();
        // ${x:-/tmp}: one of the candidates is known; still, which one is decided at run time.
    } else if (!target.text.empty() && target.text[0] == '/') {
        scope.cwd = normalize_path(target.text);
        scope.cwd_known = true;
        scope.alt_cwds.clear();
    } else if (scope.cwd_known) {
        scope.cwd = normalize_path(scope.cwd + "/" + target.text);
        for (std::string& alt : scope.alt_cwds) alt = normalize_path(alt + "/" + target.text);
    }
    // cd d; cd d; …: the directory's name grows with each move, and is copied with it.
    if (scope.cwd_known) a.spend_value(scope.cwd, "the working directory's name");
    if (old_known) {
        a.assign(scope, "OLDPWD", Value::literal(old));
    } else {
        a.assign(scope, "OLDPWD", Value::unknown_value(true));
    }
}

void cd_builtin(Analyzer& a, Call& c) {
    Scope& scope = *c.scope;
    size_t i = 0;
    while (i < c.argc() && c.args[i].known() &&
           (c.arg(i) == "-L" || c.arg(i) == "-P" || c.arg(i) == "-e" || c.arg(i) == "-@"))
        ++i;
    if (i < c.argc() && c.arg(i) == "--") ++i;
    Value target = i < c.argc() ? c.args[i] : a.lookup("HOME", scope);
    if (target.known() && target.text == "-") target = a.lookup("OLDPWD", scope);
    change_dir(a, scope, target);
    a.hit(Decision::allow, "shell.cd", "changes the working directory");
}

void pushd_builtin(Analyzer& a, Call& c) {
    Scope& scope = *c.scope;
    std::vector<Value> ops;
    for (const Value& v : c.args) {
        if (v.text != "-n") ops.push_back(v);
    }
    std::string cur = scope.cwd_known ? scope.cwd : std::string();
    if (ops.empty()) {
        if (!scope.dirstack.empty()) {
            std::string top = scope.dirstack.back();
            scope.dirstack.back() = cur;
            change_dir(a, scope, top.empty() ? Value::unknown_value() : Value::literal(top));
        }
    } else if (!ops[0].text.empty() && (ops[0].text[0] == '+' || ops[0].text[0] == '-') &&
               ops[0].text.size() > 1) {
        scope.cwd_known = false;  // rotating the stack: where we land is not tracked
    } else {
        scope.dirstack.push_back(cur);
        change_dir(a, scope, ops[0]);
    }
    a.hit(Decision::allow, "shell.cd", "changes the working directory");
}

void popd_builtin(Analyzer& a, Call& c) {
    Scope& scope = *c.scope;
    bool rotate = std::any_of(c.args.begin(), c.args.end(), [](const Value& v) {
        return v.text.size() > 1 && (v.text[0] == '+' || (v.text[0] == '-' && v.text != "-n"));
    });
    if (rotate) {
        scope.cwd_known = false;
    } else if (!scope.dirstack.empty()) {
        std::string top = scope.dirstack.back();
        scope.dirstack.pop_back();
        change_dir(a, scope, top.empty() ? Value::unknown_value() : Value::literal(top));
    } else {
        // The stack holds directories from before this command: unknown.
        scope.cwd_known = false;
        scope.cwd_guarded = true;
    }
    a.hit(Decision::allow, "shell.cd", "changes the working directory");
}

void declare_builtin(Analyzer& a, Call& c) {
    bool functions = false;
    bool nameref = false;
    for (const Value& v : c.args) {
        if (is_flag(v) || (v.known() && v.text.size() > 1 && v.text[0] == '+')) {
            if (v.text.find('f') != std::string::npos) functions = true;
            if (v.text[0] == '-' && v.text.find('n') != std::string::npos) nameref = true;
            continue;
        }
        if (nameref && !functions) {
            // declare -n ref=target: later reads and writes of ref reach target.
            size_t eq = v.text.find('=');
            std::string name = v.text.substr(0, eq);
            if (eq == std::string::npos || name.find(kUnknown) != std::string::npos) continue;
            std::string target = v.text.substr(eq + 1);
            if (target.empty() || target.find(kUnknown) != std::string::npos) {
                // A reference to a name known only at run time: its reads are unknown.
                c.scope->namerefs.erase(name);
                a.assign(*c.scope, name, Value::unknown_value());
            } else {
                c.scope->vars.erase(name);
                c.scope->namerefs.insert_or_assign(name, target.substr(0, target.find('[')));
            }
            continue;
        }
        size_t eq = v.text.find('=');
        if (functions || eq == std::string::npos || eq == 0) continue;
        std::string name = v.text.substr(0, eq);
        bool append = !name.empty() && name.back() == '+';
        if (append) name.pop_back();
        if (name.find(kUnknown) != std::string::npos || name.find('[') != std::string::npos)
            continue;
        Value val = v;
        val.text = v.text.substr(eq + 1);
        val.unknown = val.text.find(kUnknown) != std::string::npos;
        if (append) {
            std::vector<Value> both{a.lookup(name, *c.scope), val};
            val = join_values(both, 0, "");
        }
        a.judge_command_variable(name, val, *c.scope);
        a.assign(*c.scope, name, val);
    }
    a.hit(Decision::allow, "shell.assignment", "sets shell variables");
}

void unset_builtin(Analyzer& a, Call& c) {
    bool functions = false;
    for (const Value& v : c.args) {
        if (v.text == "-f") {
            functions = true;
            continue;
        }
        if (is_flag(v)) continue;
        if (functions) {
            c.scope->functions.erase(v.text);
        } else {
            c.scope->vars.insert_or_assign(v.text, Value::unknown_value());
        }
    }
    a.hit(Decision::allow, "shell.assignment", "unsets shell variables");
}

void set_builtin(Analyzer& a, Call& c) {
    for (size_t i = 0; i < c.argc(); ++i) {
        const std::string& t = c.arg(i);
        if (t == "--" || (!is_flag(c.args[i]) && !(t.size() > 1 && t[0] == '+'))) {
            size_t from = t == "--" ? i + 1 : i;
            c.scope->positional.assign(c.args.begin() + static_cast<long>(from), c.args.end());
            c.scope->positional_known = true;
            break;
        }
        if (t == "-o" || t == "+o") ++i;
    }
    a.hit(Decision::allow, "shell.builtin", "sets shell options");
}

void shift_builtin(Analyzer& a, Call& c) {
    Scope& s = *c.scope;
    size_t n = 1;
    if (!c.args.empty()) n = c.args[0].known() ? std::strtoul(c.arg(0).c_str(), nullptr, 10) : 0;
    if (s.positional_known) {
        if (c.args.empty() || c.args[0].known()) {
            s.positional.erase(
                s.positional.begin(),
                s.positional.begin() + static_cast<long>(std::min(n, s.positional.size())));
        } else {
            s.positional_known = false;
        }
    }
    a.hit(Decision::allow, "shell.builtin", "shifts the positional parameters");
}

void alias_builtin(Analyzer& a, Call& c) {
    for (const Value& v : c.args) {
        size_t eq = v.text.find('=');
        if (is_flag(v) || eq == std::string::npos) continue;
        std::string name = v.text.substr(0, eq);
        Value body = v;
        body.text = v.text.substr(eq + 1);
        // The alias runs wherever its name is used later: judge its text now.
        a.run_string(body, *c.scope, false, Stream(), "alias `" + name + "`");
        if (body.known()) c.scope->aliases.insert_or_assign(name, body.text);
    }
    a.hit(Decision::allow, "shell.builtin", "defines or lists aliases");
}

void unalias_builtin(Analyzer& a, Call& c) {
    for (const Value& v : c.args) {
        if (v.text == "-a") c.scope->aliases.clear();
        c.scope->aliases.erase(v.text);
    }
    a.hit(Decision::allow, "shell.builtin", "removes aliases");
}

void trap_builtin(Analyzer& a, Call& c) {
    size_t i = 0;
    if (i < c.argc() && (c.arg(i) == "-p" || c.arg(i) == "-l" || c.arg(i) == "-P")) {
        a.hit(Decision::allow, "shell.builtin", "lists traps");
        return;
    }
    if (i < c.argc() && c.arg(i) == "--") ++i;
    if (i + 1 < c.argc() && c.arg(i) != "-") {
        a.run_string(c.args[i], *c.scope, true, Stream(), "the trap handler");
    }
    a.hit(Decision::allow, "shell.builtin", "sets a trap");
}

void eval_builtin(Analyzer& a, Call& c) {
    size_t i = 0;
    if (i < c.argc() && c.arg(i) == "--") ++i;
    if (i >= c.argc()) {
        a.hit(Decision::allow, "shell.builtin", "eval of nothing");
        return;
    }
    Value code = join_values(c.args, i, " ");
    a.run_string(code, *c.scope, true, c.in, "eval");
    a.hit(Decision::allow, "shell.builtin", "eval");
}

void source_builtin(Analyzer& a, Call& c) {
    if (c.args.empty()) {
        a.hit(Decision::allow, "shell.builtin", "source without a file does nothing");
        return;
    }
    const Value& file = c.args[0];
    if (file.procsub) {
        a.shell_reads(*file.procsub, *c.scope, c.name, c);
        return;
    }
    Scope& s = *c.scope;
    if (a.refuse_tainted_script(file, s, "`" + c.name + "`")) return;
    if (const std::string* text = a.file_text(file, s)) {
        a.run_string(Value::literal(*text), s, true, c.in, "`" + c.name + " " + file.shown() + "`");
        return;
    }
    if (file.known() &&
        (file.text == "/dev/stdin" || file.text == "/proc/self/fd/0" || file.text == "/dev/fd/0")) {
        a.shell_reads(c.in, s, c.name, c);
        return;
    }
    a.hit(Decision::cage, "shell.source",
          "`" + c.name + " " + file.shown() + "` runs that file's code in this shell");
}

void exec_builtin(Analyzer& a, Call& c) {
    size_t i = 0;
    while (i < c.argc() && is_flag(c.args[i])) {
        if (c.arg(i) == "-a") ++i;
        ++i;
    }
    if (i >= c.argc()) {
        a.hit(Decision::allow, "shell.builtin", "exec without a command only opens files");
        return;
    }
    Call proto = c;
    proto.args.clear();
    proto.via = c.via + "exec ";
    c.out =
        a.exec_argv(std::vector<Value>(c.args.begin() + static_cast<long>(i), c.args.end()), proto);
}

void read_builtin(Analyzer& a, Call& c) {
    // read from known text (here-string, heredoc, echo |): the variables get its words.
    std::vector<std::string> names;
    bool array = c.name != "read";  // mapfile and readarray fill an array, one line an item
    bool strip_newline = false;
    for (size_t i = 0; i < c.argc(); ++i) {
        const std::string& t = c.arg(i);
        if (is_flag(c.args[i]) && t[1] != '-') {
            // A bundle (-ra NAME): its last letter may take the next word.
            for (size_t k = 1; k < t.size(); ++k) {
                char f = t[k];
                if (c.name == "read" && f == 'a') array = true;
                if (c.name != "read" && f == 't') {
                    strip_newline = true;
                    continue;
                }
                bool takes = c.name == "read" ? std::string_view("pdnNtuaiC").find(f) != std::string_view::npos
                                              : std::string_view("dnOsuCc").find(f) != std::string_view::npos;
                if (!takes) continue;
                if (k + 1 == t.size() && i + 1 < c.argc()) {
                    ++i;
                    if (f == 'a') names.push_back(c.arg(i));
                }
                break;
            }
            continue;
        }
        names.push_back(t);
    }
    if (c.name != "read") {
        for (size_t i = 0; i + 1 < c.argc(); ++i) {
            // -C CALLBACK is evaluated as shell code for every chunk of lines.
            if (c.arg(i) == "-C") a.run_string(c.args[i + 1], *c.scope, true, Stream(), c.name + " -C");
        }
        std::string arr = names.empty() ? std::string("MAPFILE") : names.back();
        if (c.in.kind == Stream::Kind::literal) {
            std::vector<Value> items;
            size_t b = 0;
            const std::string& text = c.in.text;
            while (b < text.size() && items.size() < 256) {
                size_t e = text.find('\n', b);
                std::string line = text.substr(b, e == std::string::npos ? std::string::npos : e - b + (strip_newline ? 0 : 1));
                Value item = Value::literal(line);
                item.taint = std::max(c.in.taint, Taint::computed);
                items.push_back(std::move(item));
                if (e == std::string::npos) break;
                b = e + 1;
            }
            c.scope->arrays[arr] = items;
            c.scope->vars.erase(arr);
        } else {
            // Lines of unknown content: every item is unknown, with the input's origin.
            c.scope->arrays[arr] = {Value::unknown_value(false, std::max(c.in.taint, Taint::computed))};
            c.scope->vars.erase(arr);
        }
        a.hit(Decision::allow, "shell.builtin", "reads input into an array");
        return;
    }
    if (c.in.kind == Stream::Kind::literal && c.name == "read" && !names.empty()) {
        std::string line = c.in.text.substr(0, c.in.text.find('\n'));
        std::vector<std::string> words = split_ws(line);
        if (array) {
            std::vector<Value> items;
            for (const std::string& w : words) items.push_back(Value::literal(w));
            c.scope->arrays[names[0]] = items;
        } else {
            for (size_t k = 0; k < names.size(); ++k) {
                std::string v;
                if (k + 1 == names.size()) {
                    // the last name gets the rest of the line
                    for (size_t w = k; w < words.size(); ++w) v += (w > k ? " " : "") + words[w];
                } else if (k < words.size()) {
                    v = words[k];
                }
                Value val = Value::literal(v);
                val.taint = std::max(c.in.taint, Taint::computed);
                a.assign(*c.scope, names[k], val);
            }
        }
        a.hit(Decision::allow, "shell.builtin", "reads input into variables");
        return;
    }
    for (size_t i = 0; i < c.argc(); ++i) {
        const std::string& t = c.arg(i);
        if (is_flag(c.args[i])) {
            if (t == "-p" || t == "-d" || t == "-n" || t == "-N" || t == "-t" || t == "-u" ||
                t == "-i" || t == "-a" || t == "-C" || t == "-c" || t == "-s" || t == "-O") {
                if (t == "-a" && i + 1 < c.argc())
                    c.scope->vars.insert_or_assign(c.arg(i + 1), Value::unknown_value());
                if (t != "-s") ++i;
            }
            continue;
        }
        c.scope->vars.insert_or_assign(t, Value::unknown_value(false, c.in.taint));
    }
    a.hit(Decision::allow, "shell.builtin", "reads input into variables");
}

void let_builtin(Analyzer& a, Call& c) {
    for (const Value& v : c.args) a.check_arithmetic(v.text, *c.scope);
    a.hit(Decision::allow, "shell.builtin", "arithmetic only computes numbers");
}

void enable_builtin(Analyzer& a, Call& c) {
    for (const Value& v : c.args) {
        if (v.text == "-f") {
            a.hit(Decision::cage, "shell.load-builtin",
                  "`enable -f` loads a shared library into the shell");
            return;
        }
    }
    a.hit(Decision::allow, "shell.builtin", "enables builtins");
}

void command_builtin(Analyzer& a, Call& c) {
    size_t i = 0;
    bool lookup = false;
    while (i < c.argc() && is_flag(c.args[i]) && c.arg(i) != "--") {
        if (c.arg(i).find_first_of("vV") != std::string::npos) lookup = true;
        ++i;
    }
    if (i < c.argc() && c.arg(i) == "--") ++i;
    if (lookup && c.argc() - i <= 1) {
        a.hit(Decision::allow, "shell.lookup", "`command -v` only looks names up");
        return;
    }
    // `command -v NAME ARGS…` only looks the words up, but reads like a command: judge it as one.
    if (i >= c.argc()) {
        a.hit(Decision::allow, "shell.builtin", "command without a name does nothing");
        return;
    }
    Call proto = c;
    proto.args.clear();
    proto.via = c.via + "command ";
    // `command` skips functions: look the name up as a program.
    Scope& s = *c.scope;
    auto saved = s.functions;
    s.functions.clear();
    c.out =
        a.exec_argv(std::vector<Value>(c.args.begin() + static_cast<long>(i), c.args.end()), proto);
    for (auto& f : saved) s.functions.insert(f);
}

void builtin_builtin(Analyzer& a, Call& c) {
    if (c.args.empty()) {
        a.hit(Decision::allow, "shell.builtin", "builtin without a name");
        return;
    }
    Call proto = c;
    proto.args.clear();
    Scope& s = *c.scope;
    auto saved = s.functions;
    s.functions.clear();
    c.out = a.exec_argv(c.args, proto);
    for (auto& f : saved) s.functions.insert(f);
}

void harmless_builtin(Analyzer& a, Call& c) {
    a.hit(Decision::allow, "shell.builtin",
          "`" + c.name + "` is a shell builtin without effects outside the shell");
}

}  // namespace

namespace {
constexpr auto kBuiltinPrograms = sorted_by_name(std::to_array<ProgramEntry>({
    {"cd", cd_builtin},
    {"pushd", pushd_builtin},
    {"popd", popd_builtin},
    {"export", declare_builtin},
    {"declare", declare_builtin},
    {"typeset", declare_builtin},
    {"local", declare_builtin},
    {"readonly", declare_builtin},
    {"unset", unset_builtin},
    {"set", set_builtin},
    {"shift", shift_builtin},
    {"alias", alias_builtin},
    {"unalias", unalias_builtin},
    {"trap", trap_builtin},
    {"eval", eval_builtin},
    {"source", source_builtin},
    {".", source_builtin},
    {"exec", exec_builtin},
    {"read", read_builtin},
    {"mapfile", read_builtin},
    {"readarray", read_builtin},
    {"let", let_builtin},
    {"enable", enable_builtin},
    {"command", command_builtin},
    {"builtin", builtin_builtin},
    {"wait", harmless_builtin},
    {"jobs", harmless_builtin},
    {"fg", harmless_builtin},
    {"bg", harmless_builtin},
    {"disown", harmless_builtin},
    {"history", harmless_builtin},
    {"hash", harmless_builtin},
    {"ulimit", harmless_builtin},
    {"umask", harmless_builtin},
    {"shopt", harmless_builtin},
    {"help", harmless_builtin},
    {"times", harmless_builtin},
    {"return", harmless_builtin},
    {"exit", harmless_builtin},
    {"break", harmless_builtin},
    {"continue", harmless_builtin},
    {"getopts", harmless_builtin},
    {"caller", harmless_builtin},
    {"dirs", harmless_builtin},
    {"compgen", harmless_builtin},
    {"complete", harmless_builtin},
    {"compopt", harmless_builtin},
    {"bind", harmless_builtin},
    {"logout", harmless_builtin},
    {"suspend", harmless_builtin},
}));
}  // namespace

void judge_name_subscripts(Analyzer& a, Call& c) {
    // The builtins whose arguments bash may read as variable names; `[` and `test` for -v/-R,
    // printf for -v (and %d arguments, which some versions evaluate as arithmetic).
    static constexpr std::string_view kNameTaking[] = {
        "[", "declare", "export", "getopts", "let", "local", "mapfile", "printf", "read", "readarray",
        "readonly", "test", "typeset", "unset", "wait"};
    if (std::find(std::begin(kNameTaking), std::end(kNameTaking), c.name) == std::end(kNameTaking)) return;
    for (const Value& v : c.args) {
        const std::size_t open = v.text.find('[');
        if (open == std::string::npos || v.text.find_first_of("$`", open) == std::string::npos) continue;
        // The subscript is expanded as a double-quoted word: what it substitutes runs.
        std::string subscript = v.text.substr(open + 1);
        subscript = subscript.substr(0, subscript.rfind(']'));
        a.run_string(Value::literal(": " + subscript), *c.scope, false, Stream(),
                     "the subscript in `" + c.name + " " + v.shown() + "`");
    }
}

std::span<const ProgramEntry> builtin_programs() {
    return kBuiltinPrograms;
}

}  // namespace toolcage::classify::detail
