// Claude Code: one PreToolUse matcher group in settings.json whose only hook runs
// `toolcage hook --agent claude`; every other key and hook in the file stays as it was.
#include <sys/stat.h>

#include "common/error.h"
#include "hook/install/claude_version.h"
#include "hook/install/install.h"
#include "hook/install/json_file.h"
#include "hook/install/steps.h"

namespace toolcage::install {

namespace {

// Shell commands, every tool that writes a file, and the reads that may reach credentials.
constexpr std::string_view kMatcher = "Bash|Write|Edit|MultiEdit|NotebookEdit|Read|Grep|Glob";
constexpr int kTimeoutSeconds = 10;

fs::path settings_path(const ClaudeOptions& o) {
    if (!o.settings.empty()) return o.settings;
    fs::path dir = fs::path(home_dir("--settings FILE")) / ".claude";
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
        throw Error(
            dir.string() +
            ": no such directory; is Claude Code set up for this user? Run it once, or pass "
            "--settings FILE (nothing was changed)");
    return dir / "settings.json";
}

std::string claude_command(const std::string& policy) {
    std::string c = shell_quote(toolcage_binary()) + " hook --agent claude";
    if (!policy.empty()) c += " --policy " + shell_quote(policy);
    return c;
}

ojson our_group(const std::string& command) {
    ojson hook = ojson::object();
    hook["type"] = "command";
    hook["command"] = command;
    hook["timeout"] = kTimeoutSeconds;
    // Claude Code 2.1.295 and later then block a call whose hook could not answer (did not
    // start, hung, crashed, exited with neither 0 nor 2); older ones accept the key and ignore
    // it (2.1.197 was tried), so it is written whatever the version, ready for an upgrade.
    hook["onFailure"] = "block";
    ojson group = ojson::object();
    group["matcher"] = kMatcher;
    group["hooks"] = ojson::array({hook});
    return group;
}

bool is_ours(const ojson& hook) {
    return hook.is_object() && hook.contains("command") && hook["command"].is_string() &&
           is_toolcage_hook_command(hook["command"].get<std::string>(), "claude");
}

struct Found {
    size_t group, hook;
};

std::vector<Found> find_ours(const ojson& pre) {
    std::vector<Found> out;
    for (size_t g = 0; g < pre.size(); ++g) {
        if (!pre[g].is_object() || !pre[g].contains("hooks") || !pre[g]["hooks"].is_array())
            continue;
        const ojson& hooks = pre[g]["hooks"];
        for (size_t h = 0; h < hooks.size(); ++h)
            if (is_ours(hooks[h])) out.push_back({g, h});
    }
    return out;
}

// Removes the hooks in `found` (in reverse, so indexes stay right); a group left with no hook
// goes too.
void remove_found(ojson& pre, const std::vector<Found>& found) {
    for (auto it = found.rbegin(); it != found.rend(); ++it) {
        ojson& hooks = pre[it->group]["hooks"];
        hooks.erase(it->hook);
        if (hooks.empty()) pre.erase(it->group);
    }
}

struct Settings {
    FileState file;
    ojson original;
};

Settings read_settings(const ClaudeOptions& o) {
    Settings s;
    s.file = read_file_state(settings_path(o));
    const std::string fix = "fix the JSON (Claude Code cannot read it either)";
    s.original =
        s.file.exists && !s.file.content.empty() ? parse_json_file(s.file, fix) : ojson::object();
    if (!s.original.is_object())
        throw Error(s.file.path.string() + ": the top level is " +
                    std::string(s.original.type_name()) + ", expected an object; " + fix +
                    " (nothing was changed)");
    return s;
}

const char* kNote =
    "Claude Code reads hooks when a session starts: start a new session (`/hooks` shows them).";

// A settings file toolcage will not edit (not JSON, an unexpected shape, not writable): the
// exact lines to merge by hand, and exit 2, as for Hermes.
Outcome by_hand(const fs::path& file, const std::string& why, const ojson& group) {
    ojson snippet = ojson::object();
    snippet["hooks"] = ojson::object();
    snippet["hooks"]["PreToolUse"] = ojson::array({group});
    std::string reason = why;
    const std::string said = " (nothing was changed)";
    if (reason.ends_with(said)) reason.resize(reason.size() - said.size());
    Outcome o;
    o.exit_code = 2;
    o.err = "toolcage install claude: " + reason + "\n" + file.string() +
            ": toolcage does not rewrite it (nothing was changed).\nMerge this into it by hand "
            "(add the object inside \"PreToolUse\" to its hooks.PreToolUse array), then start a "
            "new Claude Code session:\n\n" +
            snippet.dump(2) + "\n";
    return o;
}

}  // namespace

Outcome install_claude(const ClaudeOptions& o) {
    if (!o.policy.empty()) require_installed_policy(o.policy);
    const fs::path path = settings_path(o);
    const ojson group = our_group(claude_command(o.policy));
    try {
        ClaudeOptions at = o;
        at.settings = path.string();
        Settings s = read_settings(at);
        ojson value = s.original;
        ojson& hooks = object_member(value, "hooks", "/hooks", s.file);
        ojson& pre = array_member(hooks, "PreToolUse", "/hooks/PreToolUse", s.file);
        auto found = find_ours(pre);
        if (found.empty()) {
            pre.push_back(group);
        } else if (pre[found[0].group]["hooks"].size() == 1) {
            // Our own group: rewrite it where it is, and drop any copies.
            size_t keep = found[0].group;
            remove_found(pre, {found.begin() + 1, found.end()});
            pre[keep] = group;
        } else {
            // Someone put our hook into a group of theirs: take it out and add our own group.
            remove_found(pre, found);
            pre.push_back(group);
        }
        ChangeSet changes;
        changes.add(FileEdit{s.file, json_after(s.file, s.original, value, false),
                             "added toolcage's PreToolUse hook (" +
                                 group["hooks"][0]["command"].get<std::string>() + ")"});
        Outcome out = finish(changes, o.dry_run, "claude (" + s.file.path.string() + ")", kNote);
        out.out += hook_failure_report(detect_claude(o.claude_version)) + "\n";
        return out;
    } catch (const Error& e) {
        return by_hand(path, e.what(), group);
    }
}

Outcome uninstall_claude(const ClaudeOptions& o) {
    Settings s = read_settings(o);
    if (!s.file.exists)
        return finish(ChangeSet{}, o.dry_run, "claude (" + s.file.path.string() + ")", "");
    ojson value = s.original;
    auto hooks = value.find("hooks");
    if (hooks != value.end() && hooks->is_object()) {
        auto pre = hooks->find("PreToolUse");
        if (pre != hooks->end() && pre->is_array()) {
            auto found = find_ours(*pre);
            if (!found.empty()) {
                remove_found(*pre, found);
                // Containers left empty by our removal go too; a backup, if one holds the
                // original, brings back the exact bytes anyway.
                if (pre->empty()) hooks->erase("PreToolUse");
                if (hooks->empty()) value.erase("hooks");
            }
        }
    }
    ChangeSet changes;
    changes.add(created_file_removal(FileEdit{s.file, json_after(s.file, s.original, value, value.empty()),
                                              "removed toolcage's PreToolUse hook"}));
    return finish(changes, o.dry_run, "claude (" + s.file.path.string() + ")", kNote);
}

}  // namespace toolcage::install
