#include "hook/decision/one_liner.h"

#include <algorithm>

#include "hook/decision/python_readonly.h"
#include "hook/shell/ast.h"

namespace toolcage::hook {

namespace {

// python, python3, python3.N, bare or under /usr/bin.
bool is_python(std::string name) {
    if (name.starts_with("/usr/bin/")) name = name.substr(9);
    if (name == "python" || name == "python3") return true;
    if (!name.starts_with("python3.") || name.size() == 8) return false;
    return std::all_of(name.begin() + 8, name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

std::optional<Verdict> read_only_one_liner(const std::string& command) {
    auto parsed = shell::parse(command);
    if (!parsed.ok || parsed.script.items.size() != 1) return std::nullopt;
    const auto& item = parsed.script.items[0];
    if (item.background || item.and_or.pipelines.size() != 1) return std::nullopt;
    const auto& p = item.and_or.pipelines[0];
    if (p.commands.size() != 1) return std::nullopt;
    const auto& c = p.commands[0];
    if (c.kind != shell::Command::Kind::simple || !c.assignments.empty() || !c.redirects.empty() ||
        c.words.size() != 3)
        return std::nullopt;
    for (const auto& w : c.words)
        if (!w.known()) return std::nullopt;
    if (!is_python(c.words[0].literal()) || c.words[1].literal() != "-c") return std::nullopt;
    if (!check_python_read_only(c.words[2].literal()).read_only) return std::nullopt;
    return Verdict{Decision::allow, "python.read-only",
                   "the code only computes and prints; it runs in the read-only cage (a module the "
                   "directory plants can neither write nor connect)"};
}

}  // namespace toolcage::hook
