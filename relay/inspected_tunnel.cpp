#include "relay/inspected_tunnel.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>

#include <memory>

#include "common/text.h"
#include "relay/http_answer.h"
#include "relay/inspect/request_rules.h"
#include "relay/inspect/request_stream.h"

namespace toolcage::relay {

namespace {

struct SslFree {
    void operator()(SSL* s) const { SSL_free(s); }
};
using SslPtr = std::unique_ptr<SSL, SslFree>;

enum class Io { ok, again, closed, timeout, failed };

bool wait(int fd, short events, Clock::time_point deadline) {
    for (;;) {
        pollfd p{fd, events, 0};
        int n = ::poll(&p, 1, ms_until(deadline));
        if (n > 0) return true;
        if (n == 0 || errno != EINTR) return false;
    }
}

// One SSL call driven to completion (handshakes, writes) before `deadline`.
template <class Op>
Io drive(SSL* ssl, int fd, Op op, Clock::time_point deadline, int* result = nullptr) {
    for (;;) {
        ERR_clear_error();
        int r = op();
        if (r > 0) {
            if (result) *result = r;
            return Io::ok;
        }
        int e = SSL_get_error(ssl, r);
        short ev = e == SSL_ERROR_WANT_READ ? POLLIN : e == SSL_ERROR_WANT_WRITE ? POLLOUT : 0;
        if (!ev) return e == SSL_ERROR_ZERO_RETURN ? Io::closed : Io::failed;
        if (!wait(fd, ev, deadline)) return Io::timeout;
    }
}

Io write_all_ssl(SSL* ssl, int fd, std::string_view data, Clock::time_point deadline) {
    size_t done = 0;
    while (done < data.size()) {
        int n = 0;
        Io r = drive(
            ssl, fd,
            [&] {
                return SSL_write(ssl, data.data() + done, static_cast<int>(data.size() - done));
            },
            deadline, &n);
        if (r != Io::ok) return r;
        done += static_cast<size_t>(n);
    }
    return Io::ok;
}

// What is readable now, up to 256 KiB (many records, one write on): `again` when nothing is.
// An end met after some data sets `ended`: the data goes on, then the connection ends.
Io read_ssl(SSL* ssl, std::string& out, bool& ended) {
    constexpr size_t kBatch = 256 * 1024;
    char buf[16384];
    out.clear();
    for (;;) {
        ERR_clear_error();
        int n = SSL_read(ssl, buf, sizeof buf);
        if (n > 0) {
            out.append(buf, static_cast<size_t>(n));
            if (out.size() >= kBatch) return Io::ok;
            continue;
        }
        int e = SSL_get_error(ssl, n);
        bool more_later = e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE;
        if (!out.empty()) {
            ended = !more_later;
            return Io::ok;
        }
        if (more_later) return Io::again;
        if (e == SSL_ERROR_ZERO_RETURN) return Io::closed;
        // A peer that closes TCP without close_notify: the end of its data all the same.
        if (e == SSL_ERROR_SYSCALL || e == SSL_ERROR_SSL) return Io::closed;
        return Io::failed;
    }
}

std::string ssl_failure(SSL* ssl) {
    unsigned long e = ERR_peek_last_error();
    ERR_clear_error();
    long v = SSL_get_verify_result(ssl);
    if (v != X509_V_OK) return X509_verify_cert_error_string(v);
    if (!e) return "the connection ended during the handshake";
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    return buf;
}

uint64_t ms_since(Clock::time_point t) {
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t).count());
}

// The Host header's host part and port (0 when it names none).
bool host_header_matches(const std::string& value, const Target& t) {
    std::string v = lower(trim(value));
    std::string host = v;
    std::string port;
    if (!v.empty() && v[0] == '[') {
        auto close = v.find(']');
        if (close == std::string::npos) return false;
        host = v.substr(1, close - 1);
        if (close + 1 < v.size()) {
            if (v[close + 1] != ':') return false;
            port = v.substr(close + 2);
        }
    } else if (auto colon = v.rfind(':'); colon != std::string::npos) {
        host = v.substr(0, colon);
        port = v.substr(colon + 1);
    }
    if (!host.empty() && host.back() == '.') host.pop_back();
    if (host != t.host) return false;
    return port.empty() || port == std::to_string(t.port);
}

class Connection {
  public:
    Connection(InspectedStart& s, const InspectContext& ictx) : s_(s), ictx_(ictx) {}

    void run() {
        s_.record.mode += "+inspect";
        std::string why = open_client();
        if (why.empty()) why = open_server();
        if (why.empty()) why = pump();
        s_.record.reason = why;
        s_.record.ms = ms_since(s_.accepted);
        log_connect(s_.record);
        if (client_) SSL_shutdown(client_.get());
        if (server_) SSL_shutdown(server_.get());
    }

  private:
    // The step's TLS, ended here with a leaf for the CONNECT's host.
    std::string open_client() {
        SSL_CTX* ctx = nullptr;
        try {
            ctx = ictx_.ca->server_context(s_.target.host);
        } catch (const std::exception& e) {
            return std::string("no certificate for the inspected host: ") + e.what();
        }
        client_.reset(SSL_new(ctx));
        if (!client_) return "SSL_new failed";
        BIO* wbio = BIO_new_socket(s_.client.get(), BIO_NOCLOSE);
        BIO* rbio = wbio;
        if (!s_.early.empty()) {
            // What the client sent with its CONNECT is read first, then the socket.
            rbio = BIO_new(BIO_f_buffer());
            BIO_set_buffer_read_data(rbio, s_.early.data(), static_cast<long>(s_.early.size()));
            BIO_push(rbio, BIO_new_socket(s_.client.get(), BIO_NOCLOSE));
        } else {
            BIO_up_ref(wbio);
        }
        SSL_set_bio(client_.get(), rbio, wbio);
        auto deadline = Clock::now() + s_.handshake_timeout;
        Io r = drive(
            client_.get(), s_.client.get(), [&] { return SSL_accept(client_.get()); }, deadline);
        if (r != Io::ok) {
            std::string e = ssl_failure(client_.get());
            client_.reset();
            return "the step's TLS handshake with the relay failed (" + e +
                   "): does it trust toolcage's CA (SSL_CERT_FILE and the other bundle variables)?";
        }
        const char* sni = SSL_get_servername(client_.get(), TLSEXT_NAMETYPE_host_name);
        if (sni) {
            std::string error;
            auto name = canonical_hostname(sni, error);
            s_.record.server_name = name ? *name : sni;
            if (!name || *name != s_.target.host)
                return refuse(403, "the TLS handshake names " + std::string(sni) +
                                       ", not the CONNECT host " + s_.target.host);
        } else if (s_.require_sni) {
            return refuse(403, "the TLS handshake names no server (no SNI) for " + s_.target.host +
                                   " (relay.require_sni)");
        }
        return "";
    }

    // The relay's own TLS to the real server, verified as strictly as any client would.
    std::string open_server() {
        server_.reset(SSL_new(ictx_.upstream.get()));
        if (!server_) return refuse(502, "SSL_new failed");
        SSL_set_fd(server_.get(), s_.server.get());
        SSL_set_tlsext_host_name(server_.get(), s_.target.host.c_str());
        SSL_set1_host(server_.get(), s_.target.host.c_str());
        SSL_set_hostflags(server_.get(), X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
        auto deadline = Clock::now() + s_.handshake_timeout;
        Io r = drive(
            server_.get(), s_.server.get(), [&] { return SSL_connect(server_.get()); }, deadline);
        if (r != Io::ok) {
            std::string e = ssl_failure(server_.get());
            server_.reset();
            return refuse(502,
                          "the server of " + s_.target.host + " failed TLS verification (" + e +
                              "); if a company proxy or a test server signs it, name its CA in "
                              "relay.upstream_ca");
        }
        return "";
    }

    Judgement judge(RequestHead& head) {
        RequestRecord rec;
        rec.client = s_.record.client;
        rec.host = s_.target.authority();
        rec.method = head.method;
        rec.path = head.target.substr(0, head.target.find('?'));
        // A placeholder in the path (refused below) is named, not copied, into the log and the
        // fleet's event: which credential a placeholder stands for is the relay's to know.
        for (const auto& c : ictx_.credentials)
            for (auto at = rec.path.find(c.placeholder); at != std::string::npos;
                 at = rec.path.find(c.placeholder, at))
                rec.path.replace(at, c.placeholder.size(), "{placeholder of $" + c.env + "}");
        auto refuse_with = [&](int status, const std::string& reason,
                               const std::string& rule = "") {
            rec.verdict = "deny";
            rec.status = status;
            rec.reason = reason;
            rec.rule = rule;
            log_request(rec);
            return Judgement{true, status, reason};
        };
        std::string problem;
        auto path = decoded_request_path(head.target, problem);
        if (!path) return refuse_with(400, problem, "request target");
        int hosts = 0;
        for (const auto& [k, v] : head.headers)
            if (lower(k) == "host") {
                ++hosts;
                if (!host_header_matches(v, s_.target))
                    return refuse_with(403,
                                       "the Host header names another host than the CONNECT host " +
                                           s_.target.host,
                                       "Host header");
            }
        if (hosts != 1)
            return refuse_with(400, "a request needs exactly one Host header", "Host header");
        if (const auto* rules = ictx_.rules_for(s_.target.host, s_.target.port)) {
            // The path read by a server that routes before it decodes (an encoded '/' kept):
            // deny rules judge it too.
            auto kept = decoded_request_path(head.target, problem, true);
            if (!kept) return refuse_with(400, problem, "request target");
            if (auto r = judge_request(rules->first, rules->second, head.method, *path,
                                       *kept == *path ? std::string() : *kept))
                return refuse_with(403, r->reason, r->rule);
        }
        const BoundCredential* mine = ictx_.credential_for(s_.target.host, s_.target.port);
        CredentialOutcome c = apply_credentials(head.headers, head.target, mine, ictx_.credentials,
                                                s_.target.authority());
        if (c.refused) return refuse_with(403, c.reason, c.field);
        rec.verdict = "allow";
        rec.credential = c.injected;
        if (c.injected && mine) {
            rec.credential_host = mine->host;
            rec.credential_kind = mine->as.substr(0, mine->as.find(':'));
        }
        log_request(rec);
        request_ = rec;
        return Judgement{};
    }

    // The body of the request judged last: a placeholder bound to another host is refused
    // before the piece holding it goes on, and logged as that request's refusal.
    Judgement check_body(std::string_view window) {
        CredentialOutcome c =
            placeholder_in_body(window, ictx_.credential_for(s_.target.host, s_.target.port),
                                ictx_.credentials, s_.target.authority());
        if (!c.refused) return Judgement{};
        RequestRecord rec = request_;
        rec.verdict = "deny";
        rec.status = 403;
        rec.reason = c.reason;
        rec.rule = c.field;
        rec.credential = false;
        rec.credential_host.clear();
        rec.credential_kind.clear();
        log_request(rec);
        return Judgement{true, 403, c.reason};
    }

    // Requests up (parsed, judged), responses down (as they come), until either side ends.
    std::string pump() {
        // Bodies are looked at only where a placeholder could be in one (a credential is bound).
        RequestStream stream(
            [this](RequestHead& h) { return judge(h); },
            ictx_.credentials.empty()
                ? RequestStream::BodyCheck{}
                : [this](std::string_view w) { return check_body(w); },
            longest_placeholder(ictx_.credentials));
        std::string in, out;
        for (;;) {
            bool client_ready = SSL_has_pending(client_.get()),
                 server_ready = SSL_has_pending(server_.get());
            if (!client_ready && !server_ready) {
                pollfd p[2] = {{s_.client.get(), POLLIN, 0}, {s_.server.get(), POLLIN, 0}};
                int n = ::poll(p, 2, static_cast<int>(s_.idle_timeout.count()));
                if (n < 0 && errno == EINTR) continue;
                if (n <= 0)
                    return n == 0 ? "idle for " + std::to_string(s_.idle_timeout.count()) + " ms"
                                  : "poll failed";
                client_ready = p[0].revents != 0;
                server_ready = p[1].revents != 0;
            }
            auto deadline = Clock::now() + s_.idle_timeout;
            if (client_ready) {
                bool ended = false;
                Io r = read_ssl(client_.get(), in, ended);
                if (r == Io::closed || r == Io::failed) return "";
                if (r == Io::ok) {
                    s_.record.bytes_up += in.size();
                    out.clear();
                    bool go_on = stream.feed(in, out);
                    if (!out.empty() &&
                        write_all_ssl(server_.get(), s_.server.get(), out, deadline) != Io::ok)
                        return "the server stopped reading";
                    // The request's own log line is the refusal; the connection was allowed.
                    if (!go_on)
                        return refuse(stream.refusal().status, stream.refusal().reason, false);
                    if (ended) return "";
                }
            }
            if (server_ready) {
                bool ended = false;
                Io r = read_ssl(server_.get(), in, ended);
                if (r == Io::closed || r == Io::failed) return "";
                if (r == Io::ok) {
                    s_.record.bytes_down += in.size();
                    if (write_all_ssl(client_.get(), s_.client.get(), in, deadline) != Io::ok)
                        return "the client stopped reading";
                    if (ended) return "";
                }
            }
        }
    }

    // Answers the step over its TLS, then ends the connection; the reason is the record's.
    std::string refuse(int status, const std::string& reason, bool connection_refused = true) {
        if (client_)
            write_all_ssl(client_.get(), s_.client.get(), http_refusal(status, reason),
                          Clock::now() + std::chrono::seconds(2));
        if (connection_refused) {
            s_.record.status = status;
            s_.record.verdict = "deny";
        }
        return reason;
    }

    InspectedStart& s_;
    const InspectContext& ictx_;
    SslPtr client_;
    SslPtr server_;
    RequestRecord request_;  // the request whose body is passing
};

}  // namespace

void run_inspected(InspectedStart s, const InspectContext& ictx) {
    Connection(s, ictx).run();
}

}  // namespace toolcage::relay
