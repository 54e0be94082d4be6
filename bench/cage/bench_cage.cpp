#include <benchmark/benchmark.h>
#include <unistd.h>

#include "cage/containment/landlock.h"
#include "cage/containment/probe.h"
#include "cage/containment/seccomp.h"
#include "cage/settings/environment.h"

extern char** environ;

using namespace toolcage::cage;

namespace {

ExpandedCage default_like() {
    ExpandedCage c;
    c.read = {"/usr", "/bin", "/sbin", "/lib", "/lib64", "/etc", "/opt", "/dev", "/proc", "/tmp"};
    c.write = {"/tmp", "/dev/null", "/dev/zero", "/dev/full", "/dev/tty"};
    c.execute = {"/usr", "/bin", "/sbin", "/lib", "/lib64", "/opt", "/tmp"};
    return c;
}

void BM_ProbeLandlockAbi(benchmark::State& s) {
    for (auto _ : s) benchmark::DoNotOptimize(probe_landlock_abi());
}
BENCHMARK(BM_ProbeLandlockAbi);

void BM_PlanLandlock(benchmark::State& s) {
    ExpandedCage c = default_like();
    for (auto _ : s) benchmark::DoNotOptimize(plan_landlock(c, 7, 7, std::nullopt));
}
BENCHMARK(BM_PlanLandlock);

void BM_BuildLandlockRuleset(benchmark::State& s) {
    LandlockPlan plan = plan_landlock(default_like(), 7, 7, std::nullopt);
    for (auto _ : s) {
        int fd = build_landlock_ruleset(plan);
        ::close(fd);
    }
}
BENCHMARK(BM_BuildLandlockRuleset);

void BM_BuildSeccompProgram(benchmark::State& s) {
    for (auto _ : s) benchmark::DoNotOptimize(build_seccomp_program());
}
BENCHMARK(BM_BuildSeccompProgram);

void BM_BuildEnvironment(benchmark::State& s) {
    Environment outer = parse_environ(environ);
    EnvironmentSpec spec;
    spec.execute = default_like().execute;
    spec.workdir = "/tmp";
    spec.tmpdir = "/tmp/toolcage-x";
    for (auto _ : s) benchmark::DoNotOptimize(build_environment(outer, spec));
}
BENCHMARK(BM_BuildEnvironment);

}  // namespace

BENCHMARK_MAIN();
