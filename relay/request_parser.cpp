#include "relay/request_parser.h"

#include <algorithm>

namespace toolcage::relay {
namespace {

// RFC 9110 token characters.
bool is_tchar(unsigned char c) {
    if (c >= 'a' && c <= 'z') return true;
    if (c >= 'A' && c <= 'Z') return true;
    if (c >= '0' && c <= '9') return true;
    return std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) != std::string_view::npos;
}

char ascii_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }

bool iequals(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return ascii_lower(x) == ascii_lower(y);
           });
}

ParseResult refuse(int status, std::string reason) {
    ParseResult r;
    r.state = ParseResult::State::refused;
    r.status = status;
    r.reason = std::move(reason);
    return r;
}

// Checks one line's bytes (CRLF excluded): no bare CR or LF, no control bytes but HTAB, no
// bytes >= 0x80. Returns the problem, or empty.
std::string line_problem(std::string_view line) {
    for (unsigned char c : line) {
        if (c == '\r' || c == '\n') return "a bare CR or LF (lines must end with CRLF)";
        if (c >= 0x80) return "a non-ASCII byte";
        if ((c < 0x20 && c != '\t') || c == 0x7f) return "a control byte";
    }
    return {};
}

// Request line: METHOD SP target SP HTTP/1.x, single spaces only.
std::optional<ParseResult> parse_request_line(std::string_view line, ParseResult& out) {
    size_t sp1 = line.find(' ');
    std::string_view method = line.substr(0, sp1);
    if (method.empty() || !std::all_of(method.begin(), method.end(), [](char c) {
            return is_tchar(static_cast<unsigned char>(c));
        }))
        return refuse(400, "malformed request line: the method must be a token followed by one space");
    if (method != "CONNECT")
        return refuse(405, "method " + std::string(method) +
                               " is not allowed: this relay only tunnels CONNECT host:port");
    if (sp1 == std::string_view::npos)
        return refuse(400, "malformed request line: expected CONNECT host:port HTTP/1.1");
    std::string_view rest = line.substr(sp1 + 1);
    size_t sp2 = rest.find(' ');
    if (sp2 == std::string_view::npos)
        return refuse(400, "malformed request line: expected CONNECT host:port HTTP/1.1");
    std::string_view target = rest.substr(0, sp2);
    std::string_view version = rest.substr(sp2 + 1);
    if (target.empty())
        return refuse(400, "malformed request line: empty target (send CONNECT host:port HTTP/1.1)");
    if (version != "HTTP/1.1" && version != "HTTP/1.0")
        return refuse(400, "malformed request line: the version must be HTTP/1.1 or HTTP/1.0, "
                           "separated by single spaces");
    for (unsigned char c : target)
        if (c <= 0x20 || c >= 0x7f)
            return refuse(400, "the target contains a space, control or non-ASCII byte");
    out.request.target = std::string(target);
    return std::nullopt;
}

std::optional<ParseResult> parse_header_line(std::string_view line, ParseResult& out,
                                              bool& saw_content_length) {
    if (line[0] == ' ' || line[0] == '\t')
        return refuse(400, "obsolete line folding (a header line starting with whitespace) is not "
                           "accepted");
    size_t colon = line.find(':');
    if (colon == std::string_view::npos)
        return refuse(400, "malformed header line: no ':'");
    std::string_view name = line.substr(0, colon);
    if (name.empty()) return refuse(400, "malformed header line: empty field name");
    if (name.back() == ' ' || name.back() == '\t')
        return refuse(400, "whitespace between a header field name and ':' is not accepted");
    for (unsigned char c : name)
        if (!is_tchar(c)) return refuse(400, "malformed header field name");
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);

    if (iequals(name, "Upgrade"))
        return refuse(405, "Upgrade is not allowed: this relay only tunnels CONNECT host:port");
    if (iequals(name, "Transfer-Encoding"))
        return refuse(400, "a CONNECT request carries no body: Transfer-Encoding is not accepted");
    if (iequals(name, "Content-Length")) {
        if (value != "0" || saw_content_length)
            return refuse(400, "a CONNECT request carries no body: Content-Length must be absent "
                               "or 0");
        saw_content_length = true;
    }
    if (iequals(name, "Proxy-Authorization")) {
        if (out.request.proxy_authorization)
            return refuse(400, "Proxy-Authorization sent twice");
        out.request.proxy_authorization = std::string(value);
    }
    return std::nullopt;
}

}  // namespace

ParseResult parse_connect_request(std::string_view buf) {
    ParseResult out;
    size_t pos = 0;
    size_t line_no = 0;
    bool saw_content_length = false;
    constexpr size_t kMaxHeaderLines = 100;
    for (;;) {
        // Limit the search to the cap so that an oversize block is judged the same however it
        // was split across reads.
        std::string_view window = buf.substr(0, std::min(buf.size(), kMaxHeaderBytes));
        size_t lf = window.find('\n', pos);
        if (lf == std::string_view::npos) {
            // Check the partial line early, so junk is refused without waiting for more.
            std::string_view partial = window.substr(pos);
            if (!partial.empty() && partial.back() == '\r') partial.remove_suffix(1);
            std::string problem = line_problem(partial);
            if (!problem.empty()) return refuse(400, "the request contains " + problem);
            if (line_no == 0 && partial.size() >= 8 && partial.substr(0, 8) != "CONNECT ") {
                size_t sp = partial.find(' ');
                if (sp != std::string_view::npos)
                    return refuse(405, "method " + std::string(partial.substr(0, sp)) +
                                           " is not allowed: this relay only tunnels CONNECT "
                                           "host:port");
            }
            if (buf.size() >= kMaxHeaderBytes)
                return refuse(431, "the request header is larger than 8 KiB");
            return out;  // incomplete
        }
        if (lf == pos || buf[lf - 1] != '\r')
            return refuse(400, "the request contains a bare LF (lines must end with CRLF)");
        std::string_view line = buf.substr(pos, lf - 1 - pos);
        pos = lf + 1;
        std::string problem = line_problem(line);
        if (!problem.empty()) return refuse(400, "the request contains " + problem);
        if (line_no == 0) {
            if (auto r = parse_request_line(line, out)) return *r;
        } else if (line.empty()) {
            out.state = ParseResult::State::complete;
            out.request.header_bytes = pos;
            return out;
        } else {
            if (line_no > kMaxHeaderLines) return refuse(431, "more than 100 header lines");
            if (auto r = parse_header_line(line, out, saw_content_length)) return *r;
        }
        ++line_no;
    }
}

}  // namespace toolcage::relay
