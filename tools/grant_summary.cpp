// What a step is granted, in a person's words, for `toolcage doctor` and `toolcage run
// --verbose`: the workspace, the writes, TMPDIR, the relay's hosts and the limits.
#include "tools/grant_summary.h"

#include <filesystem>

#include "cage/step/workspace.h"
#include "common/error.h"
#include "common/user_home.h"
#include "common/workspace_choice.h"

namespace toolcage::cli {

namespace {

std::string joined(const std::vector<std::string>& v, const std::string& none) {
    std::string s;
    for (const auto& e : v) s += (s.empty() ? "" : ", ") + e;
    return s.empty() ? none : s;
}

std::string limit_text(long n, const std::string& unit) {
    return n > 0 ? std::to_string(n) + unit : "unlimited";
}

}  // namespace

// The directory a step would run in, resolved as `toolcage run` resolves it: "." or "sub" is the
// one it names from here, and a directory that is not there is named as such (before the policy
// is read, so that the error is not taken for the policy's).
std::string resolve_workdir(const std::string& given, const std::string& command) {
    std::error_code ec;
    if (given.empty()) {
        std::filesystem::path wd = std::filesystem::current_path(ec);
        if (ec) throw Error(command + ": the current directory cannot be read (" + ec.message() + "); pass --workdir");
        return wd.string();
    }
    std::filesystem::path real = std::filesystem::canonical(given, ec);
    if (ec || !std::filesystem::is_directory(real))
        throw Error(command + ": --workdir \"" + given + "\": not a directory (" +
                    (ec ? ec.message() : std::string("a file")) + "); give an existing directory");
    return real.string();
}

// What a step run in `wd` is granted, in a person's words: the right-by-right report below it
// has the same as raw path lists.
std::string grant_summary(const Policy& p, const std::string& wd, bool read_only, const std::string& workspace,
                          bool list_reads) {
    // The workspace as `run` decides it (common/workspace_choice.h): none where none may be.
    const workspace::Choice chosen =
        workspace.empty() ? workspace::decide(wd, workspace::with_roots(workspace::guarded_from_process(),
                                                                        p.workspace.roots))
                          : workspace::Choice{workspace, {}, {}};
    std::string o = "what a step in " + wd + " is granted:\n";
    if (!chosen.ok() && !(read_only && chosen.readable))
        return o + "  nothing: `toolcage run` refuses to start it: " + chosen.reason + "\n\n";
    // The read-only cage where no workspace may be reads where it works.
    cage::StepPaths paths{wd, chosen.ok() ? chosen.dir : wd, "/tmp/toolcage-STEP", user_home()};
    cage::ExpandedCage c = cage::expand_cage_policy(p.cage, paths);
    std::vector<std::string> writes;
    for (const auto& w : c.write)
        if (w == paths.workspace) writes.insert(writes.begin(), "the workspace");
        else if (w != paths.tmp && !w.starts_with("/dev/")) writes.push_back(w);  // /dev/null, /dev/tty: below
    const auto& l = p.cage.limits;
    if (!chosen.ok())
        o += "  workspace: none (it only reads, " + wd + " among what it reads): " + chosen.reason + "\n";
    else
        o += "  workspace: " + paths.workspace +
             (!workspace.empty() ? " (given by --workspace)"
                                 : paths.workspace == wd ? "" : " (the project that holds it)") + "\n";
    if (read_only) {
        o += "  writes:    nothing (the read-only cage: /dev/null and the terminal only)\n";
    } else {
        o += "  writes:    " + joined(writes, "nothing but its TMPDIR") + "\n";
        o += "  TMPDIR:    a fresh directory per step, removed after it\n";
    }
    if (list_reads) {
        o += "  reads:     " + std::to_string(c.read.size()) + " paths:\n";
        for (const auto& r : c.read) o += "               " + r + "\n";
    } else {
        o += "  reads:     " + std::to_string(c.read.size()) + " paths (listed under \"paths\" below)\n";
    }
    o += "  network:   " +
         (p.relay.enabled && !read_only ? "HTTPS through the relay to " + joined(p.relay.allow, "no host") + " only"
                          : std::string("none (no relay: every TCP connect refused)")) + "\n";
    o += "  limits:    " + std::to_string(l.nproc) + " processes, " + std::to_string(l.nofile) +
         " open files, files up to " + limit_text(l.fsize_mb, " MiB") + ", CPU " + limit_text(l.cpu_seconds, " s") +
         ", memory " + limit_text(l.memory_mb, " MiB") + "\n\n";
    return o;
}

}  // namespace toolcage::cli
