// The catalogue of built-in rule ids, in one place: every id a verdict can carry, so that a
// policy's overrides can be checked against it. Ids are <area>.<what>, lowercase.
#include "hook/classify/rules.h"

#include <algorithm>

#include "hook/classify/analyzer.h"

namespace toolcage::classify {

namespace {

constexpr std::string_view kRules[] = {
    "crypto.tool", "interp.shell-text", "git.dynamic-argument", "unknown.wrapper-destructive", "docker.host-access", "system.user-delete", "db.destroy",
    "awk.program-file", "awk.runs-commands", "awk.writes-files", "build.run", "chmod.setuid",
    "cloud.cli", "cloud.delete", "compress.replaces", "cp.copies", "crontab.edit", "crontab.list",
    "crontab.remove", "date.set", "disk.format", "disk.list", "disk.manage", "dmesg.clear",
    "docker.query", "docker.run", "docker.volumes", "editor.edits", "editor.runs-commands", "env.code-variable",
    "env.path-changed", "eval.dynamic", "file.compile", "git.alias", "git.branch-force-delete",
    "git.checkout-discard", "git.clean-force", "git.config-override", "git.gc-prune-now",
    "git.local-change", "git.network", "git.network-read", "git.push", "git.push-delete", "git.push-force",
    "git.reflog-expire", "git.reset-hard", "git.restore-worktree", "git.rewrite-history",
    "git.rm-force", "git.runs-program", "git.stash-drop", "git.switch-discard", "git.unknown",
    "git.update-ref-delete", "git.worktree-remove-force", "hostname.set", "infra.change",
    "infra.destroy", "infra.read", "internal.error", "interp.code", "interp.destructive-string",
    "interp.dynamic-sink", "interp.fork-bomb", "interp.interactive", "interp.module",
    "interp.obfuscated", "interp.script", "interp.stdin", "ip.changes-network",
    "journalctl.maintenance", "kill.all", "kill.check", "kill.init", "kill.list", "kill.process",
    "admin.change", "admin.query", "firewall.flush", "storage.delete", "system.swap", "sysctl.write",
    "ssh.key-overwrite", "crontab.install", "git.submodule-deinit-force", "git.ext-transport", "dryrun.rehearsal",
    "launch.debugger", "launch.query", "launch.schedule", "launch.session", "launch.types",
    "kubectl.change", "kubectl.delete", "kubectl.query", "ln.creates", "mkdir.creates",
    "mktemp.creates", "mv.device", "mv.moves", "net.fetch", "net.service", "pager.runs-commands",
    "parse.error", "parse.limit", "patch.edits", "path.untrusted-program", "pipe.decoded-to-shell",
    "pipe.remote-to-shell", "pkg.exec", "pkg.install", "pkg.run", "publish.image", "publish.package",
    "publish.release", "readonly.dd", "readonly.echo", "readonly.env", "readonly.git", "readonly.tar",
    "readonly.unzip", "readonly.version", "rg.hostname-bin", "rg.pre", "rg.search-zip", "rm.git-dir",
    "rm.home", "rm.nothing", "rm.root", "rm.secret", "rm.system", "rm.temp", "rm.trash",
    "rm.unknown-guarded", "rm.unknown-target", "rm.workspace", "rm.workspace-artifact",
    "rm.workspace-root", "rmdir.empty-only", "rsync.delete-remote", "rsync.list", "rsync.remote",
    "rsync.runs-commands", "scp.remote", "secret.read", "sed.in-place", "sed.runs-commands",
    "sed.script-file", "shell.assignment", "shell.builtin", "shell.cd", "shell.exec",
    "shell.fork-bomb", "shell.interactive", "shell.load-builtin", "shell.lookup",
    "shell.nesting-depth", "shell.script", "shell.source", "shell.stdin", "shell.syntax-check",
    "sort.compress-program", "sql.delete-all", "sql.drop", "sql.query", "sql.truncate",
    "sql.update-all", "ssh.remote-command", "ssh.session", "sudo.elevated", "system.power",
    "system.power-query", "system.service", "systemctl.query", "tar.creates", "tar.runs-commands",
    "touch.creates", "unknown.dynamic-program", "unknown.program", "unknown.program-destructive",
    "wrapper.no-command", "wrapper.priority", "wrapper.runs", "wrapper.shell", "wrapper.trace",
    "write.append", "write.device", "write.devnull", "write.git-dir", "write.home", "write.network",
    "write.rc-file", "write.secret", "write.system", "write.temp", "write.unknown-target",
    "write.workspace", "yq.in-place", "zip.creates", "zip.runs-commands",
};

// Programs whose rule ids are built from their name.
constexpr std::string_view kPermissionPrograms[] = {"chmod", "chown", "chgrp"};
constexpr std::string_view kPermissionRules[] = {"system", "home", "unknown-target", "workspace"};
constexpr std::string_view kCompressors[] = {"gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "zstd", "unzstd", "lz4"};

const std::vector<std::string>& all_ids() {
    static const std::vector<std::string> ids = [] {
        std::vector<std::string> out;
        for (std::string_view r : kRules) out.emplace_back(r);
        for (std::string_view p : kPermissionPrograms) {
            for (std::string_view r : kPermissionRules) out.push_back(std::string(p) + "." + std::string(r));
        }
        for (std::string_view c : kCompressors) out.push_back("readonly." + std::string(c));
        detail::readonly_rule_ids(out);
        std::sort(out.begin(), out.end());
        out.erase(std::unique(out.begin(), out.end()), out.end());
        return out;
    }();
    return ids;
}

}  // namespace

std::vector<std::string> builtin_rule_ids() { return all_ids(); }

bool is_builtin_rule(std::string_view id) {
    const auto& ids = all_ids();
    return std::binary_search(ids.begin(), ids.end(), id, [](const auto& a, const auto& b) {
        return std::string_view(a) < std::string_view(b);
    });
}

}  // namespace toolcage::classify
