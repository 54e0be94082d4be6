#include "relay/http_answer.h"

namespace toolcage::relay {

std::string_view status_text(int status) {
    switch (status) {
        case 200:
            return "Connection established";
        case 400:
            return "Bad Request";
        case 403:
            return "Forbidden";
        case 405:
            return "Method Not Allowed";
        case 407:
            return "Proxy Authentication Required";
        case 408:
            return "Request Timeout";
        case 431:
            return "Request Header Fields Too Large";
        case 502:
            return "Bad Gateway";
        case 501:
            return "Not Implemented";
        case 503:
            return "Service Unavailable";
        case 504:
            return "Gateway Timeout";
        default:
            return "Error";
    }
}

std::string http_refusal(int status, std::string_view reason) {
    // The reason goes into a header: keep it to printable ASCII on one line.
    std::string safe;
    for (char c : reason) {
        auto u = static_cast<unsigned char>(c);
        safe.push_back(u >= 0x20 && u < 0x7f ? c : '?');
    }
    std::string body = "toolcage-relay: " + safe + "\n";
    std::string out =
        "HTTP/1.1 " + std::to_string(status) + " " + std::string(status_text(status)) + "\r\n";
    out += "X-Toolcage-Reason: " + safe + "\r\n";
    if (status == 407) out += "Proxy-Authenticate: Basic realm=\"toolcage\"\r\n";
    if (status == 405) out += "Allow: CONNECT\r\n";
    out += "Content-Type: text/plain\r\n";
    out += "Content-Length: " + std::to_string(body.size()) + "\r\n";
    out += "Connection: close\r\n\r\n";
    out += body;
    return out;
}

}  // namespace toolcage::relay
