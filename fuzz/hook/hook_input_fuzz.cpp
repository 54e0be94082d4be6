// Feeds bytes to what the hook reads from the agent. The first byte chooses the reader: even,
// the rest is a shell command (parser, classifier, self-protection, the leading-move split,
// the Python checks); odd, it is a tool call's JSON (the depth bound, then nlohmann's parser,
// then each agent's adapter). Besides the sanitizers, the oracle is libFuzzer's -timeout and
// -rss_limit_mb: the analysis must stay close to linear in its input, whatever the input.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "common/analysis_budget.h"
#include "hook/adapters/adapters.h"
#include "hook/adapters/payload.h"
#include "hook/classify/classifier.h"
#include "hook/decision/one_liner.h"
#include "hook/decision/python_readonly.h"
#include "hook/decision/self_protect.h"
#include "hook/decision/shell_state.h"

using namespace toolcage;

namespace {

void judge_command(const std::string& cmd) {
    static const classify::Context ctx = [] {
        classify::Context c;
        c.cwd = "/home/agent/project";
        c.workspace = "/home/agent/project";
        c.home = "/home/agent";
        c.real_home = "/home/agent";
        c.tmp = "/tmp";
        return c;
    }();
    static const Policy policy{};
    Verdict v = classify::classify_command(cmd, ctx, policy);
    // A bound reached is a refusal, never anything milder.
    if (v.rule == budget::kRule && v.decision != Decision::deny) abort();
    static const hook::ProtectedSet set = [] {
        hook::ToolCall call;
        call.profile_dir = "/home/agent/.hermes";
        return hook::protected_set(call, {"/usr/share/toolcage/profiles"}, "/usr/bin", "/home/agent");
    }();
    if (auto p = hook::check_command(cmd, ctx.cwd, set, false))
        if (p->decision != Decision::deny) abort();
    if (auto split = hook::split_shell_state(cmd)) {
        if (split->inside.empty() || !hook::is_moves_text(split->outside)) abort();
    }
    (void)hook::only_moves(cmd);
    (void)hook::read_only_one_liner(cmd);
    (void)hook::check_python_read_only(cmd);
}

void read_payload(const std::string& text) {
    // As the hook reads it: nothing nested past the bound reaches the parser.
    if (budget::json_too_deep_at(text) != std::string::npos) return;
    nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
    if (doc.is_discarded() || !doc.is_object()) return;
    hook::HookEnv env;
    env.home = "/home/agent";
    env.process_cwd = "/home/agent/project";
    for (auto parse : {hook::parse_claude, hook::parse_hermes, hook::parse_openclaw}) {
        try {
            hook::ToolCall call = parse(doc, env);
            if (!call.command.empty() && call.command.size() < 64 * 1024) judge_command(call.command);
        } catch (const std::exception&) {
            // A payload that is not the agent's: refused by the hook, nothing to follow.
        }
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    std::string rest(reinterpret_cast<const char*>(data) + 1, size - 1);
    if (data[0] % 2 == 0) {
        judge_command(rest);
    } else {
        read_payload(rest);
    }
    return 0;
}
