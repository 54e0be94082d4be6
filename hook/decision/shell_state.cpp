#include "hook/decision/shell_state.h"

#include <string_view>
#include <vector>

#include "common/path_text.h"
#include "hook/classify/text.h"
#include "hook/shell/ast.h"

namespace toolcage::hook {

namespace {

// Why only these, and in these words. Every other builtin the agent's shell runs evaluates
// something the command controls: a name argument (`test -v`, `printf -v`, `unset`, `declare`,
// `read`) evaluates `$( )` in an array subscript, numbers are arithmetic (`shift`, `exit`,
// `printf %d`), `set -x` expands PS4, `trap`/`alias`/functions/`shopt -s extdebug` run code
// later, and an exported PROMPT_COMMAND, BASH_ENV, PATH or LD_PRELOAD reaches every later call
// and the next `toolcage run` itself. A directory move with a literal argument evaluates
// nothing, and toolcage writes it itself:
// - `builtin` skips a function or alias named cd (zoxide's, rvm's, or one defined earlier);
// - the directory is single-quoted and starts with / or . (`./sub`): CDPATH is never searched,
//   a name starting with - or + is never read as an option or a stack index;
// - no option: -P/-L/-e/-@ and `cd -` (OLDPWD), `cd` alone (HOME), `pushd +N` and `popd +N`
//   read the shell's variables or stack in ways the hook cannot see, so those run in the cage.
struct Move {
    std::string verb;  // cd, pushd or popd
    std::string dir;   // as the shell will get it; empty for popd
};

std::string move_text(const Move& m) {
    std::string t = "builtin " + m.verb;
    if (!m.dir.empty()) t += " " + classify::detail::single_quoted(m.dir);
    return t;
}

// ./sub for sub: bash searches CDPATH for any relative name but these.
std::string anchored(const std::string& dir) {
    if (dir.starts_with("/") || dir == "." || dir == ".." || dir.starts_with("./") || dir.starts_with("../"))
        return dir;
    return "./" + dir;
}

std::optional<Move> move_of(const shell::Command& c) {
    if (c.kind != shell::Command::Kind::simple || !c.assignments.empty() || !c.redirects.empty() ||
        c.words.empty())
        return std::nullopt;
    std::vector<std::string> w;
    for (const auto& word : c.words) {
        if (!word.known()) return std::nullopt;  // a tilde, a variable, a glob, a substitution
        w.push_back(word.literal());
    }
    std::size_t i = w[0] == "builtin" ? 1 : 0;
    if (i >= w.size()) return std::nullopt;
    Move m{w[i++], ""};
    if (m.verb == "popd") return i == w.size() ? std::optional<Move>(m) : std::nullopt;
    if (m.verb != "cd" && m.verb != "pushd") return std::nullopt;
    if (i < w.size() && w[i] == "--") ++i;
    if (i + 1 != w.size()) return std::nullopt;
    const std::string& dir = w[i];
    if (dir.empty() || dir[0] == '-' || dir[0] == '+') return std::nullopt;
    m.dir = anchored(dir);
    return m;
}

// The moves of one and-or list's pipelines [0, n), or nullopt when one is not a move.
std::optional<std::vector<Move>> moves_of(const shell::AndOr& list, std::size_t n) {
    std::vector<Move> out;
    for (std::size_t i = 0; i < n; ++i) {
        const auto& p = list.pipelines[i];
        if ((i > 0 && list.ops[i - 1] != "&&") || p.negated || p.timed || p.commands.size() != 1)
            return std::nullopt;
        auto m = move_of(p.commands[0]);
        if (!m) return std::nullopt;
        out.push_back(*m);
    }
    return out;
}

std::string moves_text(const std::vector<Move>& moves) {
    std::string t;
    for (const Move& m : moves) t += (t.empty() ? "" : " && ") + move_text(m);
    return t;
}

bool blank(std::string_view s) { return s.find_first_not_of(" \t\n") == std::string_view::npos; }

}  // namespace

std::optional<std::string> only_moves(const std::string& command) {
    auto parsed = shell::parse(command);
    if (!parsed.ok || parsed.script.items.size() != 1 || parsed.script.items[0].background)
        return std::nullopt;
    const auto& list = parsed.script.items[0].and_or;
    auto moves = moves_of(list, list.pipelines.size());
    if (!moves || moves->empty()) return std::nullopt;
    return moves_text(*moves);
}

bool is_moves_text(const std::string& text) {
    auto t = only_moves(text);
    return t && *t == text;
}

namespace {

// The leading pipelines of the first and-or list that are moves, each followed by &&: one pass.
std::vector<Move> leading_moves(const shell::AndOr& list) {
    std::vector<Move> moves;
    while (moves.size() + 1 < list.pipelines.size() && list.ops[moves.size()] == "&&") {
        const auto& p = list.pipelines[moves.size()];
        if (p.negated || p.timed || p.commands.size() != 1) break;
        auto m = move_of(p.commands[0]);
        if (!m) break;
        moves.push_back(*m);
    }
    return moves;
}

}  // namespace

std::optional<std::string> cwd_after_moves(const std::string& command, const std::string& cwd) {
    auto parsed = shell::parse(command);
    if (!parsed.ok || parsed.script.items.empty() || parsed.script.items[0].background) return cwd;
    std::string at = cwd;
    for (const Move& m : leading_moves(parsed.script.items[0].and_or)) {
        if (m.dir.empty()) return std::nullopt;  // popd
        at = normal_path(m.dir.starts_with("/") ? m.dir : at + "/" + m.dir);
    }
    return at;
}

std::optional<ShellStateSplit> split_shell_state(const std::string& command) {
    auto parsed = shell::parse(command);
    if (!parsed.ok || parsed.script.items.empty()) return std::nullopt;
    const auto& first = parsed.script.items[0];
    if (first.background) return std::nullopt;
    const auto& list = first.and_or;
    const std::vector<Move> moves = leading_moves(list);
    if (moves.empty()) return std::nullopt;

    // The parser says where the && after the last move starts; it is split there, once. An
    // operator written across a line continuation (&\<newline>&) is left whole.
    const std::size_t at = list.op_at[moves.size() - 1];
    if (command.compare(at, 2, "&&") != 0) return std::nullopt;
    std::string rest = command.substr(at + 2);
    rest.erase(0, rest.find_first_not_of(" \t"));
    if (blank(rest) || !shell::parse(rest).ok) return std::nullopt;
    return ShellStateSplit{moves_text(moves), rest};
}

}  // namespace toolcage::hook
