// OpenClaw: the toolcage plugin is loaded from where toolcage installed it (its directory in
// `plugins.load.paths`, as `openclaw plugins install --link` does), enabled in
// `plugins.entries.<id>`, and told in `plugins.entries.<id>.config` the absolute path of this
// toolcage (`bin`, never a PATH lookup) and the policy (`policy`). openclaw.json may be JSON5;
// toolcage rewrites it only when it is plain JSON, and otherwise prints the lines to add.
#include <cstdlib>

#include "common/error.h"
#include "hook/install/install.h"
#include "hook/install/json_file.h"
#include "hook/install/steps.h"

namespace toolcage::install {

namespace {

fs::path config_path(const OpenClawOptions& o) {
    if (!o.config.empty()) return o.config;
    if (const char* c = std::getenv("OPENCLAW_CONFIG_PATH"); c && *c) return c;
    if (const char* d = std::getenv("OPENCLAW_STATE_DIR"); d && *d)
        return fs::path(d) / "openclaw.json";
    return fs::path(home_dir("--config FILE")) / ".openclaw" / "openclaw.json";
}

fs::path plugin_dir(const OpenClawOptions& o) {
    fs::path dir = o.plugin_dir;
    if (dir.empty())
        dir = fs::path(toolcage_binary()).parent_path() / ".." / "share" / "toolcage" / "plugins" /
              "openclaw";
    std::error_code ec;
    fs::path real = fs::canonical(dir, ec);
    return ec ? dir.lexically_normal() : real;
}

// The plugin's id, from its manifest. `required`: install needs it; uninstall falls back to
// toolcage's usual id when the plugin is already gone.
std::string plugin_id(const fs::path& dir, bool required) {
    const fs::path manifest = dir / "openclaw.plugin.json";
    try {
        std::error_code ec;
        if (!fs::is_regular_file(manifest, ec)) throw Error(manifest.string() + ": not found");
        FileState m = read_file_state(manifest);
        ojson v = parse_json_file(m, "the plugin's manifest must be JSON");
        if (!v.is_object() || !v.contains("id") || !v["id"].is_string() ||
            v["id"].get<std::string>().empty())
            throw Error(manifest.string() + ": /id: missing or not a string");
        return v["id"].get<std::string>();
    } catch (const Error& e) {
        if (!required) return "toolcage";
        throw Error(std::string(e.what()) +
                    "; the OpenClaw plugin is installed by ./install.sh under "
                    "<prefix>/share/toolcage/plugins/openclaw; "
                    "pass --plugin-dir DIR to name it (nothing was changed)");
    }
}

// What the plugin reads from its entry's config: where toolcage is, and the policy.
ojson plugin_config(const std::string& policy) {
    ojson c = ojson::object();
    c["bin"] = toolcage_binary();
    if (!policy.empty()) c["policy"] = policy;
    return c;
}

std::string by_hand_lines(const fs::path& dir, const std::string& id, const std::string& policy) {
    ojson v = ojson::object();
    v["plugins"]["load"]["paths"] = ojson::array({dir.string()});
    v["plugins"]["entries"][id]["enabled"] = true;
    v["plugins"]["entries"][id]["config"] = plugin_config(policy);
    return "    openclaw plugins install --link " + shell_quote(dir.string()) +
           "\n    openclaw plugins enable " + shell_quote(id) +
           "\n\nand merge into the config (the plugin refuses every call until its config names "
           "the toolcage binary):\n\n" +
           v.dump(2) + "\n";
}

struct Config {
    FileState file;
    ojson original;
    bool json5 = false;
    std::string why;
};

Config read_config(const OpenClawOptions& o) {
    Config c;
    c.file = read_file_state(config_path(o));
    if (!c.file.exists) {
        c.original = ojson::object();
        return c;
    }
    try {
        c.original = parse_json_file(c.file, "");
    } catch (const Error& e) {
        c.json5 = true;
        c.why = e.what();
        return c;
    }
    if (!c.original.is_object())
        throw Error(c.file.path.string() + ": the top level is " +
                    std::string(c.original.type_name()) +
                    ", expected an object (nothing was changed)");
    return c;
}

bool same_dir(const ojson& entry, const fs::path& dir) {
    if (!entry.is_string()) return false;
    fs::path p = entry.get<std::string>();
    if (p == dir) return true;
    std::error_code ec;
    fs::path real = fs::canonical(p, ec);
    return !ec && real == dir;
}

std::string install_note() {
    return "OpenClaw loads plugins when the gateway starts: run `openclaw gateway restart`.\n"
           "The plugin runs " +
           toolcage_binary() + " (plugins.entries.<id>.config.bin).";
}

const char* kNote =
    "OpenClaw loads plugins when the gateway starts: run `openclaw gateway restart`.";

}  // namespace

Outcome install_openclaw(const OpenClawOptions& o) {
    if (!o.policy.empty()) require_installed_policy(o.policy);
    const fs::path dir = plugin_dir(o);
    const std::string id = plugin_id(dir, true);
    Config c = read_config(o);
    if (c.json5) {
        Outcome out;
        out.exit_code = 2;
        out.err = "toolcage install openclaw: " + c.file.path.string() +
                  " is not plain JSON (OpenClaw reads JSON5: comments, unquoted keys, trailing "
                  "commas); toolcage does "
                  "not rewrite it (nothing was changed). [" +
                  c.why + "]\nRun:\n\n" + by_hand_lines(dir, id, o.policy);
        return out;
    }
    ojson value = c.original;
    ojson& plugins = object_member(value, "plugins", "/plugins", c.file);
    if (auto deny = plugins.find("deny"); deny != plugins.end() && deny->is_array())
        for (const auto& d : *deny)
            if (d == id)
                throw Error(c.file.path.string() + ": /plugins/deny lists \"" + id +
                            "\"; remove it from the deny list "
                            "first if you mean to use toolcage's plugin (nothing was changed)");
    ojson& load = object_member(plugins, "load", "/plugins/load", c.file);
    ojson& paths = array_member(load, "paths", "/plugins/load/paths", c.file);
    bool listed = false;
    for (const auto& p : paths) listed = listed || same_dir(p, dir);
    if (!listed) paths.push_back(dir.string());
    ojson& entries = object_member(plugins, "entries", "/plugins/entries", c.file);
    ojson& entry = object_member(entries, id, "/plugins/entries/" + id, c.file);
    entry["enabled"] = true;
    ojson& config = object_member(entry, "config", "/plugins/entries/" + id + "/config", c.file);
    config = plugin_config(o.policy);
    if (auto allow = plugins.find("allow"); allow != plugins.end() && allow->is_array()) {
        bool allowed = false;
        for (const auto& a : *allow) allowed = allowed || a == id;
        if (!allowed) allow->push_back(id);
    }
    ChangeSet changes;
    changes.add(FileEdit{c.file, json_after(c.file, c.original, value, false),
                         "loads and enables plugin " + id + " from " + dir.string()});
    Outcome out =
        finish(changes, o.dry_run, "openclaw (" + c.file.path.string() + ")", install_note());
    if (plugins.contains("enabled") && plugins["enabled"] == false)
        out.err +=
            "toolcage install openclaw: warning: " + c.file.path.string() +
            ": /plugins/enabled is false, so OpenClaw loads no plugin at all; set it to true\n";
    return out;
}

Outcome uninstall_openclaw(const OpenClawOptions& o) {
    const fs::path dir = plugin_dir(o);
    const std::string id = plugin_id(dir, false);
    Config c = read_config(o);
    if (c.json5) {
        Outcome out;
        out.exit_code = 2;
        out.err = "toolcage uninstall openclaw: " + c.file.path.string() +
                  " is not plain JSON; toolcage does not rewrite it (nothing was changed). "
                  "Run:\n\n    openclaw plugins "
                  "uninstall " +
                  shell_quote(id) + " --keep-files\n";
        return out;
    }
    // Only what toolcage added goes, and a container goes only when that emptied it.
    ojson value = c.original;
    if (auto plugins = value.find("plugins"); plugins != value.end() && plugins->is_object()) {
        bool removed = false;
        if (auto load = plugins->find("load"); load != plugins->end() && load->is_object()) {
            if (auto paths = load->find("paths"); paths != load->end() && paths->is_array()) {
                bool here = false;
                for (size_t i = paths->size(); i-- > 0;)
                    if (same_dir((*paths)[i], dir)) {
                        paths->erase(i);
                        here = true;
                    }
                if (here && paths->empty()) load->erase("paths");
                if (here && load->empty()) plugins->erase("load");
                removed = removed || here;
            }
        }
        if (auto entries = plugins->find("entries");
            entries != plugins->end() && entries->is_object()) {
            bool here = entries->erase(id) > 0;
            if (here && entries->empty()) plugins->erase("entries");
            removed = removed || here;
        }
        if (auto allow = plugins->find("allow"); allow != plugins->end() && allow->is_array())
            for (size_t i = allow->size(); i-- > 0;)
                if ((*allow)[i] == id) {
                    allow->erase(i);
                    removed = true;
                }
        if (removed && plugins->empty()) value.erase("plugins");
    }
    ChangeSet changes;
    if (c.file.exists)
        changes.add(created_file_removal(FileEdit{c.file, json_after(c.file, c.original, value, value.empty()),
                                                  "no longer loads plugin " + id}));
    return finish(changes, o.dry_run, "openclaw (" + c.file.path.string() + ")", kNote);
}

}  // namespace toolcage::install
