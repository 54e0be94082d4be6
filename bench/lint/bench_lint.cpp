// `toolcage policy lint` on N endpoints (20,000 at the largest): run_lint against its linear
// peer, one pass that reads every endpoint's shape. Their ratio should stay flat as N grows;
// a quadratic check would grow it N-fold.
#include <benchmark/benchmark.h>

#include <string>

#include "lint/endpoint_shape.h"
#include "lint/lint.h"
#include "lint/openshell_policy_file.h"

using namespace toolcage::lint;

namespace {

// N endpoints over N/4 hosts, a wildcard for every 50 hosts, shapes as stock policies use them
// (plain L4, inspected REST, a path of its own) so that the check has pairs to compare.
LintInput deployment(int n) {
    OpenShellPolicy p;
    p.file = "big.yaml";
    NetworkRule rule;
    rule.key = "big";
    for (int i = 0; i < n; ++i) {
        Endpoint e;
        const int host = i / 4;
        e.host = (host % 50 == 49 ? "**.d" + std::to_string(host / 50) : "h" + std::to_string(host) + ".d" +
                                                                              std::to_string(host / 50)) +
                 ".example.com";
        e.ports = {443};
        if (i % 4 >= 1) {
            e.protocol = "rest";
            e.access = "read-only";
            e.enforcement = "enforce";
            e.path = "/v" + std::to_string(i % 4) + "/**";
        }
        e.field = "network_policies.big.endpoints[" + std::to_string(i) + "]";
        rule.endpoints.push_back(e);
    }
    p.rules.push_back(rule);
    LintInput in;
    in.openshell.push_back(p);
    return in;
}

void BM_lint(benchmark::State& state) {
    LintInput in = deployment(static_cast<int>(state.range(0)));
    for (auto _ : state) benchmark::DoNotOptimize(run_lint(in));
    state.SetComplexityN(state.range(0));
}

void BM_peer_read_shapes(benchmark::State& state) {
    LintInput in = deployment(static_cast<int>(state.range(0)));
    for (auto _ : state) {
        std::size_t total = 0;
        for (const auto& e : in.openshell[0].rules[0].endpoints) total += shape_key(e).size();
        benchmark::DoNotOptimize(total);
    }
    state.SetComplexityN(state.range(0));
}

}  // namespace

BENCHMARK(BM_lint)->RangeMultiplier(4)->Range(1250, 20000)->Complexity()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_peer_read_shapes)->RangeMultiplier(4)->Range(1250, 20000)->Complexity()->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
