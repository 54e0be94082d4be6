#include "cage/settings/cargo_config.h"

#include <sys/stat.h>

#include <algorithm>
#include <sstream>
#include <string_view>
#include <toml++/toml.h>

#include "cage/settings/npm_config.h"
#include "cage/settings/step_settings.h"

namespace toolcage::cage {

namespace {

// What a worker's cargo may keep of a configuration, by table. `named`: the table holds one
// sub-table per name (a registry, a source, a target) and the keys apply inside each. `keys`:
// sorted, space-separated; "*" keeps the whole table (aliases and profiles run nothing that
// the cage does not already cage, and name no credential). Anything else is left out: tokens
// and credential providers ([registry], [registries.*]), [env] (variables for build scripts:
// where secrets are put), http.proxy (the relay is the way out; http.cainfo, a certificate
// file, is kept), wrappers such as build.rustc-wrapper (sccache keeps its cache, or its remote
// store's key, outside the cage).
struct Table {
    std::string_view name;
    bool named;
    std::string_view keys;
};
constexpr Table kTables[] = {
    {"alias", false, "*"},
    {"build", false, "incremental jobs rustdocflags rustflags target"},
    {"cargo-new", false, "vcs"},
    {"http", false, "cainfo check-revoke low-speed-limit multiplexing ssl-version timeout"},
    {"net", false, "git-fetch-with-cli offline retry"},
    {"profile", false, "*"},
    {"registries", true, "index protocol"},
    {"registry", false, "default"},
    {"source", true, "branch directory git local-registry registry replace-with rev tag"},
    {"target", true, "linker runner rustflags"},
    {"term", false, "color hyperlinks progress quiet unicode verbose"},
};

constexpr bool tables_sorted() {
    for (std::size_t i = 1; i < std::size(kTables); ++i)
        if (!(kTables[i - 1].name < kTables[i].name)) return false;
    return true;
}
static_assert(tables_sorted(), "kTables must be sorted by name");

const Table* table_named(std::string_view name) {
    auto it = std::lower_bound(std::begin(kTables), std::end(kTables), name,
                               [](const Table& t, std::string_view n) { return t.name < n; });
    return it != std::end(kTables) && it->name == name ? it : nullptr;
}

bool key_listed(std::string_view keys, std::string_view key) {
    if (keys == "*") return true;
    for (std::size_t i = 0; i < keys.size();) {
        std::size_t e = keys.find(' ', i);
        if (e == std::string_view::npos) e = keys.size();
        if (keys.substr(i, e - i) == key) return true;
        i = e + 1;
    }
    return false;
}

// No string anywhere in `node` carries a URL with userinfo.
bool clean(const toml::node& node) {
    if (auto s = node.as_string()) return !has_userinfo(s->get());
    if (auto a = node.as_array())
        return std::all_of(a->begin(), a->end(), [](const toml::node& n) { return clean(n); });
    if (auto t = node.as_table())
        return std::all_of(t->begin(), t->end(), [](const auto& kv) { return clean(kv.second); });
    return true;
}

// `from`'s keys listed in `keys` (and clean) into `to`.
void keep_keys(const toml::table& from, std::string_view keys, toml::table& to) {
    for (const auto& [k, v] : from)
        if (key_listed(keys, k.str()) && clean(v)) to.insert(k, v);
}

toml::table filtered(const toml::table& config) {
    toml::table out;
    for (const auto& [name, node] : config) {
        const Table* t = table_named(name.str());
        const toml::table* in = node.as_table();
        if (!t || !in) continue;
        toml::table kept;
        if (t->named) {
            for (const auto& [sub, subnode] : *in) {
                const toml::table* inner = subnode.as_table();
                if (!inner) continue;
                toml::table kept_inner;
                keep_keys(*inner, t->keys, kept_inner);
                if (!kept_inner.empty()) kept.insert(sub, std::move(kept_inner));
            }
        } else {
            keep_keys(*in, t->keys, kept);
        }
        if (!kept.empty()) out.insert(name, std::move(kept));
    }
    return out;
}

std::optional<toml::table> parse(const std::string& text) {
    try {
        return toml::parse(text);
    } catch (const toml::parse_error&) {
        return std::nullopt;
    }
}

std::string to_text(const toml::table& t) {
    std::ostringstream os;
    os << t << "\n";
    return os.str();
}

bool regular_file(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

}  // namespace

std::optional<std::string> step_cargo_config(const std::string& text) {
    auto config = parse(text);
    if (!config) return std::nullopt;
    return to_text(filtered(*config));
}

std::vector<std::string> cargo_homes_of(const std::string& cargo_home_var, const std::string& home) {
    std::vector<std::string> out;
    if (cargo_home_var.starts_with("/")) out.push_back(cargo_home_var);
    if (home.starts_with("/")) out.push_back(home + "/.cargo");
    return out;
}

std::vector<CargoConfigFile> unreadable_cargo_configs(const ExpandedCage& cage, const std::string& workdir,
                                                      const std::vector<std::string>& cargo_homes) {
    // cargo's order: each directory from the step's up, then its home (once).
    std::vector<std::string> dirs;
    for (std::string d = workdir; d.starts_with("/");) {
        dirs.push_back((d == "/" ? "" : d) + "/.cargo");
        if (d == "/") break;
        auto slash = d.rfind('/');
        d = slash == 0 ? "/" : d.substr(0, slash);
    }
    for (const auto& h : cargo_homes)
        if (std::find(dirs.begin(), dirs.end(), h) == dirs.end()) dirs.push_back(h);

    std::vector<CargoConfigFile> out;
    for (const auto& dir : dirs) {
        // Most directories have no .cargo: one lookup each, on every step's start.
        struct stat st {};
        if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) continue;
        for (const char* name : {"/config", "/config.toml"}) {
            std::string path = dir + name;
            if (!regular_file(path) || cage_reads(cage, path)) continue;
            CargoConfigFile f;
            f.path = path;
            std::string text;
            auto config = read_small_file(path, text) ? parse(text) : std::nullopt;
            if (config) {
                toml::table kept = filtered(*config);
                f.inert = kept == *config;
                f.filtered = to_text(kept);
            }
            out.push_back(std::move(f));
        }
    }
    return out;
}

}  // namespace toolcage::cage
