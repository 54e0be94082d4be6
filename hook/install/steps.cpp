#include "hook/install/steps.h"

#include <cstdlib>
#include <vector>

#include "common/error.h"
#include "common/policy_loader.h"
#include "hook/install/json_file.h"

namespace toolcage::install {

namespace {

// POSIX shell words (quotes and backslashes; nothing is expanded). Enough to read back the
// commands toolcage writes and the ones a person writes by hand.
std::vector<std::string> shell_words(const std::string& s) {
    std::vector<std::string> words;
    std::string cur;
    bool in_word = false;
    for (size_t i = 0; i < s.size(); ++i) {
        char c = s[i];
        if (c == ' ' || c == '\t' || c == '\n') {
            if (in_word) words.push_back(cur);
            cur.clear();
            in_word = false;
            continue;
        }
        in_word = true;
        if (c == '\'') {
            size_t end = s.find('\'', i + 1);
            if (end == std::string::npos) end = s.size();
            cur += s.substr(i + 1, end - i - 1);
            i = end;
        } else if (c == '"') {
            for (++i; i < s.size() && s[i] != '"'; ++i) {
                if (s[i] == '\\' && i + 1 < s.size()) ++i;
                cur += s[i];
            }
        } else if (c == '\\' && i + 1 < s.size()) {
            cur += s[++i];
        } else {
            cur += c;
        }
    }
    if (in_word) words.push_back(cur);
    return words;
}

}  // namespace

std::string toolcage_binary() {
    std::error_code ec;
    fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (ec)
        throw Error("readlink(/proc/self/exe): " + ec.message() +
                    "; toolcage needs /proc to know its own path");
    return exe.string();
}

std::string home_dir(const char* option) {
    const char* h = std::getenv("HOME");
    if (!h || !*h) throw Error(std::string("$HOME is not set; set it or pass ") + option);
    return h;
}

void require_installed_policy(const std::string& name) {
    if (!is_policy_name(name))
        throw Error("--policy " + name +
                    ": not a policy name (letters, digits, - and _); name an installed policy");
    auto names = list_policies();
    for (const auto& n : names)
        if (n == name) return;
    std::string known;
    for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
    throw Error("--policy " + name + ": no such installed policy (installed: " +
                (known.empty() ? std::string("none found") : known) +
                "); see `toolcage policy list` (nothing was changed)");
}

bool is_toolcage_hook_command(const std::string& command, const std::string& agent) {
    auto w = shell_words(command);
    if (w.size() < 2 || fs::path(w[0]).filename() != "toolcage" || w[1] != "hook") return false;
    for (size_t i = 2; i < w.size(); ++i) {
        if (w[i] == "--agent=" + agent) return true;
        if (w[i] == "--agent" && i + 1 < w.size() && w[i + 1] == agent) return true;
    }
    return false;
}

Outcome finish(const ChangeSet& changes, bool dry_run, const std::string& agent,
               const std::string& note) {
    Outcome o;
    if (changes.empty()) {
        o.out = "toolcage: " + agent + ": nothing to change\n";
        return o;
    }
    for (const auto& line : dry_run ? changes.preview() : changes.apply()) o.out += line + "\n";
    if (dry_run)
        o.out += "(dry run: nothing was changed)\n";
    else if (!note.empty())
        o.out += note + "\n";
    return o;
}

std::optional<std::string> json_after(const FileState& before, const ojson& original,
                                      const ojson& value, bool removable) {
    if (before.exists && value == original) return before.content;
    if (!before.exists && removable) return std::nullopt;
    if (auto bytes = backup_with_value(before.path, value)) return bytes;
    if (removable && before.exists && list_backups(before.path).empty()) return std::nullopt;
    return dump_like(value, before.exists ? before.content : std::string());
}

}  // namespace toolcage::install
