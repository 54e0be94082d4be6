// The hook's steps one by one, on a typical Hermes terminal payload.
#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <filesystem>

#include "common/user_home.h"
#include "common/policy_loader.h"
#include "hook/decision/python_readonly.h"
#include "hook/decision/rewrite.h"
#include "hook/decision/soul.h"
#include "hook/pipeline/hook.h"
#include "profiles/compiled_profiles.h"

using namespace toolcage;

namespace {

std::string payload(const std::string& command) {
    return nlohmann::json{{"hook_event_name", "pre_tool_call"},
                          {"tool_name", "terminal"},
                          {"tool_input", {{"command", command}, {"background", false}, {"timeout", 180}}},
                          {"session_id", "s"},
                          {"cwd", "/tmp"},
                          {"profile", "default"},
                          {"extra", nlohmann::json::object()}}
        .dump();
}

void BM_handle_payload(benchmark::State& state, const char* command) {
    // A log of the benchmark's own ($TOOLCAGE_LOG counts only under toolcage's state directory).
    const std::string log = primary_state_dir() + "/bench-logs/hook_bench.jsonl";
    setenv("TOOLCAGE_LOG", log.c_str(), 1);
    hook::HookOptions opts;
    opts.policy = TOOLCAGE_SOURCE_DIR "/profiles/default.json";  // no install needed
    std::string p = payload(command);
    hook::HookEnv env = hook::env_from_process();
    for (auto _ : state) {
        auto r = hook::handle_payload(
            p, opts, [](const std::string& n) { return load_policy(n, compiled_profiles()); }, env);
        benchmark::DoNotOptimize(r);
    }
    std::remove(log.c_str());
}
BENCHMARK_CAPTURE(BM_handle_payload, read_only, "git status --short");
BENCHMARK_CAPTURE(BM_handle_payload, caged, "npm test -- --runInBand 2>&1 | tail -n 50");

// Parsed and validated, as a policy of one's own is; and an unmodified shipped one.
void BM_load_policy_parsed(benchmark::State& state) {
    for (auto _ : state) benchmark::DoNotOptimize(load_policy(TOOLCAGE_SOURCE_DIR "/profiles/default.json"));
}
BENCHMARK(BM_load_policy_parsed);

void BM_load_policy_compiled(benchmark::State& state) {
    for (auto _ : state)
        benchmark::DoNotOptimize(load_policy(TOOLCAGE_SOURCE_DIR "/profiles/default.json", compiled_profiles()));
}
BENCHMARK(BM_load_policy_compiled);

void BM_python_read_only(benchmark::State& state) {
    const std::string code =
        "import json, math\nrows = [{'x': i, 'y': math.sqrt(i)} for i in range(100)]\n"
        "print(json.dumps(rows[:3], indent=2))\nprint(f'{len(rows)} rows')\n";
    for (auto _ : state) benchmark::DoNotOptimize(hook::check_python_text(code));
}
BENCHMARK(BM_python_read_only);

void BM_rewrite(benchmark::State& state) {
    for (auto _ : state)
        benchmark::DoNotOptimize(hook::cage_rewrite("/usr/local/bin/toolcage", "default", "0123456789abcdef", "/home/u/ws",
                                                    "npm test && echo 'it'\\''s done'"));
}
BENCHMARK(BM_rewrite);

void BM_soul_directive(benchmark::State& state) {
    std::string text = "---\nname: forge\ntoolcage: forge\n---\n" + std::string(4000, 'x');
    for (auto _ : state) benchmark::DoNotOptimize(hook::soul_directive(text));
}
BENCHMARK(BM_soul_directive);

}  // namespace

BENCHMARK_MAIN();
