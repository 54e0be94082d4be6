// `toolcage policy validate FILE|NAME`: every error, in one run.
#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cage/integrity/never_writable.h"
#include "common/hermes_channels.h"
#include "common/policy_loader.h"
#include "common/regular_file.h"
#include "hook/classify/rules.h"
#include "profiles/compiled_profiles.h"
#include "tools/policy_access.h"
#include "tools/policy_commands.h"

namespace toolcage::cli {

namespace {

// Override ids of the file itself that no rule has, read from its JSON when the policy as a whole
// cannot be loaded: so that they are reported with the other errors, not after them are fixed.
std::vector<std::string> unknown_overrides_in_file(const std::string& file) {
    // Bounded, and only a regular file (a directory or a FIFO is reported by the loader).
    RegularFile f = read_regular_file(file, 1u << 20);
    if (f.problem != RegularFile::Problem::none) return {};
    nlohmann::json doc = nlohmann::json::parse(f.text, nullptr, false, true);
    if (!doc.is_object() || !doc.contains("overrides") || !doc["overrides"].is_object()) return {};
    Policy p;
    p.file = file;
    for (const auto& [id, v] : doc["overrides"].items()) p.overrides[id] = Decision::ask;
    if (doc.contains("rules") && doc["rules"].is_array()) {
        for (const auto& r : doc["rules"]) {
            if (r.is_object() && r.contains("id") && r["id"].is_string()) {
                ExtraRule e;
                e.id = r["id"].get<std::string>();
                p.rules.push_back(e);
            } else if (r.is_object() && r.contains("program") && r["program"].is_string()) {
                ExtraRule e;
                std::vector<std::string> words;
                if (r.contains("words") && r["words"].is_array())
                    for (const auto& w : r["words"])
                        if (w.is_string()) words.push_back(w.get<std::string>());
                e.id = derived_rule_id(r["program"].get<std::string>(), words);
                p.rules.push_back(e);
            }
        }
    }
    return unknown_override_errors(p);
}

}  // namespace

int policy_validate(const std::string& name_or_file) {
    std::vector<std::string> errors = policy_errors(name_or_file, compiled_profiles());
    if (!errors.empty() && !is_policy_name(name_or_file))
        for (auto& e : unknown_overrides_in_file(name_or_file))
            if (std::find(errors.begin(), errors.end(), e) == errors.end()) errors.push_back(std::move(e));
    if (errors.empty()) {
        Policy p = load_policy(name_or_file, compiled_profiles());
        errors = classifier_policy_errors(p);
        if (errors.empty()) {
            std::cout << p.file << ": valid (policy \"" << p.name << "\"";
            if (p.mode == "audit") std::cout << ", AUDIT MODE: the hook will refuse nothing";
            std::cout << ")\n";
            // Valid, but broad: what a step of it may change (or read), said plainly.
            for (const auto* list : {&p.cage.write, &p.cage.read}) {
                const char* field = list == &p.cage.write ? "cage.write" : "cage.read";
                for (const auto& e : *list) {
                    // Reading the system's directories is what every policy does; reading a home
                    // or the whole tree is not.
                    bool broad_read = e == "{home}" || e == "/" || e == "/home" || e == "/root";
                    if (list == &p.cage.read && !broad_read) continue;
                    if (std::string what = cage::broad_grant_warning(e); !what.empty())
                        std::cerr << p.file << ": warning: " << field << " \"" << e << "\" grants a step "
                                  << (list == &p.cage.write ? "writing" : "reading") << " " << what << '\n';
                }
            }
            // Valid, but a protection switched off: an override that lets through what a
            // built-in rule denies or asks about, said with what it then lets through.
            for (const auto& [id, d] : p.overrides) {
                if (d != Decision::allow && d != Decision::cage) continue;
                const auto& rules = classify::builtin_rules();
                auto r = std::find_if(rules.begin(), rules.end(), [&](const auto& x) { return x.id == id; });
                if (r == rules.end()) continue;
                if (r->verdict.find("deny") == std::string::npos && r->verdict.find("ask") == std::string::npos)
                    continue;
                std::cerr << p.file << ": warning: /overrides/" << id << ": \"" << to_string(d)
                          << "\" switches off a protection: " << r->matches << " would "
                          << (d == Decision::allow ? "run without a cage" : "run caged, without a person")
                          << " (built in: " << r->verdict << ", because " << r->reason << ")\n";
            }
            // Valid, but what a hijacked model writes reaches later sessions unasked.
            for (const auto& c : kHermesChannels) {
                auto it = p.hermes.channels.find(std::string(c.key));
                if (it == p.hermes.channels.end() || it->second != Decision::allow) continue;
                std::cerr << p.file << ": warning: /hermes/" << c.key << ": \"allow\" lets the agent write "
                          << c.what << " without a person (each write is still logged: toolcage log --persisted)\n";
            }
            return 0;
        }
    }
    for (const auto& e : errors) std::cerr << e << '\n';
    std::cerr << name_or_file << ": " << errors.size()
              << (errors.size() == 1 ? " error" : " errors") << '\n';
    return 1;
}

}  // namespace toolcage::cli
