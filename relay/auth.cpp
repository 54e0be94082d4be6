#include "relay/auth.h"

#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "common/error.h"

namespace toolcage::relay {

namespace {
constexpr std::string_view kAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr size_t kMinTokenLength = 16;
}  // namespace

std::string base64_encode(std::string_view in) {
    std::string out;
    size_t i = 0;
    while (i + 2 < in.size()) {
        uint32_t v = (uint32_t(uint8_t(in[i])) << 16) | (uint32_t(uint8_t(in[i + 1])) << 8) |
                     uint8_t(in[i + 2]);
        for (int s = 18; s >= 0; s -= 6) out.push_back(kAlphabet[(v >> s) & 63]);
        i += 3;
    }
    size_t rest = in.size() - i;
    if (rest > 0) {
        uint32_t v = uint32_t(uint8_t(in[i])) << 16;
        if (rest == 2) v |= uint32_t(uint8_t(in[i + 1])) << 8;
        out.push_back(kAlphabet[(v >> 18) & 63]);
        out.push_back(kAlphabet[(v >> 12) & 63]);
        out.push_back(rest == 2 ? kAlphabet[(v >> 6) & 63] : '=');
        out.push_back('=');
    }
    return out;
}

std::optional<std::string> base64_decode(std::string_view in) {
    if (in.size() % 4 != 0) return std::nullopt;
    std::string out;
    for (size_t i = 0; i < in.size(); i += 4) {
        uint32_t v = 0;
        int pad = 0;
        for (size_t j = 0; j < 4; ++j) {
            char c = in[i + j];
            if (c == '=') {
                // Padding only in the last group's last two places.
                if (i + 4 != in.size() || j < 2) return std::nullopt;
                ++pad;
                v <<= 6;
                continue;
            }
            if (pad) return std::nullopt;
            size_t k = kAlphabet.find(c);
            if (k == std::string_view::npos) return std::nullopt;
            v = (v << 6) | static_cast<uint32_t>(k);
        }
        out.push_back(static_cast<char>((v >> 16) & 0xff));
        if (pad < 2) out.push_back(static_cast<char>((v >> 8) & 0xff));
        if (pad < 1) out.push_back(static_cast<char>(v & 0xff));
    }
    return out;
}

bool constant_time_equal(std::string_view a, std::string_view b) {
    unsigned char diff = a.size() == b.size() ? 0 : 1;
    size_t n = a.size() > b.size() ? a.size() : b.size();
    for (size_t i = 0; i < n; ++i) {
        unsigned char x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
        unsigned char y = i < b.size() ? static_cast<unsigned char>(b[i]) : 0;
        diff |= static_cast<unsigned char>(x ^ y);
    }
    return diff == 0;
}

TokenAuth::TokenAuth(std::string token) : expected_("toolcage:" + std::move(token)) {}

TokenAuth TokenAuth::from_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw Error("--token-file " + path +
                    ": cannot be read (write the step's token to a file readable by the relay)");
    std::stringstream ss;
    ss << in.rdbuf();
    std::string token = ss.str();
    if (!token.empty() && token.back() == '\n') token.pop_back();
    if (!token.empty() && token.back() == '\r') token.pop_back();
    if (token.size() < kMinTokenLength)
        throw Error("--token-file " + path + ": the token is shorter than " +
                    std::to_string(kMinTokenLength) +
                    " characters (write a random token, e.g. 32 hex digits)");
    for (unsigned char c : token)
        if (c <= 0x20 || c >= 0x7f)
            throw Error("--token-file " + path +
                        ": the token holds spaces, control or non-ASCII bytes (use hex digits)");
    return TokenAuth(std::move(token));
}

bool TokenAuth::accepts(const std::optional<std::string>& header) const {
    if (!required()) return true;
    if (!header) return false;
    std::string_view v = *header;
    size_t sp = v.find(' ');
    if (sp == std::string_view::npos) return false;
    std::string scheme(v.substr(0, sp));
    for (auto& c : scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (scheme != "basic") return false;
    std::string_view creds = v.substr(sp + 1);
    while (!creds.empty() && creds.front() == ' ') creds.remove_prefix(1);
    auto decoded = base64_decode(creds);
    if (!decoded) return false;
    return constant_time_equal(*decoded, expected_);
}

}  // namespace toolcage::relay
