// The steps a CONNECT goes through before its tunnel opens, timed one by one.
#include <benchmark/benchmark.h>

#include "relay/address_check.h"
#include "relay/allowlist.h"
#include "relay/dial.h"
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

BENCHMARK_MAIN();
