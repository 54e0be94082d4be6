// The hook's analysis on families of pathological inputs of growing size (1 KiB to 64 KiB): each
// must stay close to linear, or stop at a bound (input.too-complex) soon. Reports the time per
// judgement and the process's peak resident set so far (getrusage) as `peak_rss_kib`.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <nlohmann/json.hpp>
#include <string>

#include "common/analysis_budget.h"
#include "hook/classify/classifier.h"
#include "hook/decision/self_protect.h"
#include "hook/decision/shell_state.h"

using namespace toolcage;

namespace {

// `unit` repeated until the text is about n bytes, between `head` and `tail`.
std::string fill(size_t n, const std::string& head, const std::string& unit, const std::string& tail = "") {
    std::string s = head;
    while (s.size() + unit.size() + tail.size() <= n) s += unit;
    return s + tail;
}

// `open` k times, the core, `close` k times: about n bytes.
std::string nest(size_t n, const std::string& open, const std::string& core, const std::string& close) {
    size_t k = n / (open.size() + close.size());
    std::string s;
    s.reserve(n + core.size());
    for (size_t i = 0; i < k; ++i) s += open;
    s += core;
    for (size_t i = 0; i < k; ++i) s += close;
    return s;
}

std::string many_cd(size_t n) {
    std::string s;
    for (size_t i = 0; s.size() < n; ++i) s += "cd d" + std::to_string(i) + "; ";
    return s + "echo x > f";
}

std::string function_calls(size_t n) {
    return fill(n / 2, "f() { echo ", "w ", "; }; ") + fill(n / 2, "", "f; ");
}

long peak_rss_kib() {
    struct rusage u {};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss;
}

// The shell command's judgement as the hook makes it: classifier, self-protection, the split.
void judge(const std::string& cmd) {
    static const classify::Context ctx = [] {
        classify::Context c;
        c.cwd = "/home/agent/project";
        c.workspace = "/home/agent/project";
        c.home = "/home/agent";
        c.tmp = "/tmp";
        return c;
    }();
    static const Policy policy{};
    static const hook::ProtectedSet set = [] {
        hook::ToolCall call;
        call.profile_dir = "/home/agent/.hermes";
        return hook::protected_set(call, {}, "/usr/bin", "/home/agent");
    }();
    Verdict v = classify::classify_command(cmd, ctx, policy);
    benchmark::DoNotOptimize(v);
    auto p = hook::check_command(cmd, ctx.cwd, set, false);
    benchmark::DoNotOptimize(p);
    auto s = hook::split_shell_state(cmd);
    benchmark::DoNotOptimize(s);
}

void run_family(benchmark::State& state, std::string (*make)(size_t)) {
    const std::string input = make(static_cast<size_t>(state.range(0)));
    for (auto _ : state) judge(input);
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * input.size()));
    state.counters["peak_rss_kib"] = static_cast<double>(peak_rss_kib());
}

void BM_json_deep(benchmark::State& state) {
    const std::string input = nest(static_cast<size_t>(state.range(0)), "[", "", "]");
    for (auto _ : state) {
        // As the hook reads a payload: the depth bound first, the parser only within it.
        size_t at = budget::json_too_deep_at(input);
        if (at == std::string::npos) benchmark::DoNotOptimize(nlohmann::json::parse(input, nullptr, false));
        benchmark::DoNotOptimize(at);
    }
    state.counters["peak_rss_kib"] = static_cast<double>(peak_rss_kib());
}

#define FAMILY(name, expr)                                                       \
    std::string make_##name(size_t n) { return expr; }                           \
    void BM_##name(benchmark::State& state) { run_family(state, make_##name); } \
    BENCHMARK(BM_##name)->RangeMultiplier(4)->Range(1 << 10, 1 << 16)->Unit(benchmark::kMillisecond)

FAMILY(doubling_variable, fill(n, "x=a; ", "x=$x$x; ", "echo $x"));
FAMILY(many_cd, many_cd(n));
FAMILY(many_and, fill(n, "", "cd . && ", "make"));
FAMILY(nest_subshell, nest(n, "(", "ls", ")"));
FAMILY(nest_command_sub, "echo " + nest(n, "$(", "ls", ")"));
FAMILY(nest_group, nest(n, "{ ", "ls", "; }"));
FAMILY(nest_if, nest(n, "if ", "true", "; then ls; fi"));
FAMILY(nest_process_sub, "cat " + nest(n, "<(", "ls", ")"));
FAMILY(nest_arithmetic, "echo $((" + nest(n, "(", "1", ")") + "))");
FAMILY(nest_parameter, "echo " + nest(n, "${x:-", "a", "}"));
FAMILY(brace_product, fill(n, "echo ", "{a,b}"));
FAMILY(many_heredocs, fill(n, "", "cat <<E\nx\nE\n"));
FAMILY(long_heredoc, fill(n, "cat <<E\n", "a line of text\n", "E\n"));
FAMILY(function_calls, function_calls(n));
FAMILY(python_nesting, "python3 -c \"print(" + nest(n, "(", "1", ")") + ")\"");
FAMILY(many_words, fill(n, "cd a; cd b; cd c; echo ", "w "));
BENCHMARK(BM_json_deep)->RangeMultiplier(4)->Range(1 << 10, 1 << 16)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
