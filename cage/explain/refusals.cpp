#include "cage/explain/refusals.h"

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cage/containment/landlock_uapi.h"
#include "common/text.h"

namespace toolcage::cage {

namespace ll = landlock;

namespace {

// Under the home directory: what holds credentials, runs at every shell start, or is
// toolcage's own. The classifier has its own, finer table; the cage does not link it, and only
// needs to know what never to suggest.
constexpr std::array<std::string_view, 47> kNeverUnderHome = {".ssh",
                                                              ".gnupg",
                                                              ".aws",
                                                              ".azure",
                                                              ".config/gcloud",
                                                              ".config/gh",
                                                              ".config/hub",
                                                              ".docker",
                                                              ".kube",
                                                              ".password-store",
                                                              ".netrc",
                                                              ".git-credentials",
                                                              ".gitconfig",
                                                              ".config/git",
                                                              ".npmrc",
                                                              ".yarnrc",
                                                              ".yarnrc.yml",
                                                              ".pypirc",
                                                              ".pip",
                                                              ".config/pip",
                                                              ".config/uv",
                                                              ".condarc",
                                                              ".cargo/config",
                                                              ".cargo/config.toml",
                                                              ".config/containers",
                                                              ".pgpass",
                                                              ".my.cnf",
                                                              ".vault-token",
                                                              ".cargo/credentials",
                                                              ".cargo/credentials.toml",
                                                              ".terraform.d",
                                                              ".local/share/keyrings",
                                                              ".m2/settings.xml",
                                                              ".gradle/gradle.properties",
                                                              ".config",
                                                              ".bashrc",
                                                              ".bash_profile",
                                                              ".bash_login",
                                                              ".profile",
                                                              ".zshrc",
                                                              ".zprofile",
                                                              ".zshenv",
                                                              ".local/state/toolcage",
                                                              ".config/toolcage",
                                                              ".hermes",
                                                              ".claude",
                                                              ".openclaw"};

bool within(std::string_view path, std::string_view dir) {
    if (dir.empty()) return false;
    if (dir == "/") return true;
    return path == dir ||
           (path.size() > dir.size() && path.starts_with(dir) && path[dir.size()] == '/');
}

std::string parent_of(const std::string& p) {
    auto slash = p.rfind('/');
    return slash == 0 || slash == std::string::npos ? "/" : p.substr(0, slash);
}

bool exists(const std::string& p) {
    struct stat st {};
    return ::lstat(p.c_str(), &st) == 0;
}

// Directories whose files make the system what it is: never suggested for writing.
bool system_dir(const std::string& p) {
    for (std::string_view d :
         {"/etc", "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/boot", "/root",
          "/proc", "/sys", "/dev", "/var", "/opt", "/srv", "/snap"})
        if (within(p, d) && !within(p, "/var/tmp") && !within(p, "/dev/shm")) return true;
    return p == "/" || p == "/home";
}

std::string with_placeholder(const std::string& p, const StepPaths& paths) {
    for (auto [dir, ph] :
         {std::pair{paths.workspace, "{workspace}"}, {paths.tmp, "{tmp}"}, {paths.home, "{home}"}})
        if (!dir.empty() && within(p, dir)) return ph + p.substr(dir.size());
    return p;
}

bool is_secret_name(std::string_view base) {
    return base == ".env" || base.starts_with(".env.") ||
           (base.starts_with("id_") && !base.ends_with(".pub")) || base.ends_with(".pem") ||
           base.ends_with(".key") || base.find("credential") != std::string_view::npos ||
           base.find("secret") != std::string_view::npos ||
           base.find("token") != std::string_view::npos;
}

// Model API hosts: they hold the agent's credential, and a worker must never reach them.
constexpr std::array<std::string_view, 6> kCredentialHosts = {
    "api.anthropic.com", "api.openai.com", "generativelanguage.googleapis.com",
    "openrouter.ai",     "api.mistral.ai", "api.groq.com"};

std::string hex_decode(std::string_view hex) {
    std::string out;
    for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
        auto val = [](char c) -> int {
            if (c >= '0' && c <= '9') return c - '0';
            c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        };
        int hi = val(hex[i]), lo = val(hex[i + 1]);
        if (hi < 0 || lo < 0) return {};
        out.push_back(static_cast<char>(hi * 16 + lo));
    }
    return out;
}

// key=value from an audit record; a quoted value, or hex (the kernel's form for odd bytes).
std::string audit_field(std::string_view rec, std::string_view key) {
    std::string needle = " " + std::string(key) + "=";
    std::size_t at = rec.starts_with(needle.substr(1)) ? 0 : rec.find(needle);
    if (at == std::string_view::npos) return {};
    std::size_t v =
        at + (at == 0 && rec.starts_with(needle.substr(1)) ? needle.size() - 1 : needle.size());
    if (v < rec.size() && rec[v] == '"') {
        std::size_t end = rec.find('"', v + 1);
        return end == std::string_view::npos ? std::string()
                                             : std::string(rec.substr(v + 1, end - v - 1));
    }
    std::size_t end = rec.find(' ', v);
    std::string_view raw =
        rec.substr(v, end == std::string_view::npos ? std::string_view::npos : end - v);
    if (key == "path" || key == "name") return hex_decode(raw);
    return std::string(raw);
}

constexpr std::uint64_t kWriteRights = ll::kFsWriteFile | ll::kFsRemoveDir | ll::kFsRemoveFile |
                                       ll::kFsMakeChar | ll::kFsMakeDir | ll::kFsMakeReg |
                                       ll::kFsMakeSock | ll::kFsMakeFifo | ll::kFsMakeBlock |
                                       ll::kFsMakeSym | ll::kFsTruncate;
constexpr std::uint64_t kReadRights = ll::kFsReadFile | ll::kFsReadDir;

std::string access_of_blocker(std::string_view b) {
    if (b == "fs.execute") return "execute";
    if (b == "fs.read_file" || b == "fs.read_dir") return "read";
    if (b.starts_with("fs.")) return "write";
    if (b == "net.connect_tcp") return "connect";
    if (b == "net.bind_tcp") return "bind";
    return {};
}

// The quoted or colon-delimited path in a line of a program's error output, or "".
std::string path_in_line(std::string_view line) {
    // Quoted: '…', "…", ‘…’ (GNU coreutils in a UTF-8 locale), `…'.
    static const std::array<std::pair<std::string_view, std::string_view>, 4> quotes = {
        std::pair{std::string_view("'"), std::string_view("'")},
        {"\"", "\""},
        {"\xe2\x80\x98", "\xe2\x80\x99"},
        {"`", "'"}};
    // After "cannot touch", "cannot create directory" and the like, a quoted name is a path even
    // when relative ("touch: cannot touch 'newfile'").
    const bool names_a_file = line.find("cannot ") != std::string_view::npos;
    for (const auto& [open, close] : quotes) {
        // An opening quote is one a path follows ("can't open '/x'" has an apostrophe first).
        for (std::size_t from = 0; (from = line.find(open, from)) != std::string_view::npos;
             ++from) {
            std::size_t start = from + open.size();
            std::string_view rest = line.substr(start);
            bool after_space = from > 0 && line[from - 1] == ' ';
            bool relative_name = names_a_file && after_space && !rest.empty() &&
                                 rest.find(close) != std::string_view::npos && rest[0] != ' ' &&
                                 rest[0] != close[0];
            if (rest.empty() || !(rest[0] == '/' || rest[0] == '~' || rest.starts_with("./") ||
                                  rest.starts_with("../") || relative_name))
                continue;
            std::size_t end = line.find(close, start);
            if (end == std::string_view::npos) break;
            return std::string(line.substr(start, end - start));
        }
    }
    // "prog: /a/b: Permission denied", "sh: 1: cannot create /a/b: Permission denied" (or
    // "Read-only file system"), "cat: /a/b: No such file or directory".
    std::size_t denied = line.find(": Permission denied");
    if (denied == std::string_view::npos) denied = line.find(": Read-only file system");
    if (denied == std::string_view::npos) denied = line.find(": No such file or directory");
    if (denied == std::string_view::npos) return {};
    std::string_view head = line.substr(0, denied);
    std::size_t colon = head.rfind(": ");
    std::string_view last = colon == std::string_view::npos ? head : head.substr(colon + 2);
    auto is_path = [](std::string_view s) {
        return !s.empty() &&
               (s[0] == '/' || s[0] == '~' || s.starts_with("./") || s.starts_with("../"));
    };
    bool to_create = last.starts_with("cannot create ") || last.starts_with("can't create ");
    if (auto sp = last.rfind(' '); sp != std::string_view::npos && !is_path(last))
        last = last.substr(sp + 1);
    if (is_path(last) || (to_create && !last.empty())) return std::string(last);
    return {};
}

std::string access_in_line(const std::string& l) {
    for (std::string_view w :
         {"create", "touch", "mkdir", "write", "remove", "unlink", "rename", "cannot move", "rmdir",
          "truncate", "symlink", "open for writing", "copy", "chmod", "utime", "lock"})
        if (l.find(w) != std::string::npos) return "write";
    for (std::string_view w : {"execve", "exec ", "execute", "spawn"})
        if (l.find(w) != std::string::npos) return "execute";
    for (std::string_view w :
         {"cannot open", "can't open", "read", "scandir", "opendir", "cannot access", "stat"})
        if (l.find(w) != std::string::npos) return "read";
    return {};
}

// Programs whose refusal, named first on the line, is of reading a file.
bool reader_program(std::string_view l) {
    for (std::string_view p :
         {"cat:",     "head:",      "tail:",   "less:",    "more:",   "grep:", "rg:",   "wc:",
          "sort:",    "uniq:",      "diff:",   "cmp:",     "od:",     "xxd:",  "file:", "md5sum:",
          "sha1sum:", "sha256sum:", "base64:", "strings:", "source:", ".:",    "jq:"})
        if (l.starts_with(p)) return true;
    return false;
}

std::string normalize(const std::string& p) {
    std::vector<std::string> parts;
    std::size_t i = 0;
    while (i <= p.size()) {
        std::size_t j = p.find('/', i);
        if (j == std::string::npos) j = p.size();
        std::string part = p.substr(i, j - i);
        if (part == "..") {
            if (!parts.empty()) parts.pop_back();
        } else if (!part.empty() && part != ".") {
            parts.push_back(part);
        }
        i = j + 1;
    }
    std::string out;
    for (const auto& s : parts) out += "/" + s;
    return out.empty() ? "/" : out;
}

// npm names the refused path on a line of its own ("npm error path /h/.npm/_cacache", after
// "npm error syscall mkdir" and "npm error code EACCES"): the same report as one line.
std::vector<std::string> with_npm_paths(const std::vector<std::string>& lines) {
    std::vector<std::string> out;
    std::string syscall;
    bool eacces = false;
    for (const auto& l : lines) {
        for (std::string_view npm : {"npm ERR! ", "npm error "}) {
            if (!l.starts_with(npm)) continue;
            std::string_view rest = std::string_view(l).substr(npm.size());
            if (rest.starts_with("syscall ")) syscall = rest.substr(8);
            if (rest.starts_with("code EACCES") || rest.starts_with("errno EACCES") ||
                rest == "errno -13")
                eacces = true;
            if (rest.starts_with("path /") && eacces) {
                out.push_back("npm: " + (syscall.empty() ? std::string("open") : syscall) + " '" +
                              std::string(rest.substr(5)) + "': Permission denied");
                eacces = false;
            }
        }
        out.push_back(l);
    }
    return out;
}

// A program that reports a path the cage hides as missing ("fatal: repository '/x' does not
// exist", "cat: /x: No such file or directory") although it is there: the cage refused the read.
bool reports_missing(const std::string& lower_line) {
    return lower_line.find("does not exist") != std::string::npos ||
           lower_line.find("no such file or directory") != std::string::npos;
}

}  // namespace

bool is_unplaced(const CageRefusal& r) {
    return r.target == kUnplacedTarget;
}

std::string refusal_line(const CageRefusal& r) {
    std::string what =
        r.access == "connect" ? "a connection to " + r.target : r.access + " " + r.target;
    std::string line = "toolcage run: refused " + what + " (" + r.seen_by;
    if (!r.reason.empty()) line += ": " + r.reason;
    line += ")";
    if (!r.fix.empty()) line += "; " + r.fix;
    return line;
}

nlohmann::json refusal_json(const CageRefusal& r) {
    return {{"access", r.access}, {"target", r.target}, {"seen_by", r.seen_by},
            {"reason", r.reason}, {"field", r.field},   {"fix", r.fix}};
}

std::uint64_t granted_rights(const LandlockPlan& plan, const std::string& path) {
    std::uint64_t g = 0;
    for (const auto& rule : plan.rules)
        if (rule.is_dir ? within(path, rule.path) : path == rule.path) g |= rule.access;
    return g;
}

bool never_suggested(const std::string& path, const std::string& home) {
    std::string base = path.substr(path.rfind('/') + 1);
    if (is_secret_name(base)) return true;
    if (path == "/" || path == "/home" || path == "/root" || within(path, "/root/.ssh") ||
        path == "/etc/shadow" || path == "/etc/gshadow" || path == "/etc/sudoers" ||
        within(path, "/etc/ssh"))
        return true;
    if (home.empty() || !within(path, home)) return false;
    if (path == home) return true;
    std::string rel = path.substr(home.size() + 1);
    // git's includes are the user's own names (~/.gitconfig-work): tokens and keys live there too.
    if (rel.starts_with(".gitconfig")) return true;
    for (std::string_view n : kNeverUnderHome)
        if (rel == n || within(rel, n)) {
            // ~/.config as a whole holds tokens; a program's own directory under it may be fine.
            if (n == ".config" && rel != ".config") continue;
            return true;
        }
    return false;
}

CageRefusal path_refusal(std::string access, const std::string& path, std::string seen_by,
                         std::string reason, const StepPaths& paths) {
    CageRefusal r{access, path, std::move(seen_by), std::move(reason), "", ""};
    r.field = access == "write" ? "cage.write" : access == "execute" ? "cage.execute" : "cage.read";
    if (never_suggested(path, paths.home)) {
        r.fix =
            "not suggested: it is the home directory or holds credentials or start-up code; "
            "keep it out of the step (" +
            r.field + " governs it)";
        return r;
    }
    // Creating a file needs the right on its directory.
    std::string entry = access == "write" && !exists(path) ? parent_of(path) : path;
    if (never_suggested(entry, paths.home)) {
        r.fix = "not suggested: allowing it would open " + entry +
                " (the home directory, credentials or start-up files); write it in the workspace "
                "or $TMPDIR instead (" +
                r.field + " governs it)";
        return r;
    }
    if (access == "write" && system_dir(entry) && !within(entry, paths.workspace) &&
        !within(entry, paths.tmp)) {
        r.fix = "not suggested: a step that writes " + entry +
                " changes the system; write it in the workspace or $TMPDIR instead (" + r.field +
                " governs it)";
        return r;
    }
    r.fix = "to allow it, add \"" + with_placeholder(entry, paths) + "\" to " + r.field;
    return r;
}

std::vector<CageRefusal> relay_refusals(const std::string& log_path, std::uintmax_t from,
                                        const std::string& step_id) {
    std::vector<CageRefusal> out;
    if (log_path.empty() || step_id.empty()) return out;
    std::ifstream in(log_path, std::ios::binary);
    if (!in) return out;
    in.seekg(static_cast<std::streamoff>(from));
    std::string line;
    while (std::getline(in, line)) {
        if (line.find(step_id) == std::string::npos) continue;  // cheap before parsing
        auto j = nlohmann::json::parse(line, nullptr, false);
        if (!j.is_object() || j.value("step", "") != step_id || j.value("verdict", "") != "deny")
            continue;
        std::string host = j.value("host", "");
        unsigned port = j.value("port", 0U);
        int status = j.value("status", 0);
        std::string reason = j.value("reason", "");
        // A request refused inside an inspected connection (relay/inspected_tunnel.h).
        if (j.value("event", "") == "request") {
            CageRefusal r{
                "request",        j.value("method", "") + " " + host + j.value("path", ""),
                "the relay",      reason,
                "relay.requests", ""};
            if (reason.find("relay.requests") != std::string::npos) {
                r.fix =
                    "a request rule of the policy refuses it; change that rule to let it through";
            } else if (reason.find("placeholder") != std::string::npos) {
                r.field = "relay.credentials";
                r.fix =
                    "a credential's placeholder goes only to the host it is bound to; not "
                    "suggested";
            } else {
                r.field.clear();
                r.fix = "the request was not one the relay passes on an inspected host";
            }
            out.push_back(std::move(r));
            continue;
        }
        if (status == 400 && reason.find("client closed") != std::string::npos) continue;
        CageRefusal r{"connect",     host + (port ? ":" + std::to_string(port) : ""),
                      "the relay",   reason,
                      "relay.allow", ""};
        // A request that named no host: plain HTTP (`curl http://…`), which the relay never
        // forwards, whatever the host.
        if (host.empty() && status == 405) {
            r.target = "a plain http:// address";
            r.field.clear();
            r.fix = "the relay carries only HTTPS (CONNECT host:443); use the https:// address";
            out.push_back(std::move(r));
            continue;
        }
        // An allowed host that does not resolve was not refused: the name has no address.
        if (reason.starts_with("cannot resolve ")) {
            r.field.clear();
            r.fix =
                "not a refusal: the relay dialled it, but the name does not resolve here (a typo, "
                "or this network's resolver does not know it)";
            out.push_back(std::move(r));
            continue;
        }
        bool credential = std::find(kCredentialHosts.begin(), kCredentialHosts.end(), host) !=
                          kCredentialHosts.end();
        if (status == 407) {
            r.field.clear();
            r.fix =
                "the client did not send the step's proxy credentials (use the https_proxy the "
                "cage sets)";
        } else if (credential) {
            r.fix = "not suggested: " + host +
                    " holds the agent's own credential; a step must not reach it";
        } else if (reason.find("ClientHello") != std::string::npos ||
                   reason.find("TLS handshake") != std::string::npos) {
            // Refused after the tunnel opened, on what its TLS handshake said
            // (relay/handshake/first_bytes.h).
            if (reason.find("names no server") != std::string::npos) {
                r.field = "relay.require_sni";
                r.fix =
                    "the client sent no server name (SNI); where a client of yours must reach "
                    "the host without one, set relay.require_sni to false";
            } else {
                r.field.clear();
                r.fix =
                    "not suggested: a handshake must name the host its CONNECT named, and "
                    "read as TLS (a step that names another host is fronting)";
            }
        } else if (reason.find("not on the allowlist") != std::string::npos && !host.empty()) {
            r.fix = "to allow it, add \"" + host +
                    (port == 443 || port == 0 ? "" : ":" + std::to_string(port)) +
                    "\" to relay.allow";
        } else if (reason.find("private") != std::string::npos ||
                   reason.find("loopback") != std::string::npos) {
            r.field.clear();
            r.fix =
                "the relay never connects to private or loopback addresses (relay.allow_private is "
                "for tests only)";
        } else {
            r.field.clear();
        }
        out.push_back(std::move(r));
    }
    return out;
}

std::vector<CageRefusal> audit_record_refusals(std::string_view record, const StepPaths& paths) {
    std::vector<CageRefusal> out;
    std::string blockers = audit_field(record, "blockers");
    if (blockers.empty()) return out;
    std::string path = audit_field(record, "path");
    std::string daddr = audit_field(record, "daddr");
    std::string dest = audit_field(record, "dest");
    std::size_t i = 0;
    std::vector<std::string> seen;
    while (i <= blockers.size()) {
        std::size_t j = blockers.find(',', i);
        if (j == std::string::npos) j = blockers.size();
        std::string b = blockers.substr(i, j - i);
        i = j + 1;
        std::string access = access_of_blocker(b);
        if (access.empty() || std::find(seen.begin(), seen.end(), access) != seen.end()) continue;
        seen.push_back(access);
        if (access == "connect" || access == "bind") {
            CageRefusal r{access,
                          daddr + (dest.empty() ? "" : ":" + dest),
                          "Landlock (kernel audit record)",
                          b,
                          "relay.allow",
                          ""};
            r.fix =
                "the cage lets TCP out only through the relay: list the host in relay.allow "
                "(relay.enabled true) and connect through the https_proxy the step is given";
            if (access == "bind") {
                r.field = "cage.network";
                r.fix =
                    "a step may not listen on TCP unless cage.network gives it a private network "
                    "(\"netns\")";
            }
            out.push_back(std::move(r));
        } else if (!path.empty() && path[0] == '/') {
            out.push_back(path_refusal(access, path, "Landlock (kernel audit record)", b, paths));
        }
    }
    return out;
}

std::vector<CageRefusal> stderr_refusals(const std::vector<std::string>& lines,
                                         const LandlockPlan& plan, const StepPaths& paths,
                                         bool relay) {
    std::vector<CageRefusal> out;
    bool unplaced = false;
    for (const auto& line : with_npm_paths(lines)) {
        std::string l = lower(line);
        // EROFS: in the step's mount namespace everything outside the write grants is a
        // read-only mount, which refuses a write before Landlock does.
        bool eacces = l.find("permission denied") != std::string::npos ||
                      l.find("eacces") != std::string::npos ||
                      l.find("read-only file system") != std::string::npos ||
                      l.find("erofs") != std::string::npos;
        bool eperm = l.find("operation not permitted") != std::string::npos ||
                     l.find("eperm") != std::string::npos;
        if (!eacces && !eperm && reports_missing(l)) {
            std::string p = path_in_line(line);
            if (p.empty() || p[0] != '/') continue;
            p = normalize(p);
            if (exists(p) && !(granted_rights(plan, p) & kReadRights)) {
                CageRefusal r =
                    path_refusal("read", p, "the step's stderr",
                                 "the step was told it does not exist: the cage hides what it may "
                                 "not read",
                                 paths);
                out.push_back(std::move(r));
            }
            continue;
        }
        if (!eacces && !eperm) continue;
        if (l.find("connect") != std::string::npos && eacces) {
            CageRefusal r{"connect", "a host", "the step's stderr", "", "relay.allow", ""};
            r.fix = relay ? "the cage lets TCP out only through the relay: use the https_proxy the "
                            "step is given, "
                            "and list the host in relay.allow"
                          : "this policy has no relay (relay.enabled false): set relay.enabled and "
                            "list the host in relay.allow";
            out.push_back(std::move(r));
            continue;
        }
        if (l.find("socket") != std::string::npos && eperm) {
            CageRefusal r{"connect",
                          "a socket",
                          "the step's stderr",
                          "seccomp refuses this kind of socket",
                          "cage.network",
                          "the cage allows TCP through the relay only (relay.allow); other sockets "
                          "stay refused"};
            out.push_back(std::move(r));
            continue;
        }
        if (!eacces) continue;
        std::string p = path_in_line(line);
        if (p.empty()) {
            unplaced = true;
            continue;
        }
        if (p[0] == '~') {
            if (paths.home.empty()) continue;
            p = paths.home + p.substr(1);
        } else if (p[0] != '/') {
            p = paths.workdir + "/" + p;
        }
        p = normalize(p);
        std::uint64_t g = granted_rights(plan, p);
        std::string access = access_in_line(l);
        if (access.empty() && reader_program(l)) access = "read";
        // EACCES on a path that is not there: it was to be made (a read would say ENOENT).
        if (access.empty() && !exists(p)) access = "write";
        if (access.empty()) {
            // A shell's own line ("bash: PATH: Permission denied") is a redirect or an exec;
            // another program's is its reading the file.
            bool shell = l.starts_with("bash:") || l.starts_with("sh:") ||
                         l.starts_with("/bin/sh:") || l.starts_with("/bin/bash:") ||
                         l.starts_with("zsh:") || l.starts_with("dash:");
            if (!(g & kReadRights))
                access = "read";
            else if (!shell)
                continue;  // the cage lets it be read: the file's own mode refused it
            else if (!(g & kWriteRights))
                access = "write";
            else if (!(g & ll::kFsExecute))
                access = "execute";
            else
                continue;  // the cage grants everything here: the file's own permissions refused
        }
        std::uint64_t need = access == "write"     ? kWriteRights
                             : access == "execute" ? ll::kFsExecute
                                                   : kReadRights;
        // Any of the rights for that access granted there: the cage did not refuse it (a rule
        // grants an access's rights together; on a file, only those a file can have).
        if (g & need) continue;
        out.push_back(path_refusal(access, p, "the step's stderr", "", paths));
    }
    if (unplaced && out.empty())
        out.push_back(
            {"access", std::string(kUnplacedTarget), "the step's stderr",
             "\"Permission denied\" that names no path or host",
             relay ? "cage.read / cage.write / cage.execute / relay.allow"
                   : "cage.read / cage.write / cage.execute / relay.enabled",
             "`toolcage doctor` lists what the cage grants; run the step as root with kernel "
             "auditing on (auditd, or `auditctl -e 1`) to see each Landlock refusal with its "
             "path or address"});
    return out;
}

std::vector<CageRefusal> network_refusals(const std::vector<std::string>& lines, bool relay,
                                          const std::string& policy_name) {
    for (const auto& line : lines) {
        std::string l = lower(line);
        bool no_name = l.find("resolve host") != std::string::npos ||
                       l.find("eai_again") != std::string::npos ||
                       l.find("temporary failure in name resolution") != std::string::npos ||
                       l.find("name or service not known") != std::string::npos ||
                       l.find("getaddrinfo") != std::string::npos;
        bool no_route = l.find("network is unreachable") != std::string::npos ||
                        l.find("enetunreach") != std::string::npos;
        if (!no_name && !no_route) continue;
        CageRefusal r{"connect",
                      "the network",
                      "the step's stderr",
                      std::string(trim(line)).substr(0, 200),
                      relay ? "relay.allow" : "relay.enabled",
                      ""};
        if (relay)
            r.fix =
                "the step has no DNS and no route out: a program reaches hosts only through the "
                "relay (the https_proxy the step is given); this one did not use it, or asked for "
                "a "
                "host it resolves itself";
        else
            r.fix =
                "the policy \"" + policy_name +
                "\" gives the step no network (relay.enabled is false: no DNS, no TCP out); run it "
                "under a policy with a relay (forge reaches package registries through one: "
                "`toolcage run --policy forge -- ...`), or set relay.enabled and list the host in "
                "relay.allow";
        return {r};
    }
    return {};
}

std::string path_note(const std::vector<std::string>& argv,
                      const std::vector<std::string>& left_out) {
    if (left_out.empty()) return {};
    // The words a program name can be: argv[0] and the words of any argument (a script).
    std::vector<std::string> words;
    for (const auto& a : argv) {
        std::string w;
        for (char c : a + " ") {
            if (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '+' ||
                c == '-') {
                w.push_back(c);
            } else if (!w.empty()) {
                if (words.size() < 1000 && std::find(words.begin(), words.end(), w) == words.end())
                    words.push_back(w);
                w.clear();
            }
        }
        if (!a.empty() && a[0] == '/' && a.find('/') != std::string::npos)
            words.push_back(a.substr(a.rfind('/') + 1));
    }
    std::string found;
    for (const auto& dir : left_out) {
        std::string names;
        for (const auto& w : words) {
            if (w == "." || w == ".." || w[0] == '-') continue;
            std::string f = dir + "/" + w;
            struct stat st {};
            if (::stat(f.c_str(), &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111))
                names += (names.empty() ? "" : ", ") + w;
        }
        if (!names.empty()) found += (found.empty() ? "" : "; ") + names + " in " + dir;
    }
    if (found.empty()) return {};
    return "toolcage run: note: the step's PATH leaves out directories the cage may not execute "
           "from (not "
           "under cage.execute): " +
           found +
           "; the step ran a program of that name from elsewhere on its PATH, or found none. To "
           "use them, add "
           "the directory to cage.execute (and cage.read)";
}

std::vector<CageRefusal> unread_cargo_config_refusals(const std::vector<std::string>& lines,
                                                      const std::vector<std::string>& files) {
    std::vector<CageRefusal> out;
    for (const auto& f : files)
        if (std::any_of(lines.begin(), lines.end(),
                        [&](const std::string& l) { return l.find(f) != std::string::npos; }))
            out.push_back({"read", f, "the step's stderr",
                           "cargo stops at a configuration file it cannot read", "",
                           "not suggested: it holds settings a step may not see (a token, [env], a "
                           "proxy or a "
                           "credential provider), and this kernel gives the step no mount "
                           "namespace to read a "
                           "filtered copy in its place; move the token to credentials.toml beside "
                           "it (cargo's own "
                           "place for it) and the rest out of it"});
    return out;
}

void drop_duplicates(std::vector<CageRefusal>& v) {
    std::vector<CageRefusal> out;
    for (auto& r : v)
        if (std::none_of(out.begin(), out.end(), [&](const CageRefusal& o) {
                return o.access == r.access && o.target == r.target;
            }))
            out.push_back(std::move(r));
    v = std::move(out);
}

}  // namespace toolcage::cage
