// Build-time tool: loads each shipped profile with the full loader (parse, validate, merge its
// extends) and writes C++ that rebuilds the same Policy without JSON, with the exact text it
// came from. A profile that does not load fails the build.
// usage: toolcage_compile_profiles OUT.cpp PROFILE.json...
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/error.h"
#include "common/policy_loader.h"

namespace fs = std::filesystem;
using namespace toolcage;

namespace {

std::string read_file(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream b;
    b << in.rdbuf();
    return b.str();
}

// A C++ string literal: printable ASCII kept, everything else octal-escaped.
std::string lit(std::string_view s) {
    std::string out = "\"";
    for (unsigned char c : s) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c == '\n') {
            out += "\\n\"\n    \"";                      // one source line per line of the profile
        } else if (c >= 0x20 && c < 0x7f && c != '?') {  // '?' could start a trigraph
            out += static_cast<char>(c);
        } else {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\%03o", c);
            out += buf;
        }
    }
    return out + "\"";
}

std::string strings(const std::vector<std::string>& v) {
    std::string out = "{";
    for (const auto& s : v) out += lit(s) + ", ";
    return out + "}";
}

template <class Enum>
std::string enum_value(const char* type, Enum e) {
    return "static_cast<" + std::string(type) + ">(" + std::to_string(static_cast<int>(e)) + ")";
}

// The body of a function returning `p`; `file` and `chain` are left to the loader.
std::string policy_body(const Policy& p) {
    std::ostringstream o;
    o << "    Policy p;\n";
    o << "    p.name = " << lit(p.name) << ";\n";
    o << "    p.description = " << lit(p.description) << ";\n";
    for (const auto& [id, d] : p.overrides)
        o << "    p.overrides.emplace(" << lit(id) << ", " << enum_value("Decision", d) << ");\n";
    for (const ExtraRule& r : p.rules) {
        o << "    p.rules.push_back(ExtraRule{" << lit(r.id) << ", " << lit(r.program) << ", "
          << strings(r.words) << ", " << strings(r.args) << ", {";
        for (PathClass c : r.paths) o << enum_value("PathClass", c) << ", ";
        o << "}, " << enum_value("Decision", r.decision) << ", " << lit(r.reason) << ", "
          << strings(r.match) << ", " << strings(r.not_match) << "});\n";
    }
    o << "    p.on_cage = " << enum_value("Decision", p.on_cage) << ";\n";
    o << "    p.hermes_approve = " << (p.hermes_approve ? "true" : "false") << ";\n";
    o << "    p.allow_runs = " << lit(p.allow_runs) << ";\n";
    o << "    p.mode = " << lit(p.mode) << ";\n";
    const CagePolicy& c = p.cage;
    o << "    p.cage.read = " << strings(c.read) << ";\n";
    o << "    p.cage.write = " << strings(c.write) << ";\n";
    o << "    p.cage.execute = " << strings(c.execute) << ";\n";
    o << "    p.cage.env_keep = " << strings(c.env_keep) << ";\n";
    for (const auto& [k, v] : c.env_set)
        o << "    p.cage.env_set.emplace(" << lit(k) << ", " << lit(v) << ");\n";
    o << "    p.cage.min_abi = " << c.min_abi << ";\n";
    o << "    p.cage.network = " << lit(c.network) << ";\n";
    o << "    p.cage.protected_paths = " << strings(c.protected_paths) << ";\n";
    o << "    p.cage.protect = " << lit(c.protect) << ";\n";
    o << "    p.cage.limits = CageLimits{" << c.limits.nproc << ", " << c.limits.nofile << ", "
      << c.limits.fsize_mb << ", " << c.limits.cpu_seconds << ", " << c.limits.as_mb << ", "
      << c.limits.memory_mb << "};\n";
    const RelayPolicy& r = p.relay;
    o << "    p.relay.enabled = " << (r.enabled ? "true" : "false") << ";\n";
    o << "    p.relay.allow = " << strings(r.allow) << ";\n";
    o << "    p.relay.credentialed = " << strings(r.credentialed) << ";\n";
    o << "    p.relay.allow_private = " << (r.allow_private ? "true" : "false") << ";\n";
    o << "    p.relay.require_sni = " << (r.require_sni ? "true" : "false") << ";\n";
    o << "    p.relay.upstream = " << lit(r.upstream) << ";\n";
    o << "    p.relay.max_tunnels = " << r.max_tunnels << ";\n";
    // A shipped profile inspects nothing (its credentials are the user's to bind): say so
    // rather than compile a policy that lost what its file says.
    if (!r.inspect.empty() || !r.upstream_ca.empty() || !r.credentials.empty() ||
        !r.requests.empty())
        throw Error(
            p.file +
            ": relay.inspect, upstream_ca, credentials and requests are not compiled into a "
            "shipped profile; put them in a user's policy that extends it");
    o << "    p.hermes.other_tools = " << enum_value("Decision", p.hermes.other_tools) << ";\n";
    o << "    p.hermes.allow_tools = " << strings(p.hermes.allow_tools) << ";\n";
    for (const auto& [key, d] : p.hermes.channels)
        o << "    p.hermes.channels[" << lit(key) << "] = " << enum_value("Decision", d) << ";\n";
    o << "    p.workspace.roots = " << strings(p.workspace.roots) << ";\n";
    o << "    return p;\n";
    return o.str();
}

struct Entry {
    fs::path file;
    std::string canon;
    std::string text;
    std::string extends;
    Policy policy;
    int base = -1;
};

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::cerr << "usage: toolcage_compile_profiles OUT.cpp PROFILE.json...\n";
        return 2;
    }
    try {
        std::vector<Entry> entries;
        for (int i = 2; i < argc; ++i) {
            Entry e;
            e.file = argv[i];
            e.canon = fs::weakly_canonical(e.file).string();
            e.text = read_file(e.file);
            e.policy = load_policy_file(e.file);
            auto doc = nlohmann::json::parse(e.text, nullptr, true, /*ignore_comments=*/true);
            if (doc.contains("extends")) e.extends = doc["extends"].get<std::string>();
            // The loader names an unnamed policy after its file: after the file it is loaded
            // from, which need not be the one compiled here.
            if (!doc.contains("name")) e.policy.name.clear();
            entries.push_back(std::move(e));
        }
        // A base is the shipped profile its chain went through (chain: base first).
        for (Entry& e : entries) {
            if (e.extends.empty()) continue;
            const std::string& base_canon = e.policy.chain.at(e.policy.chain.size() - 2);
            for (size_t j = 0; j < entries.size(); ++j)
                if (entries[j].canon == base_canon) e.base = static_cast<int>(j);
            if (e.base < 0)
                throw Error(e.file.string() + ": /extends: \"" + e.extends +
                            "\" is not a shipped profile");
        }
        std::ostringstream o;
        o << "// Generated by profiles/gen/compile_profiles.cpp from profiles/*.json. Do not "
             "edit.\n"
          << "#include \"profiles/compiled_profiles.h\"\n\n"
          << "namespace toolcage {\nnamespace {\n\n";
        for (size_t i = 0; i < entries.size(); ++i)
            o << "// " << entries[i].file.filename().string() << "\nPolicy policy_" << i << "() {\n"
              << policy_body(entries[i].policy) << "}\n\n";
        o << "constexpr CompiledProfile kProfiles[" << entries.size() << "] = {\n";
        for (size_t i = 0; i < entries.size(); ++i) {
            const Entry& e = entries[i];
            o << "    {" << lit(e.text) << ",\n     " << lit(e.extends) << ", "
              << (e.base < 0 ? std::string("nullptr")
                             : "&kProfiles[" + std::to_string(e.base) + "]")
              << ", policy_" << i << "},\n";
        }
        o << "};\n\n}  // namespace\n\n"
          << "std::span<const CompiledProfile> compiled_profiles() { return kProfiles; }\n\n"
          << "}  // namespace toolcage\n";
        std::string out = o.str();
        if (read_file(argv[1]) != out) {  // unchanged output keeps dependents built
            std::ofstream f(argv[1], std::ios::binary | std::ios::trunc);
            f << out;
            if (!f.flush()) throw Error(std::string(argv[1]) + ": cannot write");
        }
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "toolcage_compile_profiles: " << e.what() << '\n';
        return 1;
    }
}
