// Destruction by shape, for programs the classifier has no table for: a subcommand or option
// whose words say that it deletes, purges, prunes, resets, destroys, revokes, wipes, truncates,
// overwrites or forces (`restic forget`, `azcopy sync --delete-destination`, `tool --force`)
// is asked about, the word named. Nobody read that program's manual, but its authors chose a
// word that says what it does; a rehearsal (--dry-run) or help is not asked about.
#include <algorithm>
#include <cctype>

#include "hook/classify/analyzer.h"
#include "hook/classify/text.h"

namespace toolcage::classify::detail {

namespace {

// The verbs, as the first part of a word: `delete`, `delete-branch`, `--delete-destination`,
// `deleteAll`, `rm`, `del`. Sorted, for a binary search.
constexpr std::string_view kVerbs[] = {
    "del",     "delete",   "deleteall", "destroy", "drop",   "erase",     "expunge",
    "force",   "forget",   "nuke",      "obliterate", "overwrite", "prune", "purge",
    "reset",   "revoke",   "rm",        "rmdir",   "shred",  "terminate", "truncate",
    "wipe",    "wipeout",  "zap"};

// What a word's other parts may name that makes its verb harmless: a cache is rebuilt, a colour
// or a terminal is only output (`--reset-cache`, `--force-color`, `--force-tty`).
constexpr std::string_view kHarmless[] = {
    "cache",   "caches",   "color",   "colors",    "colour",    "colours", "tty",      "pty",
    "ansi",    "interactive", "unicode", "polling", "refresh",  "reload",  "rebuild",  "reinstall",
    "recompile", "build",  "recreate", "handlers", "download", "fetch",   "exclusion", "mocks"};

// Options that say the program only rehearses or explains.
constexpr std::string_view kRehearsal[] = {"--dry-run", "--dryrun", "--dry",     "--simulate", "--noop",
                                           "--no-op",   "--what-if", "--whatif", "--help",     "-h",
                                           "--version", "-V",        "help",      "--preview"};

// `--delete-destination=true` -> {"delete", "destination"}; `deleteAll` -> {"delete", "all"};
// the value after '=' is returned in `value`.
std::vector<std::string> word_parts(std::string_view w, std::string& value) {
    while (!w.empty() && w.front() == '-') w.remove_prefix(1);
    size_t eq = w.find('=');
    if (eq != std::string_view::npos) {
        value = lower(w.substr(eq + 1));
        w = w.substr(0, eq);
    }
    std::vector<std::string> parts;
    std::string cur;
    for (size_t i = 0; i < w.size(); ++i) {
        char ch = w[i];
        bool upper = std::isupper(static_cast<unsigned char>(ch)) != 0;
        if (ch == '-' || ch == '_' || ch == ':' || ch == '.') {
            if (!cur.empty()) parts.push_back(cur);
            cur.clear();
            continue;
        }
        if (upper && !cur.empty() && std::islower(static_cast<unsigned char>(w[i - 1]))) {
            parts.push_back(cur);
            cur.clear();
        }
        cur += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    }
    if (!cur.empty()) parts.push_back(cur);
    return parts;
}

bool is_verb(std::string_view p) { return std::binary_search(std::begin(kVerbs), std::end(kVerbs), p); }

// Whether the word's first part (before - _ : . = or a capital) could be a verb, without
// allocating: most words are not, and every unknown program's arguments are looked at.
bool may_lead_with_verb(std::string_view w) {
    while (!w.empty() && w.front() == '-') w.remove_prefix(1);
    char buf[16];
    size_t n = 0;
    for (char ch : w) {
        if (ch == '-' || ch == '_' || ch == ':' || ch == '.' || ch == '=') break;
        bool upper = ch >= 'A' && ch <= 'Z';
        if (upper && n > 0) break;
        if (n == sizeof buf) return false;
        buf[n++] = upper ? static_cast<char>(ch - 'A' + 'a') : ch;
    }
    return n > 0 && is_verb(std::string_view(buf, n));
}

// The verb a word leads with, or "" when it has none (or only a harmless object, or a value
// that turns it off: --delete=false).
std::string destructive_verb(std::string_view word) {
    if (!may_lead_with_verb(word)) return {};
    std::string value;
    std::vector<std::string> parts = word_parts(word, value);
    if (parts.empty() || !is_verb(parts[0])) return {};
    for (size_t k = 1; k < parts.size(); ++k) {
        if (std::find(std::begin(kHarmless), std::end(kHarmless), parts[k]) != std::end(kHarmless)) return {};
    }
    if (value == "false" || value == "no" || value == "0" || value == "off" || value == "never") return {};
    return parts[0];
}

// A subcommand: a plain word of letters, digits and - _ : (not a path, a URL, a file name).
bool subcommand_like(const Value& v) {
    if (!v.known() || v.glob || v.text.empty() || is_flag(v)) return false;
    return std::all_of(v.text.begin(), v.text.end(), [](char ch) {
        return std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_' || ch == ':';
    });
}

}  // namespace

namespace {

std::optional<DestructiveWord> first_destructive_word(const Call& c) {
    // Subcommands: the first three plain words (later ones are the program's data: names, messages).
    size_t words = 0;
    for (const Value& v : c.args) {
        if (v.known() && v.text == "--") break;
        if (is_flag(v)) {
            // One-letter options mean anything (-f is a file as often as force); long ones say it.
            if (v.text.size() < 3 || (v.text[1] != '-' && v.text.size() < 4)) continue;
            if (std::string verb = destructive_verb(v.text); !verb.empty()) return DestructiveWord{v.text, verb};
            continue;
        }
        if (words >= 3) continue;
        if (!subcommand_like(v)) {
            ++words;
            continue;
        }
        ++words;
        // `force` says it only as an option: as a subcommand it is as often a namespace
        // (sfdx force:source:push).
        if (std::string verb = destructive_verb(v.text); !verb.empty() && verb != "force")
            return DestructiveWord{v.text, verb};
    }
    return {};
}

}  // namespace

std::optional<DestructiveWord> destructive_word(const Call& c) {
    std::optional<DestructiveWord> w = first_destructive_word(c);
    if (!w) return w;
    for (const Value& v : c.args) {
        if (!v.known()) continue;
        if (std::find(std::begin(kRehearsal), std::end(kRehearsal), v.text) != std::end(kRehearsal)) return {};
    }
    return w;
}

// An unknown program whose subcommand or option says it destroys: a person decides.
void Analyzer::judge_unknown_shape(const Call& call) {
    std::optional<DestructiveWord> w = destructive_word(call);
    if (!w) return;
    std::string verb = w->verb == "rm" || w->verb == "del" || w->verb == "rmdir" ? "delete" : w->verb;
    hit(Decision::ask, "unknown.destructive-word",
        "`" + call.via + call.name + "` is not a program toolcage knows, and `" + w->word + "` says it will " +
            verb + " something; confirm it, run its --dry-run form first if it has one, or write a policy "
            "rule for `" + call.name + "`");
}

}  // namespace toolcage::classify::detail
