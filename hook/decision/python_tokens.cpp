#include "hook/decision/python_tokens.h"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "hook/decision/python_modules.h"

namespace toolcage::hook {

namespace {

using Token = PyToken;
using Kind = PyToken::Kind;

struct Failure {
    std::string why;
};

// Names that open files, run programs, reach modules that do, or reach the interpreter's
// frames and namespaces; refused wherever they appear (name, attribute, keyword argument).
constexpr std::string_view kRefusedNames[] = {
    "open",       "exec",       "eval",        "compile",     "globals",    "locals",
    "vars",       "getattr",    "setattr",     "delattr",     "input",      "breakpoint",
    "help",       "license",    "credits",     "copyright",   "os",         "sys",
    "subprocess", "shutil",     "socket",      "pathlib",     "io",         "codecs",
    "ctypes",     "importlib",  "builtins",    "pickle",      "marshal",    "shelve",
    "tempfile",   "glob",       "fcntl",       "posix",       "pty",        "signal",
    "multiprocessing", "threading", "asyncio", "urllib",      "http",       "ftplib",
    "smtplib",    "requests",   "hermes_tools", "modules",    "system",     "popen",
    "spawn",      "fork",       "forkpty",     "kill",        "unlink",     "remove",
    "removedirs", "rmdir",      "rmtree",      "mkdir",       "makedirs",   "chmod",
    "chown",      "symlink",    "link",        "truncate",    "write",      "writelines",
    "write_text", "write_bytes", "touch",      "rename",      "renames",    "terminal",
    "load_module", "exec_module", "f_builtins", "f_globals"};

// Frame and code objects lead back to every namespace.
constexpr std::string_view kFrameNames[] = {
    "gi_frame", "gi_code", "cr_frame", "cr_code", "ag_frame", "ag_code",
    "f_back",   "f_locals", "f_code",  "tb_frame", "tb_next", "co_code"};

template <size_t N>
bool in(const std::string_view (&list)[N], std::string_view s) {
    return std::find(std::begin(list), std::end(list), s) != std::end(list);
}

bool refused_name(std::string_view s) { return in(kRefusedNames, s) || in(kFrameNames, s); }

// An attribute any object may be asked for: public (a leading underscore is a module's or a
// class's internals: random._os, tempfile._os) and not one of the names above.
bool plain_attribute(std::string_view s) { return !s.empty() && s[0] != '_' && !refused_name(s); }
bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// str.format and format_map look attributes up by the names in their fields: "{0._os}" reads
// what `x._os` would. Every name after a dot inside a field must be a plain attribute.
std::string bad_format_attribute(std::string_view s) {
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '{') continue;
        if (i + 1 < s.size() && s[i + 1] == '{') {
            ++i;
            continue;
        }
        std::size_t end = s.find('}', i);
        std::string_view field = s.substr(i + 1, end == std::string_view::npos ? std::string_view::npos : end - i - 1);
        for (std::size_t k = 0; k < field.size(); ++k) {
            if (field[k] != '.') continue;
            std::size_t b = k + 1;
            while (b < field.size() && is_ident_char(field[b])) ++b;
            std::string_view name = field.substr(k + 1, b - k - 1);
            if (!plain_attribute(name)) return std::string(name);
        }
        if (end == std::string_view::npos) break;
        i = end;
    }
    return {};
}
// The names and import statements, over the token stream. Imports name listed modules only;
// a module is used only as `module.name` with a listed name; any other attribute is public.
void check_tokens(const std::vector<Token>& t) {
    auto fail = [](const Token& at, const std::string& what) -> void {
        throw Failure{"line " + std::to_string(at.line) + ": " + what};
    };
    auto is_op = [&](size_t i, char c) { return i < t.size() && t[i].kind == Kind::op && t[i].text[0] == c; };
    auto is_name = [&](size_t i, std::string_view n = {}) {
        return i < t.size() && t[i].kind == Kind::name && (n.empty() || t[i].text == n);
    };
    // First the imports: which names are modules, and which tokens the import statements hold.
    std::map<std::string, std::string> modules;  // the name in the program -> the module
    std::vector<bool> in_import(t.size(), false);
    for (size_t i = 0; i < t.size(); ++i) {
        if (i > 0 && is_op(i - 1, '.')) continue;  // an attribute named import or from
        if (is_name(i, "import")) {
            // import a [as b], c ...
            size_t k = i + 1;
            while (true) {
                if (!is_name(k)) fail(t[i], "an import this check cannot read");
                const std::string& m = t[k].text;
                if (!pure_module(m)) fail(t[k], "import of " + m);
                if (is_op(k + 1, '.')) fail(t[k], "import of a submodule of " + m);
                std::string as = m;
                ++k;
                if (is_name(k, "as")) {
                    if (!is_name(k + 1)) fail(t[i], "an import this check cannot read");
                    as = t[k + 1].text;
                    k += 2;
                }
                modules[as] = m;
                if (!is_op(k, ',')) break;
                ++k;
            }
            std::fill(in_import.begin() + static_cast<long>(i), in_import.begin() + static_cast<long>(k), true);
            i = k - 1;
        } else if (is_name(i, "from")) {
            size_t k = i + 1;
            if (is_op(k, '.')) fail(t[i], "a relative import");
            if (!is_name(k)) continue;  // yield from / raise ... from
            size_t after = k + 1;
            while (is_op(after, '.') && is_name(after + 1)) after += 2;
            if (!is_name(after, "import")) continue;
            const std::string& m = t[k].text;
            if (!pure_module(m)) fail(t[k], "import from " + m);
            if (after != k + 1) fail(t[k], "import from a submodule of " + m);
            k = after + 1;
            if (is_op(k, '*')) fail(t[after], "import *");
            bool paren = is_op(k, '(');
            if (paren) ++k;
            while (true) {
                if (!is_name(k)) fail(t[i], "an import this check cannot read");
                if (!pure_module_name(m, t[k].text)) fail(t[k], "import of " + m + "." + t[k].text);
                ++k;
                if (is_name(k, "as")) {
                    if (!is_name(k + 1)) fail(t[i], "an import this check cannot read");
                    k += 2;
                }
                if (!is_op(k, ',')) break;
                ++k;
                if (paren && is_op(k, ')')) break;
            }
            if (paren) {
                if (!is_op(k, ')')) fail(t[i], "an import this check cannot read");
                ++k;
            }
            std::fill(in_import.begin() + static_cast<long>(i), in_import.begin() + static_cast<long>(k), true);
            i = k - 1;
        }
    }
    for (size_t i = 0; i < t.size(); ++i) {
        if (t[i].kind != Kind::name) continue;
        const std::string& n = t[i].text;
        if (n.find("__") != std::string::npos) fail(t[i], "the dunder name " + n);
        if (in_import[i]) continue;  // checked against the module's list above
        const bool attribute = i > 0 && is_op(i - 1, '.');
        // x.n: when x is a module, its list alone decides (re.compile is not compile()).
        if (attribute && i >= 2 && is_name(i - 2) && !is_op(i - 3, '.') && modules.count(t[i - 2].text)) {
            const std::string& m = modules[t[i - 2].text];
            if (!pure_module_name(m, n))
                fail(t[i], m + "." + n + ", which is not one of the names of " + m + " known to only compute");
            continue;
        }
        if (refused_name(n)) fail(t[i], "the name " + n);
        if (!attribute) {
            // A module goes nowhere but into `module.name`: not into a variable, a call or a
            // format string, where what it imported would be reachable.
            if (modules.count(n) && !(is_op(i + 1, '.') && is_name(i + 2)))
                fail(t[i], "the module " + n + " used otherwise than as " + n + ".NAME");
            continue;
        }
        if (!plain_attribute(n)) fail(t[i], "the attribute " + n);
    }
}

}  // namespace

std::string refused_string(const std::string& value) {
    if (value.find("__") != std::string::npos) return "a string that spells a dunder name";
    if (refused_name(value)) return "a string that names \"" + value + "\"";
    if (std::string a = bad_format_attribute(value); !a.empty())
        return "a format field that reads the attribute \"" + a + "\"";
    return {};
}

std::string judge_python_tokens(const std::vector<PyToken>& tokens) {
    for (const PyToken& t : tokens) {
        std::string why;
        if (t.kind == Kind::string) why = refused_string(t.text);
        if (t.kind == Kind::name &&
            (t.text.empty() || !std::all_of(t.text.begin(), t.text.end(), is_ident_char)))
            why = "a name outside ASCII letters, digits and underscores";
        if (!why.empty()) return "line " + std::to_string(t.line) + ": " + why;
    }
    try {
        check_tokens(tokens);
    } catch (const Failure& f) {
        return f.why;
    }
    return {};
}

}  // namespace toolcage::hook
