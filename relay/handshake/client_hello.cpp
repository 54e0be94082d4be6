#include "relay/handshake/client_hello.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/tls1.h>

#include <memory>

namespace toolcage::relay {
namespace {

// encrypted_client_hello (draft-ietf-tls-esni) and the earlier encrypted_server_name. OpenSSL
// 3.0 knows neither, and the ClientHello callback sees only extensions it knows, so they are
// registered as custom extensions below: then SSL_client_hello_get0_ext finds them.
constexpr unsigned kExtEch = 0xfe0d;
constexpr unsigned kExtEsni = 0xffce;

// What the callback saw, handed over through the SSL object's app data.
struct Seen {
    bool called = false;
    std::optional<std::string> server_name;
    bool encrypted_name = false;
    std::string problem;
};

// The extension's ServerNameList, read as OpenSSL's own server does (tls_parse_ctos_server_name):
// exactly one entry, of type host_name, filling the list; a name of 1..255 bytes without NUL.
// Anything else is refused, never guessed at: another TLS stack might read it otherwise.
void read_server_name(const unsigned char* p, size_t len, Seen& seen) {
    if (len < 2 || static_cast<size_t>((p[0] << 8) | p[1]) != len - 2 || len < 2 + 3) {
        seen.problem = "its server_name extension is malformed";
        return;
    }
    if (p[2] != TLSEXT_NAMETYPE_host_name) {
        seen.problem = "its server_name extension names something other than a host name";
        return;
    }
    size_t name_len = static_cast<size_t>((p[3] << 8) | p[4]);
    if (name_len != len - 5) {
        seen.problem = "its server_name extension holds more or less than one host name";
        return;
    }
    std::string name(reinterpret_cast<const char*>(p + 5), name_len);
    if (name.empty() || name.size() > TLSEXT_MAXLEN_host_name ||
        name.find('\0') != std::string::npos) {
        seen.problem = "its server name is empty, longer than 255 bytes or holds a NUL byte";
        return;
    }
    seen.server_name = std::move(name);
}

int on_client_hello(SSL* ssl, int* alert, void*) {
    auto* seen = static_cast<Seen*>(SSL_get_app_data(ssl));
    seen->called = true;
    const unsigned char* p = nullptr;
    size_t len = 0;
    if (SSL_client_hello_get0_ext(ssl, TLSEXT_TYPE_server_name, &p, &len) == 1)
        read_server_name(p, len, *seen);
    seen->encrypted_name = SSL_client_hello_get0_ext(ssl, kExtEch, &p, &len) == 1 ||
                           SSL_client_hello_get0_ext(ssl, kExtEsni, &p, &len) == 1;
    // Never go further: the relay only reads. The alert OpenSSL writes now is the refusal's.
    *alert = SSL_AD_ACCESS_DENIED;
    return SSL_CLIENT_HELLO_ERROR;
}

int accept_any(SSL*, unsigned, unsigned, const unsigned char*, size_t, X509*, size_t, int*, void*) {
    return 1;
}

// One context for every read, made once (thread-safe static), never freed.
SSL_CTX* reading_context() {
    static SSL_CTX* ctx = [] {
        SSL_CTX* c = SSL_CTX_new(TLS_server_method());
        if (!c) return c;
        SSL_CTX_set_client_hello_cb(c, on_client_hello, nullptr);
        for (unsigned type : {kExtEch, kExtEsni})
            if (!SSL_extension_supported(type))
                SSL_CTX_add_custom_ext(c, type, SSL_EXT_CLIENT_HELLO, nullptr, nullptr, nullptr,
                                       accept_any, nullptr);
        return c;
    }();
    return ctx;
}

struct SslFree {
    void operator()(SSL* s) const { SSL_free(s); }
};

}  // namespace

ClientHelloRead read_client_hello(std::string_view bytes) {
    ClientHelloRead out;
    SSL_CTX* ctx = reading_context();
    if (!ctx) {
        out.state = ClientHelloRead::State::malformed;
        out.problem = "OpenSSL could not make a context to read it (SSL_CTX_new failed)";
        return out;
    }
    std::unique_ptr<SSL, SslFree> ssl(SSL_new(ctx));
    BIO* in = BIO_new_mem_buf(bytes.data(), static_cast<int>(bytes.size()));
    BIO* sent = BIO_new(BIO_s_mem());
    if (!ssl || !in || !sent) {
        BIO_free(in);
        BIO_free(sent);
        out.state = ClientHelloRead::State::malformed;
        out.problem = "OpenSSL is out of memory";
        return out;
    }
    // A read-only buffer at its end says "retry", not EOF: an incomplete hello waits for more.
    BIO_set_mem_eof_return(in, -1);
    SSL_set_bio(ssl.get(), in, sent);  // the SSL object owns both from here
    Seen seen;
    SSL_set_app_data(ssl.get(), &seen);
    SSL_set_accept_state(ssl.get());
    int rc = SSL_do_handshake(ssl.get());
    int err = SSL_get_error(ssl.get(), rc);
    unsigned long first_error = ERR_peek_error();
    ERR_clear_error();  // the pump thread's error queue stays empty
    if (seen.called) {
        if (!seen.problem.empty()) {
            out.state = ClientHelloRead::State::malformed;
            out.problem = seen.problem;
        } else {
            out.state = ClientHelloRead::State::hello;
            out.server_name = std::move(seen.server_name);
            out.encrypted_name = seen.encrypted_name;
        }
        char* data = nullptr;
        long n = BIO_get_mem_data(sent, &data);
        if (n > 0) out.alert.assign(data, static_cast<size_t>(n));
        return out;
    }
    if (err == SSL_ERROR_WANT_READ) return out;  // incomplete
    out.state = ClientHelloRead::State::malformed;
    char text[256] = "no reason given";
    if (first_error != 0) ERR_error_string_n(first_error, text, sizeof text);
    out.problem = std::string("OpenSSL does not read it as a ClientHello (") + text + ")";
    return out;
}

}  // namespace toolcage::relay
