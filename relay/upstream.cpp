#include "relay/upstream.h"

#include <arpa/inet.h>

#include <cctype>

#include "common/error.h"
#include "relay/auth.h"
#include "relay/request_parser.h"

namespace toolcage::relay {
namespace {

std::optional<std::string> percent_decode(std::string_view in) {
    std::string out;
    for (size_t i = 0; i < in.size(); ++i) {
        if (in[i] != '%') {
            out.push_back(in[i]);
            continue;
        }
        if (i + 2 >= in.size() || !std::isxdigit(static_cast<unsigned char>(in[i + 1])) ||
            !std::isxdigit(static_cast<unsigned char>(in[i + 2])))
            return std::nullopt;
        out.push_back(static_cast<char>(std::stoi(std::string(in.substr(i + 1, 2)), nullptr, 16)));
        i += 2;
    }
    return out;
}

}  // namespace

UpstreamProxy UpstreamProxy::parse(const std::string& url) {
    auto fail = [&](const std::string& problem) {
        return Error("--upstream \"" + url + "\": " + problem +
                     " (write http://[user:pass@]host:port)");
    };
    const std::string scheme = "http://";
    if (url.compare(0, scheme.size(), scheme) != 0)
        throw fail("only an http:// proxy URL is understood");
    std::string_view rest = std::string_view(url).substr(scheme.size());
    if (!rest.empty() && rest.back() == '/') rest.remove_suffix(1);
    if (rest.find('/') != std::string_view::npos) throw fail("the URL must not have a path");
    UpstreamProxy up;
    size_t at = rest.rfind('@');
    if (at != std::string_view::npos) {
        std::string_view userinfo = rest.substr(0, at);
        rest = rest.substr(at + 1);
        size_t colon = userinfo.find(':');
        if (colon == std::string_view::npos) throw fail("userinfo must be user:password");
        auto user = percent_decode(userinfo.substr(0, colon));
        auto pass = percent_decode(userinfo.substr(colon + 1));
        if (!user || !pass) throw fail("bad percent-encoding in the userinfo");
        up.authorization = "Basic " + base64_encode(*user + ":" + *pass);
    }
    TargetParse p = parse_target(rest);
    if (!p.target) throw fail(p.error);
    up.host = p.target->host;
    up.port = p.target->port;
    return up;
}

bool UpstreamProxy::is_self(const Target& t) const { return t.host == host && t.port == port; }

DialOutcome dial_upstream(const UpstreamProxy& up, const Target& t, Clock::time_point deadline) {
    DialOutcome out;
    std::string error;
    auto answers = resolve_absolute(up.host, up.port, error);
    if (answers.empty()) {
        out.status = 502;
        out.reason = "cannot resolve the upstream proxy " + up.host + ": " + error;
        return out;
    }
    for (const auto& a : answers) {
        out = connect_address(a, deadline);
        if (out.status == 0 || Clock::now() >= deadline) break;
    }
    if (out.status != 0) {
        out.reason = "upstream proxy: " + out.reason;
        return out;
    }
    std::string request = "CONNECT " + t.authority() + " HTTP/1.1\r\nHost: " + t.authority() +
                          "\r\n";
    if (!up.authorization.empty()) request += "Proxy-Authorization: " + up.authorization + "\r\n";
    request += "\r\n";
    IoResult w = write_all(out.fd.get(), request, deadline);
    if (w.status != IoStatus::ok) {
        out.status = w.status == IoStatus::timeout ? 504 : 502;
        out.reason = "upstream proxy " + out.address + ": sending CONNECT failed";
        out.fd.reset();
        return out;
    }
    // Read the answer's header block (capped); bytes after it belong to the tunnel.
    std::string reply;
    char buf[4096];
    size_t end = std::string::npos;
    while (end == std::string::npos) {
        IoResult r = read_some(out.fd.get(), buf, sizeof buf, deadline);
        if (r.status == IoStatus::timeout) {
            out.status = 504;
            out.reason = "upstream proxy " + out.address + " did not answer CONNECT in time";
        } else if (r.status != IoStatus::ok) {
            out.status = 502;
            out.reason = "upstream proxy " + out.address + " closed the connection before answering";
        }
        if (out.status != 0) {
            out.fd.reset();
            return out;
        }
        reply.append(buf, r.bytes);
        end = reply.find("\r\n\r\n");
        if ((end == std::string::npos && reply.size() > kMaxHeaderBytes) ||
            (end != std::string::npos && end + 4 > kMaxHeaderBytes)) {
            out.status = 502;
            out.reason = "upstream proxy " + out.address + ": answer header larger than 8 KiB";
            out.fd.reset();
            return out;
        }
    }
    std::string_view status_line = std::string_view(reply).substr(0, reply.find("\r\n"));
    // "HTTP/1.x 2xx ..."
    bool ok = status_line.size() >= 12 && status_line.substr(0, 7) == "HTTP/1." &&
              status_line[8] == ' ' && status_line[9] == '2' &&
              std::isdigit(static_cast<unsigned char>(status_line[10])) &&
              std::isdigit(static_cast<unsigned char>(status_line[11]));
    if (!ok) {
        std::string shown(status_line.substr(0, 80));
        for (auto& c : shown)
            if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
        out.status = 502;
        out.reason = "upstream proxy " + out.address + " refused CONNECT " + t.authority() + ": " +
                     shown;
        out.fd.reset();
        return out;
    }
    out.leftover = reply.substr(end + 4);
    out.address = "upstream " + out.address;
    return out;
}

}  // namespace toolcage::relay
