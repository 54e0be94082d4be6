#include "common/policy_loader.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <nlohmann/json.hpp>
#include <set>

#include "common/error.h"
#include "common/json_error.h"
#include "common/path_text.h"
#include "common/regular_file.h"
#include "common/self_exe.h"
#include "common/user_home.h"
#include "common/policy_schema.h"
#include "common/relay_inspection.h"

namespace toolcage {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr std::size_t kMaxExtendsDepth = 8;
constexpr std::size_t kMaxPolicyBytes = 1 << 20;

// Why `file` cannot be read as a policy: missing, a directory, or not a regular file.
std::string not_a_policy_file(const fs::path& file) {
    std::error_code ec;
    if (fs::is_directory(file, ec))
        return file.string() + ": is a directory, not a policy file; give the path of a policy .json file";
    if (fs::exists(file, ec)) return file.string() + ": not a regular file; give the path of a policy .json file";
    return file.string() + ": no such policy file; give the path of a policy .json file";
}

// Read whole into one string (no stream buffers: the hook reads a policy on every call);
// a FIFO named as a policy is refused, not waited on.
std::string read_policy_text(const fs::path& file) {
    RegularFile f = read_regular_file(file.string(), kMaxPolicyBytes);
    using P = RegularFile::Problem;
    switch (f.problem) {
        case P::none:
            return std::move(f.text);
        case P::cannot_open:
        case P::cannot_stat:
        case P::cannot_read:
            throw Error(file.string() + ": cannot read: " + std::strerror(f.err));
        case P::not_regular:
            throw Error(file.string() + ": not a regular file; a policy is a small JSON file");
        case P::too_large:
        case P::grew:
            break;
    }
    throw Error(file.string() + ": larger than 1 MiB; a policy is a small JSON file");
}

json read_json_file(const fs::path& file) {
    std::string text = read_policy_text(file);
    try {
        return json::parse(text, nullptr, /*allow_exceptions=*/true, /*ignore_comments=*/true);
    } catch (const json::parse_error& e) {
        throw Error(file.string() + ": not valid JSON at " + json_parse_problem(text, e) +
                    " (// and /* */ comments are allowed, trailing commas are not)");
    }
}

// Objects merge key by key, arrays concatenate (a base's entries are kept, duplicates dropped),
// anything else in the child replaces the base. protected_paths can therefore never be emptied.
void merge_into(json& base, const json& child) {
    for (auto it = child.begin(); it != child.end(); ++it) {
        auto& slot = base[it.key()];
        if (slot.is_object() && it->is_object()) {
            merge_into(slot, *it);
        } else if (slot.is_array() && it->is_array()) {
            for (const auto& v : *it)
                if (std::find(slot.begin(), slot.end(), v) == slot.end()) slot.push_back(v);
        } else {
            slot = *it;
        }
    }
}

fs::path find_installed(const std::string& name) {
    for (const auto& dir : profile_dirs()) {
        fs::path p = dir / (name + ".json");
        std::error_code ec;
        if (fs::is_regular_file(p, ec)) return p;
    }
    std::string searched;
    for (const auto& dir : profile_dirs()) searched += (searched.empty() ? "" : ", ") + dir.string();
    std::string known;
    for (const auto& n : list_policies()) known += (known.empty() ? "" : ", ") + n;
    throw Error("policy \"" + name + "\" is not installed (searched " +
                (searched.empty() ? std::string("no profile directory found") : searched) +
                "; installed: " + (known.empty() ? std::string("none") : known) +
                "); name an installed policy or give the path of a policy file");
}

// A base named by "extends": a sibling of the extending file first (so a directory of
// policies is self-contained, as the installed one is), then the installed policies.
fs::path find_base(const std::string& name, const fs::path& dir) {
    std::error_code ec;
    fs::path sibling = dir / (name + ".json");
    if (fs::is_regular_file(sibling, ec)) return sibling;
    return find_installed(name);
}

// Loads `file` and everything it extends into one JSON document; `chain` gets the files base
// first. `visiting` holds the files on the current extends path, to catch cycles.
json load_merged(const fs::path& file, std::vector<std::string>& visiting,
                 std::vector<std::string>& chain) {
    if (visiting.size() > kMaxExtendsDepth)
        throw Error(file.string() + ": /extends: more than " + std::to_string(kMaxExtendsDepth) +
                    " levels of extends; flatten the chain");
    std::string canon = fs::weakly_canonical(file).string();
    if (std::find(visiting.begin(), visiting.end(), canon) != visiting.end())
        throw Error(file.string() + ": /extends: cycle through " + canon + "; remove one extends");
    json doc = read_json_file(file);
    validate_policy_json(doc, file.string());
    json merged = json::object();
    if (doc.contains("extends")) {
        visiting.push_back(canon);
        merged = load_merged(find_base(doc["extends"].get<std::string>(), file.parent_path()),
                             visiting, chain);
        visiting.pop_back();
        // A name is the file's own: inherited, every unnamed policy that extends "default"
        // would be logged and shown as "default".
        merged.erase("name");
    }
    chain.push_back(canon);
    merge_into(merged, doc);
    merged.erase("extends");
    return merged;
}

const CompiledProfile* compiled_with_text(std::span<const CompiledProfile> compiled, const std::string& text) {
    for (const CompiledProfile& c : compiled)
        if (c.text == text) return &c;
    return nullptr;
}

// The compiled policy of `file`, when its bytes and those of each base it extends (found as
// load_merged finds them) are what the compiled profile was built from; nullopt otherwise.
std::optional<Policy> compiled_policy(const fs::path& file, std::span<const CompiledProfile> compiled) {
    if (compiled.empty()) return std::nullopt;
    try {
        const CompiledProfile* top = compiled_with_text(compiled, read_policy_text(file));
        if (!top) return std::nullopt;
        std::vector<std::string> chain{fs::weakly_canonical(file).string()};
        fs::path at = file;
        for (const CompiledProfile* c = top; c->base; c = c->base) {
            if (chain.size() > kMaxExtendsDepth) return std::nullopt;
            at = find_base(std::string(c->extends), at.parent_path());
            if (read_policy_text(at) != c->base->text) return std::nullopt;
            chain.insert(chain.begin(), fs::weakly_canonical(at).string());
        }
        Policy p = top->policy();
        if (p.name.empty()) p.name = file.stem().string();
        p.file = file.string();
        p.chain = std::move(chain);
        return p;
    } catch (const std::exception&) {
        return std::nullopt;  // the full load below reports the problem
    }
}

// `p` is `dir` or lies below it (both lexically normal).
bool at_or_below(const std::string& p, const std::string& dir) {
    if (dir == "/") return true;
    return p == dir || (p.size() > dir.size() && p.compare(0, dir.size(), dir) == 0 && p[dir.size()] == '/');
}

// No policy may grant a step any of toolcage's own state (the journal a killed step is restored
// from, the decision log): a step that could write there could forge what the next call obeys.
// Refused whatever else the policy grants, on every list.
void refuse_state_grants(const Policy& p) {
    const std::vector<std::string> state = private_state_dirs();
    const std::pair<const char*, const std::vector<std::string>*> lists[] = {
        {"read", &p.cage.read}, {"write", &p.cage.write}, {"execute", &p.cage.execute}};
    for (const auto& [field, list] : lists) {
        for (std::size_t i = 0; i < list->size(); ++i) {
            std::string entry = (*list)[i];
            if (entry.starts_with("{home}")) {
                if (user_home().empty()) continue;
                entry = user_home() + entry.substr(6);
            }
            if (!entry.starts_with("/")) continue;  // {workspace}, {tmp}: never toolcage's state
            // By name here (the hook loads a policy per call); `toolcage run` checks the real
            // paths of what it grants too (state_dir_grant_refusal).
            std::vector<std::string> names{normal_path(entry)};
            for (auto& n : names) {
                for (const auto& d : state)
                    if (at_or_below(n, d) || at_or_below(d, n))
                        throw Error(p.file + ": /cage/" + field + "/" + std::to_string(i) + ": \"" + (*list)[i] +
                                    "\" reaches " + d +
                                    ", toolcage's own state (the step journal and the decision log), which "
                                    "no step may be granted; name a narrower directory that does not hold it");
            }
        }
    }
}

Policy load_from(const fs::path& file, std::span<const CompiledProfile> compiled) {
    if (auto p = compiled_policy(file, compiled)) {
        refuse_state_grants(*p);
        check_relay_inspection(*p);
        return *p;
    }
    std::vector<std::string> visiting, chain;
    json merged = load_merged(file, visiting, chain);
    Policy p = policy_from_json(merged, file.string());
    if (p.name.empty()) p.name = file.stem().string();
    p.file = file.string();
    p.chain = chain;
    refuse_state_grants(p);
    check_relay_inspection(p);
    return p;
}

}  // namespace

std::vector<fs::path> shipped_profile_dirs() {
    std::vector<fs::path> dirs;
    const fs::path exe_dir = self_exe_dir();
    if (exe_dir.empty()) return dirs;
    for (const fs::path& d : {exe_dir.parent_path() / "share/toolcage/profiles",
                              exe_dir / "share/toolcage/profiles"}) {
        std::error_code ec;
        if (fs::is_directory(d, ec)) dirs.push_back(d.lexically_normal());
    }
    return dirs;
}

fs::path user_profile_dir() {
    // From the user database: $XDG_CONFIG_HOME and $HOME are the agent's shell's to set.
    return user_policy_dir();
}

std::vector<fs::path> profile_dirs() {
    std::vector<fs::path> dirs = shipped_profile_dirs();
    // The user's own policies come after the shipped ones: a name that ships is the shipped policy.
    fs::path user = user_profile_dir();
    std::error_code ec;
    if (!user.empty() && fs::is_directory(user, ec)) dirs.push_back(user.lexically_normal());
    return dirs;
}

std::vector<std::string> policy_errors(const std::string& name_or_path,
                                       std::span<const CompiledProfile> compiled) {
    std::vector<std::string> errors;
    fs::path file;
    try {
        if (is_policy_name(name_or_path)) {
            file = find_installed(name_or_path);
        } else {
            file = name_or_path;
            std::error_code ec;
            if (!fs::is_regular_file(file, ec)) throw Error(not_a_policy_file(file) + " or an installed policy's name");
        }
    } catch (const Error& e) {
        return {e.what()};
    }
    // Each file of the extends chain on its own, every error of each; then the merged whole.
    fs::path at = file;
    for (std::size_t depth = 0; depth <= kMaxExtendsDepth && !at.empty(); ++depth) {
        json doc;
        try {
            doc = read_json_file(at);
        } catch (const Error& e) {
            errors.push_back(e.what());
            break;
        }
        for (auto& e : policy_json_errors(doc, at.string())) errors.push_back(std::move(e));
        fs::path next;
        if (doc.is_object() && doc.contains("extends") && doc["extends"].is_string() &&
            is_policy_name(doc["extends"].get<std::string>())) {
            try {
                next = find_base(doc["extends"].get<std::string>(), at.parent_path());
            } catch (const Error& e) {
                errors.push_back(at.string() + ": /extends: " + e.what());
            }
        }
        at = next;
    }
    if (errors.empty()) {
        try {
            load_policy_file(file, compiled);
        } catch (const Error& e) {
            errors.push_back(e.what());
        }
    }
    return errors;
}

std::vector<std::string> list_policies() {
    std::set<std::string> names;
    for (const auto& dir : profile_dirs()) {
        std::error_code ec;
        for (const auto& e : fs::directory_iterator(dir, ec))
            if (e.path().extension() == ".json" && is_policy_name(e.path().stem().string()))
                names.insert(e.path().stem().string());
    }
    return {names.begin(), names.end()};
}

bool is_policy_name(const std::string& s) {
    if (s.empty() || s.size() > 64) return false;
    return std::all_of(s.begin(), s.end(), [](unsigned char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '-' || c == '_';
    });
}

Policy load_policy(const std::string& name_or_path, std::span<const CompiledProfile> compiled) {
    if (is_policy_name(name_or_path)) return load_from(find_installed(name_or_path), compiled);
    if (name_or_path.find('/') != std::string::npos || name_or_path.ends_with(".json"))
        return load_policy_file(name_or_path, compiled);
    throw Error("--policy \"" + name_or_path +
                "\": neither a policy name (letters, digits, - and _) nor a path to a .json file");
}

Policy load_policy_file(const fs::path& file, std::span<const CompiledProfile> compiled) {
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) throw Error(not_a_policy_file(file));
    return load_from(file, compiled);
}

}  // namespace toolcage
