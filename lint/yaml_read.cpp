#include "lint/yaml_read.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <sstream>
#include <utility>

#include "common/error.h"
#include "common/regular_file.h"

namespace toolcage::lint::yaml {
namespace {

std::string lower(std::string s) {
    for (auto& c : s)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return s;
}

// yaml-cpp tags a plain scalar "?" and a quoted one "!": `port: "443"` is a string to OpenShell.
bool plain(const YAML::Node& n) { return n.IsScalar() && n.Tag() == "?"; }

std::size_t edit_distance(const std::string& a, const std::string& b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diag = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            std::size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diag = up;
        }
    }
    return row[b.size()];
}

// An integer as OpenShell's YAML reader (serde_yml) reads a plain scalar: one optional '+',
// then 0x, 0o or 0b and digits of that radix, or decimal digits without a redundant leading
// zero (`0443` is a string to it). Anything else, or a value past `max`, is nullopt.
std::optional<unsigned long> yaml_unsigned(std::string text, unsigned long max) {
    if (!text.empty() && text[0] == '+') text.erase(0, 1);
    int radix = 10;
    for (auto [prefix, r] : {std::pair{"0x", 16}, std::pair{"0o", 8}, std::pair{"0b", 2}})
        if (text.rfind(prefix, 0) == 0) {  // one prefix: 0x0b1 is hex
            text.erase(0, 2);
            radix = r;
            break;
        }
    if (text.empty() || text.size() > 20) return std::nullopt;
    if (radix == 10 && text.size() > 1 && text[0] == '0') return std::nullopt;
    unsigned long n = 0;
    for (char c : text) {
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : 99;
        if (d >= radix) return std::nullopt;
        n = n * static_cast<unsigned long>(radix) + static_cast<unsigned long>(d);
        if (n > max) return std::nullopt;
    }
    return n;
}

std::uint32_t port_value(const YAML::Node& node, const std::string& file, const std::string& field) {
    std::string text = node.IsScalar() ? node.Scalar() : "";
    std::optional<unsigned long> n = plain(node) ? yaml_unsigned(text, 65535) : std::nullopt;
    if (!n)
        fail(file, field,
             (plain(node) ? "\"" + text + "\" is not a port" : "a port written as a string or a list"),
             "write a plain number from 1 to 65535 (no quotes): OpenShell reads ports as integers");
    return static_cast<std::uint32_t>(*n);
}

}  // namespace

void fail(const std::string& file, const std::string& field, const std::string& what,
          const std::string& fix) {
    throw Error(file + (field.empty() ? "" : ": " + field) + ": " + what + "; " + fix);
}

std::string at(const std::string& field, const std::string& key) {
    return field.empty() ? key : field + "." + key;
}

std::string read_text(const std::string& path, const std::string& what) {
    RegularFile f = read_regular_file(path, kMaxFileBytes);
    using P = RegularFile::Problem;
    switch (f.problem) {
        case P::none:
            break;
        case P::cannot_open:
            fail(path, "", "cannot read " + what + ": " + std::strerror(f.err),
                 "check the path and that this user may read the file");
        case P::cannot_stat:
            fail(path, "", "cannot read " + what + ": " + std::strerror(f.err), "check the path");
        case P::not_regular:
            fail(path, "", what + " is not a regular file (" + file_kind(f.mode) + ")",
                 "give the path of the file itself (save `openshell policy get` output to a file first)");
        case P::too_large:
            fail(path, "", what + " of " + std::to_string(f.size) + " bytes",
                 "OpenShell refuses a policy over 256 KiB; give the file itself, not an archive or a log");
        case P::cannot_read:
            fail(path, "", "cannot read " + what + ": " + std::strerror(f.err), "check that the file is readable");
        case P::grew:
            fail(path, "", what + " is over 256 KiB", "give the file itself, not one still being written");
    }
    return std::move(f.text);
}

// yaml-cpp 0.7's LoadAll never returns on some malformed streams (",`" loops, allocating), so
// documents are split here, at the `---` and `...` lines that YAML itself reads as document
// boundaries at column 0, and each is loaded alone.
std::vector<YAML::Node> load_all(const std::string& text_in, const std::string& file) {
    std::string text = text_in;
    // YAML reads CRLF as a line break: so does the split (a `---\r` line is a boundary).
    text.erase(std::remove(text.begin(), text.end(), '\r'), text.end());
    if (text.find('\0') != std::string::npos)
        fail(file, "", "holds a NUL byte, which is not YAML text", "give the policy as UTF-8 text");
    std::vector<YAML::Node> docs;
    std::istringstream in(text);
    std::string line, doc;
    int line_no = 0, first_line = 1;
    bool has_content = false;
    auto load = [&] {
        if (has_content) {
            try {
                YAML::Node node = YAML::Load(doc);
                // Load reads a stream it cannot make sense of as null; content is never null.
                if (node.IsNull())
                    fail(file, "line " + std::to_string(first_line), "not valid YAML (nothing could be read)",
                         "write the policy as YAML maps and lists, as OpenShell's examples do");
                docs.push_back(node);
            } catch (const YAML::Exception& e) {
                std::string where = e.mark.is_null() ? ""
                                                     : "line " + std::to_string(first_line + e.mark.line) +
                                                           ", column " + std::to_string(e.mark.column + 1);
                fail(file, where, "not valid YAML (" + e.msg + ")",
                     "fix the YAML at that place (indentation, an unclosed quote or bracket)");
            }
        }
        doc.clear();
        has_content = false;
        first_line = line_no + 1;
    };
    while (std::getline(in, line)) {
        ++line_no;
        bool boundary = line == "---" || line.starts_with("--- ") || line == "..." ||
                        line.starts_with("... ");
        if (boundary) {
            load();
            if (line.starts_with("--- ")) {  // `--- value`: the document starts on this line
                doc = std::string(4, ' ') + line.substr(4) + "\n";
                first_line = line_no;
                has_content = true;
            }
            continue;
        }
        std::string trimmed = line.substr(std::min(line.size(), line.find_first_not_of(" \t")));
        if (!trimmed.empty() && trimmed[0] != '#' && trimmed[0] != '%') has_content = true;
        doc += line + "\n";
    }
    load();
    return docs;
}

YAML::Node load_one(const std::string& text, const std::string& file, const std::string& what) {
    std::vector<YAML::Node> docs = load_all(text, file);
    if (docs.empty())
        fail(file, "", what + " is empty (no YAML document, only blank lines or comments)",
             "start with `version: 1` and `network_policies:`, as `openshell policy get` prints it");
    if (docs.size() > 1)
        fail(file, "", what + " holds " + std::to_string(docs.size()) +
                           " YAML documents; OpenShell reads exactly one",
             "give each policy its own file (split at the `---` lines)");
    return docs.front();
}

void only_keys(const YAML::Node& map, std::initializer_list<const char*> known,
               const std::string& file, const std::string& field) {
    for (auto it = map.begin(); it != map.end(); ++it) {
        if (!it->first.IsScalar())
            fail(file, field, "a key that is not a name", "write `name: value` pairs");
        const std::string key = it->first.Scalar();
        bool ok = std::any_of(known.begin(), known.end(), [&](const char* k) { return key == k; });
        if (ok) continue;
        std::string best;
        std::size_t best_d = 3;
        for (const char* k : known)
            if (std::size_t d = edit_distance(lower(key), k); d < best_d) best_d = d, best = k;
        std::string list;
        for (const char* k : known) list += (list.empty() ? "" : ", ") + std::string(k);
        fail(file, at(field, key), "unknown field (OpenShell refuses the whole policy)",
             best.empty() ? "remove it; the fields known here are " + list
                          : "did you mean `" + best + "`? (known: " + list + ")");
    }
}

std::string scalar(const YAML::Node& map, const char* key, const std::string& file,
                   const std::string& field) {
    const YAML::Node node = map[key];
    if (!node.IsDefined() || node.IsNull()) return "";
    if (!node.IsScalar())
        fail(file, at(field, key), "must be a single value, not a list or a map",
             std::string("write `") + key + ": VALUE`");
    return node.Scalar();
}

std::optional<bool> optional_boolean(const YAML::Node& map, const char* key, const std::string& file,
                                     const std::string& field) {
    const YAML::Node node = map[key];
    if (!node.IsDefined() || node.IsNull()) return std::nullopt;
    std::string v = node.IsScalar() ? node.Scalar() : "";
    if (plain(node) && (v == "true" || v == "True" || v == "TRUE")) return true;
    if (plain(node) && (v == "false" || v == "False" || v == "FALSE")) return false;
    fail(file, at(field, key), "\"" + v + "\" is not true or false",
         "write true or false, unquoted (YAML's yes/no/on/off are strings to OpenShell)");
}

bool boolean(const YAML::Node& map, const char* key, const std::string& file, const std::string& field) {
    return optional_boolean(map, key, file, field).value_or(false);
}

std::optional<std::uint64_t> integer(const YAML::Node& map, const char* key, std::uint64_t max,
                                     const std::string& file, const std::string& field) {
    const YAML::Node node = map[key];
    if (!node.IsDefined() || node.IsNull()) return std::nullopt;
    std::string v = node.IsScalar() ? node.Scalar() : "";
    std::optional<unsigned long> n = plain(node) ? yaml_unsigned(v, max) : std::nullopt;
    if (!n)
        fail(file, at(field, key),
             "\"" + v + "\" is not " + (plain(node) ? "a whole number" : "a number (it is quoted)") +
                 " from 0 to " + std::to_string(max),
             std::string("write `") + key + ": N` with a plain number");
    return *n;
}

std::vector<std::string> strings(const YAML::Node& map, const char* key, const std::string& file,
                                 const std::string& field) {
    std::vector<std::string> out;
    const YAML::Node node = map[key];
    if (!node.IsDefined() || node.IsNull()) return out;
    if (!node.IsSequence())
        fail(file, at(field, key), "must be a list", std::string("write `") + key + ": [\"…\"]`");
    for (std::size_t i = 0; i < node.size(); ++i) {
        if (!node[i].IsScalar())
            fail(file, at(field, key) + "[" + std::to_string(i) + "]", "must be a string",
                 "write one value per item");
        out.push_back(node[i].Scalar());
    }
    return out;
}

namespace {

bool has_any(const YAML::Node& m, std::initializer_list<const char*> keys) {
    for (const char* k : keys)
        if (const YAML::Node n = m[k]; n.IsDefined() && !n.IsNull() &&
                                       (n.IsScalar() ? !n.Scalar().empty() : n.size() != 0))
            return true;
    return false;
}

const std::initializer_list<const char*> kRuleKeys = {
    "method", "path", "command", "query", "operation_type", "operation_name", "fields", "tool", "params"};

// `rules:` and `deny_rules:` of an L7 endpoint: checked for shape; what the admission checks
// read is kept on `e`.
void l7_rules(const YAML::Node& node, Endpoint& e, const std::string& file, const std::string& field,
              bool& has_rules, bool& has_deny_rules, bool& deny_all) {
    if (const YAML::Node rules = node["rules"]; rules.IsDefined() && !rules.IsNull()) {
        if (!rules.IsSequence()) fail(file, at(field, "rules"), "must be a list", "write `rules:` then `- allow: {…}`");
        has_rules = rules.size() > 0;
        deny_all = has_rules;
        for (std::size_t i = 0; i < rules.size(); ++i) {
            const std::string f = at(field, "rules") + "[" + std::to_string(i) + "]";
            if (!rules[i].IsMap()) fail(file, f, "a rule is a map", "write `- allow: {method: GET, path: /…}`");
            only_keys(rules[i], {"allow"}, file, f);
            const YAML::Node allow = rules[i]["allow"];
            if (!allow.IsDefined() || !allow.IsMap())
                fail(file, at(f, "allow"), "missing, or not a map", "write `allow: {method: GET, path: /…}`");
            only_keys(allow, kRuleKeys, file, at(f, "allow"));
            if (has_any(allow, {"method", "path", "command", "operation_type", "operation_name", "fields", "params"}))
                deny_all = false;
            if (has_any(allow, {"operation_type", "operation_name", "fields"})) e.websocket_graphql_policy = true;
        }
    }
    if (const YAML::Node deny = node["deny_rules"]; deny.IsDefined() && !deny.IsNull()) {
        if (!deny.IsSequence()) fail(file, at(field, "deny_rules"), "must be a list", "write `deny_rules:` then `- method: …`");
        has_deny_rules = deny.size() > 0;
        for (std::size_t i = 0; i < deny.size(); ++i) {
            const std::string f = at(field, "deny_rules") + "[" + std::to_string(i) + "]";
            if (!deny[i].IsMap()) fail(file, f, "a deny rule is a map", "write `- method: POST`");
            only_keys(deny[i], kRuleKeys, file, f);
            if (has_any(deny[i], {"operation_type", "operation_name", "fields"})) e.websocket_graphql_policy = true;
        }
    }
}

}  // namespace

Endpoint endpoint(const YAML::Node& node, const std::string& file, const std::string& field, bool strict) {
    if (!node.IsMap())
        fail(file, field, "an endpoint is a map", "write `- host: api.example.com` and `port: 443`");
    if (strict)
        only_keys(node,
                  {"host", "path", "port", "ports", "protocol", "tls", "enforcement", "access", "rules",
                   "allowed_ips", "deny_rules", "allow_encoded_slash", "websocket_credential_rewrite",
                   "request_body_credential_rewrite", "allow_uninspected_credentials", "persisted_queries",
                   "graphql_persisted_queries", "graphql_max_body_bytes", "credential_signing",
                   "signing_service", "signing_region", "credential_binding", "json_rpc", "mcp"},
                  file, field);
    Endpoint e;
    e.field = field;
    e.host = lower(scalar(node, "host", file, field));
    // OpenShell's precedence: a non-empty `ports` wins, else `port` (0 meaning none).
    std::vector<std::uint32_t> ports;
    if (const YAML::Node ps = node["ports"]; ps.IsDefined() && !ps.IsNull()) {
        if (!ps.IsSequence()) fail(file, at(field, "ports"), "must be a list", "write `ports: [443, 8443]`");
        for (std::size_t i = 0; i < ps.size(); ++i)
            ports.push_back(port_value(ps[i], file, at(field, "ports") + "[" + std::to_string(i) + "]"));
    }
    std::uint32_t port = 0;
    if (const YAML::Node p = node["port"]; p.IsDefined() && !p.IsNull()) port = port_value(p, file, at(field, "port"));
    e.ports = !ports.empty() ? ports : port > 0 ? std::vector<std::uint32_t>{port} : std::vector<std::uint32_t>{};
    e.path = scalar(node, "path", file, field);
    e.protocol = scalar(node, "protocol", file, field);
    e.tls = scalar(node, "tls", file, field);
    e.enforcement = scalar(node, "enforcement", file, field);
    e.access = scalar(node, "access", file, field);
    e.allow_uninspected_credentials = boolean(node, "allow_uninspected_credentials", file, field);
    e.allowed_ips = strings(node, "allowed_ips", file, field);
    if (const YAML::Node b = node["credential_binding"]; b.IsDefined() && !b.IsNull()) {
        const std::string f = at(field, "credential_binding");
        if (!b.IsMap()) fail(file, f, "must be a map", "write `credential_binding: {provider: NAME}`");
        if (strict) only_keys(b, {"provider"}, file, f);
        if (strict && !b["provider"].IsDefined())
            fail(file, at(f, "provider"), "missing", "write `credential_binding: {provider: NAME}`");
        e.has_credential_binding = true;
        e.credential_binding = scalar(b, "provider", file, f);
    }
    if (!strict) return e;

    e.allow_encoded_slash = boolean(node, "allow_encoded_slash", file, field);
    e.websocket_credential_rewrite = boolean(node, "websocket_credential_rewrite", file, field);
    e.request_body_credential_rewrite = boolean(node, "request_body_credential_rewrite", file, field);
    e.credential_signing = scalar(node, "credential_signing", file, field);
    e.signing_service = scalar(node, "signing_service", file, field);
    e.signing_region = scalar(node, "signing_region", file, field);
    e.graphql_max_body_bytes =
        static_cast<std::uint32_t>(integer(node, "graphql_max_body_bytes", 0xffffffffu, file, field).value_or(0));
    const std::string persisted = scalar(node, "persisted_queries", file, field);
    bool graphql_persisted = false;
    if (const YAML::Node g = node["graphql_persisted_queries"]; g.IsDefined() && !g.IsNull()) {
        const std::string f = at(field, "graphql_persisted_queries");
        if (!g.IsMap()) fail(file, f, "must be a map of named operations", "write `NAME: {operation_type: query}`");
        for (auto it = g.begin(); it != g.end(); ++it) {
            const std::string of = at(f, it->first.Scalar());
            if (!it->second.IsMap()) fail(file, of, "must be a map", "write `{operation_type: query}`");
            only_keys(it->second, {"operation_type", "operation_name", "fields"}, file, of);
        }
        graphql_persisted = g.size() > 0;
    }
    std::optional<std::uint64_t> json_rpc_limit, mcp_limit;
    if (const YAML::Node j = node["json_rpc"]; j.IsDefined() && !j.IsNull()) {
        if (!j.IsMap()) fail(file, at(field, "json_rpc"), "must be a map", "write `json_rpc: {max_body_bytes: N}`");
        only_keys(j, {"max_body_bytes"}, file, at(field, "json_rpc"));
        json_rpc_limit = integer(j, "max_body_bytes", 0xffffffffu, file, at(field, "json_rpc")).value_or(0);
    }
    bool has_mcp = false, allow_all_mcp = false;
    if (const YAML::Node m = node["mcp"]; m.IsDefined() && !m.IsNull()) {
        const std::string f = at(field, "mcp");
        if (!m.IsMap()) fail(file, f, "must be a map", "write `mcp: {strict_tool_names: true}`");
        only_keys(m, {"max_body_bytes", "strict_tool_names", "allow_all_known_mcp_methods"}, file, f);
        has_mcp = true;
        mcp_limit = integer(m, "max_body_bytes", 0xffffffffu, file, f).value_or(0);
        e.mcp_strict_tool_names = optional_boolean(m, "strict_tool_names", file, f).value_or(true);
        allow_all_mcp = boolean(m, "allow_all_known_mcp_methods", file, f);
    }
    e.json_rpc_max_body_bytes = static_cast<std::uint32_t>(mcp_limit ? *mcp_limit : json_rpc_limit.value_or(0));
    bool has_rules = false, has_deny_rules = false, deny_all = false;
    l7_rules(node, e, file, field, has_rules, has_deny_rules, deny_all);
    if (graphql_persisted || (!persisted.empty() && persisted != "deny")) e.websocket_graphql_policy = true;

    // OpenShell's endpoint validation (validate_sandbox_policy, l7_validate), in its order.
    auto refuse = [&](const std::string& what, const std::string& fix) { fail(file, field, what, fix); };
    const std::string proto = lower(e.protocol);
    const bool tcp = proto == "tcp";
    const bool known_l7 = proto == "rest" || proto == "websocket" || proto == "graphql" || proto == "sql" ||
                          proto == "json-rpc" || proto == "mcp";
    if (!e.protocol.empty() && !known_l7 && !tcp)
        refuse("unknown protocol \"" + e.protocol + "\"", "write tcp, rest, websocket, graphql, sql, json-rpc or mcp");
    if (tcp && (!e.access.empty() || has_rules || has_deny_rules))
        refuse("protocol tcp does not take access, rules or deny_rules", "remove those L7 fields");
    if (has_rules && !e.access.empty()) refuse("rules and access together", "keep one of them");
    if ((proto == "json-rpc" || proto == "mcp") && !e.access.empty())
        refuse("protocol " + proto + " takes no access preset", "write explicit rules");
    if (proto == "json-rpc" && !has_rules && e.access.empty())
        refuse("protocol json-rpc without rules", "add rules with allow.method");
    if (known_l7 && proto != "mcp" && proto != "json-rpc" && !has_rules && e.access.empty())
        refuse("protocol " + proto + " without rules or access allows nothing",
               "add `access: read-only` (or read-write, full), or rules");
    if (proto == "mcp" && !has_rules && e.access.empty() && !allow_all_mcp)
        refuse("protocol mcp without rules", "add rules, or set mcp.allow_all_known_mcp_methods: true");
    if (deny_all && !(proto == "mcp" && allow_all_mcp))
        refuse("rules with no allow clause deny all traffic", "use `access: full` or give the rules allow fields");
    if (has_deny_rules && !known_l7) refuse("deny_rules without an L7 protocol", "set `protocol:`");
    if (has_deny_rules && proto != "mcp" && !has_rules && e.access.empty())
        refuse("deny_rules without rules or access", "add rules or access for the base allow set");
    if (tcp && (!e.enforcement.empty() || !e.path.empty() || e.allow_encoded_slash || e.websocket_credential_rewrite ||
                e.request_body_credential_rewrite || !persisted.empty() || graphql_persisted ||
                e.graphql_max_body_bytes > 0 || e.json_rpc_max_body_bytes > 0 || has_mcp))
        refuse("protocol tcp does not take L7-only fields", "remove enforcement, path and the other L7 fields");
    if (!e.path.empty() && !e.path.starts_with('/') && e.path != "**")
        refuse("path \"" + e.path + "\" must start with '/' or be '**'", "write the path from its leading /");
    if (!persisted.empty() && persisted != "deny" && persisted != "allow_registered")
        refuse("persisted_queries \"" + persisted + "\"", "write deny or allow_registered");
    if (e.protocol == "sql" && e.enforcement == "enforce")
        refuse("SQL enforcement needs full SQL parsing, which OpenShell does not do", "use `enforcement: audit`");
    if (has_mcp && e.protocol != "mcp") refuse("mcp options on a protocol other than mcp", "remove `mcp:` or set `protocol: mcp`");
    if (e.protocol == "graphql") {
        // Every GraphQL rule names its operation type, as OpenShell requires.
        auto operation = [&](const YAML::Node& n, const std::string& where) {
            const std::string t = n.IsDefined() && n.IsMap() ? scalar(n, "operation_type", file, field) : "";
            if (t != "query" && t != "mutation" && t != "subscription")
                refuse(where + ".operation_type " + (t.empty() ? "missing" : "\"" + t + "\""),
                       "write operation_type: query, mutation or subscription");
        };
        if (const YAML::Node r = node["rules"]; r.IsDefined() && r.IsSequence())
            for (std::size_t i = 0; i < r.size(); ++i) operation(r[i]["allow"], "rules[" + std::to_string(i) + "].allow");
        if (const YAML::Node d = node["deny_rules"]; d.IsDefined() && d.IsSequence())
            for (std::size_t i = 0; i < d.size(); ++i) operation(d[i], "deny_rules[" + std::to_string(i) + "]");
        if (const YAML::Node g = node["graphql_persisted_queries"]; g.IsDefined() && g.IsMap())
            for (auto it = g.begin(); it != g.end(); ++it)
                operation(it->second, "graphql_persisted_queries[" + it->first.Scalar() + "]");
    }
    if (!e.credential_signing.empty() && e.credential_signing != "sigv4" && e.credential_signing != "sigv4:body" &&
        e.credential_signing != "sigv4:no_body")
        refuse("credential_signing \"" + e.credential_signing + "\"", "write sigv4, sigv4:body or sigv4:no_body");
    if (!e.credential_signing.empty() && e.signing_service.empty())
        refuse("credential_signing without signing_service", "name the AWS service, e.g. `signing_service: s3`");
    if (!e.credential_signing.empty() && e.request_body_credential_rewrite)
        refuse("credential_signing and request_body_credential_rewrite together", "keep one of them");
    return e;
}

std::vector<std::string> binaries(const YAML::Node& node, const std::string& file,
                                  const std::string& field, bool strict) {
    std::vector<std::string> out;
    if (!node.IsDefined() || node.IsNull()) return out;
    if (!node.IsSequence())
        fail(file, field, "must be a list", "write `binaries:` then `- path: /usr/bin/program`");
    for (std::size_t i = 0; i < node.size(); ++i) {
        std::string f = field + "[" + std::to_string(i) + "]";
        if (node[i].IsScalar() && !strict) {
            out.push_back(node[i].Scalar());
        } else if (node[i].IsMap()) {
            if (strict) only_keys(node[i], {"path", "harness"}, file, f);
            if (strict) boolean(node[i], "harness", file, f);
            if (!node[i]["path"].IsDefined())
                fail(file, at(f, "path"), "missing", "write `- path: /usr/bin/program`");
            out.push_back(scalar(node[i], "path", file, f));
        } else {
            fail(file, f, "a binary is `path: /absolute/program` (a plain string is refused by OpenShell)",
                 "write `- path: /usr/bin/program`");
        }
    }
    return out;
}

}  // namespace toolcage::lint::yaml
