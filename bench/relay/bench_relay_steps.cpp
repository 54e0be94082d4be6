// The steps a CONNECT goes through before its tunnel opens, timed one by one.
#include <benchmark/benchmark.h>
#include <openssl/ssl.h>

#include "relay/address_check.h"
#include "relay/allowlist.h"
#include "relay/dial.h"
#include "relay/handshake/first_bytes.h"
#include "relay/request_parser.h"
#include "relay/target.h"

using namespace toolcage::relay;

static void BM_ParseRequest(benchmark::State& state) {
    std::string req =
        "CONNECT api.example.com:443 HTTP/1.1\r\nHost: api.example.com:443\r\n"
        "Proxy-Authorization: Basic dG9vbGNhZ2U6MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=\r\n"
        "User-Agent: curl/7.88.1\r\n\r\n";
    for (auto _ : state) benchmark::DoNotOptimize(parse_connect_request(req));
}
BENCHMARK(BM_ParseRequest);

static void BM_TargetAndAllowlist(benchmark::State& state) {
    auto list = Allowlist::parse({"api.example.com", "*.example.net", "git.example.org:22"},
                                 "--allow");
    for (auto _ : state) {
        auto t = parse_target("a.b.example.net:443");
        benchmark::DoNotOptimize(list.refusal(*t.target));
    }
}
BENCHMARK(BM_TargetAndAllowlist);

static void BM_ResolveLocalhost(benchmark::State& state) {
    for (auto _ : state) {
        std::string error;
        benchmark::DoNotOptimize(resolve_absolute("localhost", 443, error));
    }
}
BENCHMARK(BM_ResolveLocalhost);

static void BM_OwnAddresses(benchmark::State& state) {
    for (auto _ : state) benchmark::DoNotOptimize(own_addresses());
}
BENCHMARK(BM_OwnAddresses);

// The ClientHello an OpenSSL 3 client sends first (about 300 bytes; a browser's is larger).
static std::string client_hello(const char* sni) {
    SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
    SSL* ssl = SSL_new(ctx);
    SSL_set_tlsext_host_name(ssl, sni);
    BIO* out = BIO_new(BIO_s_mem());
    SSL_set_bio(ssl, BIO_new(BIO_s_mem()), out);
    SSL_set_connect_state(ssl);
    SSL_do_handshake(ssl);
    char* data = nullptr;
    long n = BIO_get_mem_data(out, &data);
    std::string hello(data, n > 0 ? static_cast<size_t>(n) : 0);
    SSL_free(ssl);
    SSL_CTX_free(ctx);
    return hello;
}

// What the handshake check adds to each CONNECT: OpenSSL reads the whole ClientHello once.
static void BM_JudgeClientHello(benchmark::State& state) {
    std::string hello = client_hello("api.example.com");
    HandshakeRule rule{"api.example.com", 443, false, true};
    for (auto _ : state) benchmark::DoNotOptimize(judge_first_bytes(hello, rule));
}
BENCHMARK(BM_JudgeClientHello);

// The worst a slow client makes it do: judged again after every one of its 1-byte reads.
static void BM_JudgeClientHelloByteByByte(benchmark::State& state) {
    std::string hello = client_hello("api.example.com");
    HandshakeRule rule{"api.example.com", 443, false, true};
    for (auto _ : state)
        for (size_t n = 1; n <= hello.size(); ++n)
            benchmark::DoNotOptimize(judge_first_bytes(std::string_view(hello).substr(0, n), rule));
}
BENCHMARK(BM_JudgeClientHelloByteByByte);

BENCHMARK_MAIN();
