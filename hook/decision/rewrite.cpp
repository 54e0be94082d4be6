#include "hook/decision/rewrite.h"

#include <vector>

#include "common/step_id.h"
#include "hook/classify/text.h"
#include "hook/decision/shell_state.h"
#include "hook/shell/ast.h"

namespace toolcage::hook {

namespace {

// Every argument that came from outside is quoted, the policy too (it may be a path); the step's
// id is toolcage's own, 16 hex characters (common/step_id.h), and stands bare.
std::string run_words_text(const CageRewrite& r, bool with_workdir, const std::string& command) {
    using classify::detail::single_quoted;
    return single_quoted(r.toolcage_bin) + " run --policy " + single_quoted(r.policy) +
           " --step-id " + r.step_id + (with_workdir ? " --workdir " + single_quoted(r.workdir) : "") +
           (r.workspace.empty() ? "" : " --workspace " + single_quoted(r.workspace)) +
           (r.new_project.empty() ? "" : " --new-project " + single_quoted(r.new_project)) +
           (r.read_only ? " --read-only" : "") + " -- /bin/bash -c " + single_quoted(command);
}

}  // namespace

std::string cage_rewrite(const std::string& toolcage_bin, const std::string& policy,
                         const std::string& step_id, const std::string& workdir,
                         const std::string& command) {
    return run_words_text(CageRewrite{toolcage_bin, policy, step_id, workdir, "", false, command, ""}, true,
                          command);
}

std::string cage_rewrite(const CageRewrite& r) {
    if (auto split = split_shell_state(r.command))
        return split->outside + " && " + run_words_text(r, false, split->inside);
    return run_words_text(r, true, r.command);
}

namespace {

// The parts named by one simple command `BIN run --policy P --step-id ID [--workdir W]
// [--workspace S] [--read-only] -- /bin/bash -c CMD`, every word a plain literal after quote removal. The order
// and spelling are checked afterwards, by writing the words back.
std::optional<CageRewrite> run_words(const shell::Command& c) {
    if (c.kind != shell::Command::Kind::simple || !c.assignments.empty() || !c.redirects.empty())
        return std::nullopt;
    std::vector<std::string> w;
    for (const auto& word : c.words) {
        if (!word.known()) return std::nullopt;
        w.push_back(word.literal());
    }
    if (w.size() < 4 || w[1] != "run") return std::nullopt;
    CageRewrite r;
    r.toolcage_bin = w[0];
    size_t i = 2;
    for (; i + 1 < w.size() && w[i] != "--"; ++i) {
        if (w[i] == "--read-only") {
            r.read_only = true;
        } else if (w[i] == "--policy" || w[i] == "--step-id" || w[i] == "--workdir" || w[i] == "--workspace" ||
                   w[i] == "--new-project") {
            std::string& field = w[i] == "--policy"      ? r.policy
                                 : w[i] == "--step-id"   ? r.step_id
                                 : w[i] == "--workdir"   ? r.workdir
                                 : w[i] == "--workspace" ? r.workspace
                                                         : r.new_project;
            field = w[++i];
        } else {
            return std::nullopt;
        }
    }
    if (i + 4 != w.size() || w[i] != "--" || w[i + 1] != "/bin/bash" || w[i + 2] != "-c")
        return std::nullopt;
    // Only an id of toolcage's own form: it reaches the step's log lines and nothing else.
    if (!is_step_id(r.step_id)) return std::nullopt;
    r.command = w[i + 3];
    return r;
}

}  // namespace

std::optional<RewriteParts> parse_rewrite(const std::string& text) {
    shell::ParseResult parsed = shell::parse(text);
    if (!parsed.ok || parsed.script.items.size() != 1) return std::nullopt;
    // The `run` is the last command at the top level; what stands before it, if anything, is
    // the shell-state prefix the prefixed form keeps outside.
    const auto& pipelines = parsed.script.items.front().and_or.pipelines;
    if (pipelines.empty() || pipelines.back().commands.size() != 1) return std::nullopt;
    auto run = run_words(pipelines.back().commands.front());
    if (!run) return std::nullopt;
    if (pipelines.size() == 1) {
        // No prefix: exactly what cage_rewrite writes for this command, which it would not split.
        if (run->workdir.empty() || cage_rewrite(*run) != text) return std::nullopt;
        return RewriteParts{*run, ""};
    }
    // A prefix: the run words are the prefixed form's (no --workdir), written back byte for
    // byte, and everything before them is toolcage's own text for directory moves, byte for
    // byte (hook/decision/shell_state.h).
    if (!run->workdir.empty()) return std::nullopt;
    const std::string tail = " && " + run_words_text(*run, false, run->command);
    if (text.size() <= tail.size() || text.compare(text.size() - tail.size(), tail.size(), tail) != 0)
        return std::nullopt;
    std::string outside = text.substr(0, text.size() - tail.size());
    if (!is_moves_text(outside)) return std::nullopt;
    return RewriteParts{*run, outside};
}

}  // namespace toolcage::hook
