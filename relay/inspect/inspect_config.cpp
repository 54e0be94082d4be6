#include "relay/inspect/inspect_config.h"

#include <openssl/err.h>
#include <openssl/x509.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/error.h"
#include "common/host_names.h"
#include "common/policy_schema.h"
#include "common/relay_inspection.h"

namespace toolcage::relay {

namespace {

std::string authority(const std::string& host, uint16_t port) {
    return (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" +
           std::to_string(port);
}

std::string read_secret(const std::string& path, const std::string& field) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw Error(field + ": the secret file " + path +
                    " cannot be read by the relay; make it a file of this user's (mode 0600)");
    std::ostringstream ss;
    ss << in.rdbuf();
    std::string s = ss.str();
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
    if (s.empty())
        throw Error(field + ": the secret file " + path +
                    " is empty; write the secret on its one line");
    for (unsigned char c : s)
        if (c < 0x21 || c > 0x7e)
            throw Error(field + ": the secret file " + path +
                        " holds more than one line of visible ASCII characters; write the secret "
                        "alone on one line");
    return s;
}

}  // namespace

const std::string* InspectContext::inspected(const std::string& host, uint16_t port) const {
    const std::string a = authority(host, port);
    for (const auto& e : inspect)
        if (allow_entry_covers(e, a)) return &e;
    return nullptr;
}

const BoundCredential* InspectContext::credential_for(const std::string& host,
                                                      uint16_t port) const {
    const std::string a = authority(host, port);
    for (const auto& c : credentials)
        if (allow_entry_covers(c.host, a)) return &c;
    return nullptr;
}

const std::pair<std::string, RelayRequestRules>* InspectContext::rules_for(const std::string& host,
                                                                           uint16_t port) const {
    const std::string a = authority(host, port);
    for (const auto& r : requests)
        if (allow_entry_covers(r.first, a)) return &r;
    return nullptr;
}

SslCtxPtr upstream_client_context(const std::string& extra_ca) {
    SslCtxPtr ctx(SSL_CTX_new(TLS_client_method()));
    if (!ctx) throw Error("SSL_CTX_new(TLS_client_method()) failed");
    SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION);
    SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, nullptr);
    // The compiled-in paths, not SSL_CTX_set_default_verify_paths(): that one also reads
    // $SSL_CERT_FILE and $SSL_CERT_DIR, which are not the relay's to take.
    X509_STORE* store = SSL_CTX_get_cert_store(ctx.get());
    X509_STORE_load_file(store, X509_get_default_cert_file());
    X509_STORE_load_path(store, X509_get_default_cert_dir());
    ERR_clear_error();
    if (!extra_ca.empty() &&
        SSL_CTX_load_verify_locations(ctx.get(), extra_ca.c_str(), nullptr) != 1) {
        ERR_clear_error();
        throw Error(
            "relay.upstream_ca: " + extra_ca +
            " holds no PEM certificate OpenSSL can read; name a PEM file of CA certificates");
    }
    static const unsigned char alpn[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
    SSL_CTX_set_alpn_protos(ctx.get(), alpn, sizeof alpn);
    SSL_CTX_set_mode(ctx.get(),
                     SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    return ctx;
}

std::shared_ptr<InspectContext> load_inspect_file(const std::string& path) {
    nlohmann::json doc;
    try {
        std::ifstream in(path);
        if (!in)
            throw Error("--inspect-file " + path +
                        ": cannot be read; name the file toolcage run wrote");
        doc = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
        throw Error("--inspect-file " + path + ": not JSON (" + e.what() + ")");
    }
    auto ctx = std::make_shared<InspectContext>();
    try {
        ctx->inspect = doc.at("inspect").get<std::vector<std::string>>();
        ctx->upstream_ca = doc.value("upstream_ca", "");
        const std::string ca_dir = doc.at("ca_dir").get<std::string>();
        ensure_ca(ca_dir);
        ctx->ca = InspectCa::load(ca_dir);
        ctx->upstream = upstream_client_context(ctx->upstream_ca);
        const auto& creds = doc.value("credentials", nlohmann::json::array());
        for (std::size_t i = 0; i < creds.size(); ++i) {
            const auto& c = creds[i];
            BoundCredential b;
            b.field = "relay.credentials/" + std::to_string(i);
            b.host = c.at("host").get<std::string>();
            b.as = c.value("as", "bearer");
            b.env = c.at("placeholder_env").get<std::string>();
            b.placeholder = c.at("placeholder").get<std::string>();
            if (b.placeholder.size() < 16)
                throw Error(b.field +
                            ": the placeholder is too short to be told apart from other text");
            b.secret =
                read_secret(c.at("secret_file").get<std::string>(), b.field + "/secret_file");
            ctx->credentials.push_back(std::move(b));
        }
        if (doc.contains("requests"))
            for (auto it = doc["requests"].begin(); it != doc["requests"].end(); ++it) {
                RelayRequestRules rules;
                for (auto [k, list] :
                     {std::pair{"allow", &rules.allow}, std::pair{"deny", &rules.deny}})
                    if (it->contains(k))
                        for (const auto& r : (*it)[k])
                            list->push_back({r.value("method", "*"), r.value("path", "*")});
                ctx->requests.emplace_back(it.key(), std::move(rules));
            }
    } catch (const nlohmann::json::exception& e) {
        throw Error("--inspect-file " + path + ": " + e.what() +
                    " (write it as toolcage run does)");
    }
    for (const auto& e : ctx->inspect) {
        std::string problem;
        if (!read_allow_entry(e, problem))
            throw Error("--inspect-file: relay.inspect \"" + e + "\": " + problem);
    }
    return ctx;
}

}  // namespace toolcage::relay
