// Interpreters: python, node, perl, ruby, php, lua. Running a script or a one-liner is caged
// (it runs code); the one-liner or stdin program is also scanned (code_scan.cpp) for sinks that
// delete files or run shell commands, which are judged like the same action written in shell.
#include <algorithm>

#include "hook/classify/analyzer.h"
#include "hook/classify/program_table.h"
#include "hook/classify/text.h"

namespace toolcage::classify::detail {

namespace {

struct Invocation {
    std::vector<Value> code;  // -c / -e / -r texts
    bool stdin_code = false;  // `-` or no script: the program comes from stdin
    const Value* script = nullptr;
    std::string module;     // python -m
    size_t module_at = 0;   // index of the module's first argument
    bool in_place = false;  // perl/ruby -i
    size_t rest = 0;        // index after the script / code
    bool version = false;
};

// Short options: `code_letters` take the program text (attached or next), `arg_letters` take a
// value (attached or next); a bundle may mix flags (python -uc, perl -lne).
Invocation parse_interp(const Call& c, std::string_view code_letters, std::string_view arg_letters,
                        std::initializer_list<std::string_view> long_code,
                        std::initializer_list<std::string_view> long_arg, char module_letter,
                        char inplace_letter) {
    Invocation inv;
    size_t i = 0;
    for (; i < c.argc(); ++i) {
        const Value& v = c.args[i];
        const std::string& t = v.text;
        if (v.unknown || t.empty() || t[0] != '-') break;
        if (t == "-") {
            inv.stdin_code = true;
            ++i;
            break;
        }
        if (t == "--") {
            ++i;
            break;
        }
        if (t == "--version" || t == "-V" || t == "--help" || t == "-h" || t == "-v" ||
            t == "-version") {
            if (c.argc() == 1) inv.version = true;
            if (t != "-v") continue;
        }
        if (t[1] == '-') {
            std::string name = t.substr(0, t.find('='));
            bool inline_val = t.find('=') != std::string::npos;
            std::string val = inline_val ? t.substr(t.find('=') + 1) : std::string();
            if (std::find(long_code.begin(), long_code.end(), name) != long_code.end()) {
                if (!inline_val && i + 1 < c.argc()) {
                    inv.code.push_back(c.args[++i]);
                } else {
                    inv.code.push_back(Value::literal(val));
                }
            } else if (std::find(long_arg.begin(), long_arg.end(), name) != long_arg.end() &&
                       !inline_val) {
                ++i;
            }
            continue;
        }
        for (size_t k = 1; k < t.size(); ++k) {
            char f = t[k];
            if (f == inplace_letter && inplace_letter) {
                inv.in_place = true;
                if (c.name == "perl" || c.name == "ruby") {
                    // -i[ext]: but -pie is read as -p -i -e by most hands; keep scanning.
                    continue;
                }
            }
            bool is_code = code_letters.find(f) != std::string_view::npos;
            bool is_mod = module_letter && f == module_letter;
            bool takes = arg_letters.find(f) != std::string_view::npos;
            if (is_code || is_mod || takes) {
                Value val;
                if (k + 1 < t.size()) {
                    val = v;
                    val.text = t.substr(k + 1);
                } else if (i + 1 < c.argc()) {
                    val = c.args[++i];
                }
                if (is_code) inv.code.push_back(val);
                if (is_mod) {
                    inv.module = val.text;
                    inv.module_at = i + 1;
                    inv.rest = i + 1;
                    return inv;
                }
                break;
            }
        }
    }
    inv.rest = i;
    if (inv.code.empty() && !inv.stdin_code && inv.module.empty()) {
        if (i < c.argc()) {
            inv.script = &c.args[i];
            inv.rest = i + 1;
        } else {
            inv.stdin_code = true;
        }
    }
    return inv;
}

void run_invocation(Analyzer& a, Call& c, const Invocation& inv, std::string_view lang) {
    std::string who = "`" + c.via + c.name + "`";
    if (inv.version) {
        a.hit(Decision::allow, "readonly.version", who + " only prints its version");
        return;
    }
    if (inv.in_place) {
        for (size_t k = inv.rest; k < c.argc(); ++k) {
            if (!is_flag(c.args[k]))
                a.check_write(c.args[k], WriteMode::replace, c.name + " -i", *c.scope);
        }
    }
    if (!inv.code.empty()) {
        a.hit(Decision::cage, "interp.code", who + " runs " + std::string(lang) + " code");
        Value all = join_values(inv.code, 0, "\n");
        a.interpreter_code(lang, all, c);
        return;
    }
    if (inv.script) {
        const Value& s = *inv.script;
        if (s.procsub) {
            a.interpreter_reads(lang, *s.procsub, c);
            return;
        }
        if (a.refuse_tainted_script(s, *c.scope, who, false)) return;
        if (a.file_text(s, *c.scope)) {
            a.hit(Decision::cage, "interp.script", who + " runs the script " + s.shown());
            a.run_known_script(s, c, lang);
            return;
        }
        a.hit(Decision::cage, "interp.script", who + " runs the script " + s.shown());
        return;
    }
    if (inv.stdin_code) {
        a.hit(Decision::cage, "interp.code", who + " runs " + std::string(lang) + " code");
        a.interpreter_reads(lang, c.in, c);
    }
}

void python_program(Analyzer& a, Call& c) {
    Invocation inv = parse_interp(c, "c", "WX", {}, {"--check-hash-based-pycs"}, 'm', 0);
    if (!inv.module.empty()) {
        std::vector<Value> rest(
            c.args.begin() + static_cast<long>(std::min(inv.module_at, c.argc())), c.args.end());
        static const std::string_view kRunners[] = {
            "pip",    "twine", "pytest", "black", "mypy", "flake8", "pylint", "ruff",
            "poetry", "pdm",   "hatch",  "flit",  "uv",   "tox",    "nox",    "build"};
        std::string mod = inv.module;
        if (mod == "pip" ||
            std::find(std::begin(kRunners), std::end(kRunners), mod) != std::end(kRunners)) {
            // python -m twine upload … is the same program as twine upload.
            Call proto;
            proto.scope = c.scope;
            proto.in = c.in;
            proto.via = c.via + c.name + " -m ";
            std::vector<Value> argv{Value::literal(mod == "build" ? "pip" : mod)};
            for (Value& v : rest) argv.push_back(v);
            if (mod == "build") {
                a.hit(Decision::cage, "build.run", "`python -m build` builds the package");
                return;
            }
            c.out = a.exec_argv(std::move(argv), proto);
            return;
        }
        if (mod == "json.tool" || mod == "this" || mod == "site" || mod == "sysconfig" ||
            mod == "platform") {
            a.hit(Decision::cage, "interp.module", "`python -m " + mod + "` runs a module");
            return;
        }
        a.hit(Decision::cage, "interp.module", "`python -m " + mod + "` runs a module");
        return;
    }
    run_invocation(a, c, inv, "python");
}

void node_program(Analyzer& a, Call& c) {
    Invocation inv = parse_interp(c, "ep", "r", {"--eval", "--print"},
                                  {"--require", "--import", "--loader", "--input-type"}, 0, 0);
    run_invocation(a, c, inv, "node");
}

void deno_program(Analyzer& a, Call& c) {
    std::string sub = c.args.empty() ? "" : c.arg(0);
    if (sub == "eval" && c.argc() >= 2) {
        a.hit(Decision::cage, "interp.code", "`deno eval` runs code");
        a.interpreter_code("node", c.args.back(), c);
        return;
    }
    if (sub == "--version" || sub == "-V" || sub == "info" || sub == "doc") {
        a.hit(Decision::allow, "readonly.version", "`deno " + sub + "` only prints information");
        return;
    }
    if (sub == "publish") {
        a.hit(Decision::deny, "publish.package", "`deno publish` publishes a package");
        return;
    }
    a.hit(Decision::cage, "interp.script", "`deno " + sub + "` runs code");
}

void bun_program(Analyzer& a, Call& c) {
    std::string sub = c.args.empty() ? "" : c.arg(0);
    if (sub == "publish") {
        a.hit(Decision::deny, "publish.package", "`bun publish` publishes a package");
        return;
    }
    if (sub == "--version" || sub == "-v") {
        a.hit(Decision::allow, "readonly.version", "`bun --version` prints its version");
        return;
    }
    Invocation inv = parse_interp(c, "ep", "r", {"--eval", "--print"}, {"--preload"}, 0, 0);
    if (!inv.code.empty()) {
        run_invocation(a, c, inv, "node");
        return;
    }
    a.hit(Decision::cage, "pkg.run", "`bun " + sub + "` runs project or package code");
}

void perl_program(Analyzer& a, Call& c) {
    Invocation inv = parse_interp(c, "eE", "IMm", {}, {}, 0, 'i');
    run_invocation(a, c, inv, "perl");
}

void ruby_program(Analyzer& a, Call& c) {
    Invocation inv = parse_interp(c, "e", "rICE", {}, {"--require", "--encoding"}, 0, 'i');
    run_invocation(a, c, inv, "ruby");
}

void php_program(Analyzer& a, Call& c) {
    for (const Value& v : c.args) {
        if (v.text == "-l" || v.text == "--syntax-check" || v.text == "-m" || v.text == "-i" ||
            v.text == "--info") {
            a.hit(Decision::allow, "readonly.version",
                  "`php " + v.text + "` only checks or prints information");
            return;
        }
        if (v.text == "-S") {
            a.hit(Decision::cage, "interp.script", "`php -S` runs a web server");
            return;
        }
    }
    Invocation inv = parse_interp(c, "rBRE", "dcftSz",
                                  {"--run", "--process-begin", "--process-code", "--process-end"},
                                  {"--define", "--php-ini", "--file"}, 0, 0);
    run_invocation(a, c, inv, "php");
}

void lua_program(Analyzer& a, Call& c) {
    Invocation inv = parse_interp(c, "e", "l", {}, {}, 0, 0);
    run_invocation(a, c, inv, "lua");
}

void rscript_program(Analyzer& a, Call& c) {
    Invocation inv = parse_interp(c, "e", "", {}, {}, 0, 0);
    run_invocation(a, c, inv, "r");
}

}  // namespace

namespace {
constexpr auto kInterpreterPrograms =
    sorted_by_name(std::to_array<ProgramEntry>({{"python", python_program},
                                                {"python3", python_program},
                                                {"python2", python_program},
                                                {"pypy", python_program},
                                                {"pypy3", python_program},
                                                {"node", node_program},
                                                {"nodejs", node_program},
                                                {"deno", deno_program},
                                                {"bun", bun_program},
                                                {"perl", perl_program},
                                                {"ruby", ruby_program},
                                                {"php", php_program},
                                                {"lua", lua_program},
                                                {"luajit", lua_program},
                                                {"Rscript", rscript_program}}));
}  // namespace

std::span<const ProgramEntry> interpreter_programs() {
    return kInterpreterPrograms;
}

}  // namespace toolcage::classify::detail
