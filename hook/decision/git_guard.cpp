#include "hook/decision/git_guard.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <functional>

#include "cage/integrity/protected_paths.h"
#include "common/git_config.h"
#include "common/git_run_places.h"
#include "hook/call/paths.h"
#include "hook/shell/ast.h"

namespace toolcage::hook {

namespace {

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// ---- files ---------------------------------------------------------------------------------

constexpr std::size_t kMaxConfig = 1 << 20;
constexpr std::size_t kMaxIndex = 64u << 20;

enum class Read { ok, missing, failed };

// The whole file (following symlinks, as git does), at most `max` bytes.
Read read_file(const std::string& path, std::string& out, std::size_t max) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) return errno == ENOENT || errno == ENOTDIR ? Read::missing : Read::failed;
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        return S_ISDIR(st.st_mode) ? Read::missing : Read::failed;
    }
    out.clear();
    char buf[65536];
    while (true) {
        ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0) {
            if (errno == EINTR) continue;
            ::close(fd);
            return Read::failed;
        }
        if (n == 0) break;
        if (out.size() + static_cast<std::size_t>(n) > max) {
            ::close(fd);
            return Read::failed;
        }
        out.append(buf, static_cast<std::size_t>(n));
    }
    ::close(fd);
    return Read::ok;
}

bool is_dir(const std::string& p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool exists(const std::string& p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0;
}

std::string parent_of(const std::string& p) {
    std::size_t slash = p.rfind('/');
    return slash == 0 || slash == std::string::npos ? "/" : p.substr(0, slash);
}

std::string trim(std::string s) {
    s.erase(0, s.find_first_not_of(" \t\r\n"));
    s.erase(s.find_last_not_of(" \t\r\n") + 1);
    return s;
}

bool looks_like_gitdir(const std::string& d) {
    return exists(d + "/HEAD") && (is_dir(d + "/objects") || exists(d + "/commondir"));
}

// A .git file: "gitdir: <path>", relative to the file's directory.
std::string gitfile_target(const std::string& file) {
    std::string text;
    if (read_file(file, text, 4096) != Read::ok) return {};
    text = trim(text);
    if (!text.starts_with("gitdir:")) return {};
    return absolute_path(trim(text.substr(7)), parent_of(file), "");
}

GitRepo repo_at(const std::string& gitdir, const std::string& worktree) {
    GitRepo r{gitdir, worktree, {}, {}};
    std::string common = gitdir;
    std::string text;
    if (read_file(gitdir + "/commondir", text, 4096) == Read::ok && !trim(text).empty())
        common = absolute_path(trim(text), gitdir, "");
    for (const auto& f : {gitdir + "/config", gitdir + "/config.worktree", common + "/config",
                          common + "/config.worktree"})
        if (std::find(r.configs.begin(), r.configs.end(), f) == r.configs.end()) r.configs.push_back(f);
    r.hooks = common + "/hooks";
    return r;
}

// ---- the index: gitlinks are submodules, and `git status` runs git inside each -------------

std::uint32_t be32(const std::string& s, std::size_t at) {
    auto b = [&](std::size_t k) { return static_cast<std::uint32_t>(static_cast<unsigned char>(s[at + k])); };
    return (b(0) << 24) | (b(1) << 16) | (b(2) << 8) | b(3);
}

// The paths of the index's gitlink entries; false when the index cannot be read this way
// (then nothing can be said about submodules).
bool index_gitlinks(const std::string& index, std::size_t hash_len, std::vector<std::string>& out) {
    if (index.size() < 12 || index.compare(0, 4, "DIRC") != 0) return false;
    std::uint32_t version = be32(index, 4);
    std::uint32_t count = be32(index, 8);
    if (version < 2 || version > 4) return false;
    std::size_t pos = 12;
    std::string prev;
    const std::size_t fixed = 40 + hash_len + 2;  // stat data, object id, flags
    for (std::uint32_t k = 0; k < count; ++k) {
        if (pos + fixed > index.size()) return false;
        std::uint32_t mode = be32(index, pos + 24);
        std::uint16_t flags = static_cast<std::uint16_t>((static_cast<unsigned char>(index[pos + 40 + hash_len]) << 8) |
                                                         static_cast<unsigned char>(index[pos + 41 + hash_len]));
        std::size_t name_at = pos + fixed + ((version >= 3 && (flags & 0x4000)) ? 2 : 0);
        if (name_at > index.size()) return false;
        std::string name;
        if (version == 4) {
            // A varint of bytes to drop from the previous name, then the rest, NUL-ended.
            std::size_t p = name_at;
            if (p >= index.size()) return false;
            unsigned char c = static_cast<unsigned char>(index[p++]);
            std::size_t strip = c & 127;
            while (c & 128) {
                if (p >= index.size() || strip > (SIZE_MAX >> 8)) return false;
                c = static_cast<unsigned char>(index[p++]);
                strip = ((strip + 1) << 7) + (c & 127);
            }
            if (strip > prev.size()) return false;
            std::size_t nul = index.find('\0', p);
            if (nul == std::string::npos) return false;
            name = prev.substr(0, prev.size() - strip) + index.substr(p, nul - p);
            pos = nul + 1;
            prev = name;
        } else {
            std::size_t nul = index.find('\0', name_at);
            if (nul == std::string::npos) return false;
            name = index.substr(name_at, nul - name_at);
            std::size_t len = nul - pos;  // up to the name's end
            pos += (len + 8) & ~static_cast<std::size_t>(7);
        }
        if ((mode & 0170000) == 0160000) out.push_back(name);
    }
    // Extensions: a split index keeps more entries in a shared file ("link").
    const std::size_t end = index.size() >= hash_len ? index.size() - hash_len : 0;
    while (pos + 8 <= end) {
        std::string sig = index.substr(pos, 4);
        std::size_t size = be32(index, pos + 4);
        if (sig == "link") return false;
        if (size > end - pos - 8) break;
        pos += 8 + size;
    }
    return true;
}

// ---- where the command runs git ----------------------------------------------------------

std::string basename_of(const std::string& p) {
    std::size_t slash = p.rfind('/');
    return slash == std::string::npos ? p : p.substr(slash + 1);
}

struct Scan {
    bool runs_git = false;
    std::string unknown;      // why the repository cannot be named before run time
    std::string config_from;  // GIT_CONFIG_*: config from a file or the environment
    std::vector<std::string> cds;
    std::vector<std::vector<std::string>> dash_c;
    std::vector<std::string> gitdirs;

    void env_assignment(const std::string& name, const shell::Word* value) {
        if (!name.starts_with("GIT_")) return;
        if (name.starts_with("GIT_CONFIG") || name == "GIT_EXEC_PATH") {
            config_from = name;
        } else if (name == "GIT_DIR" || name == "GIT_COMMON_DIR") {
            if (value && value->known())
                gitdirs.push_back(value->literal());
            else
                unknown = name + " is set to a value known only at run time";
        }
    }

    void git_call(const std::vector<shell::Word>& w, std::size_t at) {
        runs_git = true;
        std::vector<std::string> chain;
        for (std::size_t j = at + 1; j < w.size(); ++j) {
            if (!w[j].known()) {
                unknown = "git's options are known only at run time";
                break;
            }
            std::string t = w[j].literal();
            auto next = [&]() -> std::optional<std::string> {
                if (j + 1 >= w.size()) return std::string();
                if (!w[j + 1].known()) return std::nullopt;
                return w[++j].literal();
            };
            if (t == "-C" || t == "--git-dir") {
                auto v = next();
                if (!v) {
                    unknown = "git " + t + " names a directory known only at run time";
                    break;
                }
                if (t == "-C") chain.push_back(*v);
                else gitdirs.push_back(*v);
            } else if (t.starts_with("-C") && t.size() > 2) {
                chain.push_back(t.substr(2));
            } else if (t.starts_with("--git-dir=")) {
                gitdirs.push_back(t.substr(10));
            } else if (t == "-c" || t == "--config-env" || t == "--work-tree" || t == "--namespace" ||
                       t == "--super-prefix" || t == "--attr-source") {
                if (!next()) break;
            } else if (t.empty() || t[0] != '-') {
                break;  // the subcommand
            }
        }
        if (!chain.empty()) dash_c.push_back(std::move(chain));
    }

    void command(const shell::Command& c, int depth) {
        for (const auto& b : c.bodies) script(b, depth + 1);
        auto in_words = [&](const std::vector<shell::Word>& ws) {
            for (const auto& w : ws)
                for (const auto& part : w.parts)
                    for (const auto& sub : part.subs) script(sub, depth + 1);
        };
        in_words(c.words);
        for (const auto& r : c.redirects) {
            in_words({r.target});
            for (const auto& sub : r.heredoc_subs) script(sub, depth + 1);
        }
        for (const auto& a : c.assignments) {
            in_words({a.value});
            in_words(a.items);
            env_assignment(a.name, &a.value);
        }
        if (c.kind != shell::Command::Kind::simple || c.words.empty()) return;
        const auto& w = c.words;
        std::string prog = w[0].known() ? basename_of(w[0].literal()) : "";
        if (prog == "cd" || prog == "pushd") {
            const shell::Word* target = nullptr;
            for (std::size_t i = 1; i < w.size(); ++i) {
                std::string lit = w[i].literal();
                if (w[i].known() && lit.starts_with("-") && lit != "-") continue;
                target = &w[i];
                break;
            }
            if (!target)
                cds.push_back("~");
            else if (target->known())
                cds.push_back(target->literal());
            else
                unknown = prog + " moves to a directory known only at run time";
        }
        for (std::size_t i = 0; i < w.size(); ++i) {
            if (!w[i].known()) continue;
            std::string lit = w[i].literal();
            // env GIT_DIR=x git ..., export GIT_CONFIG_GLOBAL=...
            std::size_t eq = lit.find('=');
            if (i > 0 && eq != std::string::npos && lit.starts_with("GIT_")) {
                shell::Word v;
                v.parts.push_back({shell::PartKind::literal, lit.substr(eq + 1), false, "", {}});
                env_assignment(lit.substr(0, eq), &v);
            }
            if (basename_of(lit) == "git") {
                git_call(w, i);
                continue;
            }
            // A script handed to a shell or to xargs, find -exec, ...: read as a command too.
            if (i > 0 && lit.find("git") != std::string::npos && lit.find_first_of(" \t\n;&|()`$") != std::string::npos) {
                if (depth > 8) {
                    runs_git = true;
                    unknown = "git is called from scripts nested too deep to follow";
                    continue;
                }
                auto parsed = shell::parse(lit);
                if (parsed.ok) {
                    script(parsed.script, depth + 1);
                } else {
                    runs_git = true;
                    unknown = "git is called from a script that cannot be read";
                }
            }
        }
    }

    void script(const shell::Script& s, int depth) {
        if (depth > 64) {
            unknown = "the command nests too deep to follow";
            return;
        }
        for (const auto& item : s.items)
            for (const auto& p : item.and_or.pipelines)
                for (const auto& c : p.commands) command(c, depth);
    }
};

Verdict cage_verdict(const std::string& reason) {
    return {Decision::cage, "git.config-runs-code", reason};
}

// Keys that send git somewhere else than the repository's plain remotes: a transport helper
// ("ext::sh -c …", "<helper>::<address>" runs git-remote-<helper>), the protocols git may use,
// rewritten urls. A command that asks a remote runs them.
bool reaches_elsewhere(const gitconfig::Entry& e) {
    if (e.section == "protocol") return true;                              // protocol.allow, protocol.ext.allow
    if (e.section == "url" && e.has_sub) return true;                      // url.<x>.insteadOf
    if (e.section == "remote" && e.has_sub && (e.name == "url" || e.name == "pushurl"))
        return e.value.find("::") != std::string::npos;                    // a transport helper
    return false;
}

// git's own reading of core.worktree: relative to the git directory.
std::string configured_worktree(const gitconfig::Entry& e, const std::string& gitdir) {
    if (e.section != "core" || e.has_sub || e.name != "worktree" || e.value.empty()) return {};
    return absolute_path(e.value, gitdir, "");
}

struct Checker {
    std::size_t repos = 0;
    std::vector<std::string> seen;

    // The first config of `repo` that names a program, as a verdict; then its submodules'.
    std::optional<Verdict> check(const GitRepo& repo, int depth) {
        if (std::find(seen.begin(), seen.end(), repo.gitdir) != seen.end()) return std::nullopt;
        seen.push_back(repo.gitdir);
        if (++repos > 64)
            return cage_verdict("git would read the config of more than 64 repositories and submodules");
        std::size_t hash_len = 20;
        std::string worktree = repo.worktree;
        for (const auto& f : repo.configs) {
            std::string text;
            Read r = read_file(f, text, kMaxConfig);
            if (r == Read::missing) continue;
            if (r == Read::failed)
                return cage_verdict("git reads " + f + ", which toolcage cannot read (or is over 1 MiB)");
            std::string found;
            bool ok = gitconfig::parse(text, [&](const gitconfig::Entry& e) {
                if (e.section == "extensions" && e.name == "objectformat" && lower(e.value) == "sha256")
                    hash_len = 32;
                // git works in the tree core.worktree names: its submodules are that tree's.
                if (std::string wt = configured_worktree(e, repo.gitdir); !wt.empty()) worktree = wt;
                if (found.empty() && (gitconfig::runs_code(e) || reaches_elsewhere(e)))
                    found = gitconfig::key_text(e) + (e.has_value ? " = " + e.value : "");
            });
            if (!ok) return cage_verdict("git reads " + f + ", which toolcage cannot read as git config");
            if (!found.empty())
                return cage_verdict("git reads " + f + ", which sets " + found +
                                    " (a program git runs, or more config): the command runs in the cage");
        }
        // The one hook a read-only command runs: git status refreshes and writes the index.
        if (exists(repo.hooks + "/post-index-change"))
            return cage_verdict("git runs " + repo.hooks + "/post-index-change when it refreshes the index: the "
                                "command runs in the cage");
        if (depth >= 4) return std::nullopt;
        // Submodules' own git directories (.git/modules/<name>, nested): git recurses into them
        // through their checkouts, whose .git files a step may have pointed anywhere.
        if (auto v = check_modules(repo.gitdir + "/modules", depth)) return v;
        if (worktree.empty()) return std::nullopt;
        // Checkouts .gitmodules names, whether or not the index lists them yet.
        if (auto v = check_gitmodules(worktree, depth)) return v;
        // git status and git diff run `git status` inside every submodule they find.
        std::string index;
        Read r = read_file(repo.gitdir + "/index", index, kMaxIndex);
        if (r == Read::missing) return std::nullopt;
        std::vector<std::string> links;
        if (r == Read::failed || !index_gitlinks(index, hash_len, links))
            return cage_verdict("git reads " + repo.gitdir + "/index, whose submodules toolcage cannot list");
        for (const auto& l : links) {
            std::string dir = worktree + "/" + l;
            std::string dotgit = dir + "/.git";
            std::string gitdir = is_dir(dotgit) ? dotgit : exists(dotgit) ? gitfile_target(dotgit) : "";
            if (gitdir.empty()) continue;  // not checked out: git does not go in
            if (auto v = check(repo_at(gitdir, dir), depth + 1)) return v;
        }
        return std::nullopt;
    }

    std::optional<Verdict> check_modules(const std::string& modules, int depth) {
        DIR* d = ::opendir(modules.c_str());
        if (!d) return std::nullopt;
        std::vector<std::string> names;
        while (const dirent* de = ::readdir(d)) {
            std::string n = de->d_name;
            if (n != "." && n != "..") names.push_back(n);
            if (names.size() > 64) break;
        }
        ::closedir(d);
        std::sort(names.begin(), names.end());
        for (const auto& n : names) {
            std::string dir = modules + "/" + n;
            if (!is_dir(dir)) continue;
            std::optional<Verdict> v = looks_like_gitdir(dir) ? check(repo_at(dir, ""), depth + 1)
                                                              : check_modules(dir, depth + 1);  // a/b names
            if (v) return v;
            if (repos > 64) break;
        }
        return std::nullopt;
    }

    std::optional<Verdict> check_gitmodules(const std::string& worktree, int depth) {
        std::string text;
        Read r = read_file(worktree + "/.gitmodules", text, kMaxConfig);
        if (r == Read::missing) return std::nullopt;
        if (r == Read::failed) return cage_verdict("git reads " + worktree + "/.gitmodules, which toolcage cannot read");
        std::vector<std::string> paths;
        bool ok = gitconfig::parse(text, [&](const gitconfig::Entry& e) {
            if (e.section == "submodule" && e.name == "path" && !e.value.empty()) paths.push_back(e.value);
        });
        if (!ok) return cage_verdict("git reads " + worktree + "/.gitmodules, which toolcage cannot read as git config");
        for (const auto& p : paths) {
            std::string dir = absolute_path(p, worktree, "");
            std::string dotgit = dir + "/.git";
            std::string gitdir = is_dir(dotgit) ? dotgit : exists(dotgit) ? gitfile_target(dotgit) : "";
            if (gitdir.empty()) continue;
            if (auto v = check(repo_at(gitdir, dir), depth + 1)) return v;
        }
        return std::nullopt;
    }
};

}  // namespace

std::optional<GitRepo> find_git_repo(const std::string& dir) {
    if (dir.empty() || dir[0] != '/') return std::nullopt;
    for (std::string d = absolute_path(dir, "/", "");; d = parent_of(d)) {
        std::string g = d == "/" ? "/.git" : d + "/.git";
        if (is_dir(g)) {
            if (looks_like_gitdir(g)) return repo_at(g, d);
        } else if (exists(g)) {
            std::string target = gitfile_target(g);
            if (target.empty()) return std::nullopt;  // git stops here: invalid gitfile
            return repo_at(target, d);
        }
        if (looks_like_gitdir(d)) return repo_at(d, "");
        if (d == "/") break;
    }
    return std::nullopt;
}

std::optional<Verdict> check_git_config(const std::string& command, const std::string& cwd,
                                        const std::string& home) {
    Scan scan;
    auto parsed = shell::parse(command);
    if (parsed.ok) {
        scan.script(parsed.script, 0);
    } else if (command.find("git") != std::string::npos) {
        scan.runs_git = true;
        scan.unknown = "the command cannot be parsed";
    }
    if (!scan.runs_git) return std::nullopt;
    if (!scan.config_from.empty())
        return cage_verdict("git takes config from " + scan.config_from +
                            ", which may name programs git runs: the command runs in the cage");
    if (!scan.unknown.empty())
        return cage_verdict(scan.unknown + ", so its git config cannot be checked: the command runs in the cage");

    std::vector<std::string> bases = {absolute_path(cwd.empty() ? "/" : cwd, "/", home)};
    for (const auto& t : scan.cds) {
        std::size_t n = bases.size();
        for (std::size_t i = 0; i < n && bases.size() < 32; ++i) {
            std::string d = absolute_path(t, bases[i], home);
            if (std::find(bases.begin(), bases.end(), d) == bases.end()) bases.push_back(d);
        }
    }
    std::vector<GitRepo> repos;
    auto add = [&](std::optional<GitRepo> r) {
        if (r) repos.push_back(std::move(*r));
    };
    for (const auto& b : bases) {
        add(find_git_repo(b));
        for (const auto& chain : scan.dash_c) {
            std::string d = b;
            for (const auto& x : chain) d = absolute_path(x, d, home);
            add(find_git_repo(d));
        }
        for (const auto& g : scan.gitdirs) add(repo_at(absolute_path(g, b, home), b));
    }
    Checker checker;
    for (const auto& r : repos)
        if (auto v = checker.check(r, 0)) return v;
    return std::nullopt;
}

std::optional<Verdict> check_git_write(const std::string& abs, const std::string& home) {
    auto ask = [&](const std::string& rule, const std::string& why) {
        return Verdict{Decision::ask, rule, "writes " + abs + ", " + why};
    };
    for (std::size_t at = abs.find("/.git"); at != std::string::npos; at = abs.find("/.git", at + 1)) {
        std::size_t end = at + 5;
        if (end == abs.size())
            return ask("file.git-dir", "a repository's .git file, which tells git where its config and hooks are");
        if (abs[end] == '/')
            return ask("file.git-dir", "inside the git directory " + abs.substr(0, end) +
                                           ", whose hooks and config run code at the next git command");
    }
    std::optional<GitRepo> repo = find_git_repo(parent_of(abs));
    if (!repo) return std::nullopt;
    if (path_within(abs, repo->hooks))
        return ask("file.git-hooks", "in " + repo->hooks + ", whose hooks git runs at the next commit, merge or checkout");
    gitconfig::RunPlaces places =
        gitconfig::run_places(repo->configs, repo->worktree.empty() ? repo->gitdir : repo->worktree, home);
    for (const auto& h : places.hook_dirs)
        if (path_within(abs, h))
            return ask("file.git-hooks", "in " + h + ", the hooks git runs (core.hooksPath " + places.hooks_path +
                                             ") at the next commit, merge or checkout");
    for (const auto& i : places.includes)
        if (abs == i)
            return ask("file.git-config", "a config file the repository's git config includes, which can name "
                                          "programs git runs");
    return std::nullopt;
}

std::vector<std::string> protected_workspace_entries(const Policy& policy) {
    std::vector<std::string> out;
    for (auto e : cage::kBuiltinProtectedPaths) out.emplace_back(e);
    for (const auto& e : policy.cage.protected_paths)
        if (std::find(out.begin(), out.end(), e) == out.end()) out.push_back(e);
    return out;
}

}  // namespace toolcage::hook
