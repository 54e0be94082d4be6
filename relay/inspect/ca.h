// toolcage's own certificate authority for TLS inspection: an EC P-256 key and a self-signed CA
// certificate made once in toolcage's state directory (the key 0600, a directory no step is ever
// granted), and the leaf certificates it signs for inspected hosts, made on demand and kept.
#pragma once

#include <openssl/ssl.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace toolcage::relay {

// The CA's files in `dir`.
std::string ca_cert_path(const std::string& dir);
std::string ca_key_path(const std::string& dir);

// Makes `dir` (0700) and the CA in it unless both files are there. Throws toolcage::Error naming
// the path and the fix.
void ensure_ca(const std::string& dir);

struct SslCtxFree {
    void operator()(SSL_CTX* c) const { SSL_CTX_free(c); }
};
using SslCtxPtr = std::unique_ptr<SSL_CTX, SslCtxFree>;

class InspectCa {
  public:
    // Reads the CA from `dir`. Throws toolcage::Error.
    static std::shared_ptr<InspectCa> load(const std::string& dir);
    ~InspectCa();

    // A server context presenting a leaf for `host` signed by the CA, offering ALPN http/1.1
    // only; made on first use and kept for the relay's life. Thread-safe.
    SSL_CTX* server_context(const std::string& host);

  private:
    InspectCa() = default;
    EVP_PKEY* ca_key_ = nullptr;
    X509* ca_cert_ = nullptr;
    EVP_PKEY* leaf_key_ = nullptr;  // one key for every leaf: made once, it costs no handshake
    std::mutex mu_;
    std::map<std::string, SslCtxPtr> contexts_;
};

// The leaf certificate for `host` (PEM), for tests.
std::string issue_leaf_pem(InspectCa& ca, const std::string& host);

}  // namespace toolcage::relay
