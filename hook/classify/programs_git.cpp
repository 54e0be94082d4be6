// git: global options first (-C, -c k=v, --git-dir, …; a config override can run programs),
// then one table entry per subcommand. Discarding uncommitted work, rewriting or deleting
// published history and destroying recovery data (reflog, stashes) is refused; local changes
// the reflog can undo are caged; inspection is allowed.
#include <algorithm>

#include "hook/classify/analyzer.h"
#include "hook/classify/program_table.h"
#include "hook/classify/text.h"

namespace toolcage::classify::detail {

namespace {

struct Git {
    std::string sub;
    std::vector<Value> args;  // after the subcommand
    std::map<std::string, std::string, std::less<>> aliases;
    std::map<std::string, std::string, std::less<>> config;  // git -c key=value, keys lowercased
};

bool config_false(const Git& g, std::string_view key) {
    auto it = g.config.find(key);
    if (it == g.config.end()) return false;
    std::string v = lower(it->second);
    return v == "false" || v == "0" || v == "no" || v == "off" || v.empty();
}

// The ext:: transport runs a command: `ext::sh -c rm% -rf% ~` is `sh -c 'rm -rf ~'` (git reads
// `% ` as a space, `%%` as %, `%s` as the service name).
void judge_ext_url(Analyzer& a, Call& c, const std::string& url) {
    // Arguments were split at unescaped spaces only: quote each so the shell does the same.
    std::string quoted;
    std::vector<std::string> words;
    std::string cur;
    for (size_t i = 5; i < url.size(); ++i) {
        if (url[i] == '%' && i + 1 < url.size()) {
            char n = url[++i];
            cur += n == ' ' ? " " : n == '%' ? "%" : (n == 's' || n == 'S') ? "git-upload-pack" : "";
        } else if (url[i] == ' ') {
            if (!cur.empty()) words.push_back(cur);
            cur.clear();
        } else {
            cur += url[i];
        }
    }
    if (!cur.empty()) words.push_back(cur);
    for (const std::string& w : words) quoted += (quoted.empty() ? "" : " ") + shell_quote(w);
    a.hit(Decision::cage, "git.ext-transport", "an ext:: URL makes git run a command");
    a.run_string(Value::literal(quoted), *c.scope, false, Stream(), "the command of an ext:: URL");
}

using GitHandler = void (*)(Analyzer&, Call&, Git&);

void read_only(Analyzer& a, Git& g) {
    a.hit(Decision::allow, "readonly.git", "`git " + g.sub + "` only reads the repository");
}

void local_change(Analyzer& a, Git& g,
                  std::string_view what = "changes the repository; the reflog can undo it") {
    a.hit(Decision::cage, "git.local-change", "`git " + g.sub + "` " + std::string(what));
}

bool has(const Git& g, std::initializer_list<std::string_view> names) {
    for (const Value& v : g.args) {
        if (!is_flag(v)) continue;
        for (std::string_view n : names) {
            const std::string& t = v.text;
            if (t == n) return true;
            if (n.size() > 2 && n[1] == '-' && t.rfind(std::string(n) + "=", 0) == 0) return true;
        }
    }
    return false;
}

// A short-flag bundle (-fdx) holding `letter`.
bool has_short(const Git& g, char letter) {
    for (const Value& v : g.args) {
        if (!is_flag(v) || v.text[1] == '-') continue;
        if (v.text.find(letter, 1) != std::string::npos) return true;
    }
    return false;
}

std::vector<const Value*> operands(const Git& g,
                                   std::initializer_list<std::string_view> with_arg = {}) {
    std::vector<const Value*> out;
    for (size_t i = 0; i < g.args.size(); ++i) {
        const Value& v = g.args[i];
        if (v.text == "--") {
            for (size_t k = i + 1; k < g.args.size(); ++k) out.push_back(&g.args[k]);
            break;
        }
        if (is_flag(v)) {
            if (std::find(with_arg.begin(), with_arg.end(), v.text) != with_arg.end()) ++i;
            continue;
        }
        out.push_back(&v);
    }
    return out;
}

// ---- inspection commands that can still write or run something

void diff_like(Analyzer& a, Call& c, Git& g) {
    bool ro = true;
    for (size_t i = 0; i < g.args.size(); ++i) {
        const Value& v = g.args[i];
        const std::string& t = v.text;
        if (t.rfind("--output=", 0) == 0 || t == "--output") {
            Value target = v;
            if (t == "--output") {
                if (i + 1 >= g.args.size()) continue;
                target = g.args[++i];
            } else {
                target.text = t.substr(9);
            }
            a.check_write(target, WriteMode::truncate, "git " + g.sub + " --output", *c.scope);
            ro = false;
        } else if (t == "--ext-diff" || t == "--textconv" ||
                   t.rfind("--open-files-in-pager", 0) == 0 ||
                   (g.sub == "grep" && t.rfind("-O", 0) == 0)) {
            a.hit(Decision::cage, "git.runs-program",
                  "`git " + g.sub + " " + t + "` runs a configured external program");
            ro = false;
        } else if (t == "--no-index") {
            for (const Value* op : operands(g)) a.check_read(*op, "git diff --no-index", *c.scope);
        }
    }
    if (ro) read_only(a, g);
}

void git_reset(Analyzer& a, Call&, Git& g) {
    if (has(g, {"--hard", "--merge", "--keep"})) {
        a.hit(Decision::deny, "git.reset-hard",
              "`git reset --hard` discards uncommitted changes for good; `git stash` sets them aside instead (`git stash pop` brings them back)");
        return;
    }
    local_change(a, g, "moves HEAD and the index; working tree files are kept");
}

void git_clean(Analyzer& a, Call&, Git& g) {
    // clean.requireForce=false (from -c here) makes clean delete without -f.
    bool force = has(g, {"--force"}) || has_short(g, 'f') || config_false(g, "clean.requireforce");
    bool interactive = has(g, {"--interactive"}) || has_short(g, 'i');
    if (force) {
        a.hit(Decision::deny, "git.clean-force",
              "`git clean -f` deletes untracked files (and with -x ignored ones, like .env) for "
              "good; `git clean -n` lists them first, `git stash -u` sets them aside");
        return;
    }
    local_change(
        a, g, interactive ? "asks which untracked files to delete" : "without -f deletes nothing");
}

// A setting that makes a remote's push destructive: remote.X.mirror=true pushes every ref and
// deletes the remote's others; a remote.X.push refspec with + forces, one with :ref deletes.
bool destructive_push_setting(std::string_view key, std::string_view value) {
    std::string k = lower(key);
    if (k.rfind("remote.", 0) != 0) return false;
    std::string v = lower(value);
    size_t b = v.find_first_not_of(" \t'\"");
    v = b == std::string::npos ? std::string() : v.substr(b);
    auto ends = [&](std::string_view s) { return k.size() > s.size() && k.compare(k.size() - s.size(), s.size(), s) == 0; };
    if (ends(".mirror")) return v.empty() || v == "true" || v == "1" || v == "yes" || v == "on";
    if (ends(".push")) return !v.empty() && (v[0] == '+' || v[0] == ':');
    return false;
}

void refuse_push_setting(Analyzer& a, std::string_view key, std::string_view value, std::string_view how) {
    a.hit(Decision::deny, "git.push-config",
          std::string(how) + " sets " + std::string(key) + "=" + std::string(value) +
              ": a push to that remote then overwrites or deletes its branches (a mirror or forced refspec)");
}

void git_push(Analyzer& a, Call&, Git& g) {
    for (const auto& [key, value] : g.config) {
        if (destructive_push_setting(key, value)) {
            refuse_push_setting(a, key, value, "`git -c`");
            return;
        }
    }
    bool force = has(g, {"--force", "--force-with-lease", "--force-if-includes", "--mirror"}) ||
                 has_short(g, 'f');
    bool del = has(g, {"--delete", "--prune"}) || has_short(g, 'd');
    std::vector<const Value*> ops =
        operands(g, {"-o", "--push-option", "--repo", "--receive-pack", "--exec"});
    for (size_t i = 1; i < ops.size(); ++i) {
        const std::string& r = ops[i]->text;
        if (!r.empty() && r[0] == '+') force = true;
        if (!r.empty() && r[0] == ':') del = true;
    }
    if (has(g, {"--receive-pack", "--exec"}))
        a.hit(Decision::cage, "git.runs-program",
              "`git push --receive-pack` runs a program on the remote");
    if (force) {
        a.hit(Decision::deny, "git.push-force",
              "a forced push rewrites published history on the remote; `git push --force-with-lease` refuses when the remote has commits you have not seen, or push to a new branch");
        return;
    }
    if (del) {
        a.hit(Decision::deny, "git.push-delete", "the push deletes branches or tags on the remote");
        return;
    }
    a.hit(Decision::cage, "git.push", "`git push` publishes commits to a remote");
}

// A lone operand that names files rather than a branch: ".", a pattern, or a file name.
bool looks_like_path(const std::string& t) {
    if (t == "." || t == ".." || t == "*" || has_glob_chars(t) || t.rfind("./", 0) == 0 ||
        t.rfind("../", 0) == 0)
        return true;
    size_t dot = t.rfind('.');
    size_t slash = t.rfind('/');
    if (dot == std::string::npos || dot == 0 || (slash != std::string::npos && dot < slash))
        return false;
    std::string ext = t.substr(dot + 1);
    if (ext.empty() || ext.size() > 5) return false;
    bool alpha = std::all_of(ext.begin(), ext.end(),
                             [](char ch) { return std::isalpha(static_cast<unsigned char>(ch)); });
    bool version = t.size() > 1 &&
                   (t[0] == 'v' || std::isdigit(static_cast<unsigned char>(t[0]))) &&
                   std::isdigit(static_cast<unsigned char>(t[t[0] == 'v' ? 1 : 0]));
    return alpha && !version;
}

void git_checkout(Analyzer& a, Call&, Git& g) {
    if (has(g, {"--force"}) || has_short(g, 'f')) {
        a.hit(Decision::deny, "git.checkout-discard",
              "`git checkout -f` discards uncommitted changes; `git stash` first keeps them");
        return;
    }
    if (has(g, {"-b", "-B", "--orphan"}) || has(g, {"--detach"})) {
        local_change(a, g, "switches to a new branch");
        return;
    }
    std::vector<const Value*> ops = operands(g, {"--conflict", "--pathspec-from-file"});
    auto dd =
        std::find_if(g.args.begin(), g.args.end(), [](const Value& w) { return w.text == "--"; });
    bool paths = dd != g.args.end() && dd + 1 != g.args.end();
    if (!paths)
        paths = ops.size() >= 2 || (ops.size() == 1 && looks_like_path(ops[0]->text)) ||
                has(g, {"--pathspec-from-file", "--ours", "--theirs"});
    if (paths || has(g, {"--patch"}) || has_short(g, 'p')) {
        a.hit(Decision::deny, "git.checkout-discard",
              "`git checkout` of paths overwrites their uncommitted changes; `git stash push -- PATHS` sets them aside instead");
        return;
    }
    local_change(a, g, "switches branches; uncommitted changes are kept or the switch is refused");
}

void git_restore(Analyzer& a, Call&, Git& g) {
    bool staged = has(g, {"--staged"}) || has_short(g, 'S');
    bool worktree = has(g, {"--worktree"}) || has_short(g, 'W');
    if (staged && !worktree) {
        local_change(a, g, "only unstages; working tree files are kept");
        return;
    }
    a.hit(Decision::deny, "git.restore-worktree",
          "`git restore` overwrites uncommitted changes in the working tree; `git stash push -- PATHS` sets them aside instead");
}

void git_switch(Analyzer& a, Call&, Git& g) {
    if (has(g, {"--discard-changes", "--force"}) || has_short(g, 'f')) {
        a.hit(Decision::deny, "git.switch-discard",
              "`git switch --discard-changes` throws away uncommitted changes; `git stash` first keeps them");
        return;
    }
    local_change(a, g, "switches branches; uncommitted changes are kept or the switch is refused");
}

void git_stash(Analyzer& a, Call&, Git& g) {
    std::string sub = g.args.empty() || is_flag(g.args[0]) ? "push" : g.args[0].text;
    if (sub == "drop" || sub == "clear") {
        a.hit(Decision::deny, "git.stash-drop",
              "`git stash " + sub + "` deletes stashed changes for good");
        return;
    }
    if (sub == "list" || sub == "show") {
        read_only(a, g);
        return;
    }
    local_change(a, g, "saves or re-applies stashed changes");
}

void git_branch(Analyzer& a, Call&, Git& g) {
    bool force = has(g, {"--force"}) || has_short(g, 'f');
    bool del = has(g, {"--delete"}) || has_short(g, 'd');
    if (has_short(g, 'D') || (del && force)) {
        a.hit(Decision::deny, "git.branch-force-delete",
              "`git branch -D` deletes a branch with unmerged commits; `git branch -d` deletes only a merged one");
        return;
    }
    if (has_short(g, 'M') || has_short(g, 'C')) {
        a.hit(Decision::deny, "git.branch-force-delete",
              "`git branch -M/-C` overwrites an existing branch");
        return;
    }
    bool modifies = del || has_short(g, 'm') || has_short(g, 'c') || force ||
                    has(g, {"--move", "--copy", "--set-upstream-to", "--unset-upstream",
                            "--edit-description", "--track"}) ||
                    has_short(g, 'u');
    bool listing = has(g, {"--list", "--contains", "--no-contains", "--merged", "--no-merged",
                           "--points-at", "--show-current"}) ||
                   has_short(g, 'l') || has_short(g, 'a') || has_short(g, 'r');
    std::vector<const Value*> ops =
        operands(g, {"--sort", "--format", "--contains", "--merged", "--no-merged", "--points-at",
                     "--no-contains", "--color", "--column"});
    if (!modifies && (ops.empty() || listing)) {
        read_only(a, g);
        return;
    }
    local_change(a, g, del ? "deletes a merged branch" : "creates or renames a branch");
}

void git_tag(Analyzer& a, Call&, Git& g) {
    std::vector<const Value*> ops =
        operands(g, {"-m", "-F", "-u", "--sort", "--format", "--contains", "--points-at"});
    bool listing = has(g, {"--list"}) || has_short(g, 'l') ||
                   has(g, {"--contains", "--points-at", "--merged"});
    bool create = has_short(g, 'a') || has_short(g, 's') || has_short(g, 'm') ||
                  has_short(g, 'f') || has_short(g, 'd');
    if ((ops.empty() || listing) && !create) {
        read_only(a, g);
        return;
    }
    local_change(a, g, "creates or deletes a tag");
}

void git_reflog(Analyzer& a, Call&, Git& g) {
    std::string sub = g.args.empty() ? "show" : g.args[0].text;
    if (sub == "expire" || sub == "delete") {
        a.hit(Decision::deny, "git.reflog-expire",
              "`git reflog " + sub + "` destroys the data that undoes resets and rebases");
        return;
    }
    read_only(a, g);
}

void git_gc(Analyzer& a, Call&, Git& g) {
    for (const Value& v : g.args) {
        if (v.text == "--prune=now" || v.text == "--prune=all" || v.text == "--prune=0" ||
            v.text.rfind("--prune=now", 0) == 0) {
            a.hit(Decision::deny, "git.gc-prune-now",
                  "`git gc --prune=now` deletes unreachable commits that could still be recovered");
            return;
        }
    }
    local_change(a, g, "repacks the repository");
}

void git_prune(Analyzer& a, Call&, Git& g) {
    for (const Value& v : g.args) {
        if (v.text.rfind("--expire", 0) == 0 &&
            (contains(v.text, "now") || contains(v.text, "all"))) {
            a.hit(Decision::deny, "git.gc-prune-now",
                  "`git prune --expire=now` deletes unreachable commits");
            return;
        }
    }
    local_change(a, g, "removes unreachable objects past their expiry");
}

void git_rewrite(Analyzer& a, Call&, Git& g) {
    a.hit(Decision::deny, "git.rewrite-history", "`git " + g.sub + "` rewrites the whole history");
}

void git_update_ref(Analyzer& a, Call&, Git& g) {
    if (has(g, {"-d", "--delete"})) {
        a.hit(Decision::deny, "git.update-ref-delete",
              "`git update-ref -d` deletes a ref without the reflog's safety");
        return;
    }
    local_change(a, g, "moves a ref");
}

void git_worktree(Analyzer& a, Call&, Git& g) {
    std::string sub = g.args.empty() ? "" : g.args[0].text;
    if (sub == "list") {
        read_only(a, g);
        return;
    }
    if (sub == "remove" && (has(g, {"--force"}) || has_short(g, 'f'))) {
        a.hit(Decision::deny, "git.worktree-remove-force",
              "`git worktree remove --force` deletes a worktree with its uncommitted changes");
        return;
    }
    local_change(a, g, "changes worktrees");
}

void git_rm(Analyzer& a, Call&, Git& g) {
    if (!has(g, {"--cached"}) && (has(g, {"--force"}) || has_short(g, 'f'))) {
        a.hit(Decision::deny, "git.rm-force",
              "`git rm -f` deletes files together with their uncommitted changes");
        return;
    }
    local_change(a, g, "removes tracked files; the last commit keeps them");
}

void git_read_tree(Analyzer& a, Call&, Git& g) {
    if (has(g, {"--reset"}) && (has(g, {"-u"}) || has_short(g, 'u'))) {
        a.hit(Decision::deny, "git.reset-hard",
              "`git read-tree --reset -u` overwrites the working tree like reset --hard");
        return;
    }
    local_change(a, g, "reads a tree into the index");
}

void git_checkout_index(Analyzer& a, Call&, Git& g) {
    if (has(g, {"--force"}) || has_short(g, 'f')) {
        a.hit(Decision::deny, "git.checkout-discard",
              "`git checkout-index -f` overwrites uncommitted changes");
        return;
    }
    local_change(a, g, "writes files from the index");
}

// Config keys whose value is a command git runs.
bool is_command_key(std::string_view key) {
    std::string k = lower(key);
    static const std::string_view kSuffix[] = {
        "pager",           "editor",     "sshcommand",  "fsmonitor", "askpass",
        "gitproxy",        "external",   "textconv",    "command",   "driver",
        "clean",           "smudge",     "process",     "helper",    "program",
        "packobjectshook", "uploadpack", "receivepack", "cmd",       "tool"};
    if (k.rfind("pager.", 0) == 0 || k.rfind("alias.", 0) == 0) return true;
    for (std::string_view s : kSuffix) {
        if (k.size() >= s.size() && k.compare(k.size() - s.size(), s.size(), s) == 0) return true;
    }
    return false;
}

void judge_config_value(Analyzer& a, Call& c, const std::string& key, const Value& value,
                        std::string_view how) {
    if (!is_command_key(key)) return;
    Value code = value;
    std::string k = lower(key);
    if (k.rfind("alias.", 0) == 0) {
        if (code.text.empty() || code.text[0] != '!')
            return;  // a git subcommand alias: judged when used
        code.text = code.text.substr(1);
    } else if (!code.text.empty() && code.text[0] == '!') {
        code.text = code.text.substr(1);
    }
    a.run_string(code, *c.scope, false, Stream(), std::string(how) + " " + key);
}

void git_config(Analyzer& a, Call& c, Git& g) {
    static const std::string_view kRead[] = {
        "--get",       "--get-all",       "--get-regexp",  "--get-urlmatch", "--list",     "-l",
        "--get-color", "--get-colorbool", "--show-origin", "--show-scope",   "--name-only"};
    bool read = false;
    for (const Value& v : g.args) {
        if (std::find(std::begin(kRead), std::end(kRead), v.text) != std::end(kRead)) read = true;
    }
    std::vector<const Value*> ops =
        operands(g, {"--file", "-f", "--blob", "--type", "--default", "--comment"});
    if (!ops.empty() && (ops[0]->text == "get" || ops[0]->text == "list")) read = true;
    if (!read && ops.size() == 1 &&
        !has(g, {"--unset", "--unset-all", "--remove-section", "--rename-section", "--edit"}) &&
        !has_short(g, 'e')) {
        read = true;
    }
    if (read) {
        read_only(a, g);
        return;
    }
    size_t k = !ops.empty() && (ops[0]->text == "set") ? 1 : 0;
    if (ops.size() >= k + 2) {
        if (destructive_push_setting(ops[k]->text, ops[k + 1]->text)) {
            refuse_push_setting(a, ops[k]->text, ops[k + 1]->text, "`git config`");
            return;
        }
        judge_config_value(a, c, ops[k]->text, *ops[k + 1], "git config");
    }
    local_change(a, g, "changes git configuration");
}

// Asks a remote and changes nothing here; but the repository's config chooses the remote and how
// git reaches it (remote.*.url "ext::sh -c …", url.*.insteadOf, core.sshCommand): never bare.
void git_network_read(Analyzer& a, Git& g) {
    a.hit(Decision::cage, "git.network-read",
          "`git " + g.sub + "` asks a remote, through what the repository's config names");
}
void git_ls_remote(Analyzer& a, Call&, Git& g) {
    git_network_read(a, g);
}

void git_remote(Analyzer& a, Call&, Git& g) {
    std::vector<const Value*> ops = operands(g);
    // `remote show NAME` asks the remote (unless -n); `remote update` fetches.
    if (!ops.empty() && ops[0]->text == "show" && ops.size() > 1 && !has(g, {"-n"})) {
        git_network_read(a, g);
        return;
    }
    if (!ops.empty() && ops[0]->text == "update") {
        a.hit(Decision::cage, "git.network", "`git remote update` fetches from remotes and updates local refs");
        return;
    }
    if (ops.empty() || ops[0]->text == "show" || ops[0]->text == "get-url") {
        read_only(a, g);
        return;
    }
    if (!ops.empty() && ops[0]->text == "add" &&
        std::any_of(g.args.begin(), g.args.end(),
                    [](const Value& v) { return v.text == "--mirror" || v.text == "--mirror=push"; })) {
        refuse_push_setting(a, "remote.<name>.mirror", "true", "`git remote add --mirror`");
        return;
    }
    local_change(a, g, "changes remotes");
}

void git_notes(Analyzer& a, Call&, Git& g) {
    std::string sub = g.args.empty() ? "list" : g.args[0].text;
    if (sub == "list" || sub == "show") {
        read_only(a, g);
        return;
    }
    local_change(a, g, "changes notes");
}

void git_submodule(Analyzer& a, Call& c, Git& g) {
    std::vector<const Value*> ops = operands(g);
    if (!ops.empty() && ops[0]->text == "foreach" && ops.size() >= 2) {
        a.run_string(join_values(g.args, static_cast<size_t>(ops[1] - g.args.data()), " "),
                     *c.scope, false, Stream(), "git submodule foreach");
    }
    if (ops.empty() || ops[0]->text == "status" || ops[0]->text == "summary") {
        read_only(a, g);
        return;
    }
    if (ops[0]->text == "deinit" && (has(g, {"--force"}) || has_short(g, 'f'))) {
        a.hit(Decision::deny, "git.submodule-deinit-force",
              "`git submodule deinit --force` deletes the submodules' working trees with their local changes");
        return;
    }
    local_change(a, g, "changes submodules (and fetches them)");
}

void git_rebase(Analyzer& a, Call& c, Git& g) {
    for (size_t i = 0; i < g.args.size(); ++i) {
        const std::string& t = g.args[i].text;
        if ((t == "-x" || t == "--exec") && i + 1 < g.args.size()) {
            a.run_string(g.args[i + 1], *c.scope, false, Stream(), "git rebase --exec");
        } else if (t.rfind("--exec=", 0) == 0) {
            Value v = g.args[i];
            v.text = t.substr(7);
            a.run_string(v, *c.scope, false, Stream(), "git rebase --exec");
        }
    }
    local_change(a, g, "rewrites local commits; the reflog can undo it");
}

void git_bisect(Analyzer& a, Call& c, Git& g) {
    if (!g.args.empty() && g.args[0].text == "run" && g.args.size() > 1) {
        Call proto;
        proto.scope = c.scope;
        a.exec_argv(std::vector<Value>(g.args.begin() + 1, g.args.end()), proto);
    }
    if (!g.args.empty() &&
        (g.args[0].text == "log" || g.args[0].text == "visualize" || g.args[0].text == "view")) {
        read_only(a, g);
        return;
    }
    local_change(a, g, "checks out commits to bisect");
}

void git_archive(Analyzer& a, Call& c, Git& g) {
    for (size_t i = 0; i < g.args.size(); ++i) {
        const std::string& t = g.args[i].text;
        if (t == "--remote" || t.rfind("--remote=", 0) == 0 || t == "--exec" || t.rfind("--exec=", 0) == 0) {
            git_network_read(a, g);
            return;
        }
        if ((t == "-o" || t == "--output") && i + 1 < g.args.size()) {
            a.check_write(g.args[i + 1], WriteMode::truncate, "git archive -o", *c.scope);
            return;
        }
        if (t.rfind("--output=", 0) == 0) {
            a.check_write(Value::literal(t.substr(9)), WriteMode::truncate, "git archive --output",
                          *c.scope);
            return;
        }
    }
    read_only(a, g);
}

void git_network(Analyzer& a, Call&, Git& g) {
    a.hit(Decision::cage, "git.network",
          "`git " + g.sub + "` talks to a remote and updates local refs");
}

void git_local(Analyzer& a, Call&, Git& g) {
    local_change(a, g);
}

// Its output names files in the workspace (for xargs).
void git_ls_files(Analyzer& a, Call& c, Git& g) {
    read_only(a, g);
    Value v = Value::literal("./");
    v.text += kUnknown;
    v.unknown = true;
    v.guarded = true;
    v.taint = Taint::computed;
    c.out.kind = Stream::Kind::paths;
    c.out.paths = {v};
}
void git_read(Analyzer& a, Call&, Git& g) {
    read_only(a, g);
}
void git_tool(Analyzer& a, Call&, Git& g) {
    a.hit(Decision::cage, "git.runs-program", "`git " + g.sub + "` runs configured external tools");
}
void git_credential(Analyzer& a, Call&, Git& g) {
    a.hit(Decision::deny, "secret.read", "`git " + g.sub + "` prints stored credentials");
}

struct GitEntry {
    std::string_view name;
    GitHandler handler;
};

constexpr auto kGitCommands = sorted_by_name(std::to_array<GitEntry>({
    // inspection
    {"status", git_read},
    {"log", diff_like},
    {"show", diff_like},
    {"diff", diff_like},
    {"blame", git_read},
    {"annotate", git_read},
    {"ls-files", git_ls_files},
    {"ls-tree", git_read},
    {"ls-remote", git_ls_remote},
    {"rev-parse", git_read},
    {"rev-list", git_read},
    {"grep", diff_like},
    {"describe", git_read},
    {"shortlog", git_read},
    {"cat-file", git_read},
    {"show-ref", git_read},
    {"for-each-ref", git_read},
    {"name-rev", git_read},
    {"merge-base", git_read},
    {"count-objects", git_read},
    {"whatchanged", diff_like},
    {"diff-tree", diff_like},
    {"diff-index", diff_like},
    {"diff-files", diff_like},
    {"check-ignore", git_read},
    {"check-attr", git_read},
    {"check-ref-format", git_read},
    {"var", git_read},
    {"version", git_read},
    {"help", git_read},
    {"cherry", git_read},
    {"range-diff", diff_like},
    {"verify-commit", git_read},
    {"verify-tag", git_read},
    {"verify-pack", git_read},
    {"show-branch", git_read},
    {"fsck", git_read},
    {"reflog", git_reflog},
    {"archive", git_archive},
    {"get-tar-commit-id", git_read},
    {"stripspace", git_read},
    {"column", git_read},
    {"interpret-trailers", git_read},
    // refused when they destroy work or history
    {"reset", git_reset},
    {"clean", git_clean},
    {"push", git_push},
    {"checkout", git_checkout},
    {"restore", git_restore},
    {"switch", git_switch},
    {"stash", git_stash},
    {"branch", git_branch},
    {"tag", git_tag},
    {"gc", git_gc},
    {"prune", git_prune},
    {"filter-branch", git_rewrite},
    {"filter-repo", git_rewrite},
    {"update-ref", git_update_ref},
    {"worktree", git_worktree},
    {"rm", git_rm},
    {"checkout-index", git_checkout_index},
    {"config", git_config},
    {"remote", git_remote},
    {"notes", git_notes},
    {"submodule", git_submodule},
    {"rebase", git_rebase},
    {"bisect", git_bisect},
    // local, reflog-recoverable or bounded changes
    {"add", git_local},
    {"commit", git_local},
    {"merge", git_local},
    {"cherry-pick", git_local},
    {"revert", git_local},
    {"am", git_local},
    {"apply", git_local},
    {"mv", git_local},
    {"init", git_local},
    {"sparse-checkout", git_local},
    {"maintenance", git_local},
    {"update-index", git_local},
    {"format-patch", git_local},
    {"bundle", git_local},
    {"hash-object", git_local},
    {"mktree", git_local},
    {"commit-tree", git_local},
    {"replace", git_local},
    {"fast-import", git_local},
    {"symbolic-ref", git_local},
    {"read-tree", git_read_tree},
    {"merge-file", git_local},
    {"repack", git_local},
    {"pack-refs", git_local},
    {"lfs", git_local},
    {"rerere", git_local},
    {"mergetool", git_tool},
    {"difftool", git_tool},
    {"instaweb", git_tool},
    {"daemon", git_tool},
    {"web--browse", git_tool},
    {"credential", git_credential},
    {"credential-store", git_credential},
    {"credential-cache", git_credential},
    // network
    {"fetch", git_network},
    {"pull", git_network},
    {"clone", git_network},
    {"send-email", git_network},
    {"request-pull", git_ls_remote},
}));

void dispatch(Analyzer& a, Call& c, Git& g, int depth);

// git-extras' commands (git-obliterate, git-sync, …, programs on PATH that git runs as
// subcommands) that lose work: each with what it does and the safer way. `hard_only`: only
// with --hard or -h (git undo keeps the changes by default).
struct GitExtra {
    std::string_view name;
    std::string_view does;
    std::string_view instead;
    bool hard_only = false;
};

constexpr auto kGitExtras = sorted_by_name(std::to_array<GitExtra>({
    {"clear", "resets the working tree and deletes every untracked and ignored file (reset --hard, clean -fdx)",
     "`git stash -u` keeps them"},
    {"clear-soft", "resets the working tree and deletes untracked files (reset --hard, clean -fd)",
     "`git stash -u` keeps them"},
    {"delete-branch", "deletes the branch here and on the remote", "`git branch -d` deletes only a merged local branch"},
    {"delete-merged-branches", "deletes every merged branch at once", "`git branch --merged` lists them first"},
    {"delete-squashed-branches", "deletes every squash-merged branch with -D", "`git branch --merged` lists them first"},
    {"delete-submodule", "deletes a submodule and its working tree", "`git submodule deinit` keeps its files"},
    {"delete-tag", "deletes the tag here and on the remote", "`git tag -d` deletes only the local tag"},
    {"force-clone", "clones over an existing directory, resetting what is there", "clone into a new directory"},
    {"fresh-branch", "empties the index and deletes untracked files (git clean -fdx) for an empty branch",
     "`git switch --orphan` keeps untracked files"},
    {"graft", "merges a branch and deletes it", "`git merge` keeps the branch"},
    {"obliterate", "rewrites every commit to remove files from the whole history", "`git rm --cached` stops tracking them"},
    {"reauthor", "rewrites every commit's author in the history", "`git commit --amend --author` for the last commit"},
    {"rename-branch", "renames the branch here and deletes the old name on the remote", "`git branch -m` renames it locally"},
    {"rename-tag", "renames the tag and deletes the old one on the remote", "`git tag NEW OLD` adds the new name"},
    {"reset-file", "discards a file's changes", "`git stash push -- FILE` keeps them"},
    {"sync", "resets the branch to its remote and deletes untracked files (reset --hard, clean)",
     "`git stash -u && git pull --rebase` keeps them"},
    {"undo", "removes the last commits and, with --hard, their changes", "`git undo` without --hard keeps them", true},
}));

// True when it judged g.sub as one of git-extras' destructive commands.
bool git_extras_command(Analyzer& a, const Git& g) {
    const GitExtra* x = find_by_name<GitExtra>(kGitExtras, g.sub);
    if (!x) return false;
    if (x->hard_only && std::none_of(g.args.begin(), g.args.end(), [](const Value& v) {
            return v.text == "--hard" || v.text == "-h";
        })) {
        return false;
    }
    a.hit(Decision::deny, "git.extras-destroy",
          "`git " + g.sub + "` (git-extras) " + std::string(x->does) + "; instead, " + std::string(x->instead));
    return true;
}

void run_alias(Analyzer& a, Call& c, Git& g, const std::string& body, int depth) {
    if (!body.empty() && body[0] == '!') {
        // A shell alias: git runs it with sh, the arguments appended.
        Value code = Value::literal(body.substr(1));
        if (!g.args.empty()) code.text += " " + join_as_shell(g.args);
        a.run_string(code, *c.scope, false, Stream(), "git alias `" + g.sub + "`");
        return;
    }
    std::vector<std::string> words = split_ws(body);
    if (words.empty()) return;
    Git inner;
    inner.aliases = g.aliases;
    inner.aliases.erase(g.sub);
    inner.sub = words[0];
    for (size_t i = 1; i < words.size(); ++i) inner.args.push_back(Value::literal(words[i]));
    inner.args.insert(inner.args.end(), g.args.begin(), g.args.end());
    dispatch(a, c, inner, depth + 1);
}

// Subcommands whose destructive form is chosen by an option or refspec: an unquoted run-time
// value may split into `--hard`, `-D x` or `+main`.
bool option_sensitive(std::string_view sub) {
    static const std::string_view kSubs[] = {"reset",    "clean", "push",       "branch",
                                             "restore",  "stash", "reflog",     "gc",
                                             "worktree", "rm",    "update-ref", "read-tree"};
    return std::find(std::begin(kSubs), std::end(kSubs), sub) != std::end(kSubs);
}

void dispatch(Analyzer& a, Call& c, Git& g, int depth) {
    if (option_sensitive(g.sub)) {
        for (const Value& v : g.args) {
            if (v.splits && !v.text.empty() && v.text[0] == kUnknown) {
                a.hit(
                    Decision::deny, "git.dynamic-argument",
                    "`git " + g.sub + "` gets an unquoted run-time value (`" + v.shown() +
                        "`) that may split into destructive options; quote it or put it after --");
                return;
            }
        }
    }
    if (depth > 4) {
        a.hit(Decision::cage, "git.alias", "git aliases nest too deep to follow");
        return;
    }
    auto al = g.aliases.find(g.sub);
    if (al != g.aliases.end()) {
        run_alias(a, c, g, al->second, depth);
        return;
    }
    const GitEntry* e = find_by_name<GitEntry>(kGitCommands, g.sub);
    if (!e && git_extras_command(a, g)) return;
    if (!e) {
        // Another add-on (git-<sub> on PATH) or an alias named for what it destroys.
        Call shape;
        shape.name = "git " + g.sub;
        shape.via = c.via;
        shape.args.push_back(Value::literal(g.sub));
        shape.args.insert(shape.args.end(), g.args.begin(), g.args.end());
        if (std::optional<DestructiveWord> w = destructive_word(shape)) {
            a.hit(Decision::ask, "unknown.destructive-word",
                  "`git " + g.sub + "` is not a git command toolcage knows, and `" + w->word +
                      "` says it will " + w->verb + " something; confirm it, or write a policy rule for it");
        }
        a.hit(Decision::cage, "git.unknown",
              "`git " + g.sub + "` is not a known subcommand (it may be an alias from git config)");
        return;
    }
    e->handler(a, c, g);
}

// GIT_CONFIG_KEY_<n>/GIT_CONFIG_VALUE_<n> given to git (or set earlier in the command) are
// config overrides like -c.
void env_config(const Call& c, Git& g) {
    auto find = [&](const std::string& name) -> const Value* {
        for (const auto& [n, v] : c.env) {
            if (n == name) return &v;
        }
        auto it = c.scope->vars.find(name);
        return it == c.scope->vars.end() ? nullptr : &it->second;
    };
    for (int n = 0; n < 8; ++n) {
        const Value* key = find("GIT_CONFIG_KEY_" + std::to_string(n));
        const Value* value = find("GIT_CONFIG_VALUE_" + std::to_string(n));
        if (key && key->known()) g.config.insert_or_assign(lower(key->text), value ? value->text : std::string());
    }
}

void git_program(Analyzer& a, Call& c) {
    Git g;
    env_config(c, g);
    size_t i = 0;
    bool override = false;
    for (; i < c.argc(); ++i) {
        const Value& v = c.args[i];
        const std::string& t = v.text;
        if (v.unknown) {
            a.hit(Decision::cage, "git.unknown", "git's arguments are only known at run time");
            break;
        }
        if (t.empty() || t[0] != '-') break;
        if (t == "-C" || t == "--git-dir" || t == "--work-tree" || t == "--namespace" ||
            t == "--super-prefix" || t == "--attr-source") {
            ++i;
        } else if (t == "-c" || t.rfind("-c", 0) == 0) {
            std::string kv =
                t == "-c" ? (i + 1 < c.argc() ? c.arg(++i) : std::string()) : t.substr(2);
            override = true;
            size_t eq = kv.find('=');
            std::string key = kv.substr(0, eq);
            Value value = Value::literal(eq == std::string::npos ? "" : kv.substr(eq + 1));
            if (lower(key).rfind("alias.", 0) == 0)
                g.aliases.insert_or_assign(key.substr(6), value.text);
            g.config.insert_or_assign(lower(key), value.text);
            // url.<base>.insteadOf: the base may be an ext:: command.
            if (lower(key).rfind("url.ext::", 0) == 0) {
                size_t dot = key.rfind('.');
                judge_ext_url(a, c, key.substr(4, dot - 4));
            }
            judge_config_value(a, c, key, value, "git -c");
        } else if (t == "--config-env" || t.rfind("--config-env=", 0) == 0 ||
                   t.rfind("--exec-path", 0) == 0) {
            override = true;
            if (t == "--config-env") ++i;
        } else if (t == "--version" || t == "-v" || t == "--help" || t == "-h") {
            a.hit(Decision::allow, "readonly.git", "git " + t + " only prints information");
            return;
        }
    }
    if (override) {
        a.hit(Decision::cage, "git.config-override",
              "a git config override (-c, --config-env, --exec-path) can make git run programs");
    }
    if (i >= c.argc()) {
        a.hit(Decision::allow, "readonly.git", "`git` without a subcommand prints help");
        return;
    }
    g.sub = c.arg(i);
    g.args.assign(c.args.begin() + static_cast<long>(i) + 1, c.args.end());
    for (const Value& v : g.args) {
        if (v.text.rfind("ext::", 0) == 0) judge_ext_url(a, c, v.text);
    }
    dispatch(a, c, g, 0);
}

}  // namespace

namespace {
constexpr ProgramEntry kGitPrograms[] = {{"git", git_program}};
}  // namespace

std::span<const ProgramEntry> git_programs() {
    return kGitPrograms;
}

}  // namespace toolcage::classify::detail
