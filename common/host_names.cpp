#include "common/host_names.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>

#include "common/error.h"

namespace toolcage {

std::optional<uint16_t> parse_port(std::string_view text) {
    if (text.empty() || text.size() > 5) return std::nullopt;
    if (text[0] == '0') return std::nullopt;
    unsigned v = 0;
    for (char c : text) {
        if (c < '0' || c > '9') return std::nullopt;
        v = v * 10 + static_cast<unsigned>(c - '0');
    }
    if (v == 0 || v > 65535) return std::nullopt;
    return static_cast<uint16_t>(v);
}

namespace {

bool numeric_label(std::string_view label) {
    if (label.empty()) return false;
    if (label.size() > 2 && label[0] == '0' && (label[1] == 'x' || label[1] == 'X'))
        return std::all_of(label.begin() + 2, label.end(),
                           [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
    if (label == "0x" || label == "0X") return true;
    return std::all_of(label.begin(), label.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

bool looks_like_ipv4(std::string_view host) {
    std::string h(host);
    in_addr a{};
    if (::inet_aton(h.c_str(), &a) != 0) return true;
    size_t dot = host.rfind('.');
    std::string_view last = dot == std::string_view::npos ? host : host.substr(dot + 1);
    return numeric_label(last);
}

std::optional<std::string> canonical_hostname(std::string_view host, std::string& error) {
    std::string h;
    h.reserve(host.size());
    for (char c : host) h.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    if (!h.empty() && h.back() == '.') h.pop_back();
    if (h.empty()) {
        error = "the host name is empty";
        return std::nullopt;
    }
    if (h.size() > 253) {
        error = "the host name is longer than 253 characters";
        return std::nullopt;
    }
    size_t start = 0;
    while (start <= h.size()) {
        size_t dot = h.find('.', start);
        if (dot == std::string::npos) dot = h.size();
        std::string_view label(h.data() + start, dot - start);
        if (label.empty()) {
            error = "the host name has an empty label (two dots in a row, or a leading dot)";
            return std::nullopt;
        }
        if (label.size() > 63) {
            error = "a label of the host name is longer than 63 characters";
            return std::nullopt;
        }
        for (char c : label) {
            bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
            if (!ok) {
                error = "the host name may hold only letters, digits, '-', '_' and dots";
                return std::nullopt;
            }
        }
        if (label.front() == '-' || label.back() == '-') {
            error = "a label of the host name starts or ends with '-'";
            return std::nullopt;
        }
        start = dot + 1;
    }
    return h;
}

std::optional<AllowEntry> read_allow_entry(std::string_view text, std::string& problem) {
    auto fail = [&](const std::string& why) -> std::nullopt_t {
        problem = why;
        return std::nullopt;
    };
    AllowEntry e;
    e.text = std::string(text);
    std::string_view host = text;
    std::string_view port;
    bool has_port = false;
    if (text.empty()) return fail("an entry is empty (write host, host:port or *.example.com)");
    if (text.find_first_of("/@") != std::string_view::npos)
        return fail(
            "not a host name: write host, host:port or *.example.com, without a scheme, "
            "path or user");
    if (text.front() == '[') {
        size_t close = text.find(']');
        if (close == std::string_view::npos)
            return fail("'[' without ']' (write an IPv6 address as [2001:db8::1]:443)");
        host = text.substr(1, close - 1);
        std::string_view rest = text.substr(close + 1);
        if (!rest.empty()) {
            if (rest.front() != ':') return fail("expected ':port' after ']'");
            port = rest.substr(1);
            has_port = true;
        }
        in6_addr a{};
        std::string h(host);
        if (h.find('%') != std::string::npos)
            return fail("zone ids are not accepted (name the address without %zone)");
        if (::inet_pton(AF_INET6, h.c_str(), &a) != 1)
            return fail("the bracketed host is not an IPv6 address");
        char canon[INET6_ADDRSTRLEN];
        ::inet_ntop(AF_INET6, &a, canon, sizeof canon);
        if (h != canon)
            return fail(std::string("write the IPv6 address in its canonical form: [") + canon +
                        "]");
        e.host = canon;
        e.ip = true;
    } else {
        size_t colon = text.rfind(':');
        if (colon != std::string_view::npos) {
            host = text.substr(0, colon);
            port = text.substr(colon + 1);
            has_port = true;
            if (host.find(':') != std::string_view::npos)
                return fail("an IPv6 address must be written in brackets, e.g. [2001:db8::1]:443");
        }
        if (host == "*" || host == "**")
            return fail("a bare wildcard would allow every host (name a domain: *.example.com)");
        if (host.size() > 2 && host.substr(0, 2) == "*.") {
            e.wildcard = true;
            host.remove_prefix(2);
        }
        if (host.find('*') != std::string_view::npos)
            return fail("'*' may only stand as the whole first label, as in *.example.com");
        std::string bare(host);
        if (!bare.empty() && bare.back() == '.') bare.pop_back();
        if (looks_like_ipv4(bare)) {
            if (e.wildcard) return fail("a wildcard cannot cover IP addresses (name a domain)");
            in_addr a{};
            char canon[INET_ADDRSTRLEN] = "";
            if (::inet_pton(AF_INET, bare.c_str(), &a) == 1)
                ::inet_ntop(AF_INET, &a, canon, sizeof canon);
            if (bare != canon || bare.size() != host.size())
                return fail(
                    "an IPv4 address must be written as a plain dotted quad, e.g. "
                    "192.0.2.10");
            e.host = canon;
            e.ip = true;
        } else {
            std::string error;
            auto canon = canonical_hostname(host, error);
            if (!canon) return fail(error + " (write host, host:port or *.example.com)");
            e.host = *canon;
            if (e.wildcard && e.host.find('.') == std::string::npos)
                return fail("a wildcard must name at least two labels (use *.example.com)");
        }
    }
    if (has_port) {
        auto p = parse_port(port);
        if (!p) return fail("port out of range; use host:PORT with PORT from 1 to 65535");
        e.port = *p;
    }
    return e;
}

AllowEntry parse_allow_entry(std::string_view text, std::string_view where) {
    std::string problem;
    std::optional<AllowEntry> e = read_allow_entry(text, problem);
    if (!e) throw Error(std::string(where) + " \"" + std::string(text) + "\": " + problem);
    return *e;
}

}  // namespace toolcage
