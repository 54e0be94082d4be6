// Classifier throughput: every command of the project's corpus (and the shared one, when there) plus typical agent commands, one
// classify_command() call each. Goal: at least 100,000 commands per second on one core.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "hook/classify/classifier.h"

namespace {

std::string decode(const std::string& s) {
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '\\' && i + 1 < s.size() && (s[i + 1] == 'n' || s[i + 1] == 't' || s[i + 1] == '\\')) {
            out += s[i + 1] == 'n' ? '\n' : (s[i + 1] == 't' ? '\t' : '\\');
            ++i;
            continue;
        }
        out += s[i];
    }
    return out;
}

// The project's corpus (tests/data), and the team's shared one when it is there beside it.
std::vector<std::string> corpus() {
    std::vector<std::string> out;
    for (const std::string dir : {TOOLCAGE_TEST_DATA, TOOLCAGE_SHARED_DATA}) {
        std::ifstream in(dir + "/commands.tsv");
        std::string line;
        std::getline(in, line);
        while (std::getline(in, line)) {
            size_t t = line.find('\t');
            if (t != std::string::npos) out.push_back(decode(line.substr(0, t)));
        }
    }
    return out;
}

// What agents run most: reads, builds, git, small pipelines.
const std::vector<std::string> kTypical = {
    "ls -la",
    "git status",
    "git diff --stat",
    "cat src/main.rs | head -50",
    "grep -rn 'TODO' src/ | wc -l",
    "npm test",
    "cargo build --release 2>&1 | tail -20",
    "cd build && cmake .. && make -j4",
    "find . -name '*.py' -not -path './.venv/*' | xargs grep -l 'import os'",
    "python3 -c \"import json,sys; print(json.load(open('package.json'))['version'])\"",
    "for f in src/*.c; do gcc -c \"$f\" -o \"${f%.c}.o\"; done",
    "if [ -f .env.example ]; then cp .env.example .env.local; fi",
    "rm -rf node_modules && npm ci",
    "docker compose logs --tail 100 web",
    "git log --oneline -20 --graph",
    "sed -n '100,200p' src/app.py",
    "curl -s https://api.example.com/health | jq .status",
    "export PATH=\"$HOME/.cargo/bin:$PATH\" && cargo --version",
};

void BM_corpus(benchmark::State& state) {
    std::vector<std::string> cmds = corpus();
    if (cmds.empty()) {
        state.SkipWithError("commands.tsv not found in tests/data");
        return;
    }
    toolcage::classify::Context ctx{"/home/agent/project", "/home/agent/project", "/home/agent", "/home/agent", "/tmp"};
    toolcage::Policy policy;
    size_t n = 0;
    for (auto _ : state) {
        for (const std::string& c : cmds) {
            benchmark::DoNotOptimize(toolcage::classify::classify_command(c, ctx, policy));
        }
        n += cmds.size();
    }
    state.SetItemsProcessed(static_cast<int64_t>(n));
}
BENCHMARK(BM_corpus)->Unit(benchmark::kMillisecond);

void BM_typical(benchmark::State& state) {
    toolcage::classify::Context ctx{"/home/agent/project", "/home/agent/project", "/home/agent", "/home/agent", "/tmp"};
    toolcage::Policy policy;
    size_t n = 0;
    for (auto _ : state) {
        for (const std::string& c : kTypical) {
            benchmark::DoNotOptimize(toolcage::classify::classify_command(c, ctx, policy));
        }
        n += kTypical.size();
    }
    state.SetItemsProcessed(static_cast<int64_t>(n));
}
BENCHMARK(BM_typical)->Unit(benchmark::kMillisecond);

void BM_simple(benchmark::State& state) {
    toolcage::classify::Context ctx{"/home/agent/project", "/home/agent/project", "/home/agent", "/home/agent", "/tmp"};
    toolcage::Policy policy;
    for (auto _ : state) benchmark::DoNotOptimize(toolcage::classify::classify_command("ls -la src", ctx, policy));
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_simple);

}  // namespace

BENCHMARK_MAIN();
