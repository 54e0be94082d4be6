#include "relay/inspect/ca.h"

#include <fcntl.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>

#include "common/error.h"
#include "common/text.h"
#include "common/user_home.h"

namespace toolcage::relay {
namespace {

std::string openssl_error() {
    unsigned long e = ERR_get_error();
    ERR_clear_error();
    if (!e) return "unknown OpenSSL error";
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    return buf;
}

[[noreturn]] void fail(const std::string& what) {
    throw Error(what + ": " + openssl_error());
}

EVP_PKEY* new_p256_key() {
    EVP_PKEY* k = EVP_EC_gen("P-256");
    if (!k) fail("EVP_EC_gen(\"P-256\")");
    return k;
}

void add_ext(X509* cert, X509* issuer, int nid, const char* value) {
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
    X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
    if (!ext) fail(std::string("X509V3_EXT_conf_nid(") + OBJ_nid2sn(nid) + ", " + value + ")");
    X509_add_ext(cert, ext, -1);
    X509_EXTENSION_free(ext);
}

void random_serial(X509* cert) {
    unsigned char bytes[16];
    if (RAND_bytes(bytes, sizeof bytes) != 1) fail("RAND_bytes");
    bytes[0] &= 0x7f;  // positive
    BIGNUM* bn = BN_bin2bn(bytes, sizeof bytes, nullptr);
    // X509_set_serialNumber copies: the integer made here is ours to free.
    ASN1_INTEGER* serial = BN_to_ASN1_INTEGER(bn, nullptr);
    X509_set_serialNumber(cert, serial);
    ASN1_INTEGER_free(serial);
    BN_free(bn);
}

// A certificate with `subject_cn`, valid from an hour ago (clock skew) for `days`.
X509* new_cert(EVP_PKEY* key, const std::string& subject_cn, long days) {
    X509* cert = X509_new();
    X509_set_version(cert, 2);
    random_serial(cert);
    X509_gmtime_adj(X509_getm_notBefore(cert), -3600);
    X509_gmtime_adj(X509_getm_notAfter(cert), days * 24 * 3600);
    X509_set_pubkey(cert, key);
    X509_NAME* name = X509_get_subject_name(cert);
    X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC,
                               reinterpret_cast<const unsigned char*>("toolcage"), -1, -1, 0);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                               reinterpret_cast<const unsigned char*>(subject_cn.c_str()), -1, -1,
                               0);
    return cert;
}

void write_file(const std::string& path, const std::string& data, mode_t mode) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd < 0) throw Error(syscall_error("open(\"" + path + "\", O_CREAT | O_EXCL)", errno));
    ssize_t n = ::write(fd, data.data(), data.size());
    int err = errno;
    ::close(fd);
    if (n != static_cast<ssize_t>(data.size()))
        throw Error(syscall_error("write(\"" + path + "\")", n < 0 ? err : EIO));
}

template <class F>
std::string to_pem(F&& write) {
    BIO* mem = BIO_new(BIO_s_mem());
    if (!write(mem)) {
        BIO_free(mem);
        fail("PEM_write_bio");
    }
    char* data = nullptr;
    long len = BIO_get_mem_data(mem, &data);
    std::string out(data, static_cast<std::size_t>(len));
    BIO_free(mem);
    return out;
}

}  // namespace

std::string ca_cert_path(const std::string& dir) {
    return dir + "/ca.pem";
}
std::string ca_key_path(const std::string& dir) {
    return dir + "/ca.key";
}

void ensure_ca(const std::string& dir) {
    std::error_code ec;
    if (std::filesystem::exists(ca_key_path(dir), ec) &&
        std::filesystem::exists(ca_cert_path(dir), ec))
        return;
    if (std::string why = make_private_dirs(dir); !why.empty())
        throw Error("the inspection CA's directory " + dir + ": " + why +
                    "; make it writable by this user");
    if (std::string why = private_dir_problem(dir); !why.empty())
        throw Error("the inspection CA's directory: " + why);
    EVP_PKEY* key = new_p256_key();
    X509* cert = new_cert(key, "toolcage inspection CA", 3650);
    X509_set_issuer_name(cert, X509_get_subject_name(cert));
    add_ext(cert, cert, NID_basic_constraints, "critical,CA:TRUE,pathlen:0");
    add_ext(cert, cert, NID_key_usage, "critical,keyCertSign,cRLSign");
    add_ext(cert, cert, NID_subject_key_identifier, "hash");
    if (X509_sign(cert, key, EVP_sha256()) == 0) fail("X509_sign (the CA)");
    std::string key_pem = to_pem([&](BIO* b) {
        return PEM_write_bio_PrivateKey(b, key, nullptr, nullptr, 0, nullptr, nullptr) == 1;
    });
    std::string cert_pem = to_pem([&](BIO* b) { return PEM_write_bio_X509(b, cert) == 1; });
    X509_free(cert);
    EVP_PKEY_free(key);
    // A half-made pair from an interrupted run is replaced; the key is written first, 0600.
    ::unlink(ca_key_path(dir).c_str());
    ::unlink(ca_cert_path(dir).c_str());
    write_file(ca_key_path(dir), key_pem, 0600);
    write_file(ca_cert_path(dir), cert_pem, 0644);
}

std::shared_ptr<InspectCa> InspectCa::load(const std::string& dir) {
    std::shared_ptr<InspectCa> ca(new InspectCa());
    FILE* f = std::fopen(ca_key_path(dir).c_str(), "re");
    if (!f)
        throw Error(syscall_error("fopen(\"" + ca_key_path(dir) + "\")", errno) +
                    "; run toolcage-relay --make-ca " + dir);
    ca->ca_key_ = PEM_read_PrivateKey(f, nullptr, nullptr, nullptr);
    std::fclose(f);
    if (!ca->ca_key_) fail("reading the CA key " + ca_key_path(dir));
    f = std::fopen(ca_cert_path(dir).c_str(), "re");
    if (!f)
        throw Error(syscall_error("fopen(\"" + ca_cert_path(dir) + "\")", errno) +
                    "; run toolcage-relay --make-ca " + dir);
    ca->ca_cert_ = PEM_read_X509(f, nullptr, nullptr, nullptr);
    std::fclose(f);
    if (!ca->ca_cert_) fail("reading the CA certificate " + ca_cert_path(dir));
    if (X509_check_private_key(ca->ca_cert_, ca->ca_key_) != 1)
        throw Error(ca_key_path(dir) + " does not match " + ca_cert_path(dir) +
                    "; remove both to make a new CA");
    ca->leaf_key_ = new_p256_key();
    return ca;
}

InspectCa::~InspectCa() {
    EVP_PKEY_free(ca_key_);
    X509_free(ca_cert_);
    EVP_PKEY_free(leaf_key_);
}

namespace {

X509* make_leaf(EVP_PKEY* leaf_key, EVP_PKEY* ca_key, X509* ca_cert, const std::string& host) {
    // Seven days: the relay lives as long as a step; a leaf never outlives its CA's trust.
    X509* cert = new_cert(leaf_key, host, 7);
    X509_set_issuer_name(cert, X509_get_subject_name(ca_cert));
    add_ext(cert, ca_cert, NID_basic_constraints, "critical,CA:FALSE");
    add_ext(cert, ca_cert, NID_key_usage, "critical,digitalSignature");
    add_ext(cert, ca_cert, NID_ext_key_usage, "serverAuth");
    add_ext(cert, ca_cert, NID_authority_key_identifier, "keyid:always");
    add_ext(cert, ca_cert, NID_subject_alt_name, ("DNS:" + host).c_str());
    if (X509_sign(cert, ca_key, EVP_sha256()) == 0) fail("X509_sign (leaf for " + host + ")");
    return cert;
}

// ALPN: http/1.1 only, whatever else the client offers; a client offering only h2 gets no ALPN
// answer and speaks HTTP/1.1 or gives up.
int select_http11(SSL*, const unsigned char** out, unsigned char* outlen, const unsigned char* in,
                  unsigned int inlen, void*) {
    static const unsigned char want[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
    unsigned char* sel = nullptr;
    if (SSL_select_next_proto(&sel, outlen, want, sizeof want, in, inlen) ==
        OPENSSL_NPN_NEGOTIATED) {
        *out = sel;
        return SSL_TLSEXT_ERR_OK;
    }
    return SSL_TLSEXT_ERR_NOACK;
}

}  // namespace

SSL_CTX* InspectCa::server_context(const std::string& host) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = contexts_.find(host);
    if (it != contexts_.end()) return it->second.get();
    X509* leaf = make_leaf(leaf_key_, ca_key_, ca_cert_, host);
    SslCtxPtr ctx(SSL_CTX_new(TLS_server_method()));
    if (!ctx) fail("SSL_CTX_new(TLS_server_method())");
    SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION);
    bool ok = SSL_CTX_use_certificate(ctx.get(), leaf) == 1 &&
              SSL_CTX_use_PrivateKey(ctx.get(), leaf_key_) == 1 &&
              SSL_CTX_add1_chain_cert(ctx.get(), ca_cert_) == 1;
    X509_free(leaf);
    if (!ok) fail("setting the leaf certificate for " + host);
    SSL_CTX_set_alpn_select_cb(ctx.get(), select_http11, nullptr);
    SSL_CTX_set_mode(ctx.get(),
                     SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    SSL_CTX_set_session_cache_mode(ctx.get(), SSL_SESS_CACHE_OFF);
    SSL_CTX_set_num_tickets(ctx.get(), 0);
    SSL_CTX* raw = ctx.get();
    contexts_.emplace(host, std::move(ctx));
    return raw;
}

std::string issue_leaf_pem(InspectCa& ca, const std::string& host) {
    SSL_CTX* ctx = ca.server_context(host);
    X509* leaf = SSL_CTX_get0_certificate(ctx);
    return to_pem([&](BIO* b) { return PEM_write_bio_X509(b, leaf) == 1; });
}

}  // namespace toolcage::relay
