#include "hook/decision/decide.h"

#include <sys/stat.h>

#include <algorithm>

#include "common/path_text.h"
#include "hook/call/file_target.h"
#include "hook/call/paths.h"
#include "hook/classify/classifier.h"
#include "hook/decision/context_files.h"
#include "hook/decision/git_guard.h"
#include "hook/decision/link_escape.h"
#include "hook/decision/one_liner.h"
#include "hook/decision/python_readonly.h"
#include "hook/decision/rewrite.h"
#include "hook/decision/run_placement.h"
#include "hook/decision/shell_state.h"

namespace toolcage::hook {

namespace {

// `ctx` is the classifier's context of call.cwd.
Verdict judge_shell(const ToolCall& call, const classify::Context& ctx, const DecideContext& dc) {
    const std::string& cmd = call.command;
    if (cmd.find('\0') != std::string::npos)
        return {Decision::deny, "hook.nul-byte", "the command holds a NUL byte, which bash cannot run as written"};
    Verdict v = classify::classify_command(cmd, ctx, dc.policy);
    // An agent calling toolcage itself (toolcage run --policy weak, toolcage-relay) never runs
    // outside the cage: the cage it gets is the one this hook chose.
    // A program the classifier found, not a word of a path (`ls ~/src/toolcage-fork`).
    auto calls_toolcage = [&] {
        for (const std::string& p : classify::explain_command(cmd, ctx, dc.policy).programs)
            if (std::string_view(p).substr(p.rfind('/') + 1).starts_with("toolcage")) return true;
        return false;
    };
    if (v.decision == Decision::allow && cmd.find("toolcage") != std::string::npos && !only_moves(cmd) &&
        calls_toolcage())
        v = {Decision::cage, "hook.toolcage-call",
             "calls toolcage itself; it runs inside the cage, with the policy this hook chose"};
    // Read-only git still runs what the repository's config names (core.fsmonitor, pagers, an
    // ext:: remote, ...). Allowed commands run in the read-only cage, which holds all of that:
    // the finding is said, the verdict stays. Where allowed commands run bare, it is the cage.
    // A command that asks a remote (the cage, for the network) runs such a config read-only.
    const bool read_only_cage = dc.policy.allow_runs != "bare";
    if (v.decision == Decision::allow || (read_only_cage && v.rule == "git.network-read"))
        if (auto g = check_git_config(cmd, call.cwd, ctx.home)) {
            if (read_only_cage) {
                std::string why = g->reason;
                const std::string caged = ": the command runs in the cage";
                if (why.ends_with(caged)) why.resize(why.size() - caged.size());
                v = {Decision::allow, g->rule, why + ": it runs in the read-only cage (no writes, no network)"};
            } else
                v = *g;
        }
    // A provably read-only `python3 -c` needs no cage that can write.
    if (read_only_cage && v.decision == Decision::cage && v.rule == "interp.code")
        if (auto r = read_only_one_liner(cmd)) v = *r;
    if (v.decision != Decision::deny)
        if (auto p = check_command(cmd, call.cwd, dc.protect, v.decision == Decision::allow)) v = *p;
    return v;
}

// A directory a rewrite may name as the cage's workdir: absolute and normalised, an existing
// directory, neither / nor the home directory nor one of its ancestors; anywhere for the
// read-only cage without a workspace (`reads_only`), which writes nothing where it works.
bool acceptable_workdir(const std::string& w, const std::string& home, bool reads_only = false) {
    if (w.empty() || w.front() != '/' || absolute_path(w, "/", "") != w) return false;
    if (!reads_only && (w == "/" || (!home.empty() && path_within(absolute_path(home, "/", ""), w)))) return false;
    struct stat st {};
    return ::stat(w.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// The command is toolcage's own rewrite (as the Hermes plugin writes it before the shell hook
// sees it): exactly a form rewrite.cpp produces, with this binary, `run`, the policy chosen for
// this call and acceptable directories, any prefix shell state alone. Then the inner command
// decides: what toolcage would cage passes as it is (it is caged already), a deny or an ask
// stays one. Anything else, look-alikes included, is judged as usual.
constexpr std::string_view kOwnRewrite = "hook.own-rewrite";

// `step_id` gets the rewrite's id: the decision names the step the rewrite starts.
std::optional<Verdict> own_rewrite(const ToolCall& call, const DecideContext& dc, std::string& step_id) {
    if (call.command.find("toolcage") == std::string::npos) return std::nullopt;
    auto parts = parse_rewrite(call.command);
    if (!parts) return std::nullopt;
    const CageRewrite& run = parts->run;
    // The prefixed form has no --workdir: the step starts where the prefix leaves the shell,
    // inside the workspace it names.
    const std::string& where = run.workdir.empty() ? run.workspace : run.workdir;
    if (run.toolcage_bin != dc.toolcage_bin || run.policy != dc.policy_arg ||
        !acceptable_workdir(where, dc.home, run.read_only && run.workspace.empty()) ||
        (!run.workspace.empty() && !acceptable_workdir(run.workspace, dc.home)) ||
        parse_rewrite(run.command))
        return std::nullopt;
    // A project started in a work root: the step works in the new directory, directly in the
    // root it names as its workdir (hook/decision/new_project.h).
    if (!run.new_project.empty() &&
        (!run.workspace.empty() || run.read_only || std::ranges::find(dc.guarded.roots, where) == dc.guarded.roots.end() ||
         run.new_project.rfind('/') != where.size() || !run.new_project.starts_with(where + "/")))
        return std::nullopt;
    ToolCall inner = call;
    inner.command = parts->outside.empty() ? run.command : parts->outside + " && " + run.command;
    inner.cwd = run.new_project.empty() ? where : run.new_project;
    Verdict v = judge_shell(inner, classify::make_context(inner.cwd, dc.guarded), dc);
    if (v.decision == Decision::deny) return v;
    // The workspace the rewrite names is the one toolcage chooses for its workdir, or one a
    // person approved (the hook asks with exactly this rewrite): a model that writes the
    // rewrite itself does not choose its workspace unasked.
    if (!run.workspace.empty() && normal_path(run.workspace) != workspace::decide(where, dc.guarded).dir) {
        if (std::string why = workspace::refusal_sentence(normal_path(run.workspace), dc.guarded); !why.empty())
            return Verdict{Decision::deny, "hook.no-workspace",
                           "the command names the workspace " + run.workspace + ": " + why};
        return Verdict{Decision::ask, "hook.no-workspace",
                       "the command names " + run.workspace + " as its workspace, which toolcage does not choose for " +
                           where + " by itself: a person must approve that directory as the workspace (" + v.rule +
                           ": " + v.reason + ")"};
    }
    if (v.decision == Decision::ask) return v;
    step_id = run.step_id;
    return Verdict{Decision::allow, std::string(kOwnRewrite),
                   "toolcage's own rewrite (policy " + run.policy + ", in " + where +
                       "): it already runs inside the cage"};
}

Verdict decide_shell(const ToolCall& call, const DecideContext& dc, std::string& step_id) {
    if (auto v = own_rewrite(call, dc, step_id)) return *v;
    return judge_shell(call, dc.where, dc);
}

bool acceptable_place(PathClass c) { return c == PathClass::workspace || c == PathClass::temp; }

// A file tool writes outside any cage: in a temp directory it may change what other programs
// load (a shell snapshot the agent sources, a .pth in a virtualenv under /tmp), so a person
// decides there.
Verdict temp_verdict(const std::string& path) {
    return {Decision::ask, "file.temp",
            "writes " + path + " in a temp directory, outside the workspace, where other programs "
            "(the agent's own shell snapshot, a virtualenv) may load it"};
}

Verdict place_verdict(PathClass c, const std::string& path) {
    switch (c) {
        case PathClass::workspace_root:
            return {Decision::deny, "file.workspace-root", "writes " + path + ", the workspace directory itself"};
        case PathClass::git_dir:
            return {Decision::deny, "file.git-dir",
                    "writes " + path + " inside .git, where hooks and config run code later"};
        default:
            return {Decision::deny, "file.outside-workspace",
                    "writes " + path + ", outside the workspace and the temp directory (" +
                        std::string(to_string(c)) + ")"};
    }
}

// The built-in and the policy's protected_paths are workspace-relative; "x/" protects a
// directory. Other programs obey these files (editors, direnv, the agent itself): a person decides.
std::optional<Verdict> policy_protected(const std::string& abs, const classify::Context& ctx,
                                        const Policy& policy) {
    for (const auto& pp : protected_workspace_entries(policy)) {
        if (pp.empty()) continue;
        std::string target = absolute_path(pp, ctx.workspace, "");
        bool hit = pp.back() == '/' ? path_within(abs, target) : abs == target;
        if (hit)
            return Verdict{Decision::ask, "file.protected-path",
                           "writes " + abs + ", which the policy protects (cage.protected_paths: " + pp + ")"};
    }
    return std::nullopt;
}

// `context_file` gets the first target (by the name written or reached) that Hermes loads into a
// later session's prompt, when the call is Hermes's.
Verdict decide_write(const ToolCall& call, const DecideContext& dc, std::string& context_file) {
    if (call.paths.empty())
        return {Decision::deny, "file.unknown-target", "the call names no file to write"};
    const classify::Context& ctx = dc.where;
    // The places by their real names, as the resolved targets name them.
    const classify::Context real_ctx = real_context(ctx);
    std::optional<Verdict> ask;
    for (const auto& p : call.paths) {
        if (p.empty() || p.find('\0') != std::string::npos)
            return {Decision::deny, "file.unknown-target", "a file to write has an empty or invalid name"};
        // Symlinks are resolved now, at judgement, as the agent resolves them; a link out of the
        // workspace is refused whatever it points at, since it can change before the tool writes.
        FileTarget t = file_target(p, call.cwd, dc.home, call.agent);
        if (!t.error.empty())
            return {Decision::deny, "file.unresolvable", t.error + "; refusing to write through it"};
        const std::string& abs = t.lexical;
        if (call.agent == Agent::hermes && context_file.empty() && is_context_file(abs)) context_file = abs;
        if (auto v = check_write(abs, dc.protect)) return *v;
        PathClass lexical = classify::classify_path(abs, ctx);
        if (!acceptable_place(lexical)) return place_verdict(lexical, abs);
        if (auto v = policy_protected(abs, ctx, dc.policy)) return *v;
        if (auto v = check_git_write(abs, dc.home)) return *v;
        if (!ask && lexical == PathClass::temp) ask = temp_verdict(abs);
        for (const Resolution& r : t.reached) {
            const std::string& real = r.path;
            if (auto v = link_escape(p, r, real_ctx.workspace)) return *v;
            if (call.agent == Agent::hermes && context_file.empty() && is_context_file(real))
                context_file = real + " (through " + p + ")";
            if (real == abs && real_ctx.workspace == ctx.workspace) continue;
            if (auto v = check_write(real, dc.protect)) return *v;
            PathClass resolved = classify::classify_path(real, real_ctx);
            if (!acceptable_place(resolved)) return place_verdict(resolved, real + " (through " + p + ")");
            if (auto v = policy_protected(real, real_ctx, dc.policy)) return *v;
            if (auto v = check_git_write(real, dc.home)) return *v;
            if (!ask && resolved == PathClass::temp) ask = temp_verdict(real + " (through " + p + ")");
        }
    }
    // A policy that refuses every caged change (strict) refuses the file tools' changes too.
    if (dc.policy.on_cage == Decision::deny)
        return {Decision::deny, "file.policy-refuses-writes",
                "the policy refuses every change (on_cage: deny), file writes included"};
    if (ask) return *ask;
    return {Decision::allow, "file.workspace", "writes inside the workspace"};
}

// execute_code runs Python in the agent's own process tree, where no cage of toolcage's reaches:
// bare only when provably read-only, else a person decides (or the terminal tool runs it caged).
Verdict decide_code(const ToolCall& call) {
    PythonCheck r = check_python_read_only(call.code);
    if (r.read_only)
        return {Decision::allow, "python.read-only", "the code only computes and prints"};
    return {Decision::ask, "python.not-read-only",
            "execute_code runs outside the cage and this code is not provably read-only (" + r.why +
                "); a person decides, or run it with the terminal tool (python3 - <<'EOF' ... EOF), "
                "where it runs inside toolcage's cage"};
}

std::string single_quote(const std::string& s) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

// The agent's own file tools read outside any cage: a read of credentials is judged as the
// terminal's `cat FILE` (or `grep -r` for a search of a tree) would be, by the same rules.
Verdict decide_read(const ToolCall& call, const DecideContext& dc) {
    const classify::Context& ctx = dc.where;
    const classify::Context real_ctx = real_context(ctx);
    for (const auto& p : call.paths) {
        if (p.find('\0') != std::string::npos)
            return {Decision::deny, "file.unknown-target", "a file to read has an invalid name"};
        // A link is read through, as the agent's tool reads it: judged as a read of its target.
        FileTarget t = file_target(p, call.cwd, dc.home, call.agent);
        if (!t.error.empty())
            return {Decision::deny, "file.unresolvable", t.error + "; refusing to read through it"};
        std::vector<std::pair<std::string, const classify::Context*>> places{{t.lexical, &ctx}};
        for (const Resolution& r : t.reached) places.emplace_back(r.path, &real_ctx);
        for (const auto& [where, in] : places) {
            std::string as_shell = (call.recursive ? "grep -r -e x -- " : "cat -- ") + single_quote(where);
            Verdict v = classify::classify_command(as_shell, *in, dc.policy);
            if (v.rule.starts_with("secret.") && v.decision != Decision::allow)
                return {v.decision, v.rule,
                        "the " + call.tool + " tool reads " + where + (where == t.lexical ? "" : " (through " + p + ")") +
                            ", which holds credentials"};
        }
    }
    return {Decision::allow, "file.read", "reads no credentials"};
}

// A write Hermes carries into later sessions' prompts: the policy's setting for its channel
// decides, whatever hermes.allow_tools says; the entry is what a person approves.
Verdict channel_verdict(std::string_view key, const std::string& what, const DecideContext& dc) {
    const HermesChannel* ch = find_hermes_channel(key);
    if (!ch) return {Decision::deny, "hook.error", "an unknown channel \"" + std::string(key) + "\""};
    auto it = dc.policy.hermes.channels.find(std::string(key));
    const Decision d = it == dc.policy.hermes.channels.end() ? Decision::ask : it->second;
    const std::string setting = "hermes." + std::string(key) + ": " + std::string(to_string(d));
    std::string why = what + " writes to " + std::string(ch->what) + ": ";
    switch (d) {
        case Decision::allow:
            why += "the policy lets it (" + setting + "); logged for review";
            break;
        case Decision::deny:
            why += "the policy refuses it (" + setting + "; set it to ask or allow to let the agent keep it)";
            break;
        default:
            why += "a person approves this entry and no other (" + setting + ")";
            break;
    }
    return {d, std::string(ch->rule), why};
}

// Hermes's tools toolcage does not judge itself: the policy's hermes.allow_tools run as they
// are, any other gets hermes.other_tools.
Verdict decide_other(const ToolCall& call, const DecideContext& dc) {
    if (call.agent != Agent::hermes)
        return {Decision::allow, "tool.other", "toolcage does not inspect the " + call.tool + " tool"};
    const auto& h = dc.policy.hermes;
    if (std::ranges::find(h.allow_tools, call.tool) != h.allow_tools.end())
        return {Decision::allow, "tool.allowed", "the policy lets the " + call.tool + " tool run (hermes.allow_tools)"};
    return {h.other_tools, "tool.other",
            "toolcage cannot judge what the " + call.tool + " tool does (an MCP server's, another plugin's "
            "or a newer Hermes's tool); the policy's hermes.other_tools says " +
                std::string(to_string(h.other_tools))};
}

Outcome decide_placed(const ToolCall& call, const DecideContext& dc);

}  // namespace

Outcome decide(const ToolCall& call, const DecideContext& dc) {
    // A command whose leading moves take the shell elsewhere (`cd proj && make test`) runs its
    // step there, in the workspace chosen there: the classifier judges its paths against that.
    const std::optional<std::string> moved =
        call.kind == ToolKind::shell ? cwd_after_moves(call.command, dc.where.cwd) : std::nullopt;
    const bool elsewhere = moved && *moved != dc.where.cwd;
    if (dc.policy.workspace.roots.empty() && !elsewhere) return decide_placed(call, dc);
    // The policy's work roots change where a workspace may be: the call's place with them.
    const workspace::Guarded rooted = dc.policy.workspace.roots.empty()
                                          ? dc.guarded
                                          : workspace::with_roots(dc.guarded, dc.policy.workspace.roots);
    classify::Context where = dc.policy.workspace.roots.empty() ? dc.where : classify::make_context(dc.where.cwd, rooted);
    if (elsewhere) where.workspace = workspace::choose(*moved, rooted);
    const DecideContext placed{dc.policy, dc.policy_arg, dc.toolcage_bin, dc.protect, dc.home,
                               dc.step_id, rooted, std::move(where), elsewhere ? *moved : std::string()};
    return decide_placed(call, placed);
}

namespace {

Outcome decide_placed(const ToolCall& call, const DecideContext& dc) {
    Outcome o;
    o.hermes_approve = dc.policy.hermes_approve;
    switch (call.kind) {
        case ToolKind::shell:
            o.verdict = decide_shell(call, dc, o.step_id);
            break;
        case ToolKind::write_file: {
            std::string context_file;
            o.verdict = decide_write(call, dc, context_file);
            // A write the workspace rules let through (or only ask about) that lands on a context
            // file: the channel's setting decides, and its entry is the file and what is written.
            if (!context_file.empty() && o.verdict.decision != Decision::deny) {
                Verdict v = channel_verdict("context_files", "the " + call.tool + " call on " + context_file, dc);
                o.channel = "context_files";
                o.approves = call.approves + written_text(call.input);
                if (v.decision != Decision::allow || o.verdict.decision == Decision::allow) o.verdict = v;
            }
            break;
        }
        case ToolKind::execute_code:
            o.verdict = decide_code(call);
            break;
        case ToolKind::read_file:
            o.verdict = decide_read(call, dc);
            break;
        case ToolKind::malformed:
            o.verdict = {Decision::deny, "tool.unknown-field", call.why};
            break;
        case ToolKind::inert:
            o.verdict = {Decision::allow, "tool.inert", "the " + call.tool + " call neither runs code nor writes"};
            break;
        case ToolKind::persist:
            o.verdict = channel_verdict(call.channel, "the " + call.tool + " call", dc);
            o.channel = call.channel;
            o.approves = call.approves;
            break;
        case ToolKind::beyond_cage:
            o.verdict = {Decision::ask, "tool.beyond-cage",
                         "the " + call.tool + " tool " + call.why + ", where toolcage's cage does not reach"};
            break;
        case ToolKind::other:
            o.verdict = decide_other(call, dc);
            break;
    }
    // toolcage's own rewrite is placed already: it runs as it is.
    if (call.kind == ToolKind::shell && o.verdict.rule != kOwnRewrite) {
        // The step starts where the command's leading moves take the agent's shell (`cd proj &&
        // make test`, decide()): its workspace is chosen there.
        const std::string& starts_in = dc.starts_in.empty() ? dc.where.cwd : dc.starts_in;
        PlacementContext pc{dc.policy, dc.policy_arg, dc.toolcage_bin, workspace::decide(starts_in, dc.guarded),
                            dc.step_id};
        Placement p = place_shell_command(call, o.verdict, pc);
        o.verdict = p.verdict;
        o.rewrite = std::move(p.rewrite);
        o.read_only = p.read_only;
        o.step_id = std::move(p.step_id);
        // A command a person approves still runs inside the cage: the Hermes plugin puts this
        // rewrite in place before it asks (a rewrite already is one: it stays as it is, and so
        // does the id of the step it starts).
        if (o.verdict.decision == Decision::ask) {
            if (auto parts = parse_rewrite(call.command)) {
                o.rewrite = call.command;
                o.step_id = parts->run.step_id;
            } else if (const std::string& ws = pc.workspace.ok() ? pc.workspace.dir : pc.workspace.approvable;
                       !ws.empty()) {
                o.rewrite = cage_rewrite(CageRewrite{dc.toolcage_bin, dc.policy_arg, dc.step_id,
                                                     call.cwd, ws, false, call.command, ""});
                o.step_id = dc.step_id;
                if (!pc.workspace.ok() && o.verdict.rule != "hook.no-workspace")
                    o.verdict.reason += " (if approved, it runs in the cage with " + ws + " as its workspace)";
            } else {
                // Nowhere to cage it: an approval would have nothing to run but the bare command.
                o.verdict = *no_workspace(o.verdict, false, pc.workspace);
                o.rewrite.clear();
            }
        }
    }
    return o;
}

}  // namespace

}  // namespace toolcage::hook
