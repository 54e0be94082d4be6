#include "hook/decision/self_protect.h"

#include <fnmatch.h>

#include <algorithm>
#include <set>

#include "common/analysis_budget.h"
#include "hook/call/paths.h"
#include "hook/shell/ast.h"

namespace toolcage::hook {

namespace {

const char* const kProfileFiles[] = {"SOUL.md", "config.yaml", ".env", "shell-hooks-allowlist.json",
                                     "toolcage.json"};

// Names distinctive enough that seeing them inside a script string is reason to refuse.
const char* const kDistinctive[] = {"SOUL.md", "shell-hooks-allowlist.json", "toolcage.json",
                                    "toolcage-relay", "share/toolcage/profiles", "plugins/toolcage"};

// Programs that remove, move or re-permission whole trees: naming an ancestor of a protected
// file is as good as naming the file.
const char* const kTreePrograms[] = {"rm",    "rmdir", "mv",     "ln",   "unlink", "rsync",
                                     "chmod", "chown", "chattr", "shred", "find",  "cp"};

// Programs whose arguments can be a script that writes files.
const char* const kInterpreters[] = {"python", "perl", "ruby", "node", "nodejs", "deno", "bun",
                                     "php",    "awk",  "gawk", "mawk", "nawk",   "sed",  "lua",
                                     "tclsh",  "pwsh", "Rscript"};

std::string basename_of(const std::string& p) {
    size_t slash = p.rfind('/');
    return slash == std::string::npos ? p : p.substr(slash + 1);
}

Verdict protected_verdict(const std::string& what, const std::string& path) {
    return {Decision::deny, "self.protected",
            what + " " + path +
                ", which decides what toolcage does (its policy, the agent's settings or "
                "toolcage itself); no policy can allow that"};
}

// Each path once: a profile's files are named both as the profile's and as the home's
// (~/.hermes is the default profile), and each entry costs lstats when the set is resolved.
void add_once(std::vector<std::string>& to, const std::string& p) {
    if (std::find(to.begin(), to.end(), p) == to.end()) to.push_back(p);
}

void add_file(ProtectedSet& s, const std::string& p) {
    if (p.empty() || p[0] != '/') return;
    add_once(s.files, p);
}

void add_dir(ProtectedSet& s, const std::string& p) {
    if (p.empty() || p[0] != '/' || p == "/") return;
    add_once(s.dirs, p);
}

bool hits(const std::string& p, const ProtectedSet& set) {
    const ProtectedSet& s = set.resolved();
    if (p.empty()) return false;
    for (const auto& f : s.files)
        if (p == f) return true;
    for (const auto& d : s.dirs)
        if (path_within(p, d)) return true;
    return false;
}

// p is a directory above something protected (and not the root, which the classifier owns).
bool is_ancestor(const std::string& p, const ProtectedSet& set) {
    if (p.empty() || p == "/") return false;
    const ProtectedSet& s = set.resolved();
    for (const auto& f : s.files)
        if (f != p && path_within(f, p)) return true;
    for (const auto& d : s.dirs)
        if (d != p && path_within(d, p)) return true;
    return false;
}

// ---- reading words -------------------------------------------------------------------------

struct WordText {
    bool known = true;     // every part is a literal (a leading ~ counts, as the home)
    bool glob = false;     // known but for glob parts: `pattern` is an fnmatch pattern
    std::string text;      // known: the word
    std::string pattern;   // glob: literal text escaped, glob parts as written
    std::string tail;      // the literal text after the last part that is not known
};

WordText read_word(const shell::Word& w, const std::string& home) {
    WordText out;
    bool first = true;
    for (const auto& part : w.parts) {
        switch (part.kind) {
            case shell::PartKind::literal:
                out.text += part.text;
                out.tail += part.text;
                for (char c : part.text) {
                    if (c == '*' || c == '?' || c == '[' || c == '\\') out.pattern += '\\';
                    out.pattern += c;
                }
                break;
            case shell::PartKind::tilde:
                if (std::string h = part.text.empty() ? home : user_home(part.text); first && !h.empty()) {
                    out.text += h;
                    out.pattern += h;
                    out.tail += h;
                } else {
                    out.known = false;
                    out.tail.clear();
                }
                break;
            case shell::PartKind::glob:
                out.glob = true;
                out.pattern += part.text;
                out.tail.clear();
                break;
            default:
                out.known = false;
                out.tail.clear();
                break;
        }
        first = false;
    }
    if (out.glob && out.known) {
        out.known = false;  // a pattern, not a name
    } else {
        out.glob = false;
    }
    return out;
}

std::vector<std::string> components(const std::string& p) {
    std::vector<std::string> out;
    size_t i = 0;
    while (i < p.size()) {
        size_t end = p.find('/', i);
        if (end == std::string::npos) end = p.size();
        if (end > i) out.push_back(p.substr(i, end - i));
        i = end + 1;
    }
    return out;
}

// The glob `pat` (absolute) can name `target`, something inside it, or (with `ancestors`) a
// directory above it: component by component over their common length.
bool glob_reaches(const std::string& pat, const std::string& target, bool ancestors) {
    auto pc = components(pat), tc = components(target);
    if (pc.size() < tc.size() && !ancestors) return false;
    for (size_t i = 0; i < std::min(pc.size(), tc.size()); ++i)
        if (fnmatch(pc[i].c_str(), tc[i].c_str(), FNM_PERIOD) != 0) return false;
    return true;
}

class Walker {
public:
    Walker(const std::string& cwd, const ProtectedSet& set, bool read_only)
        : cwd_(cwd), set_(set), read_only_(read_only) {
        bases_.insert(cwd);
    }

    std::optional<Verdict> run(const shell::Script& s) {
        collect_bases(s, 0);
        walk(s, 0);
        return found_;
    }

    // The raw text of a command that could not be parsed, or of a script handed to an
    // interpreter: any distinctive name or protected path in it counts.
    void scan_text(const std::string& text) {
        if (found_) return;
        for (const char* d : kDistinctive)
            if (text.find(d) != std::string::npos) return report("names", d);
        for (const auto& f : set_.files)
            if (text.find(f) != std::string::npos) return report("names", f);
        for (const auto& d : set_.dirs)
            if (text.find(d) != std::string::npos) return report("names", d);
    }

private:
    void report(const std::string& what, const std::string& path) {
        if (!found_) found_ = protected_verdict("the command " + what, path);
    }

    // ---- pass 1: every directory a cd or pushd may move to
    void collect_bases(const shell::Script& s, int depth) {
        for_each_command(s, depth, [&](const shell::Command& c, int d) {
            if (c.kind != shell::Command::Kind::simple || c.words.empty()) return;
            std::string prog = basename_of(c.words[0].literal());
            if (prog != "cd" && prog != "pushd") return;
            const shell::Word* target = nullptr;
            for (size_t i = 1; i < c.words.size(); ++i) {
                std::string lit = c.words[i].literal();
                if (c.words[i].known() && lit.starts_with("-") && lit != "-") continue;
                target = &c.words[i];
                break;
            }
            if (!target) {
                if (!set_.home.empty()) bases_.insert(set_.home);
                return;
            }
            WordText wt = read_word(*target, set_.home);
            if (!wt.known) {
                ambiguous_ = true;
                return;
            }
            // Each move may or may not have run: every base so far, moved or not. They double
            // with each move, so they are bounded, and the check stops there.
            std::vector<std::string> moved;
            for (const auto& b : bases_) moved.push_back(absolute_path(wt.text, b, set_.home));
            for (auto& m : moved) {
                bases_.insert(std::move(m));
                if (bases_.size() > budget::kMaxBases)
                    budget::exceeded("its directory moves (cd, pushd) leave more than " +
                                     std::to_string(budget::kMaxBases) + " directories it may run in");
            }
            (void)d;
        });
    }

    template <typename F>
    void for_each_command(const shell::Script& s, int depth, F&& f) {
        if (depth > 64) return;
        for (const auto& item : s.items)
            for (const auto& p : item.and_or.pipelines)
                for (const auto& c : p.commands) {
                    f(c, depth);
                    for (const auto& b : c.bodies) for_each_command(b, depth + 1, f);
                    auto in_words = [&](const std::vector<shell::Word>& ws) {
                        for (const auto& w : ws)
                            for (const auto& part : w.parts)
                                for (const auto& sub : part.subs) for_each_command(sub, depth + 1, f);
                    };
                    in_words(c.words);
                    for (const auto& r : c.redirects) {
                        in_words({r.target});
                        for (const auto& sub : r.heredoc_subs) for_each_command(sub, depth + 1, f);
                    }
                    for (const auto& a : c.assignments) {
                        in_words({a.value});
                        in_words(a.items);
                    }
                }
    }

    // ---- pass 2: the words and redirect targets
    void walk(const shell::Script& s, int depth) {
        for_each_command(s, depth, [&](const shell::Command& c, int d) { check_command(c, d); });
    }

    void check_command(const shell::Command& c, int depth) {
        for (const auto& r : c.redirects) {
            bool output = r.op == ">" || r.op == ">>" || r.op == ">|" || r.op == "<>" ||
                          r.op == "&>" || r.op == "&>>" || r.op == ">&";
            if (output) check_word(r.target, "writes", false);
        }
        if (read_only_ || c.kind != shell::Command::Kind::simple || c.words.empty()) {
            if (!read_only_)
                for (const auto& w : c.words) check_word(w, "names", false);
            return;
        }
        std::string prog = basename_of(c.words[0].literal());
        bool tree = std::find_if(std::begin(kTreePrograms), std::end(kTreePrograms),
                                 [&](const char* p) { return prog == p; }) != std::end(kTreePrograms);
        // The first word is run, not written: an agent may call toolcage itself (it is caged
        // like anything else).
        for (size_t i = 1; i < c.words.size(); ++i) check_word(c.words[i], "names", tree);
        for (const auto& a : c.assignments) check_word(a.value, "names", false);
        // A script handed to a shell is parsed like the command itself.
        bool is_shell = prog == "bash" || prog == "sh" || prog == "dash" || prog == "zsh" ||
                        prog == "ksh" || prog == "eval";
        if (is_shell && depth < 8) {
            for (size_t i = 1; i < c.words.size(); ++i) {
                std::string lit = c.words[i].literal();
                bool dash_c = lit.size() > 1 && lit[0] == '-' && lit[1] != '-' &&
                              lit.find('c') != std::string::npos;
                if (prog == "eval" || (dash_c && i + 1 < c.words.size())) {
                    const shell::Word& script = prog == "eval" ? c.words[i] : c.words[i + 1];
                    if (!script.known()) continue;
                    auto parsed = shell::parse(script.literal());
                    if (parsed.ok) {
                        walk(parsed.script, depth + 1);
                    } else {
                        scan_text(script.literal());
                    }
                    if (prog != "eval") break;
                }
            }
        }
        // Scripts for other interpreters (python -c, perl -e, awk '…', sed 'w file') are text
        // to us.
        bool interpreter = std::any_of(c.words.begin(), c.words.end(), [](const shell::Word& w) {
            std::string b = basename_of(w.literal());
            return std::find_if(std::begin(kInterpreters), std::end(kInterpreters), [&](const char* i) {
                       return b == i || (b.starts_with(i) && std::string_view(i) == "python");
                   }) != std::end(kInterpreters);
        });
        for (size_t i = 1; interpreter && i < c.words.size(); ++i) {
            if (!c.words[i].known()) continue;
            std::string lit = c.words[i].literal();
            if (lit.find_first_of(" \t\n;()'\"") != std::string::npos) scan_text(lit);
        }
    }

    void check_word(const shell::Word& w, const char* what, bool tree) {
        if (found_) return;
        WordText wt = read_word(w, set_.home);
        std::vector<std::string> texts;
        if (wt.known) {
            texts.push_back(wt.text);
            // --output=FILE, of=FILE: the file is after the '='.
            size_t eq = wt.text.find('=');
            if (eq != std::string::npos && eq + 1 < wt.text.size()) texts.push_back(wt.text.substr(eq + 1));
            for (const auto& t : texts) {
                if (t.empty()) continue;
                bool relative = t[0] != '/';
                for (const auto& base : bases_) {
                    spend_check();
                    std::string p = absolute_path(t, base, set_.home);
                    // `link/..` is where the link leads, then up: resolved as written, not as folded.
                    std::string real = real_location(joined_path(t, base, set_.home));
                    if (hits(p, set_) || hits(real, set_)) return report(what, p);
                    if (tree && (is_ancestor(p, set_) || is_ancestor(real, set_))) return report(what, p);
                }
                if (relative && ambiguous_) check_basename(t, what);
            }
            return;
        }
        if (wt.glob) {
            for (const auto& base : bases_) {
                spend_check();
                std::string pat = absolute_path(wt.pattern, base, set_.home);
                for (const auto& f : set_.resolved().files)
                    if (glob_reaches(pat, f, tree)) return report(what, f);
                // `plugins/t*/__init__.py` names a file inside a protected directory.
                for (const auto& d : set_.resolved().dirs)
                    if (glob_reaches(pat, d, tree)) return report(what, d);
            }
            return;
        }
        // Depends on run time: judged by the part that is known.
        check_basename(wt.tail, what);
        for (const char* d : kDistinctive)
            if (wt.tail.find(d) != std::string::npos) return report(what, wt.tail);
    }

    // Each word is resolved from each base (system calls): their product is bounded.
    void spend_check() {
        if (++checks_ > budget::kMaxPathChecks)
            budget::exceeded("it names more than " + std::to_string(budget::kMaxPathChecks) +
                             " paths (words times the directories it may run in)");
    }

    void check_basename(const std::string& text, const char* what) {
        std::string base = basename_of(text);
        if (base.empty()) return;
        for (const auto& f : set_.files)
            if (basename_of(f) == base) return report(what, f);
    }

    std::string cwd_;
    const ProtectedSet& set_;
    bool read_only_;
    std::set<std::string> bases_;
    bool ambiguous_ = false;
    std::size_t checks_ = 0;
    std::optional<Verdict> found_;
};

}  // namespace

const ProtectedSet& ProtectedSet::resolved() const {
    if (is_resolved_) return *this;
    if (!resolved_) {
        auto r = std::make_shared<ProtectedSet>();
        r->home = home;
        for (const auto& f : files) {
            r->files.push_back(f);
            if (std::string real = real_location(f); real != f) r->files.push_back(real);
        }
        for (const auto& d : dirs) {
            r->dirs.push_back(d);
            if (std::string real = real_location(d); real != d) r->dirs.push_back(real);
        }
        r->is_resolved_ = true;
        resolved_ = r;
    }
    return *resolved_;
}

ProtectedSet protected_set(const ToolCall& call, const std::vector<std::string>& policy_dirs,
                           const std::string& binary_dir, const std::string& home) {
    ProtectedSet s;
    s.home = home;
    if (!call.profile_dir.empty())
        for (const char* f : kProfileFiles) add_file(s, call.profile_dir + "/" + f);
    for (const auto& p : call.protected_extra) {
        // A directory protects its tree; anything else is one file.
        if (p.ends_with(".json") || p.ends_with(".yaml") || p.ends_with(".md") || p.ends_with(".env")) {
            add_file(s, p);
        } else {
            add_dir(s, p);
        }
    }
    for (const auto& d : policy_dirs) add_dir(s, d);
    if (!binary_dir.empty()) {
        add_file(s, binary_dir + "/toolcage");
        add_file(s, binary_dir + "/toolcage-relay");
    }
    return s;
}

std::optional<Verdict> check_write(const std::string& abs_path, const ProtectedSet& set) {
    if (hits(abs_path, set)) return protected_verdict("writes", abs_path);
    std::string real = real_location(abs_path);
    if (hits(real, set)) return protected_verdict("writes", real + " (through " + abs_path + ")");
    return std::nullopt;
}

std::optional<Verdict> check_command(const std::string& command, const std::string& cwd,
                                     const ProtectedSet& set, bool read_only) {
    Walker walker(cwd, set, read_only);
    auto parsed = shell::parse(command);
    try {
        if (!parsed.ok) {
            if (read_only) return std::nullopt;
            walker.scan_text(command);
            return walker.run(shell::Script{});
        }
        return walker.run(parsed.script);
    } catch (const budget::Exceeded& e) {
        return budget::refusal(e.what);
    }
}

}  // namespace toolcage::hook
