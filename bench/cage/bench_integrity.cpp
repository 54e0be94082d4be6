// The after-step check's cost (cage/integrity/workspace_guard.h): the snapshot before a caged step
// and the compare after it, on a workspace with a normal .git (git init's hook samples, a config,
// .gitmodules, .vscode). Goal: snapshot + compare under 5 ms. Whole-process: bench/integrity.sh.
#include <benchmark/benchmark.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "cage/integrity/protected_paths.h"
#include "cage/integrity/workspace_guard.h"

using namespace toolcage::cage;
namespace fs = std::filesystem;

namespace {

// A scratch repository made by the real git (its hook samples are the bulk of .git/hooks).
struct Repo {
    fs::path dir;
    Repo() {
        char tmpl[] = "/tmp/toolcage-bench-integrity-XXXXXX";
        if (!::mkdtemp(tmpl)) std::abort();
        dir = tmpl;
        std::string cmd = "cd " + dir.string() +
                          " && git init -q . && mkdir -p .vscode src && echo '{}' > .vscode/settings.json"
                          " && printf '[submodule \"a\"]\\n\\tpath = a\\n' > .gitmodules"
                          " && for i in $(seq 1 200); do echo $i > src/f$i.c; done"
                          " && git add -A && git -c user.name=b -c user.email=b@example.org commit -q -m b";
        if (std::system(cmd.c_str()) != 0) std::abort();
    }
    ~Repo() {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
};

Repo& repo() {
    static Repo r;
    return r;
}

void BM_ProtectedList(benchmark::State& s) {
    for (auto _ : s) benchmark::DoNotOptimize(protected_paths({".claude/commands/", "Makefile"}));
}
BENCHMARK(BM_ProtectedList);

void BM_Snapshot(benchmark::State& s) {
    auto paths = protected_paths({});
    for (auto _ : s) {
        WorkspaceGuard g(repo().dir.string(), paths);
        benchmark::DoNotOptimize(g.snapshot_bytes());
    }
}
BENCHMARK(BM_Snapshot)->Unit(benchmark::kMicrosecond);

void BM_Compare(benchmark::State& s) {
    WorkspaceGuard g(repo().dir.string(), protected_paths({}));
    for (auto _ : s) benchmark::DoNotOptimize(g.restore());
}
BENCHMARK(BM_Compare)->Unit(benchmark::kMicrosecond);

// What every caged step pays: both.
void BM_SnapshotAndCompare(benchmark::State& s) {
    auto paths = protected_paths({});
    for (auto _ : s) {
        WorkspaceGuard g(repo().dir.string(), paths);
        benchmark::DoNotOptimize(g.restore());
    }
    WorkspaceGuard g(repo().dir.string(), paths);
    s.counters["snapshot_bytes"] = static_cast<double>(g.snapshot_bytes());
}
BENCHMARK(BM_SnapshotAndCompare)->Unit(benchmark::kMicrosecond);

// A step that changed .git/config: compare and restore.
void BM_CompareAndRestoreConfig(benchmark::State& s) {
    WorkspaceGuard g(repo().dir.string(), protected_paths({}));
    fs::path config = repo().dir / ".git/config";
    for (auto _ : s) {
        s.PauseTiming();
        std::ofstream(config, std::ios::app) << "[core]\n\tfsmonitor = /x\n";
        s.ResumeTiming();
        benchmark::DoNotOptimize(g.restore());
    }
}
BENCHMARK(BM_CompareAndRestoreConfig)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
