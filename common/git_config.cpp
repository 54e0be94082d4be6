#include "common/git_config.h"

#include <cctype>
#include <vector>

#include "common/text.h"

namespace toolcage::gitconfig {

bool parse(std::string_view s, const std::function<void(const Entry&)>& each) {
    std::size_t i = 0;
    std::string section, sub;
    bool has_sub = false;
    auto at = [&](std::size_t k) { return k < s.size() ? s[k] : '\0'; };
    auto is_name = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-'; };
    if (s.starts_with("\xEF\xBB\xBF")) i = 3;  // git skips a UTF-8 byte order mark
    while (i < s.size()) {
        char c = s[i];
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
            ++i;
            continue;
        }
        if (c == '#' || c == ';') {
            while (i < s.size() && s[i] != '\n') ++i;
            continue;
        }
        if (c == '[') {
            ++i;
            std::string name;
            while (is_name(at(i)) || at(i) == '.') name += s[i++];
            has_sub = false;
            sub.clear();
            if (at(i) == ']') {
                ++i;
                std::size_t dot = name.find('.');
                if (dot != std::string::npos) {  // [section.sub]: the old form, case-folded
                    has_sub = true;
                    sub = lower(name.substr(dot + 1));
                    name.resize(dot);
                }
            } else if (at(i) == ' ' || at(i) == '\t') {
                while (at(i) == ' ' || at(i) == '\t') ++i;
                if (at(i) != '"' || name.find('.') != std::string::npos) return false;
                ++i;
                has_sub = true;
                while (i < s.size() && s[i] != '"') {
                    if (s[i] == '\n' || s[i] == '\0') return false;
                    if (s[i] == '\\') ++i;
                    if (i >= s.size()) return false;
                    sub += s[i++];
                }
                if (at(i) != '"' || at(i + 1) != ']') return false;
                i += 2;
            } else {
                return false;
            }
            if (name.empty()) return false;
            section = lower(name);
            continue;
        }
        if (!std::isalpha(static_cast<unsigned char>(c)) || section.empty()) return false;
        Entry e{section, has_sub, sub, "", "", false};
        while (is_name(at(i))) e.name += s[i++];
        e.name = lower(e.name);
        while (at(i) == ' ' || at(i) == '\t') ++i;
        char n = at(i);
        if (n == '\0' || n == '\n' || n == '\r' || n == '#' || n == ';') {
            each(e);
            continue;
        }
        if (n != '=') return false;
        ++i;
        e.has_value = true;
        bool quoted = false;
        std::size_t keep = 0;  // length without the trailing unquoted blanks
        while (i < s.size()) {
            char v = s[i];
            if (v == '\n') {
                if (quoted) return false;
                break;
            }
            if (!quoted && (v == '#' || v == ';')) {
                while (i < s.size() && s[i] != '\n') ++i;
                break;
            }
            ++i;
            if (v == '"') {
                quoted = !quoted;
                keep = e.value.size();
                continue;
            }
            if (v == '\\') {
                char x = at(i++);
                if (x == '\n') continue;
                if (x == '\r' && at(i) == '\n') {
                    ++i;
                    continue;
                }
                if (x == 'n') x = '\n';
                else if (x == 't') x = '\t';
                else if (x == 'b') x = '\b';
                else if (x != '\\' && x != '"') return false;
                e.value += x;
                keep = e.value.size();
                continue;
            }
            if (!quoted && (v == ' ' || v == '\t' || v == '\r')) {
                if (!e.value.empty()) e.value += v;  // leading blanks are dropped
                continue;
            }
            e.value += v;
            keep = e.value.size();
        }
        if (quoted) return false;
        e.value.resize(keep);
        each(e);
    }
    return true;
}

namespace {

bool is_boolean(const Entry& e) {
    if (!e.has_value) return true;
    std::string v = lower(e.value);
    return v.empty() || v == "true" || v == "false" || v == "yes" || v == "no" || v == "on" ||
           v == "off" || v == "1" || v == "0";
}

enum class Sub { none, any, either };

// Keys whose value is a program git runs (or config it reads). `boolean_ok`: a boolean value
// is a switch, not a program (core.fsmonitor=true is git's own daemon; pager.log=false).
struct KeyRule {
    std::string_view section;
    std::string_view name;  // "*": any name
    Sub sub;
    bool boolean_ok = false;
    std::string_view why;
};

const KeyRule kKeyRules[] = {
    {"core", "fsmonitor", Sub::none, true, "runs on every git status"},
    {"core", "pager", Sub::none, false, "pages git's output"},
    {"core", "editor", Sub::none, false, "edits messages"},
    {"core", "sshcommand", Sub::none, false, "runs for ssh remotes"},
    {"core", "askpass", Sub::none, false, "asks for passwords"},
    {"core", "gitproxy", Sub::either, false, "connects git:// remotes"},
    {"core", "hookspath", Sub::none, false, "chooses where hooks run from"},
    {"core", "alternaterefscommand", Sub::none, false, "lists alternate refs"},
    {"sequence", "editor", Sub::none, false, "edits rebase todo lists"},
    {"diff", "external", Sub::none, false, "produces every diff"},
    {"diff", "command", Sub::any, false, "produces diffs for an attribute"},
    {"diff", "textconv", Sub::any, false, "converts files before diffing"},
    {"merge", "driver", Sub::any, false, "merges files"},
    {"filter", "clean", Sub::any, false, "filters files git reads"},
    {"filter", "smudge", Sub::any, false, "filters files git writes"},
    {"filter", "process", Sub::any, false, "filters files"},
    {"pager", "*", Sub::none, true, "pages a command's output"},
    {"gpg", "program", Sub::either, false, "verifies signatures"},
    {"credential", "helper", Sub::either, false, "supplies credentials"},
    {"include", "path", Sub::none, false, "pulls config from another file"},
    {"includeif", "path", Sub::any, false, "pulls config from another file"},
    {"interactive", "difffilter", Sub::none, false, "filters interactive diffs"},
    {"uploadpack", "packobjectshook", Sub::none, false, "runs on fetches"},
    {"remote", "uploadpack", Sub::any, false, "runs for fetches"},
    {"remote", "receivepack", Sub::any, false, "runs for pushes"},
    {"remote", "vcs", Sub::any, false, "chooses a remote helper"},
    {"mergetool", "cmd", Sub::any, false, "resolves merges"},
    {"mergetool", "path", Sub::any, false, "resolves merges"},
    {"difftool", "cmd", Sub::any, false, "shows diffs"},
    {"difftool", "path", Sub::any, false, "shows diffs"},
    {"man", "cmd", Sub::any, false, "shows help"},
    {"man", "path", Sub::any, false, "shows help"},
    {"browser", "cmd", Sub::any, false, "opens pages"},
    {"browser", "path", Sub::any, false, "opens pages"},
    {"web", "browser", Sub::none, false, "opens pages"},
    {"tar", "command", Sub::any, false, "compresses archives"},
    {"trailer", "command", Sub::any, false, "computes trailers"},
    {"trailer", "cmd", Sub::any, false, "computes trailers"},
    {"sendemail", "smtpserver", Sub::either, false, "sends mail"},
};

// Names that mean "a program" in any section, for keys this table does not know yet.
const std::string_view kProgramSuffixes[] = {"command", "cmd", "program", "helper", "editor", "hook"};

}  // namespace

std::string key_text(const Entry& e) {
    return e.section + (e.has_sub ? "." + e.sub : "") + "." + e.name;
}

bool runs_code(const Entry& e) {
    if (e.section == "alias") {
        // A `!` alias runs the shell; an alias may also carry options that set config.
        std::string v = e.value;
        v.erase(0, v.find_first_not_of(" \t"));
        return v.starts_with("!") || v.find("-c") != std::string::npos ||
               v.find("--config-env") != std::string::npos || v.find("--exec-path") != std::string::npos;
    }
    if (e.section == "submodule" && e.name == "update") {
        std::string v = e.value;
        v.erase(0, v.find_first_not_of(" \t"));
        return v.starts_with("!");
    }
    for (const auto& r : kKeyRules) {
        if (r.section != e.section) continue;
        if (r.name != "*" && r.name != e.name) continue;
        if (r.sub == Sub::none && e.has_sub) continue;
        if (r.sub == Sub::any && !e.has_sub) continue;
        return !(r.boolean_ok && is_boolean(e));
    }
    for (auto s : kProgramSuffixes)
        if (e.name.size() >= s.size() && e.name.compare(e.name.size() - s.size(), s.size(), s) == 0)
            return true;
    return false;
}

std::string first_code_key(std::string_view text) {
    std::string found;
    bool ok = parse(text, [&](const Entry& e) {
        if (found.empty() && runs_code(e)) found = key_text(e);
    });
    return ok ? found : "(unreadable config)";
}

namespace {

// A repository's .git/config after a step: settings git writes and only stores: none makes git run a program, read more configuration,
// or reach another repository. Sorted by section, then name.
struct RepoKey {
    std::string_view section;
    std::string_view name;
    bool sub;  // written as [section "sub"]
};
constexpr RepoKey kRepoInertKeys[] = {
    {"branch", "merge", true},  // the upstream branch's name
    {"branch", "rebase", true},  // pull rebases instead of merging
    {"branch", "remote", true},  // the upstream remote's name (one of the remotes already there)
    {"core", "bare", false},
    {"core", "filemode", false},
    {"core", "ignorecase", false},
    {"core", "logallrefupdates", false},
    {"core", "precomposeunicode", false},
    {"core", "repositoryformatversion", false},
    {"core", "symlinks", false},
    {"remote", "fetch", true},  // a refspec: which refs of that remote's URL are fetched
    {"submodule", "active", true},
    {"user", "*", false},  // identity: name, email, signing key id
};

bool on_inert_list(const Entry& e) {
    for (const auto& k : kRepoInertKeys)
        if (k.section == e.section && (k.name == "*" || k.name == e.name) && k.sub == e.has_sub) return true;
    return false;
}

// "../../../sub" from .git/modules/sub (depth 3): back up exactly to the workspace root, then
// down a plain relative path that does not enter .git.
bool worktree_inside_workspace(const std::string& value, int depth) {
    std::string_view v = value;
    for (int i = 0; i < depth; ++i) {
        if (!v.starts_with("../")) return false;
        v.remove_prefix(3);
    }
    if (v.empty() || v.starts_with("/")) return false;
    std::size_t i = 0;
    bool first = true;
    while (i <= v.size()) {
        std::size_t slash = v.find('/', i);
        std::string_view part = v.substr(i, slash == std::string_view::npos ? std::string_view::npos : slash - i);
        if (part == ".." || part == "." || (first && lower(part) == ".git")) return false;
        first = false;
        if (slash == std::string_view::npos) break;
        i = slash + 1;
    }
    return true;
}

}  // namespace

std::string first_non_inert_key(std::string_view text, std::string_view before, const InertContext& ctx) {
    std::vector<Entry> old;
    if (!parse(before, [&](const Entry& e) { old.push_back(e); })) return "(unreadable config)";
    auto same_in_before = [&](const Entry& e) {
        for (const auto& o : old)
            if (o.section == e.section && o.has_sub == e.has_sub && o.sub == e.sub && o.name == e.name &&
                o.has_value == e.has_value && o.value == e.value)
                return true;
        return false;
    };
    auto section_in_before = [&](const Entry& e) {
        for (const auto& o : old)
            if (o.section == e.section && o.has_sub && o.sub == e.sub) return true;
        return false;
    };
    std::string found;
    bool ok = parse(text, [&](const Entry& e) {
        if (!found.empty() || same_in_before(e)) return;
        if (on_inert_list(e)) return;
        // A URL decides where fetch and push go (and, with protocol.* set, what runs): one the
        // user had stays; a new remote's only in a repository the step made itself.
        if ((e.section == "remote" || e.section == "submodule") && e.has_sub && e.name == "url" &&
            ctx.fresh_git_dir && !section_in_before(e))
            return;
        if (e.section == "extensions" && !e.has_sub && ctx.fresh_git_dir &&
            (e.name == "objectformat" || e.name == "refstorage"))
            return;
        if (e.section == "core" && !e.has_sub && e.name == "worktree" && ctx.module_depth > 0 &&
            worktree_inside_workspace(e.value, ctx.module_depth))
            return;
        found = key_text(e);
    });
    return ok ? found : "(unreadable config)";
}

}  // namespace toolcage::gitconfig

namespace toolcage::gitconfig {

namespace {

// The user's global and system configuration as a step sees it (a copy of these keys alone):
// section, name ("*": any), and whether a subsection may be present.
// Each says why it is safe to hand to a worker: it names no program, no file and no remote.
struct InertKey {
    std::string_view section;
    std::string_view name;
    bool any_sub;
    std::string_view why;
};

// Sorted by section, then name.
constexpr InertKey kInertKeys[] = {
    {"advice", "*", false, "hints on or off"},
    {"alias", "*", false, "aliases run inside the cage, as the git that reads them"},
    {"am", "threeway", false, "a merge strategy switch"},
    {"apply", "whitespace", false, "whitespace handling"},
    {"author", "email", false, "identity"},
    {"author", "name", false, "identity"},
    {"branch", "autosetupmerge", false, "tracking default"},
    {"branch", "autosetuprebase", false, "tracking default"},
    {"branch", "sort", false, "listing order"},
    {"checkout", "defaultremote", false, "a remote's name"},
    {"color", "*", true, "colours"},
    {"column", "*", false, "layout"},
    {"commit", "cleanup", false, "message cleanup mode"},
    {"commit", "status", false, "message template switch"},
    {"commit", "verbose", false, "message template switch"},
    {"committer", "email", false, "identity"},
    {"committer", "name", false, "identity"},
    {"core", "abbrev", false, "hash length"},
    {"core", "autocrlf", false, "line endings"},
    {"core", "checkstat", false, "index stat checks"},
    {"core", "commentchar", false, "message comment character"},
    {"core", "commentstring", false, "message comment string"},
    {"core", "compression", false, "zlib level"},
    {"core", "eol", false, "line endings"},
    {"core", "filemode", false, "executable bit tracking"},
    {"core", "ignorecase", false, "file name case"},
    {"core", "precomposeunicode", false, "file name encoding"},
    {"core", "quotepath", false, "path quoting in output"},
    {"core", "safecrlf", false, "line ending checks"},
    {"core", "symlinks", false, "symlink support"},
    {"core", "trustctime", false, "index stat checks"},
    {"core", "whitespace", false, "whitespace errors"},
    {"diff", "algorithm", false, "diff algorithm"},
    {"diff", "colormoved", false, "diff colours"},
    {"diff", "context", false, "context lines"},
    {"diff", "indentheuristic", false, "hunk placement"},
    {"diff", "mnemonicprefix", false, "diff prefixes"},
    {"diff", "noprefix", false, "diff prefixes"},
    {"diff", "renames", false, "rename detection"},
    {"diff", "submodule", false, "submodule diff format"},
    {"diff", "wserrorhighlight", false, "whitespace highlighting"},
    {"fetch", "fsckobjects", false, "checks received objects"},
    {"fetch", "prune", false, "prunes stale branches"},
    {"fetch", "prunetags", false, "prunes stale tags"},
    {"format", "pretty", false, "log format"},
    {"format", "signoff", false, "sign-off trailer switch"},
    {"grep", "extendedregexp", false, "pattern syntax"},
    {"grep", "linenumber", false, "output format"},
    {"grep", "patterntype", false, "pattern syntax"},
    {"help", "autocorrect", false, "typo correction"},
    {"i18n", "commitencoding", false, "message encoding"},
    {"i18n", "logoutputencoding", false, "output encoding"},
    {"init", "defaultbranch", false, "first branch's name"},
    {"log", "abbrevcommit", false, "log format"},
    {"log", "date", false, "date format"},
    {"log", "decorate", false, "log format"},
    {"log", "follow", false, "rename following"},
    {"merge", "conflictstyle", false, "conflict markers"},
    {"merge", "defaulttoupstream", false, "merge default"},
    {"merge", "ff", false, "fast-forward default"},
    {"merge", "log", false, "merge message"},
    {"merge", "renames", false, "rename detection"},
    {"pull", "ff", false, "fast-forward default"},
    {"pull", "rebase", false, "rebase default"},
    {"push", "autosetupremote", false, "push default"},
    {"push", "default", false, "push default"},
    {"push", "followtags", false, "push default"},
    {"rebase", "autosquash", false, "rebase default"},
    {"rebase", "autostash", false, "rebase default"},
    {"rebase", "updaterefs", false, "rebase default"},
    {"rerere", "autoupdate", false, "conflict reuse"},
    {"rerere", "enabled", false, "conflict reuse"},
    {"safe", "directory", false, "the user's trust of repositories others own; what their config runs, runs in the cage"},
    {"status", "branch", false, "output format"},
    {"status", "relativepaths", false, "output format"},
    {"status", "short", false, "output format"},
    {"status", "showuntrackedfiles", false, "output format"},
    {"status", "submodulesummary", false, "output format"},
    {"tag", "sort", false, "listing order"},
    {"transfer", "fsckobjects", false, "checks received objects"},
    {"user", "email", false, "identity"},
    {"user", "name", false, "identity"},
    {"user", "useconfigonly", false, "identity switch"},
};

constexpr bool sorted_keys() {
    for (std::size_t i = 1; i < std::size(kInertKeys); ++i) {
        const auto& a = kInertKeys[i - 1];
        const auto& b = kInertKeys[i];
        if (a.section > b.section || (a.section == b.section && a.name >= b.name)) return false;
    }
    return true;
}
static_assert(sorted_keys(), "kInertKeys must be sorted by section, then name");

std::string quoted(std::string_view v, bool sub) {
    std::string out = "\"";
    for (char c : v) {
        if (c == '"' || c == '\\') out += '\\';
        if (!sub && c == '\n') out += "\\n";
        else if (!sub && c == '\t') out += "\\t";
        else if (!sub && c == '\b') out += "\\b";
        else out += c;
    }
    return out + "\"";
}

}  // namespace

bool is_inert(const Entry& e) {
    for (const auto& k : kInertKeys) {
        if (k.section != e.section) continue;
        if (k.name != "*" && k.name != e.name) continue;
        if (e.has_sub && !k.any_sub) return false;
        // A value git would take for a path or a program never is one here (an alias is the
        // exception: it runs inside the cage, as the git that reads it).
        return true;
    }
    return false;
}

std::string format(const std::vector<Entry>& entries) {
    std::string out;
    const Entry* last = nullptr;
    for (const auto& e : entries) {
        // A subsection cannot hold a newline or NUL: such an entry is not written.
        if (e.has_sub && e.sub.find_first_of(std::string_view("\n\0", 2)) != std::string::npos)
            continue;
        if (e.value.find('\0') != std::string::npos) continue;
        if (!last || last->section != e.section || last->has_sub != e.has_sub || last->sub != e.sub)
            out += "[" + e.section + (e.has_sub ? " " + quoted(e.sub, true) : "") + "]\n";
        out += "\t" + e.name;
        if (e.has_value) out += " = " + quoted(e.value, false);
        out += "\n";
        last = &e;
    }
    return out;
}

}  // namespace toolcage::gitconfig
