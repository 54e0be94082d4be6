// The classifier's entry points: one command string in, one verdict out. Parsing, the walk of
// every place where code runs, and the policy's adjustments happen in that order.
#include "hook/classify/classifier.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "common/analysis_budget.h"
#include "common/user_home.h"
#include "common/workspace_choice.h"
#include "hook/classify/analyzer.h"
#include "hook/classify/paths.h"
#include "hook/classify/text.h"

namespace toolcage::classify {

namespace detail {

namespace {

std::string normalized_or_empty(const std::string& p) { return p.empty() || p[0] != '/' ? std::string() : normalize_path(p); }

Place make_place(const Context& c) {
    Place p;
    p.ctx.cwd = normalized_or_empty(c.cwd);
    p.ctx.workspace = normalized_or_empty(c.workspace);
    p.ctx.home = normalized_or_empty(c.home);
    p.ctx.real_home = normalized_or_empty(c.real_home);
    p.ctx.tmp = normalized_or_empty(c.tmp);
    if (p.ctx.tmp.empty()) p.ctx.tmp = "/tmp";
    p.temps = temp_roots(p.ctx);
    const std::string& h = p.ctx.home;
    if (!h.empty()) {
        for (const char* s : {"/.ssh/id_rsa", "/.ssh/id_ed25519", "/.ssh/id_ecdsa", "/.ssh/id_dsa", "/.aws/credentials",
                              "/.netrc", "/.git-credentials", "/.docker/config.json", "/.kube/config",
                              "/.config/gcloud/credentials.db", "/.config/gcloud/application_default_credentials.json",
                              "/.gnupg/private-keys-v1.d/key.key", "/.pgpass", "/.vault-token", "/.npmrc", "/.pypirc"}) {
            p.secret_samples.push_back(h + s);
        }
    }
    for (const std::string* dir : {&p.ctx.workspace, &p.ctx.cwd}) {
        if (dir->empty()) continue;
        p.secret_samples.push_back(*dir + "/.env");
        p.secret_samples.push_back(*dir + "/.env.local");
        p.secret_samples.push_back(*dir + "/.env.production");
    }
    for (const char* s : {"/proc/self/environ", "/proc/1/environ", "/etc/shadow", "/root/.ssh/id_rsa",
                          "/etc/ssh/ssh_host_ed25519_key"}) {
        p.secret_samples.emplace_back(s);
    }
    return p;
}

// Words that make an unparseable command look like it could destroy something. bash runs the
// complete commands before a syntax error, so a refused parse may still run part of the text.
bool looks_destructive(std::string_view text) {
    static const char* const kWords[] = {
        "rm",       "rmdir",    "unlink",  "shred",   "dd",      "wipefs",   "fdisk",   "sfdisk",
        "parted",   "mkswap",   "truncate", "chmod",  "chown",   "chgrp",    "mv",      "ln",
        "rsync",    "find",     "xargs",   "kill",    "killall", "pkill",    "crontab", "shutdown",
        "reboot",   "halt",     "poweroff", "init",   "systemctl", "eval",   "exec",    "source",
        ".",        "sudo",     "doas",    "su",      "pkexec",  "curl",     "wget",    "nc",
        "ncat",     "base64",   "xxd",     "openssl", "perl",    "ruby",     "node",    "php",
        "sh",       "bash",     "zsh",     "dash",    "ksh",     "fish",     "busybox", "psql",
        "mysql",    "mariadb",  "sqlite3", "redis-cli", "docker", "podman",  "kubectl", "terraform",
        "aws",      "gcloud",   "az",      "publish", "push",    "reset",    "clean",   "checkout",
        "restore",  "stash",    "reflog",  "gc",      "filter-branch", "update-ref", "worktree", "branch",
        "ssh",      "scp",      "tar",     "env",     "trap",    "alias",    "drop",    "delete",
        "-rf",      "-fr",      "-r",      "-R",      "-f",      "--force",  "--hard",  "--delete",
        "-delete",  "--no-preserve-root", "destroy", "prune", "format", "python", "python3", "cp"};
    std::string tok;
    auto check = [&]() {
        if (tok.empty()) return false;
        std::string t = lower(tok);
        tok.clear();
        if (t.rfind("mkfs", 0) == 0 || t.rfind("python", 0) == 0) return true;
        if (t.rfind('/') != std::string::npos) t = std::string(basename_of(t));
        for (const char* w : kWords) {
            if (t == w) return true;
        }
        return false;
    };
    for (char c : text) {
        if (c == '>' || c == '`') return true;
        if (c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '|' || c == '&' || c == '(' || c == ')' ||
            c == '<' || c == '{' || c == '}' || c == '\'' || c == '"' || c == '$') {
            if (check()) return true;
            continue;
        }
        if (c == '\\') continue;
        tok += c;
    }
    return check();
}

// Building a Place allocates; agents call with the same context again and again.
const Place& local_place(const Context& ctx) {
    thread_local Context last;
    thread_local Place cached;
    thread_local bool valid = false;
    if (!valid || last.cwd != ctx.cwd || last.workspace != ctx.workspace || last.home != ctx.home ||
        last.real_home != ctx.real_home || last.tmp != ctx.tmp) {
        cached = make_place(ctx);
        last = ctx;
        valid = true;
    }
    return cached;
}

const Place& remote_place() {
    static const Place p = [] {
        Context remote;
        remote.cwd = "/home/remote-user";
        remote.home = "/home/remote-user";
        remote.tmp = "/tmp";
        return make_place(remote);
    }();
    return p;
}

}  // namespace

Analyzer::Analyzer(const Context& ctx, const Policy& policy)
    : local_(&local_place(ctx)), remote_(&remote_place()), place_(local_), policy_(policy) {
    best_.decision = Decision::allow;
}

Verdict Analyzer::classify(const std::string& command) {
    shell::ParseResult r = shell::parse(command);
    if (!r.ok) {
        parse_failed(command, r.error, "the command");
        return finish();
    }
    owned_.push_back(std::move(r));
    Scope scope;
    scope.cwd = local_->ctx.cwd;
    scope.cwd_known = !scope.cwd.empty();
    walk_script(owned_.back().script, scope, Stream());
    walk_deferred_bodies(scope);
    return finish();
}

// Refused input. Past the parser's bounds (size, nesting, word count) the text is refused
// outright: a bound can hide whatever follows it. A plain syntax error is caged, since bash
// would refuse the same text -- but bash runs the complete commands before the error, so text
// that names anything destructive is refused instead.
void Analyzer::parse_failed(const std::string& text, const std::string& error, std::string_view what) {
    bool limit = contains(error, "exceeds the limit") || contains(error, "nesting deeper than") ||
                 contains(error, "more than") || contains(error, "larger than the limits");
    if (limit) {
        hit(Decision::deny, "parse.limit", std::string(what) + " is beyond the parser's bounds: " + error);
        return;
    }
    if (looks_destructive(text)) {
        hit(Decision::deny, "parse.error",
            std::string(what) + " cannot be parsed (" + error + ") and names something destructive");
        return;
    }
    hit(Decision::cage, "parse.error", std::string(what) + " cannot be parsed: " + error);
}

}  // namespace detail

Context make_context(const std::string& cwd) { return make_context(cwd, workspace::guarded_from_process()); }

Context make_context(const std::string& cwd, const workspace::Guarded& guarded) {
    Context c;
    std::error_code ec;
    c.cwd = cwd;
    if (c.cwd.empty()) {
        auto p = std::filesystem::current_path(ec);
        if (!ec) c.cwd = p.string();
    }
    if (!c.cwd.empty() && c.cwd[0] == '/') c.cwd = detail::normalize_path(c.cwd);
    // Never the home, /, or a tree holding toolcage or an agent's own files: then there is no
    // workspace, and nothing is classified as one.
    if (!c.cwd.empty() && c.cwd[0] == '/')
        c.workspace = workspace::choose(c.cwd, guarded);
    // `~` and $HOME in a command expand to the agent's $HOME; the home the user database names
    // is protected as a home too when the two differ (HOME=/tmp/x in a container).
    if (const std::string& h = user_home(); !h.empty()) c.real_home = detail::normalize_path(h);
    if (const char* h = std::getenv("HOME"); h && h[0] == '/') {
        c.home = detail::normalize_path(h);
    } else {
        c.home = c.real_home;
    }
    if (const char* t = std::getenv("TMPDIR"); t && t[0] == '/') {
        c.tmp = detail::normalize_path(t);
    } else {
        c.tmp = "/tmp";
    }
    return c;
}

Verdict classify_command(const std::string& command, const Context& ctx, const Policy& policy) {
    try {
        detail::Analyzer a(ctx, policy);
        return a.classify(command);
    } catch (const budget::Exceeded& e) {
        return budget::refusal(e.what);
    } catch (const std::exception& e) {
        return Verdict{Decision::deny, "internal.error",
                       std::string("the classifier failed on this command (") + e.what() + "); refusing it"};
    } catch (...) {
        return Verdict{Decision::deny, "internal.error", "the classifier failed on this command; refusing it"};
    }
}

Explanation explain_command(const std::string& command, const Context& ctx, const Policy& policy) {
    Explanation e;
    try {
        detail::Analyzer a(ctx, policy);
        a.trace = &e;
        e.verdict = a.classify(command);
    } catch (const budget::Exceeded& ex) {
        e.verdict = budget::refusal(ex.what);
    } catch (const std::exception& ex) {
        e.verdict = Verdict{Decision::deny, "internal.error",
                            std::string("the classifier failed on this command (") + ex.what() + "); refusing it"};
    }
    return e;
}

PathClass classify_path(const std::string& path, const Context& ctx) {
    if (path.empty()) return PathClass::unknown;
    static const Policy kNoPolicy{};
    detail::Analyzer a(ctx, kNoPolicy);
    detail::Scope scope;
    scope.cwd = a.ctx().cwd;
    scope.cwd_known = !scope.cwd.empty();
    std::string p = path;
    if (p[0] == '~' && (p.size() == 1 || p[1] == '/')) {
        if (a.ctx().home.empty()) return PathClass::unknown;
        p = a.ctx().home + p.substr(1);
    }
    detail::Value v = detail::Value::literal(p);
    v.glob = detail::has_glob_chars(p);
    std::vector<detail::PathInfo> infos = a.resolve(v, scope);
    return infos.empty() ? PathClass::unknown : infos[0].cls;
}

}  // namespace toolcage::classify
