#include "lint/endpoint_shape.h"

#include "common/glob_product.h"

#include <algorithm>
#include <set>
#include <utility>

namespace toolcage::lint {
namespace {

std::string lower(std::string s) {
    for (auto& c : s)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return s;
}

bool is_tcp(const Endpoint& e) { return lower(e.protocol) == "tcp"; }
std::string tls_of(const Endpoint& e) { return lower(e.tls) == "skip" ? "skip" : "auto"; }
std::string enforcement_of(const Endpoint& e) { return lower(e.enforcement) == "enforce" ? "enforce" : "audit"; }
std::string protocol_of(const Endpoint& e) { return is_tcp(e) ? "" : lower(e.protocol); }
std::uint32_t body_limit(std::uint32_t v) { return v == 0 ? 65'536 : v; }
const char* yes(bool b) { return b ? "true" : "false"; }

std::string ips_of(const Endpoint& e) {
    std::set<std::string> ips;
    for (const auto& ip : e.allowed_ips) {
        auto b = ip.find_first_not_of(" \t\n"), z = ip.find_last_not_of(" \t\n");
        ips.insert(lower(b == std::string::npos ? "" : ip.substr(b, z - b + 1)));
    }
    std::string out;
    for (const auto& ip : ips) out += (out.empty() ? "" : ",") + ip;
    return out;
}

void differ(std::vector<std::string>& out, const char* field, const std::string& a, const std::string& b) {
    if (a != b) out.push_back(std::string(field) + "=" + (a.empty() ? "\"\"" : a) + " vs " + (b.empty() ? "\"\"" : b));
}

// Path glob tokens as OpenShell's runtime matcher reads them (glob::Pattern with `*` crossing
// `/`): a character, any one character, a class of characters, or a star.
struct Token {
    enum Kind { literal, any_char, cls, star } kind;
    unsigned char c = 0;
    std::vector<std::pair<unsigned char, unsigned char>> ranges = {};
    bool negated = false;
    static Token of(Kind k, unsigned char ch = 0) { return Token{k, ch, {}, false}; }
};

bool tokenize(const std::string& p, std::vector<Token>& out) {
    for (std::size_t i = 0; i < p.size();) {
        if (p[i] == '?') {
            out.push_back(Token::of(Token::any_char));
            ++i;
        } else if (p[i] == '*') {
            std::size_t start = i;
            while (i < p.size() && p[i] == '*') ++i;
            if (i - start > 2) return false;
            if (i - start == 2) {
                bool starts = start == 0 || p[start - 1] == '/';
                bool ends = i == p.size() || p[i] == '/';
                if (!starts || !ends) return false;
                if (i < p.size()) ++i;  // `**/` is one token
            }
            out.push_back(Token::of(Token::star));
        } else if (p[i] == '[') {
            Token t = Token::of(Token::cls);
            t.negated = i + 1 < p.size() && p[i + 1] == '!';
            std::size_t from = i + (t.negated ? 2 : 1);
            std::size_t close = p.find(']', from);
            if (close == std::string::npos || close == from) return false;
            for (std::size_t k = from; k < close;) {
                if (k + 2 < close && p[k + 1] == '-') {
                    t.ranges.push_back({static_cast<unsigned char>(p[k]), static_cast<unsigned char>(p[k + 2])});
                    k += 3;
                } else {
                    t.ranges.push_back({static_cast<unsigned char>(p[k]), static_cast<unsigned char>(p[k])});
                    ++k;
                }
            }
            out.push_back(std::move(t));
            i = close + 1;
        } else {
            out.push_back(Token::of(Token::literal, static_cast<unsigned char>(p[i++])));
        }
    }
    return true;
}

bool accepts(const Token& t, unsigned c) {
    switch (t.kind) {
        case Token::literal: return t.c == c;
        case Token::any_char:
        case Token::star: return true;
        case Token::cls: {
            bool in = std::any_of(t.ranges.begin(), t.ranges.end(),
                                  [&](auto r) { return r.first <= c && c <= r.second; });
            return in != t.negated;
        }
    }
    return false;
}

// Whether one byte is accepted by both tokens (bytes stand in for characters here).
bool share(const Token& a, const Token& b) {
    for (unsigned c = 1; c < 256; ++c)
        if (accepts(a, c) && accepts(b, c)) return true;
    return false;
}

}  // namespace

bool path_patterns_overlap(const std::string& a, const std::string& b) {
    auto any = [](const std::string& p) { return p.empty() || p == "**" || p == "/**"; };
    if (any(a) || any(b)) return true;
    std::vector<Token> x, y;
    if (!tokenize(a, x) || !tokenize(b, y)) return true;  // OpenShell is conservative here too
    return globs_meet(
        x.size(), y.size(), [&](std::size_t i) { return x[i].kind == Token::star; },
        [&](std::size_t j) { return y[j].kind == Token::star; },
        [&](std::size_t i, std::size_t j) { return share(x[i], y[j]); });
}

std::size_t path_specificity(const std::string& path) {
    return static_cast<std::size_t>(std::count_if(path.begin(), path.end(), [](char c) { return c != '*'; }));
}

bool carries_request_metadata(const Endpoint& e) {
    return (!e.protocol.empty() && !is_tcp(e)) || !e.allowed_ips.empty() || !e.tls.empty() ||
           e.has_credential_binding;
}

namespace {

std::vector<std::string> connection_conflicts(const Endpoint& a, const Endpoint& b) {
    std::vector<std::string> out;
    differ(out, "transparent_tcp_eligible", yes(is_tcp(a)), yes(is_tcp(b)));
    differ(out, "tls", tls_of(a), tls_of(b));
    differ(out, "allowed_ips", "[" + ips_of(a) + "]", "[" + ips_of(b) + "]");
    return out;
}

std::vector<std::string> request_conflicts(const Endpoint& a, const Endpoint& b) {
    std::vector<std::string> out;
    differ(out, "protocol", protocol_of(a), protocol_of(b));
    differ(out, "enforcement", enforcement_of(a), enforcement_of(b));
    differ(out, "allow_encoded_slash", yes(a.allow_encoded_slash), yes(b.allow_encoded_slash));
    differ(out, "websocket_credential_rewrite", yes(a.websocket_credential_rewrite), yes(b.websocket_credential_rewrite));
    differ(out, "request_body_credential_rewrite", yes(a.request_body_credential_rewrite),
           yes(b.request_body_credential_rewrite));
    const std::string pa = lower(a.protocol), pb = lower(b.protocol);
    if (pa == "websocket" && pb == "websocket")
        differ(out, "websocket_graphql_policy", yes(a.websocket_graphql_policy), yes(b.websocket_graphql_policy));
    differ(out, "credential_signing", a.credential_signing, b.credential_signing);
    differ(out, "signing_service", a.signing_service, b.signing_service);
    differ(out, "signing_region", a.signing_region, b.signing_region);
    differ(out, "credential_binding.provider", a.credential_binding, b.credential_binding);
    if (pa == "graphql" && pb == "graphql")
        differ(out, "graphql_max_body_bytes", std::to_string(body_limit(a.graphql_max_body_bytes)),
               std::to_string(body_limit(b.graphql_max_body_bytes)));
    if (pa == pb && (pa == "json-rpc" || pa == "mcp"))
        differ(out, "json_rpc_max_body_bytes", std::to_string(body_limit(a.json_rpc_max_body_bytes)),
               std::to_string(body_limit(b.json_rpc_max_body_bytes)));
    if (pa == "mcp" && pb == "mcp")
        differ(out, "mcp.strict_tool_names", yes(a.mcp_strict_tool_names), yes(b.mcp_strict_tool_names));
    return out;
}

}  // namespace

std::vector<std::string> endpoint_conflicts(const Endpoint& a, const Endpoint& b) {
    std::vector<std::string> out = connection_conflicts(a, b);
    if (carries_request_metadata(a) && carries_request_metadata(b) && path_patterns_overlap(a.path, b.path) &&
        path_specificity(a.path) == path_specificity(b.path)) {
        auto more = request_conflicts(a, b);
        out.insert(out.end(), more.begin(), more.end());
    }
    return out;
}

std::string shape_key(const Endpoint& e) {
    std::string k;
    for (const std::string& part :
         {std::string(yes(is_tcp(e))), tls_of(e), ips_of(e), std::string(yes(carries_request_metadata(e))),
          lower(e.protocol), enforcement_of(e), std::string(yes(e.allow_encoded_slash)),
          std::string(yes(e.websocket_credential_rewrite)), std::string(yes(e.request_body_credential_rewrite)),
          std::string(yes(e.websocket_graphql_policy)), e.credential_signing, e.signing_service, e.signing_region,
          e.credential_binding, std::to_string(body_limit(e.graphql_max_body_bytes)),
          std::to_string(body_limit(e.json_rpc_max_body_bytes)), std::string(yes(e.mcp_strict_tool_names))})
        k += part + '\x1f';
    return k;
}

}  // namespace toolcage::lint
