#include "lint/openshell_policy_file.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cstdint>

#include "lint/yaml_read.h"

namespace toolcage::lint {
namespace {

// A host as a message may show it: control characters as \xNN (a NUL would end the message).
std::string printable(const std::string& s) {
    std::string out;
    for (unsigned char c : s) {
        if (c >= 0x20 && c != 0x7f) {
            out.push_back(static_cast<char>(c));
            continue;
        }
        const char* hex = "0123456789abcdef";
        out += std::string("\\x") + hex[c >> 4] + hex[c & 15];
    }
    return out;
}

bool is_ip_literal(const std::string& host) {
    unsigned char buf[16];
    return ::inet_pton(AF_INET, host.c_str(), buf) == 1 || ::inet_pton(AF_INET6, host.c_str(), buf) == 1;
}

// OpenShell's host wildcard grammar: `*` or `**` alone is refused; `**` only as the whole first
// label; `*` inside a later label only as the whole label; a wildcard over a top-level domain
// (`*.com`, `**.com`) is refused.
std::string host_problem(const std::string& host) {
    for (unsigned char c : host)
        if (c < 0x20 || c == 0x7f) return "holds a control character";
    if (host == "*" || host == "**") return "is a wildcard over every host";
    if (host.find('*') == std::string::npos) return "";
    if ((host.starts_with("*.") || host.starts_with("**.")) &&
        std::count(host.begin(), host.end(), '.') + 1 <= 2)
        return "is a wildcard over a whole top-level domain";
    std::size_t dot = host.find('.');
    std::string first = host.substr(0, dot);
    if (first.find("**") != std::string::npos && first != "**")
        return "has `**` inside its first label (it must be the whole label)";
    while (dot != std::string::npos) {
        std::size_t next = host.find('.', dot + 1);
        std::string label = host.substr(dot + 1, next == std::string::npos ? std::string::npos : next - dot - 1);
        if (label.find("**") != std::string::npos || (label.find('*') != std::string::npos && label != "*"))
            return "has a wildcard inside a later label (a later label may only be `*` whole)";
        dot = next;
    }
    return "";
}

void check_endpoint(const Endpoint& e, const std::string& file) {
    const bool tcp = e.protocol == "tcp" || e.protocol == "TCP" || e.protocol == "Tcp";
    const std::string trimmed = e.host.substr(0, e.host.find_last_not_of(" \t") + 1);
    if (trimmed.find_first_not_of(" \t") == std::string::npos) {
        if (tcp)
            yaml::fail(file, e.field, "protocol tcp without a host", "name the DNS host it connects to");
        if (e.allowed_ips.empty())
            yaml::fail(file, e.field, "no host", "name the host (`host: api.example.com`), or constrain "
                                                 "a hostless endpoint with allowed_ips");
    } else if (tcp && is_ip_literal(e.host)) {
        yaml::fail(file, e.field + ".host", "protocol tcp with an IP address", "name a DNS host instead");
    }
    if (e.ports.empty())
        yaml::fail(file, e.field, "no port (OpenShell requires one)", "add `port: 443` (or `ports: [...]`)");
    for (auto p : e.ports)
        if (p < 1 || p > 65535)
            yaml::fail(file, e.field, "port " + std::to_string(p) + " is outside 1..65535",
                       "write a port from 1 to 65535");
    if (std::string why = host_problem(e.host); !why.empty())
        yaml::fail(file, e.field + ".host", "\"" + printable(e.host) + "\" " + why + "; OpenShell refuses it",
                   "write `*.example.com` (one label) or `**.example.com` (any depth) under a "
                   "registered domain, or name the host");
}

Middleware middleware(const std::string& name, const YAML::Node& node, const std::string& file,
                      const std::string& field) {
    if (!node.IsMap()) yaml::fail(file, field, "a middleware is a map", "give `middleware:` and `endpoints:`");
    yaml::only_keys(node, {"name", "middleware", "order", "config", "on_error", "endpoints"}, file, field);
    Middleware m;
    m.name = name;
    m.field = field;
    if (yaml::scalar(node, "middleware", file, field).empty())
        yaml::fail(file, yaml::at(field, "middleware"), "missing", "name the middleware implementation");
    if (const YAML::Node order = node["order"]; order.IsDefined() && !order.IsNull()) {
        std::string v = order.IsScalar() ? order.Scalar() : "";
        std::string digits = v.starts_with('-') ? v.substr(1) : v;
        if (order.Tag() != "?" || digits.empty() || digits.size() > 10 ||
            digits.find_first_not_of("0123456789") != std::string::npos)
            yaml::fail(file, yaml::at(field, "order"), "\"" + v + "\" is not a whole number", "write `order: 10`");
        m.order = std::stoll(v);
        if (m.order < INT32_MIN || m.order > INT32_MAX)
            yaml::fail(file, yaml::at(field, "order"), "\"" + v + "\" is out of range", "write a smaller order");
    }
    if (const YAML::Node c = node["config"]; c.IsDefined() && !c.IsNull() && !c.IsMap())
        yaml::fail(file, yaml::at(field, "config"), "must be a map", "write `config: {…}`");
    m.on_error = yaml::scalar(node, "on_error", file, field);
    if (!m.on_error.empty() && m.on_error != "fail_closed" && m.on_error != "fail_open")
        yaml::fail(file, yaml::at(field, "on_error"), "\"" + m.on_error + "\"", "write fail_closed or fail_open");
    const YAML::Node sel = node["endpoints"];
    if (!sel.IsDefined() || sel.IsNull())
        yaml::fail(file, yaml::at(field, "endpoints"), "missing (a middleware selects endpoints)",
                   "write `endpoints: {include: [\"api.example.com\"]}`");
    if (!sel.IsMap()) yaml::fail(file, yaml::at(field, "endpoints"), "must be a map", "write `{include: [...]}`");
    yaml::only_keys(sel, {"include", "exclude"}, file, yaml::at(field, "endpoints"));
    m.include = yaml::strings(sel, "include", file, yaml::at(field, "endpoints"));
    m.exclude = yaml::strings(sel, "exclude", file, yaml::at(field, "endpoints"));
    if (m.include.empty())
        yaml::fail(file, yaml::at(field, "endpoints.include"), "empty", "include at least one host pattern");
    if (m.include.size() + m.exclude.size() > 32)
        yaml::fail(file, yaml::at(field, "endpoints"),
                   std::to_string(m.include.size() + m.exclude.size()) + " host patterns; OpenShell takes at most 32",
                   "use wildcards, or split the middleware");
    for (auto& p : m.include) std::transform(p.begin(), p.end(), p.begin(), ::tolower);
    for (auto& p : m.exclude) std::transform(p.begin(), p.end(), p.begin(), ::tolower);
    return m;
}

}  // namespace

std::string policy_document_text(const std::string& text_in) {
    std::string text = text_in;
    text.erase(std::remove(text.begin(), text.end(), '\r'), text.end());
    // `openshell policy get NAME --full` prints a header of revision facts ("Version: 3",
    // "Error: …", not always valid YAML) and the policy after a `---` line: read the policy.
    if (text.starts_with("Version:"))
        if (auto dashes = text.find("\n---\n"); dashes != std::string::npos) text.erase(0, dashes + 5);
    return text;
}

namespace {

// OpenShell's checks of filesystem_policy (validate_sandbox_policy): at most 256 paths in all,
// each at most 4096 bytes, absolute, without a `..` component, and `/` never read-write.
void filesystem_paths(const std::vector<std::string>& read_only, const std::vector<std::string>& read_write,
                      const std::string& file) {
    if (read_only.size() + read_write.size() > 256)
        yaml::fail(file, "filesystem_policy", std::to_string(read_only.size() + read_write.size()) +
                   " paths; OpenShell takes at most 256", "grant parent directories instead of each file");
    auto check = [&](const std::vector<std::string>& list, const char* key) {
        for (std::size_t i = 0; i < list.size(); ++i) {
            const std::string field = "filesystem_policy." + std::string(key) + "[" + std::to_string(i) + "]";
            const std::string& p = list[i];
            if (p.size() > 4096) yaml::fail(file, field, "longer than 4096 bytes", "name a shorter path");
            if (p.empty() || p[0] != '/') yaml::fail(file, field, "\"" + p + "\" is a relative path", "write an absolute path");
            for (std::size_t at = 0; at <= p.size();) {
                std::size_t end = p.find('/', at);
                if (end == std::string::npos) end = p.size();
                if (p.compare(at, end - at, "..") == 0 && end - at == 2)
                    yaml::fail(file, field, "\"" + p + "\" climbs with `..`", "write the path without `..`");
                at = end + 1;
            }
            if (std::string(key) == "read_write" && p.find_first_not_of('/') == std::string::npos)
                yaml::fail(file, field, "the whole filesystem read-write", "name the directories the agent writes");
        }
    };
    check(read_only, "read_only");
    check(read_write, "read_write");
}

// `sandbox`, or a uid or gid OpenShell accepts for the agent: 1 to 2^32-2 (Rust's u32 parse:
// an optional '+', decimal digits).
bool sandbox_identity(const std::string& id) {
    if (id == "sandbox") return true;
    std::string digits = id.starts_with('+') ? id.substr(1) : id;
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) return false;
    std::size_t first = digits.find_first_not_of('0');
    if (first == std::string::npos) return false;  // 0: root
    digits = digits.substr(first);
    return digits.size() < 10 || (digits.size() == 10 && digits <= "4294967294");
}

}  // namespace

// Schema followed: OpenShell's policy file (crates/openshell-policy), every map closed to
// unknown fields: `version` (required integer), filesystem_policy, landlock, process,
// network_policies.<key> {name, endpoints, binaries}, network_middlewares.<name>.
OpenShellPolicy parse_openshell_policy(const std::string& text, const std::string& file) {
    OpenShellPolicy policy;
    policy.file = file;
    const YAML::Node doc = yaml::load_one(policy_document_text(text), file, "the OpenShell policy");
    if (!doc.IsMap())
        yaml::fail(file, "", "an OpenShell policy is a map", "start with `version: 1` and `network_policies:`");
    yaml::only_keys(doc, {"version", "filesystem_policy", "landlock", "process", "network_policies",
                          "network_middlewares"},
                    file, "");
    if (!doc["version"].IsDefined() || doc["version"].IsNull())
        yaml::fail(file, "version", "missing (OpenShell requires it)", "write `version: 1` at the top");
    yaml::integer(doc, "version", 0xffffffffu, file, "");
    if (const YAML::Node fs = doc["filesystem_policy"]; fs.IsDefined() && !fs.IsNull()) {
        if (!fs.IsMap()) yaml::fail(file, "filesystem_policy", "must be a map", "write `read_only: [...]`");
        yaml::only_keys(fs, {"include_workdir", "read_only", "read_write"}, file, "filesystem_policy");
        yaml::boolean(fs, "include_workdir", file, "filesystem_policy");
        filesystem_paths(yaml::strings(fs, "read_only", file, "filesystem_policy"),
                         yaml::strings(fs, "read_write", file, "filesystem_policy"), file);
    }
    if (const YAML::Node l = doc["landlock"]; l.IsDefined() && !l.IsNull()) {
        if (!l.IsMap()) yaml::fail(file, "landlock", "must be a map", "write `compatibility: best_effort`");
        yaml::only_keys(l, {"compatibility"}, file, "landlock");
    }
    if (const YAML::Node p = doc["process"]; p.IsDefined() && !p.IsNull()) {
        if (!p.IsMap()) yaml::fail(file, "process", "must be a map", "write `run_as_user: sandbox`");
        yaml::only_keys(p, {"run_as_user", "run_as_group"}, file, "process");
        for (const char* key : {"run_as_user", "run_as_group"})
            if (std::string id = yaml::scalar(p, key, file, "process"); !id.empty() && !sandbox_identity(id))
                yaml::fail(file, yaml::at("process", key), "\"" + id + "\" is neither `sandbox` nor a uid from 1 to 4294967294",
                           "OpenShell runs the agent as its sandbox user: write `sandbox` or a non-root id");
    }
    if (const YAML::Node mws = doc["network_middlewares"]; mws.IsDefined() && !mws.IsNull()) {
        if (!mws.IsMap()) yaml::fail(file, "network_middlewares", "must be a map of named middlewares", "write `NAME: {…}`");
        if (mws.size() > 10)
            yaml::fail(file, "network_middlewares", std::to_string(mws.size()) + " middlewares; OpenShell takes at most 10",
                       "remove some");
        for (auto it = mws.begin(); it != mws.end(); ++it) {
            if (it->first.Scalar().empty())
                yaml::fail(file, "network_middlewares", "a middleware without a name", "name it");
            policy.middlewares.push_back(
                middleware(it->first.Scalar(), it->second, file, "network_middlewares." + it->first.Scalar()));
            for (std::size_t i = 0; i + 1 < policy.middlewares.size(); ++i)
                if (policy.middlewares[i].order == policy.middlewares.back().order)
                    yaml::fail(file, policy.middlewares.back().field + ".order",
                               "order " + std::to_string(policy.middlewares.back().order) + " is also " +
                                   policy.middlewares[i].name + "'s (an unset order is 0)",
                               "give each middleware its own order");
        }
    }
    const YAML::Node rules = doc["network_policies"];
    if (!rules.IsDefined() || rules.IsNull()) return policy;
    if (!rules.IsMap())
        yaml::fail(file, "network_policies", "must be a map of named rules",
                   "write `network_policies:` then `  my_rule:` with endpoints and binaries");
    for (auto it = rules.begin(); it != rules.end(); ++it) {
        NetworkRule rule;
        rule.key = it->first.Scalar();
        const std::string field = "network_policies." + rule.key;
        const YAML::Node body = it->second;
        if (!body.IsMap()) yaml::fail(file, field, "a rule is a map", "give it `endpoints:` and `binaries:`");
        yaml::only_keys(body, {"name", "endpoints", "binaries"}, file, field);
        rule.name = yaml::scalar(body, "name", file, field);
        if (rule.name.empty()) rule.name = rule.key;
        const YAML::Node endpoints = body["endpoints"];
        if (endpoints.IsDefined() && !endpoints.IsNull()) {
            if (!endpoints.IsSequence())
                yaml::fail(file, field + ".endpoints", "must be a list", "write `endpoints:` then `- host: …` items");
            for (std::size_t i = 0; i < endpoints.size(); ++i) {
                rule.endpoints.push_back(
                    yaml::endpoint(endpoints[i], file, field + ".endpoints[" + std::to_string(i) + "]", true));
                check_endpoint(rule.endpoints.back(), file);
            }
        }
        rule.binaries = yaml::binaries(body["binaries"], file, field + ".binaries", true);
        policy.rules.push_back(std::move(rule));
    }
    return policy;
}

OpenShellPolicy read_openshell_policy_file(const std::string& path) {
    return parse_openshell_policy(yaml::read_text(path, "the OpenShell policy"), path);
}

}  // namespace toolcage::lint
