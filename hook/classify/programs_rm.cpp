// Deleting files: rm, unlink, rmdir, shred, rimraf, and the shared rule every other deleter
// (find -delete, rsync --delete, mv's source, interpreter rmtree) goes through. Regenerable
// things inside the workspace are caged; the workspace root, .git, home, the system, `/` and
// targets known only at run time are refused.
#include "hook/classify/analyzer.h"
#include "hook/classify/program_table.h"
#include "hook/classify/text.h"

namespace toolcage::classify::detail {

// Whether the deletion is recursive does not change the answer: a protected file is as lost as
// a protected tree.
void Analyzer::check_delete(const Value& target, bool /*recursive*/, std::string_view prog,
                            Call& call) {
    std::string shown = target.shown();
    std::string who = "`" + std::string(prog) + "`";
    // A `~` that reaches a deleter from an unquoted expansion (`V='rm -rf ~'; $V`): bash then
    // deletes a directory named ~, but the text was written to delete the home, and typed,
    // eval'd or run by another shell it does. A quoted "~" typed as such means the directory.
    if (target.known() && target.expanded && (target.text == "~" || target.text.rfind("~/", 0) == 0)) {
        hit(Decision::deny, "rm.home",
            who + " deletes " + shown + ": written for the home directory (run by eval or another shell it is "
            "the home); write ./~ if a directory named ~ is meant");
    }
    for (const PathInfo& p : resolve(target, *call.scope)) {
        if (p.secret) {
            hit(Decision::deny, "rm.secret",
                who + " deletes " + shown + ", a credentials file that git does not keep");
            continue;
        }
        switch (p.cls) {
            case PathClass::root:
                hit(Decision::deny, "rm.root",
                    who + " deletes " + (p.root_glob ? "everything under /" : "/") + " (" + shown +
                        ")");
                break;
            case PathClass::system:
                hit(Decision::deny, "rm.system",
                    who + " deletes " + shown + ", outside the workspace (system files)");
                break;
            case PathClass::home:
                hit(Decision::deny, "rm.home",
                    who + " deletes " + shown + " in the home directory, outside the workspace; work on a copy inside the workspace (" + (ctx().workspace.empty() ? std::string("the project") : ctx().workspace) + ") instead");
                break;
            case PathClass::workspace_root:
                hit(Decision::deny, "rm.workspace-root",
                    who + " deletes " +
                        (p.root_glob ? "every entry of the workspace ("
                                     : "the workspace itself (") +
                        shown + "), uncommitted work included");
                break;
            case PathClass::git_dir:
                hit(Decision::deny, "rm.git-dir",
                    who + " deletes " + shown + ", the repository's history");
                break;
            case PathClass::unknown:
                if (p.guarded) {
                    hit(Decision::cage, "rm.unknown-guarded",
                        who + " deletes " + shown + ", known only at run time but never empty");
                } else {
                    hit(Decision::deny, "rm.unknown-target",
                        who + " deletes " + shown +
                            ", which is only known at run time (unset, it may be `/` or `~`)");
                }
                break;
            case PathClass::temp:
                hit(Decision::cage, "rm.temp", who + " deletes " + shown + " in a temp directory");
                break;
            case PathClass::workspace:
                if (p.regenerable) {
                    hit(Decision::cage, "rm.workspace-artifact",
                        who + " deletes " + shown + ", a regenerable build artifact");
                } else {
                    hit(Decision::cage, "rm.workspace",
                        who + " deletes " + shown + " inside the workspace");
                }
                break;
        }
    }
}

namespace {

void rm_program(Analyzer& a, Call& c) {
    Opts o = parse_opts(c.args, 0, "", {"--interactive"}, false);
    bool recursive = o.has_any({"-r", "-R", "--recursive"});
    if (o.operands.empty()) {
        a.hit(Decision::allow, "rm.nothing", "`rm` without operands deletes nothing");
        return;
    }
    for (size_t k : o.operands) a.check_delete(c.args[k], recursive, c.via + c.name, c);
}

void rimraf_program(Analyzer& a, Call& c) {
    Opts o = parse_opts(c.args, 0, "", {}, false);
    for (size_t k : o.operands) a.check_delete(c.args[k], true, c.name, c);
}

void unlink_program(Analyzer& a, Call& c) {
    Opts o = parse_opts(c.args, 0, "", {}, false);
    for (size_t k : o.operands) a.check_delete(c.args[k], false, c.name, c);
}

void rmdir_program(Analyzer& a, Call&) {
    a.hit(Decision::cage, "rmdir.empty-only", "`rmdir` removes empty directories only");
}

void shred_program(Analyzer& a, Call& c) {
    Opts o = parse_opts(c.args, 0, "nsx", {"--iterations", "--size", "--random-source", "--remove"},
                        false);
    for (size_t k : o.operands) a.check_delete(c.args[k], false, "shred", c);
}

void trash_program(Analyzer& a, Call& c) {
    a.hit(Decision::cage, "rm.trash",
          "`" + c.name + "` moves files to the trash, where they can be restored");
}

}  // namespace

namespace {
constexpr auto kDeletePrograms =
    sorted_by_name(std::to_array<ProgramEntry>({{"rm", rm_program},
                                                {"unlink", unlink_program},
                                                {"rmdir", rmdir_program},
                                                {"shred", shred_program},
                                                {"rimraf", rimraf_program},
                                                {"trash", trash_program},
                                                {"trash-put", trash_program},
                                                {"srm", rm_program},
                                                {"wipe", shred_program}}));
}  // namespace

std::span<const ProgramEntry> delete_programs() {
    return kDeletePrograms;
}

}  // namespace toolcage::classify::detail
