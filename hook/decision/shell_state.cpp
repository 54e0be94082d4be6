#include "hook/decision/shell_state.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <vector>

#include "hook/shell/ast.h"

namespace toolcage::hook {

namespace {

// What a builtin may do where the agent's shell runs it.
enum class Role {
    state,    // changes only the shell's own state: may lead a split, stays outside
    replay,   // changes the shell's state that its children inherit: outside, and again inside
    quiet,    // prints or tests, changes nothing: may run as sent, never leads a split
};

struct Builtin {
    std::string_view name;
    Role role;
    std::string_view why;
};

// Sorted by name. Absent on purpose: alias (a later command would run what it names), source
// and . (run a file), eval, exec, trap, umask (the cage's files would take it), enable, hash,
// command without -v (runs a program), read and mapfile (consume the agent's input).
constexpr std::array kBuiltins = {
    Builtin{":", Role::quiet, "does nothing"},
    Builtin{"[", Role::quiet, "tests"},
    Builtin{"cd", Role::state, "moves the shell"},
    Builtin{"command", Role::quiet, "with -v or -V only: names what a word would run"},
    Builtin{"dirs", Role::quiet, "prints the directory stack"},
    Builtin{"echo", Role::quiet, "prints its arguments"},
    Builtin{"export", Role::replay, "sets variables the shell's children get"},
    Builtin{"false", Role::quiet, "fails"},
    Builtin{"popd", Role::state, "moves the shell"},
    Builtin{"printf", Role::quiet, "prints, or sets a variable with -v"},
    Builtin{"pushd", Role::state, "moves the shell"},
    Builtin{"pwd", Role::quiet, "prints the shell's directory"},
    Builtin{"set", Role::replay, "sets the shell's options"},
    Builtin{"shopt", Role::replay, "sets the shell's options"},
    Builtin{"test", Role::quiet, "tests"},
    Builtin{"true", Role::quiet, "succeeds"},
    Builtin{"type", Role::quiet, "names what a word would run"},
    Builtin{"unset", Role::replay, "removes variables"},
};
static_assert(std::is_sorted(kBuiltins.begin(), kBuiltins.end(),
                             [](const Builtin& a, const Builtin& b) { return a.name < b.name; }));

const Builtin* builtin(std::string_view name) {
    auto it = std::lower_bound(kBuiltins.begin(), kBuiltins.end(), name,
                               [](const Builtin& b, std::string_view n) { return b.name < n; });
    return it != kBuiltins.end() && it->name == name ? &*it : nullptr;
}

// Variables the agent's shell must never get from a command toolcage let through: they change
// what the next command (toolcage itself among them: its home, its log, its policies) loads,
// runs or refuses. Sorted.
constexpr std::array<std::string_view, 17> kGuardedVariables = {
    "BASHOPTS", "BASH_ENV", "CDPATH", "ENV", "GCONV_PATH", "GLIBC_TUNABLES", "HOME", "HOSTALIASES",
    "IFS", "LOCPATH", "NLSPATH", "PATH", "PROMPT_COMMAND", "PS0", "PS4", "SHELLOPTS", "TMPDIR",
};
static_assert(std::is_sorted(kGuardedVariables.begin(), kGuardedVariables.end()));

bool guarded_variable(std::string_view name) {
    for (std::string_view prefix : {"LD_", "MALLOC_", "BASH_FUNC", "TOOLCAGE", "XDG_", "HERMES_", "CLAUDE"})
        if (name.starts_with(prefix)) return true;
    return std::binary_search(kGuardedVariables.begin(), kGuardedVariables.end(), name);
}

// Nothing in the word runs code; `literal_only`: nor does it depend on the shell's variables.
bool inert(const shell::Word& w, bool literal_only) {
    for (const auto& p : w.parts) {
        switch (p.kind) {
            case shell::PartKind::literal:
            case shell::PartKind::tilde:
                break;
            case shell::PartKind::parameter:
            case shell::PartKind::glob:
                if (literal_only || !p.subs.empty()) return false;
                break;
            default:
                return false;
        }
    }
    return true;
}

bool harmless_redirect(const shell::Redirect& r) {
    if (!r.target.known()) return false;
    const std::string t = r.target.literal();
    if (r.op == ">&" || r.op == "<&")
        return t == "-" || (!t.empty() && std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; }));
    return (r.op == ">" || r.op == ">>" || r.op == "&>" || r.op == "&>>" || r.op == ">|") && t == "/dev/null";
}

std::string variable_name(const std::string& word) { return word.substr(0, word.find('=')); }

// The builtin this simple command runs when it is one of the table's and its arguments are
// harmless; nullptr otherwise.
const Builtin* state_builtin(const shell::Command& c, bool literal_only) {
    if (c.kind != shell::Command::Kind::simple || c.words.empty()) return nullptr;
    if (!c.assignments.empty()) return nullptr;
    for (const auto& w : c.words)
        if (!inert(w, literal_only)) return nullptr;
    if (!c.words[0].known()) return nullptr;
    const Builtin* b = builtin(c.words[0].literal());
    if (!b) return nullptr;
    const std::string name(b->name);
    for (std::size_t i = 1; i < c.words.size(); ++i) {
        std::string a = c.words[i].known() ? c.words[i].literal() : c.words[i].raw;
        if (name == "export" || name == "unset") {
            if (a.starts_with("-") && a.find('f') != std::string::npos) return nullptr;  // functions
            if (!a.starts_with("-") && guarded_variable(variable_name(a))) return nullptr;
        }
        if (name == "command" && i == 1 && a != "-v" && a != "-V") return nullptr;
        if (name == "set" && !a.starts_with("-") && !a.starts_with("+")) return nullptr;  // $1...
    }
    if (name == "command" && c.words.size() < 2) return nullptr;
    return b;
}

// A bare assignment (`A=1`) changes the shell alone, as `set` would.
bool inert_assignment(const shell::Command& c) {
    if (c.kind != shell::Command::Kind::simple || !c.words.empty() || c.assignments.empty()) return false;
    for (const auto& a : c.assignments)
        if (a.array || guarded_variable(a.name) || !inert(a.value, false)) return false;
    return true;
}

bool same_words(const shell::Command& a, const shell::Command& b) {
    if (a.words.size() != b.words.size()) return false;
    for (std::size_t i = 0; i < a.words.size(); ++i)
        if (a.words[i].raw != b.words[i].raw) return false;
    return true;
}

std::string trimmed(std::string s) {
    s.erase(0, s.find_first_not_of(" \t\n"));
    s.erase(s.find_last_not_of(" \t\n") + 1);
    return s;
}

}  // namespace

bool only_shell_state(const std::string& command) {
    auto parsed = shell::parse(command);
    if (!parsed.ok || parsed.script.items.empty()) return false;
    for (const auto& item : parsed.script.items) {
        if (item.background) return false;
        for (const auto& p : item.and_or.pipelines)
            for (const auto& c : p.commands) {
                if (!std::all_of(c.redirects.begin(), c.redirects.end(), harmless_redirect)) return false;
                if (!state_builtin(c, false) && !inert_assignment(c)) return false;
            }
    }
    return true;
}

std::optional<ShellStateSplit> split_shell_state(const std::string& command) {
    auto parsed = shell::parse(command);
    if (!parsed.ok || parsed.script.items.empty()) return std::nullopt;
    const auto& first = parsed.script.items[0];
    if (first.background) return std::nullopt;
    const auto& pipes = first.and_or.pipelines;
    std::vector<const Builtin*> lead;
    for (std::size_t i = 0; i + 1 < pipes.size(); ++i) {
        const auto& p = pipes[i];
        if (first.and_or.ops[i] != "&&" || p.negated || p.timed || p.commands.size() != 1) break;
        const auto& c = p.commands[0];
        if (!c.redirects.empty()) break;
        const Builtin* b = state_builtin(c, true);
        if (!b || b->role == Role::quiet) break;
        lead.push_back(b);
    }
    if (lead.empty()) return std::nullopt;

    // Where each leading builtin ends in the text: the "&&" before which the text parses to
    // exactly the builtins so far (a "&&" inside quotes does not).
    std::vector<std::string> pieces;
    std::size_t from = 0;
    for (std::size_t i = 0; i < lead.size(); ++i) {
        std::size_t at = from;
        bool found = false;
        while ((at = command.find("&&", at)) != std::string::npos) {
            auto head = shell::parse(command.substr(0, at));
            if (head.ok && head.script.items.size() == 1 &&
                head.script.items[0].and_or.pipelines.size() == i + 1 &&
                same_words(head.script.items[0].and_or.pipelines[i].commands[0], pipes[i].commands[0])) {
                found = true;
                break;
            }
            at += 2;
        }
        if (!found) return std::nullopt;
        pieces.push_back(trimmed(command.substr(from, at - from)));
        from = at + 2;
    }
    ShellStateSplit s;
    s.outside = trimmed(command.substr(0, from - 2));
    for (std::size_t i = 0; i < lead.size(); ++i)
        if (lead[i]->role == Role::replay) s.inside += pieces[i] + " && ";
    std::string rest = command.substr(from);
    rest.erase(0, rest.find_first_not_of(" \t"));
    if (trimmed(rest).empty()) return std::nullopt;
    s.inside += rest;
    if (!shell::parse(s.outside).ok || !shell::parse(s.inside).ok) return std::nullopt;
    return s;
}

}  // namespace toolcage::hook
