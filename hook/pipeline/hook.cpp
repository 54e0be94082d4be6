#include "hook/pipeline/hook.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <initializer_list>
#include <new>
#include <chrono>
#include <nlohmann/json.hpp>

#include "cage/integrity/recover.h"
#include "common/analysis_budget.h"
#include "common/error.h"
#include "common/policy_loader.h"
#include "common/step_id.h"
#include "common/workspace_choice.h"
#include "hook/call/paths.h"
#include "hook/classify/classifier.h"
#include "hook/decision/audit_log.h"
#include "hook/decision/audit_mode.h"
#include "hook/decision/decide.h"
#include "hook/decision/soul.h"
#include "hook/pipeline/process_bounds.h"

namespace toolcage::hook {

using nlohmann::json;

namespace {

using Clock = std::chrono::steady_clock;

long long micros_since(Clock::time_point t0) {
    return std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - t0).count();
}

// Carries a refusal out of the steps below; `agent` is who should read it, when known.
struct Refusal {
    std::optional<Agent> agent;
    std::string reason;
};

json parse_payload(std::string_view payload, std::optional<Agent> agent) {
    if (payload.size() > kMaxPayload)
        throw Refusal{agent, "the payload is larger than 16 MiB; a tool call that large is refused: "
                             "write a file that large in parts (a first Write, then appends or "
                             "edits), or make it with a command"};
    // nlohmann's parser recurses once a level: a payload nested deeper is refused unparsed.
    if (size_t at = budget::json_too_deep_at(payload); at != std::string_view::npos)
        throw Refusal{agent, "the payload nests arrays and objects more than " +
                                 std::to_string(budget::kMaxJsonDepth) + " deep (at byte " +
                                 std::to_string(at) + "); a tool call is never that deep (" +
                                 std::string(budget::kRule) + ")"};
    try {
        json doc = json::parse(payload.begin(), payload.end());
        if (!doc.is_object())
            throw Refusal{agent, std::string("the payload is JSON but not an object (") +
                                     doc.type_name() + "); expected the agent's tool call"};
        return doc;
    } catch (const json::parse_error& e) {
        throw Refusal{agent, "the payload is not valid JSON (at byte " + std::to_string(e.byte) +
                                 "); expected the agent's tool call"};
    }
}

ToolCall parse_call(const json& doc, Agent agent, const HookEnv& env) {
    try {
        switch (agent) {
            case Agent::hermes: return parse_hermes(doc, env);
            case Agent::claude: return parse_claude(doc, env);
            case Agent::openclaw: return parse_openclaw(doc, env);
        }
    } catch (const PayloadError& e) {
        throw Refusal{agent, std::string(e.what()) + " (a " + std::string(to_string(agent)) +
                                 " payload; is --agent right?)"};
    }
    throw Refusal{agent, "unknown agent"};
}

Answer answer_for(const ToolCall& call, const Outcome& o) {
    switch (call.agent) {
        case Agent::hermes: return answer_hermes(call, o);
        case Agent::claude: return answer_claude(call, o);
        case Agent::openclaw: return answer_openclaw(call, o);
    }
    return failure_answer(std::nullopt, "unknown agent");
}

Policy load_chosen(const PolicyChoice& choice, const PolicyLoader& load, Agent agent) {
    std::string chosen_by = choice.step + (choice.source.empty() ? "" : " in " + choice.source);
    if (!choice.error.empty())
        throw Refusal{agent, "no usable policy (chosen by " + chosen_by + "): " + choice.error};
    try {
        return load(choice.policy);
    } catch (const Error& e) {
        throw Refusal{agent, "policy \"" + choice.policy + "\" (chosen by " + chosen_by +
                                 ") cannot be used, so every call is refused: " + e.what()};
    }
}

std::vector<std::string> policy_dir_strings() {
    std::vector<std::string> out;
    for (const auto& d : profile_dirs()) out.push_back(d.string());
    return out;
}

// The call's context, worked out once and passed down by reference: its policy directories,
// what no workspace may be, and its cwd with the workspace, home and temp directory.
struct CallPlace {
    std::vector<std::string> policy_dirs;
    workspace::Guarded guarded;
    classify::Context where;
};

CallPlace place_of(const ToolCall& call) {
    CallPlace p;
    p.policy_dirs = policy_dir_strings();
    p.guarded = workspace::guarded_from_process(p.policy_dirs);
    p.where = classify::make_context(call.cwd, p.guarded);
    return p;
}

std::string one_line(std::string s) {
    for (char& c : s)
        if (c == '\n' || c == '\r') c = ' ';
    return s;
}

// The workspace of the call's directory (common/workspace_choice.h), whose journals the hook
// finishes; "" when the directory has none.
std::string recovery_workspace(const ToolCall& call, const HookEnv& env, const CallPlace& place) {
    if (call.cwd.starts_with("/")) return place.where.workspace;
    if (!env.process_cwd.starts_with("/")) return {};
    return workspace::choose(env.process_cwd, place.guarded);
}

}  // namespace

HookResult handle_payload(std::string_view payload, const HookOptions& opts,
                          const PolicyLoader& load, const HookEnv& env) {
    const auto t0 = Clock::now();
    HookResult result;
    AuditRecord rec;
    std::optional<Agent> agent;
    try {
        try {
            if (!opts.agent.empty()) {
                agent = agent_from_string(opts.agent);
                if (!agent)
                    throw Refusal{std::nullopt, "--agent \"" + opts.agent +
                                                    "\": unknown agent; use hermes, claude or openclaw"};
            }
            json doc = parse_payload(payload, agent);
            if (!agent) agent = detect_agent(doc);
            if (!agent)
                throw Refusal{std::nullopt,
                              "cannot tell which agent sent this payload (no hook_event_name "
                              "pre_tool_call or PreToolUse, no toolName and params); pass --agent "
                              "hermes|claude|openclaw"};
            rec.agent = to_string(*agent);
            ToolCall call = parse_call(doc, *agent, env);
            const CallPlace place = place_of(call);
            // A caged step of the call's workspace whose supervisor was killed is finished (its
            // processes killed, its workspace restored) before anything is decided; what cannot
            // be is a refusal. Only this workspace's journals are looked at: the cost stays flat.
            if (std::string left = cage::recover_unfinished(recovery_workspace(call, env, place)); !left.empty())
                throw Refusal{agent, left};
            rec.profile = call.profile;
            rec.session = call.session;
            rec.tool = call.tool;
            rec.kind = call.kind == ToolKind::shell          ? "shell"
                       : call.kind == ToolKind::write_file ? "write"
                       : call.kind == ToolKind::execute_code ? "code"
                       : call.kind == ToolKind::read_file  ? "read"
                       : call.kind == ToolKind::persist    ? "persist"
                                                             : "other";
            rec.command = call.kind == ToolKind::shell ? call.command
                          : call.kind == ToolKind::execute_code ? call.code
                          : call.kind == ToolKind::persist ? call.approves
                          : call.paths.empty() ? std::string() : call.paths.front();

            PolicyChoice choice = choose_policy(opts.policy, call.profile_dir);
            rec.policy = choice.policy;
            Policy policy = load_chosen(choice, load, *agent);
            rec.policy = policy.name;
            std::string bin_dir = self_binary_dir();
            if (bin_dir.empty())
                throw Refusal{agent,
                              "cannot read /proc/self/exe, so toolcage cannot name itself in a rewritten "
                              "command nor protect its own files; run the agent where /proc is mounted"};
            DecideContext dc{policy,
                             is_policy_name(choice.policy) ? choice.policy : policy.file,
                             bin_dir + "/toolcage",
                             protected_set(call, place.policy_dirs, bin_dir, env.home),
                             env.home,
                             new_step_id(),
                             place.guarded,
                             place.where};
            Outcome o = decide(call, dc);
            Verdict enforced = apply_audit_mode(o, policy);
            rec.step = o.step_id;
            // What the agent leaves for later sessions is logged as the entry itself.
            rec.channel = o.channel;
            if (!o.approves.empty()) rec.command = o.approves;
            Answer a = answer_for(call, o);
            result.out = std::move(a.out);
            result.exit_code = a.exit_code;
            rec.verdict = to_string(enforced.decision);
            rec.rule = enforced.rule;
            rec.reason = enforced.reason;
            rec.audit = o.audit;
            if (o.audit) result.err += verdict_message(o.verdict) + "\n";
        } catch (const Refusal&) {
            throw;
        } catch (const std::bad_alloc&) {
            throw Refusal{agent, std::string("the call is too complex to judge: judging it needed more "
                                             "memory than the hook allows itself (") +
                                     kAddressSpaceText + "); split the command into simpler ones"};
        } catch (const std::exception& e) {
            throw Refusal{agent, std::string("internal error: ") + e.what()};
        } catch (...) {
            throw Refusal{agent, "internal error"};
        }
    } catch (const Refusal& r) {
        Answer a = failure_answer(r.agent ? r.agent : agent, one_line(r.reason));
        result.out = std::move(a.out);
        result.exit_code = a.exit_code;
        result.err += "toolcage: " + one_line(r.reason) + "\n";
        rec.verdict = "deny";
        rec.rule = "hook.error";
        rec.reason = one_line(r.reason);
        if (rec.agent.empty() && agent) rec.agent = to_string(*agent);
    }
    rec.micros = micros_since(t0);
    std::string warning = append_audit(rec);
    if (!warning.empty()) result.err += one_line(warning) + "\n";
    return result;
}

namespace {

bool write_all(int fd, const std::string& s) {
    size_t off = 0;
    while (off < s.size()) {
        ssize_t n = ::write(fd, s.data() + off, s.size() - off);
        if (n < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        off += static_cast<size_t>(n);
    }
    return true;
}

}  // namespace

void hold_async_signals() {
    sigset_t set;
    sigemptyset(&set);
    for (int sig : {SIGALRM, SIGTERM, SIGINT, SIGHUP, SIGXCPU}) sigaddset(&set, sig);
    ::sigprocmask(SIG_BLOCK, &set, nullptr);
}

int run_hook(const HookOptions& opts, const PolicyLoader& load) {
    // One byte past the limit tells "exactly the limit" from "more".
    std::string payload;
    payload.reserve(64 * 1024);
    char buf[65536];
    std::string read_error;
    while (payload.size() <= kMaxPayload) {
        ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
        if (n < 0) {
            if (errno == EINTR) continue;
            read_error = syscall_error("read(stdin)", errno);
            break;
        }
        if (n == 0) break;
        payload.append(buf, static_cast<size_t>(n));
    }
    HookResult r;
    if (!read_error.empty()) {
        std::optional<Agent> agent = agent_from_string(opts.agent);
        Answer a = failure_answer(agent, read_error);
        r = {a.out, "toolcage: " + read_error + "\n", a.exit_code};
    } else {
        r = handle_payload(payload, opts, load, env_from_process());
    }
    hold_async_signals();
    bool ok = write_all(STDOUT_FILENO, r.out);
    write_all(STDERR_FILENO, r.err);
    // An answer that did not reach the agent is no answer: refuse.
    return ok ? r.exit_code : 2;
}

}  // namespace toolcage::hook
