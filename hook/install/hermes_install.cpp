// Hermes Agent: a `pre_tool_call` shell hook in the profile's config.yaml, its approval in
// shell-hooks-allowlist.json (Hermes skips an unapproved hook when no terminal can ask, as in the
// gateway or cron), and optionally the profile's policy in SOUL.md.
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <regex>

#include "common/error.h"
#include "hook/install/hermes_hook_lines.h"
#include "hook/install/hermes_plugin.h"
#include "hook/install/hermes_version.h"
#include "hook/install/install.h"
#include "hook/install/json_file.h"
#include "hook/install/soul_directive.h"
#include "hook/install/steps.h"
#include "hook/install/text_lines.h"
#include "hook/install/yaml_top_level.h"

namespace toolcage::install {

namespace {

// Our block in config.yaml is fenced by these comment lines, so uninstall finds exactly it.
constexpr std::string_view kBegin =
    "# >>> toolcage hook: added by `toolcage install hermes`; `toolcage uninstall hermes` removes "
    "it";
constexpr std::string_view kEnd = "# <<< toolcage hook";
constexpr std::string_view kFlag = "# toolcage: ";
constexpr std::string_view kFlagReplaced = "replaced the line: ";
constexpr std::string_view kFlagNoNewline = "the file ended without a newline";
constexpr std::string_view kFlagCreated = "created this file";

constexpr std::string_view kWrittenBy = "toolcage install hermes";

struct HermesPaths {
    fs::path home, config, allowlist, soul, toolcage_json;
};

HermesPaths hermes_paths(const HermesOptions& o) {
    if (!o.profile.empty() && !o.hermes_home.empty())
        throw Error("give --profile or --hermes-home, not both");
    fs::path home;
    if (!o.hermes_home.empty()) {
        home = o.hermes_home;
    } else if (!o.profile.empty() && o.profile != "default") {
        static const std::regex id("[a-z0-9][a-z0-9_-]{0,63}");
        if (!std::regex_match(o.profile, id))
            throw Error(
                "--profile " + o.profile +
                ": not a Hermes profile name (lowercase letters, digits, - and _, at most 64)");
        home = fs::path(home_dir("--hermes-home DIR")) / ".hermes" / "profiles" / o.profile;
    } else if (const char* env = std::getenv("HERMES_HOME"); o.profile.empty() && env && *env) {
        home = env;
    } else {
        home = fs::path(home_dir("--hermes-home DIR")) / ".hermes";
    }
    struct stat st {};
    if (::stat(home.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
        std::string fix = o.profile.empty() || o.profile == "default"
                              ? "run Hermes once to create it, or pass --hermes-home DIR"
                              : "create the profile (hermes profile create " + o.profile +
                                    ") or pass --hermes-home DIR";
        throw Error(home.string() + ": no such Hermes profile directory; " + fix +
                    " (nothing was changed)");
    }
    home = fs::absolute(home).lexically_normal();
    if (home.has_filename() == false && home != home.root_path()) home = home.parent_path();
    return {home, home / "config.yaml", home / "shell-hooks-allowlist.json", home / "SOUL.md",
            home / "toolcage.json"};
}

std::string hermes_command() {
    return shell_quote(toolcage_binary()) + " hook --agent hermes";
}

std::string indented(const std::vector<std::string>& lines) {
    std::string out;
    for (const auto& l : lines) out += "    " + l + "\n";
    return out;
}

// The value of a `command:` line (`command: x` or `- command: x`), if it is one.
std::optional<std::string> command_value(std::string_view line) {
    std::string_view t = trim(bare(line));
    if (t.starts_with("- ")) t = trim(t.substr(2));
    if (!t.starts_with("command:")) return std::nullopt;
    return yaml_unquote(t.substr(8));
}

struct Block {
    size_t begin = 0, end = 0;  // the marker lines
    std::vector<std::string> flags;
    size_t body = 0;  // first line after the flags
};

std::optional<Block> find_block(const TextLines& t, const fs::path& file) {
    std::optional<Block> b;
    for (size_t i = 0; i < t.lines.size(); ++i) {
        std::string_view l = bare(t.lines[i]);
        if (l == kBegin) {
            if (b)
                throw Error(
                    file.string() + ": line " + std::to_string(i + 1) +
                    ": a second toolcage block; remove one of them by hand (nothing was changed)");
            b = Block{i, 0, {}, i + 1};
            for (; b->body < t.lines.size() && bare(t.lines[b->body]).starts_with(kFlag); ++b->body)
                b->flags.emplace_back(bare(t.lines[b->body]).substr(kFlag.size()));
            size_t j = b->body;
            while (j < t.lines.size() && bare(t.lines[j]) != kEnd) ++j;
            if (j == t.lines.size())
                throw Error(file.string() + ": line " + std::to_string(i + 1) +
                            ": toolcage's block has no end line (" + std::string(kEnd) +
                            "); restore it from a .toolcage-backup file or fix it by hand "
                            "(nothing was changed)");
            b->end = j;
            i = j;
        }
    }
    return b;
}

std::optional<std::string> block_command(const TextLines& t, const Block& b) {
    for (size_t i = b.body; i < b.end; ++i)
        if (auto v = command_value(t.lines[i])) return v;
    return std::nullopt;
}

// toolcage's lines as they should read now, in the shape they were written in (a `hooks:` key
// of their own, or merged into the user's).
std::vector<std::string> block_body(const TextLines& t, const Block& b, const std::string& command) {
    HookShape shape;
    if (b.body < b.end)
        if (auto s = hermes_hook_shape(t.lines[b.body])) shape = *s;
    return hermes_hook_lines(command, shape);
}

bool block_body_is(const TextLines& t, const Block& b, const std::vector<std::string>& want) {
    if (b.end - b.body != want.size()) return false;
    for (size_t i = 0; i < want.size(); ++i)
        if (bare(t.lines[b.body + i]) != want[i]) return false;
    return true;
}

// A `command:` line toolcage did not write that runs `toolcage hook --agent hermes`.
std::optional<size_t> hand_written_entry(const TextLines& t, const std::optional<Block>& b) {
    for (size_t i = 0; i < t.lines.size(); ++i) {
        if (b && i >= b->begin && i <= b->end) continue;
        if (auto v = command_value(t.lines[i]); v && is_toolcage_hook_command(*v, "hermes"))
            return i;
    }
    return std::nullopt;
}

bool empty_value(const std::string& v) {
    return v.empty() || v == "{}" || v == "null" || v == "~" || v == "Null" || v == "NULL";
}

Outcome by_hand(const fs::path& file, const std::string& why, const std::string& command) {
    Outcome o;
    o.exit_code = 2;
    o.err = "toolcage install hermes: " + file.string() + ": " + why +
            "; toolcage does not rewrite it (nothing was changed).\n"
            "Merge these lines into it by hand (`toolcage` into the list under `plugins: "
            "enabled:`, the entry under `hooks: pre_tool_call:`), then run "
            "`toolcage install hermes` again to install the plugin and record Hermes' approval "
            "of the hook (`toolcage uninstall hermes` takes these lines out again, as printed):\n\n" +
            indented(plugin_enable_lines()) + indented(hermes_hook_lines(command));
    return o;
}

struct ConfigPlan {
    std::optional<FileEdit> edit;
    std::optional<std::string> old_command;  // our previous command, whose approval goes
    std::optional<Outcome> refused;
};

ConfigPlan plan_config_install(const fs::path& path, const std::string& command) {
    ConfigPlan plan;
    FileState st = read_file_state(path);
    TextLines t = TextLines::split(st.content);
    const std::string cr = t.cr();
    auto with_cr = [&](std::vector<std::string> v) {
        for (auto& l : v) l += cr;
        return v;
    };
    auto block = find_block(t, st.path);
    if (block) {
        const auto body = block_body(t, *block, command);
        if (block_body_is(t, *block, body)) return plan;
        if (auto old = block_command(t, *block); old && *old != command) plan.old_command = old;
        t.lines.erase(t.lines.begin() + static_cast<long>(block->body),
                      t.lines.begin() + static_cast<long>(block->end));
        auto lines = with_cr(body);
        t.lines.insert(t.lines.begin() + static_cast<long>(block->body), lines.begin(),
                       lines.end());
        plan.edit =
            FileEdit{st, t.join(), "updated toolcage's pre_tool_call hook (" + command + ")"};
        return plan;
    }
    TopLevelScan scan = scan_top_level(t);
    if (!scan.problem.empty()) {
        plan.refused = by_hand(
            st.path, scan.problem + ", so a line scan cannot tell where its top-level keys are",
            command);
        return plan;
    }
    const auto body = hermes_hook_lines(command);
    const TopLevelKey* hooks = nullptr;
    std::size_t hooks_end = t.lines.size();
    for (std::size_t i = 0; i < scan.keys.size(); ++i)
        if (scan.keys[i].name == "hooks") {
            hooks = &scan.keys[i];
            if (i + 1 < scan.keys.size()) hooks_end = scan.keys[i + 1].line;
        }
    std::vector<std::string> fenced{std::string(kBegin) + cr};
    if (hooks && empty_value(hooks->value) && !hooks->has_children) {
        // `hooks: {}` is what Hermes writes by default: an empty mapping toolcage can fill and,
        // on uninstall, put back exactly.
        fenced.push_back(std::string(kFlag) + std::string(kFlagReplaced) +
                         std::string(bare(t.lines[hooks->line])) + cr);
        for (auto& l : with_cr(body)) fenced.push_back(l);
        fenced.push_back(std::string(kEnd) + cr);
        t.lines.erase(t.lines.begin() + static_cast<long>(hooks->line));
        t.lines.insert(t.lines.begin() + static_cast<long>(hooks->line), fenced.begin(),
                       fenced.end());
        plan.edit =
            FileEdit{st, t.join(), "filled the empty `hooks:` with toolcage's pre_tool_call hook"};
        return plan;
    }
    if (hooks) {
        if (auto line = hand_written_entry(t, std::nullopt); line) {
            auto v = command_value(t.lines[*line]);
            if (*v == command)
                return plan;  // merged by hand, as we asked: only the approval is left
            plan.refused = by_hand(st.path,
                                   "line " + std::to_string(*line + 1) +
                                       " runs toolcage's hook from another path (" + *v +
                                       "); change that command to the one below",
                                   command);
            return plan;
        }
        // The user's own hooks: toolcage's entry goes in among them, fenced like the rest.
        HookPlace place = hooks->has_children && empty_value(hooks->value)
                              ? place_hermes_hook(t, hooks->line, hooks_end)
                              : HookPlace{0, {}, false, "", "its value is written on the `hooks:` line (flow style)"};
        if (!place.refused.empty()) {
            plan.refused = by_hand(st.path,
                                   "its `hooks:` (line " + std::to_string(hooks->line + 1) +
                                       ") cannot take toolcage's entry line by line (" + place.refused + ")",
                                   command);
            return plan;
        }
        if (place.replaces) {
            fenced.push_back(std::string(kFlag) + std::string(kFlagReplaced) +
                             std::string(bare(t.lines[place.at])) + cr);
            t.lines.erase(t.lines.begin() + static_cast<long>(place.at));
        }
        for (auto& l : with_cr(hermes_hook_lines(command, place.shape))) fenced.push_back(l);
        fenced.push_back(std::string(kEnd) + cr);
        t.lines.insert(t.lines.begin() + static_cast<long>(place.at), fenced.begin(), fenced.end());
        plan.edit = FileEdit{st, t.join(), place.what};
        return plan;
    }
    if (!st.exists) fenced.push_back(std::string(kFlag) + std::string(kFlagCreated) + cr);
    if (!t.lines.empty() && !t.final_newline)
        fenced.push_back(std::string(kFlag) + std::string(kFlagNoNewline) + cr);
    for (auto& l : with_cr(body)) fenced.push_back(l);
    fenced.push_back(std::string(kEnd) + cr);
    t.lines.insert(t.lines.end(), fenced.begin(), fenced.end());
    t.final_newline = true;
    plan.edit =
        FileEdit{st, t.join(),
                 std::string(st.exists ? "appended" : "wrote") + " toolcage's pre_tool_call hook"};
    return plan;
}

// `content`: the file's text once toolcage's plugin lines are out (st.content when none).
ConfigPlan plan_config_uninstall(const FileState& st, const std::string& content) {
    ConfigPlan plan;
    if (!st.exists) return plan;
    TextLines t = TextLines::split(content);
    auto block = find_block(t, st.path);
    if (!block) {
        if (content != st.content) plan.edit = FileEdit{st, content, "removed toolcage's plugin from plugins.enabled"};
        if (auto line = hand_written_entry(t, std::nullopt)) {
            // Merged by hand from the lines `install hermes` printed: those lines come out again.
            PrintedEntryRemoval removal = remove_printed_hermes_hook(t, *line);
            if (removal.without) {
                plan.old_command = command_value(t.lines[*line]);
                plan.edit = FileEdit{st, removal.without->join(),
                                     std::string(content != st.content ? "removed toolcage's plugin from "
                                                                         "plugins.enabled and " : "removed ") +
                                         "the pre_tool_call hook merged by hand (line " +
                                         std::to_string(*line + 1) + ")"};
                return plan;
            }
            // The lines named as the file has them (before the plugin's lines came out).
            const TextLines file = TextLines::split(st.content);
            if (auto at = hand_written_entry(file, std::nullopt))
                removal = remove_printed_hermes_hook(file, *at);
            Outcome o;
            o.exit_code = 2;
            o.err = "toolcage uninstall hermes: " + st.path.string() + ": " + removal.refused +
                    "; remove that entry from `hooks:` by hand, "
                    "then run `toolcage uninstall hermes` again to withdraw the approval (nothing "
                    "was changed)\n";
            plan.refused = o;
        }
        return plan;
    }
    plan.old_command = block_command(t, *block);
    const bool at_end = block->end + 1 == t.lines.size();
    std::optional<std::string> replaced;
    bool no_newline = false, created = false;
    for (const auto& f : block->flags) {
        if (f.starts_with(kFlagReplaced)) replaced = f.substr(kFlagReplaced.size());
        if (f == kFlagNoNewline) no_newline = true;
        if (f == kFlagCreated) created = true;
    }
    const std::string cr = t.cr();
    t.lines.erase(t.lines.begin() + static_cast<long>(block->begin),
                  t.lines.begin() + static_cast<long>(block->end) + 1);
    if (replaced) t.lines.insert(t.lines.begin() + static_cast<long>(block->begin), *replaced + cr);
    if (no_newline && at_end) t.final_newline = false;
    bool now_empty = t.lines.empty();
    if (created && now_empty)
        plan.edit = created_file_removal(FileEdit{st, std::nullopt, "removed the file toolcage created"});
    else
        plan.edit = FileEdit{st, t.join(),
                             content != st.content
                                 ? "removed toolcage's plugin from plugins.enabled and its "
                                   "pre_tool_call hook"
                                 : "removed toolcage's pre_tool_call hook"};
    return plan;
}

ojson approval(const std::string& command) {
    // Keys in the order Hermes writes them (sorted).
    ojson e = ojson::object();
    e["approved_at"] = iso_utc(now_micros());
    e["command"] = command;
    e["event"] = kHermesEvent;
    struct stat st {};
    std::string bin = toolcage_binary();
    if (::stat(bin.c_str(), &st) == 0)
        e["script_mtime_at_approval"] = iso_utc(
            static_cast<long long>(st.st_mtim.tv_sec) * 1000000 + st.st_mtim.tv_nsec / 1000);
    else
        e["script_mtime_at_approval"] = nullptr;
    return e;
}

bool is_approval_for(const ojson& e, const std::string& command) {
    return e.is_object() && e.value("event", "") == kHermesEvent && e.contains("command") &&
           e["command"].is_string() && e["command"].get<std::string>() == command;
}

std::optional<FileEdit> plan_allowlist(const fs::path& path, const std::vector<std::string>& remove,
                                       const std::optional<std::string>& add) {
    FileState st = read_file_state(path);
    if (!st.exists && !add) return std::nullopt;
    const std::string fix =
        "fix the JSON or move the file away (Hermes then asks again at the terminal)";
    ojson original = st.exists ? parse_json_file(st, fix) : ojson::object();
    if (!original.is_object())
        throw Error(st.path.string() + ": the top level is " + std::string(original.type_name()) +
                    ", expected an object {\"approvals\": [...]}; " + fix +
                    " (nothing was changed)");
    ojson value = original;
    ojson& approvals = array_member(value, "approvals", "/approvals", st);
    for (size_t i = approvals.size(); i-- > 0;) {
        for (const auto& r : remove)
            if ((!add || r != *add) && is_approval_for(approvals[i], r)) {
                approvals.erase(i);
                break;
            }
    }
    if (add) {
        bool present = false;
        for (const auto& e : approvals) present = present || is_approval_for(e, *add);
        if (!present) approvals.push_back(approval(*add));
    }
    bool empty = value.size() == 1 && approvals.empty();
    auto after = json_after(st, original, value, !add && empty);
    std::string what =
        add ? "recorded Hermes' approval of the hook" : "withdrew Hermes' approval of the hook";
    if (!after) what += "; removed the file toolcage created";
    return created_file_removal(FileEdit{st, after, what});
}

ojson toolcage_json(const std::string& policy) {
    ojson v = ojson::object();
    v["policy"] = policy;
    v["written_by"] = kWrittenBy;
    return v;
}

bool ours(const ojson& v) {
    return v.is_object() && v.size() == 2 && v.contains("policy") &&
           v.value("written_by", "") == kWrittenBy;
}

// The policy goes into SOUL.md; a profile without one gets toolcage.json beside where it would
// be, so that toolcage never creates the agent's identity file.
std::optional<FileEdit> plan_policy(const HermesPaths& p, const std::string& policy) {
    FileState soul = read_file_state(p.soul);
    if (soul.exists) {
        SoulEdit e = soul_set_policy(soul.content, policy, soul.path.string());
        return FileEdit{soul, e.text, e.what};
    }
    FileState js = read_file_state(p.toolcage_json);
    if (js.exists) {
        ojson v = parse_json_file(js, "fix it or remove it");
        std::string have = v.is_object() && v.contains("policy") && v["policy"].is_string()
                               ? v["policy"].get<std::string>()
                               : "";
        if (have == policy) return std::nullopt;
        if (!ours(v))
            throw Error(js.path.string() + ": /policy: already chooses policy \"" + have +
                        "\"; change it to \"" + policy +
                        "\" by hand, or run without --policy (nothing was changed)");
    }
    return FileEdit{js, dump_like(toolcage_json(policy), js.exists ? js.content : ""),
                    "set policy " + policy + " (no SOUL.md in this profile)", 0644};
}

std::optional<FileEdit> plan_policy_removal(const HermesPaths& p) {
    FileState soul = read_file_state(p.soul);
    if (soul.exists) {
        SoulEdit e = soul_clear_policy(soul.content, soul.path.string());
        if (e.text != soul.content) return FileEdit{soul, e.text, e.what};
    }
    FileState js = read_file_state(p.toolcage_json);
    if (js.exists) {
        ojson v = ojson::parse(js.content, nullptr, false);
        if (!v.is_discarded() && ours(v))
            return created_file_removal(FileEdit{js, std::nullopt, "removed the policy file toolcage wrote"});
    }
    return std::nullopt;
}

const char* kNote =
    "Hermes reads plugins and hooks when it starts: restart Hermes (and `hermes gateway restart` "
    "if it runs).";

}  // namespace

// Everything `install hermes` writes, for an image template (NemoClaw / OpenShell build the
// profile when the image is built): no profile directory is read or needed.
Outcome print_hermes(const HermesOptions& o, const std::string& intro) {
    const fs::path home = o.hermes_home.empty() ? fs::path("$HERMES_HOME") : fs::path(o.hermes_home);
    const std::string command = hermes_command();
    fs::path source;
    std::string source_text;
    try {
        source = hermes_plugin_source(o.plugin_dir);
        source_text = source.string();
    } catch (const Error&) {
        source_text = "<prefix>/share/toolcage/plugins/hermes (not found beside this binary; "
                      "pass --plugin-dir DIR)";
    }
    ojson allow = ojson::object();
    allow["approvals"] = ojson::array({approval(command)});
    Outcome out;
    out.out = intro +
              "# toolcage for Hermes Agent: what `toolcage install hermes` writes into a profile\n"
              "# ($HERMES_HOME), for an image's template.\n\n"
              "# 1. The plugin (first layer): copy plugin.yaml and __init__.py from\n#    " +
              source_text + "\n#    into " + (home / "plugins" / "toolcage").string() +
              "/, with this config.json beside them:\n" +
              hermes_plugin_config(toolcage_binary(), home) +
              "\n# 2. In " + (home / "config.yaml").string() +
              ": enable the plugin, and keep the shell hook as the second layer:\n" +
              indented(plugin_enable_lines()) + indented(hermes_hook_lines(command)) + "\n# 3. " +
              (home / "shell-hooks-allowlist.json").string() +
              " (Hermes skips an unapproved hook where no terminal can ask):\n" + allow.dump(2) +
              "\n\n# 4. The policy: `toolcage: NAME` in the front matter of " +
              (home / "SOUL.md").string() + " (or {\"policy\": \"NAME\"} in toolcage.json beside it).\n"
              "# The toolcage path above must be where the binary is in the image.\n\n" +
              enforcement_report(detect_hermes(o.hermes_version));
    return out;
}

Outcome install_hermes(const HermesOptions& o) {
    if (o.print) return print_hermes(o, "");
    // A policy that is not installed is refused first, for a profile made later (the dry run's
    // template) as well.
    if (!o.policy.empty()) require_installed_policy(o.policy);
    HermesPaths p;
    try {
        p = hermes_paths(o);
    } catch (const Error& e) {
        if (!o.dry_run) throw;
        // The template is printed, but the dry run fails as Claude's and OpenClaw's do for a
        // file that is not there: a script that checks a profile learns it is missing.
        Outcome out = print_hermes(o, "toolcage install hermes (dry run): " + std::string(e.what()) +
                                          ".\nNothing would be changed. For a profile made later (an image "
                                          "template), this is what to write:\n\n");
        out.exit_code = 2;
        out.err = "toolcage install hermes --dry-run: " + std::string(e.what()) +
                  "; for an image's template use `toolcage install hermes --print` (exit 0)\n";
        return out;
    }
    const fs::path plugin_source = hermes_plugin_source(o.plugin_dir);
    const std::string command = hermes_command();
    ConfigPlan config = plan_config_install(p.config, command);
    if (config.refused) return *config.refused;
    // The plugin's line in `plugins: enabled:`, on top of the hook's edit.
    FileState config_state = read_file_state(p.config);
    std::string base = config.edit && config.edit->after ? *config.edit->after : config_state.content;
    EnableEdit enable = enable_plugin(base);
    if (!enable.refused.empty()) return by_hand(config_state.path, enable.refused, command);
    if (enable.text) {
        if (config.edit)
            config.edit->after = enable.text, config.edit->what += "; " + enable.what;
        else
            config.edit = FileEdit{config_state, enable.text, enable.what};
    }
    PluginFilesPlan plugin = plan_plugin_files(p.home, plugin_source, toolcage_binary());
    ChangeSet changes;
    for (auto& e : plugin.edits) changes.add(e);
    if (config.edit) changes.add(*config.edit);
    std::vector<std::string> stale;
    if (config.old_command) stale.push_back(*config.old_command);
    if (auto e = plan_allowlist(p.allowlist, stale, command)) changes.add(*e);
    if (!o.policy.empty())
        if (auto e = plan_policy(p, o.policy)) changes.add(*e);
    if (!o.dry_run && !changes.empty()) make_plugin_dir(plugin);
    Outcome out = finish(changes, o.dry_run, "hermes (" + p.home.string() + ")", kNote);
    out.out += enforcement_report(detect_hermes(o.hermes_version));
    if (!o.dry_run)
        if (auto problems = hermes_plugin_problems(p.home, plugin_source); !problems.empty()) {
            for (const auto& why : problems) out.err += "toolcage install hermes: " + why + "\n";
            out.exit_code = 1;
        }
    return out;
}

Outcome uninstall_hermes(const HermesOptions& o) {
    HermesPaths p = hermes_paths(o);
    FileState config_state = read_file_state(p.config);
    std::string content = config_state.content;
    if (config_state.exists)
        if (auto without = disable_plugin(content, config_state.path.string())) content = *without;
    ConfigPlan config = plan_config_uninstall(config_state, content);
    if (config.refused) return *config.refused;
    PluginFilesPlan plugin = plan_plugin_removal(p.home);
    ChangeSet changes;
    for (auto& e : plugin.edits) changes.add(e);
    if (config.edit) changes.add(*config.edit);
    std::vector<std::string> commands{hermes_command()};
    if (config.old_command) commands.push_back(*config.old_command);
    if (auto e = plan_allowlist(p.allowlist, commands, std::nullopt)) changes.add(*e);
    if (auto e = plan_policy_removal(p)) changes.add(*e);
    Outcome out = finish(changes, o.dry_run, "hermes (" + p.home.string() + ")", kNote);
    if (!o.dry_run) remove_plugin_dir_if_empty(plugin);
    return out;
}

}  // namespace toolcage::install
