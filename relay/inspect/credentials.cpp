#include "relay/inspect/credentials.h"

#include <openssl/evp.h>

#include <algorithm>
#include <cctype>

namespace toolcage::relay {

std::optional<std::string> evp_base64_decode(std::string_view in) {
    if (in.empty()) return std::string();
    if (in.size() % 4 != 0) return std::nullopt;
    std::string out(in.size() / 4 * 3, '\0');
    int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                            reinterpret_cast<const unsigned char*>(in.data()),
                            static_cast<int>(in.size()));
    if (n < 0) return std::nullopt;
    // EVP_DecodeBlock counts the padding's zero bytes too.
    std::size_t pad = in.ends_with("==") ? 2 : in.ends_with("=") ? 1 : 0;
    out.resize(static_cast<std::size_t>(n) - pad);
    return out;
}

std::string evp_base64_encode(std::string_view in) {
    std::string out((in.size() + 2) / 3 * 4 + 1, '\0');
    int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                            reinterpret_cast<const unsigned char*>(in.data()),
                            static_cast<int>(in.size()));
    out.resize(static_cast<std::size_t>(n));
    return out;
}

namespace {

bool iequals(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) ==
                      std::tolower(static_cast<unsigned char>(y));
           });
}

// The header a credential lives in.
std::string header_of(const BoundCredential& c) {
    if (c.as.starts_with("header:")) return c.as.substr(7);
    return "Authorization";
}

std::string basic_user(const BoundCredential& c) {
    return c.as.starts_with("basic:") ? c.as.substr(6) : "";
}

// What the header says, with Basic credentials decoded (their placeholder is base64'd).
std::string readable_value(const std::string& name, const std::string& value) {
    if (!iequals(name, "Authorization") && !iequals(name, "Proxy-Authorization")) return value;
    std::string_view v = value;
    if (v.size() > 6 && iequals(v.substr(0, 6), "Basic ")) {
        std::string_view b64 = v.substr(6);
        while (!b64.empty() && b64.front() == ' ') b64.remove_prefix(1);
        if (auto dec = evp_base64_decode(b64)) return value + "\n" + *dec;
    }
    return value;
}

void replace_all(std::string& s, const std::string& from, const std::string& to) {
    for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
        s.replace(at, from.size(), to);
}

// The header's value with `c`'s secret in place of its placeholder.
std::string with_secret(const BoundCredential& c, const std::string& value) {
    if (c.as.starts_with("basic:"))
        return "Basic " + evp_base64_encode(basic_user(c) + ":" + c.secret);
    std::string out = value;
    replace_all(out, c.placeholder, c.secret);
    return out;
}

std::string fresh_value(const BoundCredential& c) {
    if (c.as == "bearer") return "Bearer " + c.secret;
    if (c.as.starts_with("basic:"))
        return "Basic " + evp_base64_encode(basic_user(c) + ":" + c.secret);
    return c.secret;
}

CredentialOutcome refused_placeholder(const BoundCredential& c, const std::string& target,
                                      const std::string& where) {
    CredentialOutcome out;
    out.refused = true;
    out.field = c.field;
    out.reason = "the placeholder of $" + c.env + " (" + c.field + ", bound to " + c.host +
                 ") was sent to " + target + " " + where + "; it is replaced only in the " +
                 header_of(c) + " header of requests to " + c.host;
    return out;
}

}  // namespace

CredentialOutcome apply_credentials(HeaderList& headers, std::string_view url,
                                    const BoundCredential* mine,
                                    const std::vector<BoundCredential>& all,
                                    const std::string& target) {
    CredentialOutcome out;
    auto refuse = [&](const BoundCredential& c, const std::string& where) {
        return refused_placeholder(c, target, where);
    };
    for (const auto& c : all)
        if (url.find(c.placeholder) != std::string_view::npos)
            return refuse(c, "in the request's URL");
    bool seen_mine = false;
    for (auto& [name, value] : headers) {
        const std::string readable = readable_value(name, value);
        for (const auto& c : all) {
            if (readable.find(c.placeholder) == std::string::npos) continue;
            if (!mine || c.placeholder != mine->placeholder || !iequals(name, header_of(c)))
                return refuse(c, "in its " + name + " header");
            value = with_secret(c, value);
            out.injected = true;
        }
        if (mine && iequals(name, header_of(*mine))) seen_mine = true;
    }
    // The client sent none of it (a program that first tries without credentials): add it.
    if (mine && !seen_mine) {
        headers.emplace_back(header_of(*mine), fresh_value(*mine));
        out.injected = true;
    }
    return out;
}

CredentialOutcome placeholder_in_body(std::string_view piece, const BoundCredential* mine,
                                      const std::vector<BoundCredential>& all,
                                      const std::string& target) {
    for (const auto& c : all)
        if ((!mine || c.placeholder != mine->placeholder) &&
            piece.find(c.placeholder) != std::string_view::npos)
            return refused_placeholder(c, target, "in the request's body");
    return {};
}

std::size_t longest_placeholder(const std::vector<BoundCredential>& all) {
    std::size_t n = 0;
    for (const auto& c : all) n = std::max(n, c.placeholder.size());
    return n;
}

}  // namespace toolcage::relay
