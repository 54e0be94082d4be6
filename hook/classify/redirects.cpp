// Redirections: what a command reads on stdin (files, heredocs, here-strings) and which files it
// opens for writing. Truncating a file outside the workspace, a secret or a start-up file loses
// data for good; appending is bounded unless it lands in system files.
#include "hook/classify/analyzer.h"
#include "hook/classify/text.h"

namespace toolcage::classify::detail {

namespace {

// "1", "2-", "-": descriptor duplication or closing, no file involved.
bool is_fd_target(const std::string& t) {
    if (t == "-") return true;
    size_t n = t.size();
    if (n > 1 && t[n - 1] == '-') --n;
    if (n == 0) return false;
    for (size_t i = 0; i < n; ++i) {
        if (t[i] < '0' || t[i] > '9') return false;
    }
    return true;
}

}  // namespace

bool Analyzer::apply_redirects(const std::vector<shell::Redirect>& rs, Scope& scope, Stream& in,
                               std::vector<std::pair<std::string, bool>>* out_files) {
    bool stdout_to_file = false;
    for (const shell::Redirect& r : rs) {
        const std::string& op = r.op;
        if (op == "<<" || op == "<<-") {
            for (const shell::Script& s : r.heredoc_subs) capture(s, scope);
            if (r.fd == -1 || r.fd == 0) {
                spend_bytes(r.heredoc_body.size());  // copied each time the command is walked
                in = Stream::literal(r.heredoc_body);
            }
            continue;
        }
        Value target = expand_single(r.target, scope);
        if (op == "<<<") {
            if (r.fd == -1 || r.fd == 0) {
                in = target.known() ? Stream::literal(target.text + "\n")
                                    : Stream::unknown_data(target.taint);
                if (target.known() && target.taint >= Taint::decoded) in.taint = target.taint;
            }
            continue;
        }
        if (op == "<&" || op == ">&") {
            if (target.known() && is_fd_target(target.text)) continue;
            if (op == "<&") continue;
        }
        if (op == "<") {
            check_read(target, "reading a file into stdin", scope);
            if (r.fd == -1 || r.fd == 0) {
                if (target.procsub) {
                    in = *target.procsub;
                } else {
                    in = Stream::unknown_data(file_taint(target, scope));
                }
            }
            continue;
        }
        WriteMode mode = WriteMode::truncate;
        if (op == ">>" || op == "&>>" || op == "<>") mode = WriteMode::append;
        std::string how = "the redirection `" + op + r.target.raw + "`";
        check_write(target, mode, how, scope);
        bool stdout_too = op == "&>" || op == "&>>" || op == ">&" || ((r.fd == -1 || r.fd == 1) && op != "<>");
        if (stdout_too) {
            stdout_to_file = true;
            if (out_files && target.known()) out_files->emplace_back(target.text, mode == WriteMode::append);
        }
    }
    return stdout_to_file;
}

void Analyzer::check_write(const Value& target, WriteMode mode, std::string_view how, const Scope& scope) {
    if (target.procsub) return;  // >(…) writes into a pipe; its body was judged as code
    std::vector<PathInfo> infos = resolve(target, scope);
    std::string shown = target.shown();
    for (const PathInfo& p : infos) {
        if (p.harmless_dev) {
            hit(Decision::allow, "write.devnull", std::string(how) + " writes to " + p.path + ", which keeps nothing");
            continue;
        }
        if (p.network_dev) {
            hit(Decision::cage, "write.network", std::string(how) + " sends data over the network (" + shown + ")");
            continue;
        }
        if (p.device) {
            hit(Decision::deny, "write.device",
                std::string(how) + " writes to the device " + shown + ", destroying what is on it");
            continue;
        }
        bool truncating = mode != WriteMode::append;
        if (p.temp_root) {
            hit(Decision::cage, "write.temp", std::string(how) + " writes into " + shown + ", a temp directory");
            continue;
        }
        if (p.ssh_access) {
            hit(Decision::deny, "write.ssh-access",
                std::string(how) + (truncating ? " overwrites " : " appends to ") + shown +
                    ": it decides who may log in to this account and what runs when they do");
            continue;
        }
        if (p.secret && truncating) {
            hit(Decision::deny, "write.secret",
                std::string(how) + " overwrites " + shown + ", a credentials file that git does not keep");
            continue;
        }
        switch (p.cls) {
            case PathClass::workspace:
            case PathClass::workspace_root:
                hit(Decision::cage, "write.workspace", std::string(how) + " writes " + shown + " inside the workspace");
                break;
            case PathClass::temp:
                hit(Decision::cage, "write.temp", std::string(how) + " writes " + shown + " in a temp directory");
                break;
            case PathClass::git_dir:
                if (truncating) {
                    hit(Decision::deny, "write.git-dir",
                        std::string(how) + " overwrites " + shown + " inside .git, which can corrupt the repository");
                } else {
                    hit(Decision::cage, "write.append", std::string(how) + " appends to " + shown);
                }
                break;
            case PathClass::home:
                if (truncating) {
                    if (p.rc_file) {
                        hit(Decision::deny, "write.rc-file",
                            std::string(how) + " overwrites " + shown + ", a start-up or login file");
                    } else {
                        hit(Decision::deny, "write.home",
                            std::string(how) + " overwrites " + shown + ", a file outside the workspace; write it inside the workspace (" + (ctx().workspace.empty() ? std::string("the project") : ctx().workspace) + ") instead");
                    }
                } else {
                    hit(Decision::cage, "write.append",
                        std::string(how) + " appends to " + shown + (p.rc_file ? " (a start-up file)" : ""));
                }
                break;
            case PathClass::system:
            case PathClass::root:
                hit(Decision::deny, "write.system",
                    std::string(how) + (truncating ? " overwrites " : " appends to ") + shown + ", a system file");
                break;
            case PathClass::unknown:
                hit(Decision::cage, "write.unknown-target",
                    std::string(how) + " writes to " + shown + ", known only at run time");
                break;
        }
    }
}

void Analyzer::check_written_text(const Value& target, const Stream& text, const Scope& scope) {
    for (const PathInfo& p : resolve(target, scope)) {
        if (p.network_dev && text.secret) {
            hit(Decision::deny, "secret.exfiltrate",
                "the environment (its tokens and keys) is sent to " + target.shown() +
                    ": published credentials cannot be taken back");
        }
        if (!p.ssh_config) continue;
        // Host entries are everyday work; a key that runs a command on every connection is not,
        // nor text nobody can read before it lands there.
        static const std::string_view kRuns[] = {"proxycommand", "localcommand", "permitlocalcommand",
                                                 "knownhostscommand", "remotecommand", "match", "include",
                                                 "identityagent", "pkcs11provider", "securitykeyprovider"};
        std::string l = lower(text.text);
        bool runs = text.kind != Stream::Kind::literal;
        for (std::string_view k : kRuns) runs = runs || contains(l, k);
        if (runs) {
            hit(Decision::deny, "write.ssh-access",
                "writes " + target.shown() +
                    (text.kind == Stream::Kind::literal ? " with a setting that makes ssh run a command (" +
                                                              std::string("ProxyCommand, LocalCommand, Match exec, …)")
                                                        : " with text known only at run time: ssh runs what a "
                                                          "ProxyCommand or LocalCommand there names"));
        }
    }
}

void Analyzer::check_read(const Value& target, std::string_view prog, const Scope& scope, bool recursive) {
    if (target.procsub || !(target.known() || target.unknown)) return;
    for (const PathInfo& p : resolve(target, scope)) {
        if (p.secret || (recursive && p.secret_dir && p.cls != PathClass::root)) {
            hit(Decision::deny, "secret.read",
                std::string(prog) + " reads " + target.shown() + ", which holds credentials");
            return;
        }
        if (recursive && p.cls == PathClass::root) {
            hit(Decision::deny, "secret.read",
                std::string(prog) + " reads the whole file system, credentials included");
            return;
        }
    }
}

}  // namespace toolcage::classify::detail
