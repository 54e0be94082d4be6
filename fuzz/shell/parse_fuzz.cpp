// Feeds arbitrary bytes to the shell parser. Besides the sanitizers' checks it asserts the
// parser's promises: a refusal is one line naming an offset and leaves no tree, and a tree
// can be walked with Word::known() / Word::literal().
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "hook/shell/ast.h"

using namespace toolcage::shell;

namespace {

void walk(const Script& s, int depth);

void walk_word(const Word& w, int depth) {
    (void)w.known();
    (void)w.literal();
    for (const WordPart& p : w.parts) {
        for (const Script& s : p.subs) walk(s, depth + 1);
    }
}

void walk(const Script& s, int depth) {
    if (depth > 10000) abort();
    for (const ListItem& item : s.items) {
        const AndOr& ao = item.and_or;
        if (ao.pipelines.empty() || ao.ops.size() + 1 != ao.pipelines.size()) abort();
        for (const Pipeline& p : ao.pipelines) {
            if (p.commands.empty() || p.stderr_piped.size() != p.commands.size()) abort();
            for (const Command& c : p.commands) {
                for (const Assignment& a : c.assignments) {
                    walk_word(a.value, depth);
                    for (const Word& w : a.items) walk_word(w, depth);
                    for (const Script& x : a.subscript_subs) walk(x, depth + 1);
                }
                for (const Word& w : c.words) walk_word(w, depth);
                for (const Redirect& r : c.redirects) {
                    walk_word(r.target, depth);
                    for (const Script& x : r.heredoc_subs) walk(x, depth + 1);
                }
                for (const Script& b : c.bodies) walk(b, depth + 1);
                for (const auto& arm : c.patterns) {
                    for (const Word& w : arm) walk_word(w, depth);
                }
            }
        }
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string src(reinterpret_cast<const char*>(data), size);
    ParseResult r = parse(src);
    if (r.ok) {
        if (!r.error.empty()) abort();
        walk(r.script, 0);
    } else {
        if (r.error.empty() || r.error.find('\n') != std::string::npos) abort();
        if (r.error.find(" at offset ") == std::string::npos) abort();
        if (!r.script.items.empty()) abort();
    }
    return 0;
}
