#include "hook/adapters/rewrite.h"

#include "hook/shell/ast.h"

namespace toolcage::hook {

std::string shell_quote(std::string_view s) {
    std::string out;
    out.reserve(s.size() + 2);
    out += '\'';
    for (char c : s) {
        if (c == '\'') {
            out += "'\\''";
        } else {
            out += c;
        }
    }
    out += '\'';
    return out;
}

std::string cage_rewrite(const std::string& toolcage_bin, const std::string& policy,
                         const std::string& workdir, const std::string& command) {
    // Every argument that came from outside is quoted, the policy too (it may be a path).
    return shell_quote(toolcage_bin) + " run --policy " + shell_quote(policy) + " --workdir " +
           shell_quote(workdir) + " -- /bin/bash -c " + shell_quote(command);
}

std::vector<std::string> rewrite_forms(const RewriteParts& p) {
    return {cage_rewrite(p.toolcage_bin, p.policy, p.workdir, p.command)};
}

namespace {

// The parts named by one simple command of the form `BIN run --policy P --workdir W -- /bin/bash
// -c CMD`, every word a plain literal after quote removal.
std::optional<RewriteParts> run_words(const shell::Command& c) {
    if (c.kind != shell::Command::Kind::simple || !c.assignments.empty() || !c.redirects.empty())
        return std::nullopt;
    std::vector<std::string> w;
    for (const auto& word : c.words) {
        if (!word.known()) return std::nullopt;
        w.push_back(word.literal());
    }
    if (w.size() != 10 || w[1] != "run" || w[2] != "--policy" || w[4] != "--workdir" ||
        w[6] != "--" || w[7] != "/bin/bash" || w[8] != "-c")
        return std::nullopt;
    return RewriteParts{w[0], w[3], w[5], w[9]};
}

}  // namespace

std::optional<RewriteParts> parse_rewrite(const std::string& text) {
    shell::ParseResult parsed = shell::parse(text);
    if (!parsed.ok) return std::nullopt;
    // Whatever form wraps it, the `run` is one simple command somewhere at the top level; the
    // byte comparison below decides whether the rest is a form this file writes.
    for (const auto& item : parsed.script.items)
        for (const auto& pipeline : item.and_or.pipelines)
            for (const auto& command : pipeline.commands)
                if (auto parts = run_words(command)) {
                    for (const auto& form : rewrite_forms(*parts))
                        if (form == text) return parts;
                    return std::nullopt;
                }
    return std::nullopt;
}

}  // namespace toolcage::hook
