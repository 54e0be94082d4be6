// Dry runs, in one place: the options that make a program only say what it would do (git rm -n,
// rsync -n, apt-get -s, kubectl --dry-run=client, npm publish --dry-run). The program's own rules
// still run, but the verdicts a rehearsal cannot reach (it deletes, writes, publishes nothing)
// are lowered to the entry's cap. Code the program would run anyway (rsync -e, a git config
// override, a wrapper's command) is judged at its own level and is never lowered.
#include <algorithm>

#include "hook/classify/analyzer.h"
#include "hook/classify/program_table.h"
#include "hook/classify/text.h"

namespace toolcage::classify::detail {

namespace {

// `name` is the program, or "program subcommand" when only that subcommand rehearses.
constexpr auto kDryRuns = sorted_by_name(std::to_array<DryRun>({
    {"apt", "s", "--simulate --dry-run --just-print --no-act --recon", "pkg.install pkg.purge", Decision::allow,
     "`apt -s` only simulates: nothing is installed or removed"},
    {"apt-get", "s", "--simulate --dry-run --just-print --no-act --recon", "pkg.install pkg.purge", Decision::allow,
     "`apt-get -s` only simulates: nothing is installed or removed"},
    {"aws", "", "--dryrun --dry-run", "cloud.delete cloud.cli", Decision::cage,
     "`aws … --dryrun` only shows what it would change (it still talks to the cloud)"},
    {"borg", "n", "--dry-run", "backup.delete", Decision::cage,
     "`borg … --dry-run` only lists what it would delete"},
    {"cargo publish", "n", "--dry-run", "publish.package", Decision::cage,
     "`cargo publish --dry-run` builds the package but does not upload it"},
    {"dpkg", "", "--dry-run --no-act --simulate", "pkg.install pkg.purge", Decision::allow,
     "`dpkg --dry-run` only says what it would do"},
    {"git add", "n", "--dry-run", "git.local-change", Decision::allow, "`git add -n` only lists what it would add"},
    {"git clean", "n", "--dry-run", "git.clean-force git.local-change", Decision::allow,
     "`git clean -n` only lists what it would delete"},
    {"git mv", "n", "--dry-run", "git.local-change", Decision::allow, "`git mv -n` only lists what it would move"},
    {"git prune", "n", "--dry-run", "git.gc-prune-now git.local-change", Decision::allow,
     "`git prune -n` only lists what it would prune"},
    {"git push", "n", "--dry-run", "git.push git.push-force git.push-delete", Decision::cage,
     "`git push --dry-run` only talks to the remote"},
    {"git reflog", "n", "--dry-run", "git.reflog-expire git.local-change", Decision::allow,
     "`git reflog expire -n` only lists what it would expire"},
    {"git rm", "n", "--dry-run", "git.rm-force git.local-change", Decision::allow,
     "`git rm -n` only lists what it would remove"},
    {"helm", "", "--dry-run", "kubectl.delete kubectl.change", Decision::cage,
     "`helm … --dry-run` only renders what it would change (it still talks to the cluster)"},
    {"http", "", "--offline", "net.remote-delete net.fetch", Decision::allow,
     "`http --offline` builds and prints the request without sending it"},
    {"https", "", "--offline", "net.remote-delete net.fetch", Decision::allow,
     "`https --offline` builds and prints the request without sending it"},
    {"kubectl", "", "--dry-run", "kubectl.delete kubectl.change", Decision::cage,
     "`kubectl … --dry-run` sends nothing to keep (it still talks to the cluster)"},
    {"npm publish", "", "--dry-run", "publish.package", Decision::cage,
     "`npm publish --dry-run` packs the package (running its scripts) but does not upload it"},
    {"npm unpublish", "", "--dry-run", "publish.package", Decision::cage,
     "`npm unpublish --dry-run` only says what it would remove (it still talks to the registry)"},
    {"oc", "", "--dry-run", "kubectl.delete kubectl.change", Decision::cage,
     "`oc … --dry-run` sends nothing to keep (it still talks to the cluster)"},
    {"pdm publish", "", "--dry-run", "publish.package", Decision::cage,
     "`pdm publish --dry-run` builds the package but does not upload it"},
    {"pnpm publish", "", "--dry-run", "publish.package", Decision::cage,
     "`pnpm publish --dry-run` packs the package but does not upload it"},
    {"poetry publish", "", "--dry-run", "publish.package", Decision::cage,
     "`poetry publish --dry-run` builds the package but does not upload it"},
    {"rclone", "n", "--dry-run", "storage.delete", Decision::cage,
     "`rclone --dry-run` only lists what it would change (it still talks to the remote)"},
    {"restic", "n", "--dry-run", "backup.delete", Decision::cage,
     "`restic forget --dry-run` only lists what it would delete"},
    {"rsync", "n", "--dry-run", "rm. write. rsync.delete-remote=cage", Decision::allow,
     "`rsync -n` only lists what it would copy or delete"},
    {"sfdisk", "n", "--no-act", "disk.format", Decision::allow, "`sfdisk --no-act` does not write the table"},
    {"uv publish", "", "--dry-run", "publish.package", Decision::cage,
     "`uv publish --dry-run` does not upload the package"},
    {"xh", "", "--offline", "net.remote-delete net.fetch", Decision::allow,
     "`xh --offline` builds and prints the request without sending it"},
    {"xhs", "", "--offline", "net.remote-delete net.fetch", Decision::allow,
     "`xhs --offline` builds and prints the request without sending it"},
    {"yarn publish", "", "--dry-run", "publish.package", Decision::cage,
     "`yarn publish --dry-run` packs the package but does not upload it"},
}));

// The first operand, skipping the global options that take a value (git -C DIR, -c KEY=V).
std::string subcommand_of(const Call& c) {
    for (size_t i = 0; i < c.argc(); ++i) {
        const std::string& t = c.arg(i);
        if (!is_flag(c.args[i])) return t;
        if (c.name == "git" && (t == "-C" || t == "-c" || t == "--git-dir" || t == "--work-tree" || t == "--namespace")) ++i;
    }
    return {};
}

bool rehearses(const Call& c, const DryRun& d) {
    for (const Value& v : c.args) {
        if (!is_flag(v) || !v.known()) continue;
        const std::string& t = v.text;
        if (t.rfind("--", 0) == 0) {
            size_t eq = t.find('=');
            if (!word_listed(d.longs, t.substr(0, eq))) continue;
            // --dry-run=none is kubectl's way of saying "not a dry run".
            if (eq != std::string::npos && (t.substr(eq + 1) == "none" || t.substr(eq + 1) == "false")) continue;
            return true;
        }
        if (t.size() == 2 && t == "-so") continue;
        for (size_t k = 1; k < t.size(); ++k) {
            if (d.letters.find(t[k]) != std::string_view::npos) return true;
            // A bundle stops at a letter taking a value; these tools' value letters are not ours.
        }
    }
    return false;
}

}  // namespace

const DryRun* dry_run_of(const Call& c) {
    // Most programs have no entry: find that out without building any string.
    auto it = std::lower_bound(kDryRuns.begin(), kDryRuns.end(), std::string_view(c.name),
                               [](const DryRun& d, std::string_view n) { return d.name < n; });
    if (it == kDryRuns.end() || it->name.substr(0, c.name.size()) != c.name ||
        (it->name.size() > c.name.size() && it->name[c.name.size()] != ' ')) {
        return nullptr;
    }
    std::string sub = subcommand_of(c);
    if (!sub.empty()) {
        if (const DryRun* d = find_by_name<DryRun>(kDryRuns, c.name + " " + sub)) return rehearses(c, *d) ? d : nullptr;
    }
    const DryRun* d = find_by_name<DryRun>(kDryRuns, c.name);
    return d && rehearses(c, *d) ? d : nullptr;
}

std::optional<Decision> dry_run_cap(const DryRun& d, std::string_view rule) {
    size_t i = 0;
    while (i < d.relieves.size()) {
        size_t e = d.relieves.find(' ', i);
        if (e == std::string_view::npos) e = d.relieves.size();
        std::string_view w = d.relieves.substr(i, e - i);
        Decision cap = d.cap;
        if (size_t eq = w.find('='); eq != std::string_view::npos) {
            cap = w.substr(eq + 1) == "cage" ? Decision::cage : Decision::allow;
            w = w.substr(0, eq);
        }
        if (w == rule || (!w.empty() && w.back() == '.' && rule.substr(0, w.size()) == w)) return cap;
        i = e + 1;
    }
    return std::nullopt;
}

}  // namespace toolcage::classify::detail
