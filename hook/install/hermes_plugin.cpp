#include "hook/install/hermes_plugin.h"

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "common/error.h"
#include "hook/install/json_file.h"
#include "hook/install/steps.h"
#include "hook/install/yaml_top_level.h"

namespace toolcage::install {

namespace {

constexpr std::string_view kWrittenBy = "toolcage install hermes";
// The files toolcage copies; config.json is written for each profile.
constexpr const char* kCopied[] = {"plugin.yaml", "__init__.py"};
constexpr const char* kConfig = "config.json";

constexpr std::string_view kBegin =
    "# >>> toolcage plugin: added by `toolcage install hermes`; `toolcage uninstall hermes` "
    "removes it";
constexpr std::string_view kEnd = "# <<< toolcage plugin";
constexpr std::string_view kFlagReplaced = "# toolcage: replaced the line: ";

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) throw Error(p.string() + ": cannot be read");
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// A file that may not exist yet, in a directory that may not exist yet.
FileState state_of(const fs::path& file, const fs::path& owner_of) {
    std::error_code ec;
    if (fs::exists(file.parent_path(), ec)) return read_file_state(file);
    FileState st;
    st.path = file;
    struct stat o {};
    if (::stat(owner_of.c_str(), &o) == 0) {
        st.uid = o.st_uid;
        st.gid = o.st_gid;
    }
    return st;
}

bool ours(const FileState& config) {
    if (!config.exists) return false;
    auto v = nlohmann::json::parse(config.content, nullptr, false);
    return v.is_object() && v.value("written_by", "") == kWrittenBy;
}

}  // namespace

fs::path hermes_plugin_source(const std::string& given) {
    std::error_code ec;
    fs::path dir = given;
    if (dir.empty()) {
        // Installed: <prefix>/bin/toolcage and <prefix>/share/...; the build tree: <bindir>/share.
        const fs::path bin_dir = fs::path(toolcage_binary()).parent_path();
        dir = bin_dir / ".." / "share" / "toolcage" / "plugins" / "hermes";
        if (!fs::is_directory(dir, ec) &&
            fs::is_directory(bin_dir / "share" / "toolcage" / "plugins" / "hermes", ec))
            dir = bin_dir / "share" / "toolcage" / "plugins" / "hermes";
    }
    fs::path real = fs::canonical(dir, ec);
    if (!ec) dir = real;
    for (const char* f : kCopied)
        if (!fs::is_regular_file(dir / f, ec))
            throw Error((dir / f).string() +
                        ": not found; the Hermes plugin is installed by ./install.sh under "
                        "<prefix>/share/toolcage/plugins/hermes; pass --plugin-dir DIR to name it "
                        "(nothing was changed)");
    return dir;
}

std::string hermes_plugin_config(const std::string& toolcage_bin, const fs::path& hermes_home,
                                 bool made_plugins_dir) {
    nlohmann::ordered_json v;
    v["toolcage"] = toolcage_bin;
    v["timeout_seconds"] = 10;
    // Empty: the profile's SOUL.md (or toolcage.json) chooses, as it does for the shell hook.
    v["policy"] = "";
    v["hermes_home"] = hermes_home.string();
    v["written_by"] = kWrittenBy;
    // Uninstall removes the profile's plugins/ too when install made it and it is left empty.
    if (made_plugins_dir) v["made_plugins_dir"] = true;
    return v.dump(2) + "\n";
}

PluginFilesPlan plan_plugin_files(const fs::path& hermes_home, const fs::path& source,
                                  const std::string& toolcage_bin) {
    PluginFilesPlan p;
    p.dir = hermes_home / "plugins" / kHermesPluginName;
    FileState config = state_of(p.dir / kConfig, hermes_home);
    std::error_code ec;
    if (fs::exists(p.dir, ec) && !ours(config) && !fs::is_empty(p.dir, ec))
        throw Error(p.dir.string() +
                    ": a plugin toolcage did not write (no config.json of toolcage's); move it "
                    "away and run again (nothing was changed)");
    for (const char* f : kCopied)
        p.edits.push_back(FileEdit{state_of(p.dir / f, hermes_home), slurp(source / f),
                                   std::string("installed the toolcage plugin's ") + f, 0644,
                                   false});
    bool made = !fs::exists(p.dir.parent_path(), ec);
    if (ours(config)) {
        auto old = nlohmann::json::parse(config.content, nullptr, false);
        made = old.value("made_plugins_dir", false);
    }
    p.edits.push_back(FileEdit{config, hermes_plugin_config(toolcage_bin, hermes_home, made),
                               "wrote the plugin's config.json (toolcage: " + toolcage_bin + ")",
                               0644, false});
    return p;
}

PluginFilesPlan plan_plugin_removal(const fs::path& hermes_home) {
    PluginFilesPlan p;
    p.dir = hermes_home / "plugins" / kHermesPluginName;
    std::error_code ec;
    if (!fs::is_directory(p.dir, ec)) return p;
    FileState config = read_file_state(p.dir / kConfig);
    if (!ours(config)) return p;  // not ours: leave it
    p.made_plugins_dir =
        nlohmann::json::parse(config.content, nullptr, false).value("made_plugins_dir", false);
    for (const char* f : kCopied) {
        FileState st = read_file_state(p.dir / f);
        if (st.exists)
            p.edits.push_back(FileEdit{
                st, std::nullopt, std::string("removed the toolcage plugin's ") + f, 0600, false});
    }
    p.edits.push_back(
        FileEdit{config, std::nullopt, "removed the plugin's config.json", 0600, false});
    return p;
}

void make_plugin_dir(const PluginFilesPlan& p) {
    std::error_code ec;
    for (const fs::path& d : {p.dir.parent_path(), p.dir}) {
        if (fs::is_directory(d, ec)) continue;
        if (::mkdir(d.c_str(), 0755) != 0)
            throw Error(syscall_error("mkdir(" + d.string() + ")", errno) +
                        " (nothing was changed)");
        struct stat o {};
        if (::geteuid() == 0 && ::stat(d.parent_path().c_str(), &o) == 0 &&
            ::chown(d.c_str(), o.st_uid, o.st_gid) != 0)
            throw Error(syscall_error("chown(" + d.string() + ")", errno));
    }
}

void remove_plugin_dir_if_empty(const PluginFilesPlan& p) {
    std::error_code ec;
    // Python's bytecode cache of our own files goes with them.
    fs::path cache = p.dir / "__pycache__";
    if (fs::is_directory(cache, ec)) {
        for (const auto& e : fs::directory_iterator(cache, ec))
            if (e.path().filename().string().starts_with("__init__.")) fs::remove(e.path(), ec);
        fs::remove(cache, ec);  // only when empty
    }
    fs::remove(p.dir, ec);                                        // only when empty
    if (p.made_plugins_dir) fs::remove(p.dir.parent_path(), ec);  // only when empty
}

std::vector<std::string> plugin_enable_lines() {
    return {"plugins:", "  enabled:", "    - " + std::string(kHermesPluginName)};
}

namespace {

// The items of a one-line flow list "[a, b]" of plain names; nullopt for anything else.
std::optional<std::vector<std::string>> flow_items(std::string_view v) {
    v = trim(v);
    if (size_t hash = v.find(" #"); hash != std::string_view::npos) v = trim(v.substr(0, hash));
    if (v.size() < 2 || v.front() != '[' || v.back() != ']') return std::nullopt;
    static const std::regex name(R"([A-Za-z0-9_./-]+|"[A-Za-z0-9_./-]+"|'[A-Za-z0-9_./-]+')");
    std::vector<std::string> items;
    std::string_view inner = trim(v.substr(1, v.size() - 2));
    while (!inner.empty()) {
        size_t comma = inner.find(',');
        std::string item(trim(inner.substr(0, comma)));
        if (!std::regex_match(item, name)) return std::nullopt;
        if (item.front() == '"' || item.front() == '\'') item = item.substr(1, item.size() - 2);
        items.push_back(item);
        if (comma == std::string_view::npos) break;
        inner = trim(inner.substr(comma + 1));
        if (inner.empty()) return std::nullopt;
    }
    return items;
}

size_t indent_of(std::string_view l) {
    size_t i = 0;
    while (i < l.size() && l[i] == ' ') ++i;
    return i;
}

}  // namespace

EnableEdit enable_plugin(const std::string& config_text) {
    EnableEdit e;
    TextLines t = TextLines::split(config_text);
    const std::string cr = t.cr();
    for (const auto& l : t.lines)
        if (bare(l) == kBegin) return e;  // ours is there
    TopLevelScan scan = scan_top_level(t);
    if (!scan.problem.empty()) {
        e.refused = scan.problem + ", so a line scan cannot tell where its top-level keys are";
        return e;
    }
    const TopLevelKey* plugins = nullptr;
    size_t next_top = t.lines.size();
    for (size_t i = 0; i < scan.keys.size(); ++i)
        if (scan.keys[i].name == "plugins") {
            plugins = &scan.keys[i];
            if (i + 1 < scan.keys.size()) next_top = scan.keys[i + 1].line;
        }
    auto fenced = [&](std::vector<std::string> body, std::optional<std::string> replaced) {
        std::vector<std::string> out{std::string(kBegin) + cr};
        if (replaced) out.push_back(std::string(kFlagReplaced) + *replaced + cr);
        for (auto& l : body) out.push_back(l + cr);
        out.push_back(std::string(kEnd) + cr);
        return out;
    };
    auto insert = [&](size_t at, const std::vector<std::string>& lines) {
        t.lines.insert(t.lines.begin() + static_cast<long>(at), lines.begin(), lines.end());
    };
    const std::string name = kHermesPluginName;
    if (!plugins) {
        insert(t.lines.size(), fenced(plugin_enable_lines(), std::nullopt));
        t.final_newline = true;
        e.text = t.join();
        e.what = "enabled the toolcage plugin (plugins: enabled:)";
        return e;
    }
    const std::string& v = plugins->value;
    if (!plugins->has_children && (v.empty() || v == "{}" || v == "null" || v == "~")) {
        std::string old(bare(t.lines[plugins->line]));
        t.lines.erase(t.lines.begin() + static_cast<long>(plugins->line));
        insert(plugins->line, fenced(plugin_enable_lines(), old));
        e.text = t.join();
        e.what = "enabled the toolcage plugin (filled the empty `plugins:`)";
        return e;
    }
    // `plugins:` with children: find `enabled:` among them.
    if (plugins->has_children) {
        size_t child_indent = 0;
        for (size_t i = plugins->line + 1; i < next_top; ++i) {
            std::string_view l = bare(t.lines[i]);
            if (trim(l).empty() || trim(l).starts_with("#")) continue;
            size_t ind = indent_of(l);
            if (child_indent == 0) child_indent = ind;
            if (ind != child_indent || child_indent == 0) continue;
            std::string_view rest = l.substr(ind);
            if (!rest.starts_with("enabled:")) continue;
            std::string_view value = trim(rest.substr(8));
            if (auto items = flow_items(value)) {
                for (const auto& it : *items)
                    if (it == name) return e;  // merged by hand
                std::string line(ind, ' ');
                line += "enabled: [";
                for (const auto& it : *items) line += it + ", ";
                line += name + "]";
                std::string old(l);
                t.lines.erase(t.lines.begin() + static_cast<long>(i));
                insert(i, fenced({line}, old));
                e.text = t.join();
                e.what = "enabled the toolcage plugin (added it to plugins.enabled)";
                return e;
            }
            if (value.empty() || value.starts_with("#")) {
                // A block list below: `- name` lines, indented deeper (or at the same column).
                size_t j = i + 1, item_indent = std::string::npos;
                for (; j < next_top; ++j) {
                    std::string_view m = bare(t.lines[j]);
                    if (trim(m).empty() || trim(m).starts_with("#")) continue;
                    size_t mi = indent_of(m);
                    if (!m.substr(mi).starts_with("- ") || mi < ind) break;
                    if (item_indent == std::string::npos) item_indent = mi;
                    if (mi != item_indent) {
                        e.refused = "plugins.enabled is a list toolcage cannot read line by line";
                        return e;
                    }
                    std::string item(trim(m.substr(mi + 2)));
                    if (item == name || item == "\"" + name + "\"" || item == "'" + name + "'")
                        return e;
                }
                if (item_indent == std::string::npos) break;  // `enabled:` with no items: by hand
                insert(i + 1, fenced({std::string(item_indent, ' ') + "- " + name}, std::nullopt));
                e.text = t.join();
                e.what = "enabled the toolcage plugin (added it to plugins.enabled)";
                return e;
            }
            break;
        }
    }
    e.refused = "its `plugins:` (line " + std::to_string(plugins->line + 1) +
                ") has no `enabled:` list toolcage can extend line by line";
    return e;
}

namespace {

bool content_line(std::string_view l) {
    std::string_view t = trim(bare(l));
    return !t.empty() && t[0] != '#';
}

// The `- toolcage` item of a block list `plugins: enabled:` (a line scan, as enable_plugin's):
// the file without it, without an `enabled:` it leaves empty and a `plugins:` left empty.
std::optional<TextLines> without_listed_plugin(TextLines t) {
    TopLevelScan scan = scan_top_level(t);
    if (!scan.problem.empty()) return std::nullopt;
    size_t plugins = t.lines.size(), next_top = t.lines.size();
    for (size_t i = 0; i < scan.keys.size(); ++i)
        if (scan.keys[i].name == "plugins" && scan.keys[i].value.empty()) {
            plugins = scan.keys[i].line;
            if (i + 1 < scan.keys.size()) next_top = scan.keys[i + 1].line;
        }
    if (plugins == t.lines.size()) return std::nullopt;
    const std::string name = kHermesPluginName;
    for (size_t i = plugins + 1; i < next_top; ++i) {
        std::string_view l = bare(t.lines[i]);
        if (!content_line(l) || trim(l) != "enabled:") continue;
        const size_t key_indent = indent_of(l);
        size_t item = next_top, items = 0;
        for (size_t j = i + 1; j < next_top; ++j) {
            std::string_view m = bare(t.lines[j]);
            if (!content_line(m)) continue;
            if (indent_of(m) < key_indent || !m.substr(indent_of(m)).starts_with("- ")) break;
            ++items;
            std::string it(trim(m.substr(indent_of(m) + 2)));
            if (it == name || it == "\"" + name + "\"" || it == "'" + name + "'") item = j;
        }
        if (item == next_top) return std::nullopt;
        t.lines.erase(t.lines.begin() + static_cast<long>(item));
        if (items > 1) return t;
        t.lines.erase(t.lines.begin() + static_cast<long>(i));
        const size_t end = next_top - 2;  // the block, without the two lines
        for (size_t j = plugins + 1; j < end; ++j)
            if (content_line(t.lines[j])) return t;  // other plugin settings stay
        t.lines.erase(t.lines.begin() + static_cast<long>(plugins));
        return t;
    }
    return std::nullopt;
}

}  // namespace

std::optional<std::string> disable_plugin(const std::string& config_text, const std::string& file) {
    TextLines t = TextLines::split(config_text);
    size_t begin = t.lines.size();
    for (size_t i = 0; i < t.lines.size(); ++i)
        if (bare(t.lines[i]) == kBegin) begin = i;
    if (begin == t.lines.size()) {
        if (auto without = without_listed_plugin(t)) return without->join();
        return std::nullopt;
    }
    size_t end = begin + 1;
    while (end < t.lines.size() && bare(t.lines[end]) != kEnd) ++end;
    if (end == t.lines.size())
        throw Error(file + ": line " + std::to_string(begin + 1) +
                    ": toolcage's plugin lines have no end line (" + std::string(kEnd) +
                    "); fix it by hand (nothing was changed)");
    std::optional<std::string> replaced;
    if (begin + 1 < end && bare(t.lines[begin + 1]).starts_with(kFlagReplaced))
        replaced = std::string(bare(t.lines[begin + 1]).substr(kFlagReplaced.size()));
    const std::string cr = t.cr();
    t.lines.erase(t.lines.begin() + static_cast<long>(begin),
                  t.lines.begin() + static_cast<long>(end) + 1);
    if (replaced) t.lines.insert(t.lines.begin() + static_cast<long>(begin), *replaced + cr);
    return t.join();
}

}  // namespace toolcage::install
