// Proxy authentication: each caged step gets a random token, sent as Proxy-Authorization Basic
// with user "toolcage" and the token as password. Compared in constant time.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace toolcage::relay {

class TokenAuth {
public:
    // No token: every client is accepted (the relay logs a warning at start).
    TokenAuth() = default;
    explicit TokenAuth(std::string token);

    // Reads the token from `path` (one line; a trailing newline is dropped). Throws
    // toolcage::Error naming --token-file and the fix.
    static TokenAuth from_file(const std::string& path);

    bool required() const { return !expected_.empty(); }

    // True when `header` (the Proxy-Authorization value, if any) carries the token.
    bool accepts(const std::optional<std::string>& header) const;

private:
    std::string expected_;  // "toolcage:<token>"
};

// Standard base64 (RFC 4648), with padding. nullopt on any malformed input.
std::optional<std::string> base64_decode(std::string_view in);
std::string base64_encode(std::string_view in);

// Equal contents and length, in time that depends only on the lengths.
bool constant_time_equal(std::string_view a, std::string_view b);

}  // namespace toolcage::relay
