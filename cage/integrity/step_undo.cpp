#include "cage/integrity/step_undo.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <vector>

#include "cage/integrity/change_store.h"
#include "cage/integrity/layer_ops.h"
#include "cage/integrity/step_layer.h"
#include "cage/integrity/tree_ops.h"
#include "common/decision_log.h"
#include "common/error.h"

using json = nlohmann::json;

namespace toolcage::cage {

namespace {

using tree::Fd;
using tree::kDirFlags;

constexpr const char* kUndoJournal = "undo.json";
constexpr std::string_view kUndoTemp = ".toolcage-layer-";  // cleaned as a landing's are

struct Landed {
    LayerOp op;
    json identity;  // place and mkdir: what the step left there
};

std::vector<Landed> read_landed(const std::string& dir) {
    json j = read_state_json(dir + "/" + std::string(kLandedFile));
    if (!j.is_array())
        throw Error(dir + "/" + std::string(kLandedFile) + ": not a list; remove " + dir);
    std::vector<Landed> out;
    for (const auto& e : j) out.push_back({op_from_json(e), e.value("identity", json())});
    return out;
}

bool same_entry(const json& now, const json& then) {
    return !now.is_null() && !then.is_null() && now.value("kind", "") == then.value("kind", "") &&
           now.value("dev", std::uint64_t{0}) == then.value("dev", std::uint64_t{0}) &&
           now.value("ino", std::uint64_t{0}) == then.value("ino", std::uint64_t{0});
}

std::string describe(const json& id) {
    if (id.is_null()) return "nothing is there now";
    return "a " + id.value("kind", std::string("?")) + " is there now, not the one the step left";
}

bool exists_in(int base, const std::string& rel) {
    auto [parent, name] = tree::split(rel);
    Fd p(tree::open_dir(base, parent, false));
    struct stat st {};
    return p.fd >= 0 && ::fstatat(p.fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
}

// Every path whose undoing a later change got in the way of, with why; nothing is changed.
std::vector<std::string> conflicts(int ws, int before, const std::vector<Landed>& landed) {
    std::vector<std::string> out;
    std::set<std::string> made;           // what the step placed or made
    std::set<std::string> restored_dirs;  // directories undo makes again (rmdir undone)
    std::map<std::string, std::set<std::string>> children;  // of the directories the step made
    for (const auto& l : landed) {
        if (l.op.op == "place" || l.op.op == "mkdir") {
            made.insert(l.op.rel);
            auto [parent, name] = tree::split(l.op.rel);
            children[parent].insert(name);
        }
        if (l.op.op == "rmdir") restored_dirs.insert(l.op.rel);
    }
    const std::string later = " since the step: a later change touched it";
    const std::string fix =
        "; undo the later step first (toolcage changes lists them), or move it away, then undo "
        "again";
    for (const auto& l : landed) {
        const std::string& rel = l.op.rel;
        if (l.op.op == "place" || l.op.op == "mkdir") {
            json now = entry_identity(ws, rel);
            // Gone since: nothing of the step's to remove there (what it replaced is put back).
            if (now.is_null()) continue;
            if (now != l.identity) {
                out.push_back(rel + ": changed" + later + " (" + describe(now) + ")" + fix);
                continue;
            }
            if (l.op.op == "mkdir") {
                Fd d(tree::open_dir(ws, rel, false));
                if (d.fd < 0) continue;
                const auto& mine = children[rel];
                DIR* dp = ::fdopendir(::dup(d.fd));
                if (!dp) continue;
                while (dirent* e = ::readdir(dp)) {
                    std::string n = e->d_name;
                    if (n == "." || n == ".." || mine.count(n)) continue;
                    out.push_back(rel + "/" + n + ": created" + later +
                                  " in a directory the step made" + fix);
                }
                ::closedir(dp);
            }
        } else if (l.op.op == "chmod" && l.op.old_mode >= 0) {
            auto [parent, name] = tree::split(rel);
            Fd p(tree::open_dir(ws, parent, false));
            struct stat st {};
            if (p.fd < 0 || ::fstatat(p.fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 ||
                !S_ISDIR(st.st_mode) || (st.st_mode & 07777) != l.op.mode)
                out.push_back(rel + ": its permissions or kind changed" + later + fix);
        } else if (l.op.op == "aside" || l.op.op == "rmdir") {
            if (!made.count(rel) && exists_in(ws, rel))
                out.push_back(rel + ": created" + later + " where the step had removed it" + fix);
            if (l.op.op == "aside" && !exists_in(before, rel))
                out.push_back(rel +
                              ": what the workspace had there before the step is not kept "
                              "(the step's directory was changed by hand); it cannot be put back");
            auto [parent, name] = tree::split(rel);
            Fd p(tree::open_dir(ws, parent, false));
            if (!parent.empty() && p.fd < 0 && !restored_dirs.count(parent) && !made.count(parent))
                out.push_back(rel + ": its directory " + parent + " is gone" + later + fix);
        }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

// Moves the before-image of `rel` back: one rename, or a copy to a temporary name in the
// workspace's root renamed into place, then the before-image removed. Done again after a kill,
// it finds the path back already and only removes what is left of the before-image.
void put_back(int ws, int before, const std::string& rel, std::vector<std::string>& problems) {
    auto [parent, name] = tree::split(rel);
    Fd from(tree::open_dir(before, parent, false));
    struct stat st {};
    if (from.fd < 0 || ::fstatat(from.fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return;
    Fd to(tree::open_dir(ws, parent, false));
    if (to.fd < 0) {
        problems.push_back(rel + ": " + syscall_error("openat(\"" + parent + "\")", errno));
        return;
    }
    struct stat there {};
    if (::fstatat(to.fd, name.c_str(), &there, AT_SYMLINK_NOFOLLOW) == 0) {
        (void)tree::remove(from.fd, name);  // copied back before a kill
        return;
    }
    if (::renameat(from.fd, name.c_str(), to.fd, name.c_str()) == 0) return;
    if (errno != EXDEV) {
        problems.push_back(rel + ": " + syscall_error("renameat()", errno));
        return;
    }
    const std::string temp = tree::temp_name(kUndoTemp);
    std::string e = tree::copy(from.fd, name, ws, temp);
    if (e.empty() && ::renameat2(ws, temp.c_str(), to.fd, name.c_str(), RENAME_NOREPLACE) != 0)
        e = syscall_error("renameat2(\"" + temp + "\", \"" + rel + "\")", errno);
    if (!e.empty()) {
        (void)tree::remove(ws, temp);
        problems.push_back(rel + ": " + e);
        return;
    }
    (void)tree::remove(from.fd, name);
}

// The landing backwards, each operation done only when what it undoes is still there.
void undo_ops(int ws, int before, const std::vector<Landed>& landed,
              std::vector<std::string>& problems) {
    for (auto it = landed.rbegin(); it != landed.rend(); ++it) {
        const LayerOp& op = it->op;
        auto [parent, name] = tree::split(op.rel);
        Fd p(tree::open_dir(ws, parent, false));
        if (op.op == "aside") {
            put_back(ws, before, op.rel, problems);
            continue;
        }
        if (p.fd < 0) continue;
        if (op.op == "place") {
            if (same_entry(entry_identity(ws, op.rel), it->identity) &&
                ::unlinkat(p.fd, name.c_str(), 0) != 0)
                problems.push_back(op.rel + ": " + syscall_error("unlinkat()", errno));
        } else if (op.op == "mkdir") {
            if (same_entry(entry_identity(ws, op.rel), it->identity) &&
                ::unlinkat(p.fd, name.c_str(), AT_REMOVEDIR) != 0)
                problems.push_back(op.rel + ": " + syscall_error("unlinkat(AT_REMOVEDIR)", errno));
        } else if (op.op == "chmod" && op.old_mode >= 0) {
            if (::fchmodat(p.fd, name.c_str(), static_cast<mode_t>(op.old_mode), 0) != 0 &&
                errno != ENOENT)
                problems.push_back(op.rel + ": " + syscall_error("fchmodat()", errno));
        } else if (op.op == "rmdir") {
            if (::mkdirat(p.fd, name.c_str(), 0700) != 0 && errno != EEXIST)
                problems.push_back(op.rel + ": " + syscall_error("mkdirat()", errno));
            else
                (void)::fchmodat(p.fd, name.c_str(), static_cast<mode_t>(op.old_mode), 0);
        }
    }
}

struct Lock {
    int fd = -1;
    ~Lock() {
        if (fd >= 0) ::close(fd);
    }
};

// The undo's last part: the record says undone, the held changes are dropped, the before-images
// and the list of what landed go, then the journal.
std::string settle(const std::string& dir, std::FILE* report) {
    json record = read_state_json(dir + "/record.json");
    record["undone"] = now_iso8601();
    for (auto& h : record["held"])
        if (h.value("state", "") == "held") h["state"] = "dropped";
    if (std::string e = write_state_file(dir, "record.json", record.dump(1)); !e.empty()) return e;
    ::unlink((dir + "/waiting").c_str());
    Fd d(::open(dir.c_str(), kDirFlags));
    if (d.fd < 0) return syscall_error("open(\"" + dir + "\")", errno);
    for (const char* n : {"held", "before"})
        if (std::string e = tree::remove(d.fd, n); !e.empty()) return e;
    ::unlinkat(d.fd, std::string(kLandedFile).c_str(), 0);
    ::unlinkat(d.fd, kUndoJournal, 0);
    if (report)
        std::fprintf(report,
                     "toolcage undo: step %s undone: the workspace is as it was before it\n",
                     record.value("step", "").c_str());
    return {};
}

std::string run_undo(const std::string& dir, std::FILE* report) {
    json record = read_state_json(dir + "/record.json");
    const std::string ws_path = record.at("workspace").get<std::string>();
    Fd ws(::open(ws_path.c_str(), kDirFlags));
    if (ws.fd < 0) return syscall_error("open(\"" + ws_path + "\", O_DIRECTORY|O_NOFOLLOW)", errno);
    Fd before(::open((dir + "/before").c_str(), kDirFlags));
    std::vector<Landed> landed;
    struct stat st {};
    if (::lstat((dir + "/" + std::string(kLandedFile)).c_str(), &st) == 0)
        landed = read_landed(dir);
    std::vector<std::string> problems;
    undo_ops(ws.fd, before.fd, landed, problems);
    for (const auto& p : problems)
        if (report) std::fprintf(report, "toolcage undo: not undone: %s\n", p.c_str());
    if (!problems.empty())
        return std::to_string(problems.size()) + " path(s) could not be put back; toolcage undo " +
               record.value("step", "") + " tries again";
    return settle(dir, report);
}

}  // namespace

std::string finish_undo(const std::string& step_dir, std::FILE* report) {
    try {
        if (report)
            std::fprintf(report, "toolcage: an undo of %s was cut short: finishing it\n",
                         step_dir.c_str());
        return run_undo(step_dir, report);
    } catch (const std::exception& e) {
        return e.what();
    }
}

std::size_t undo_step(const std::string& step, std::FILE* report) {
    if (std::string why = landing_refusal("a step is undone"); !why.empty()) throw Error(why);
    const std::string dir = step_dir_of(step);
    Lock lock;
    const std::string lock_path = dir + "/lock";
    lock.fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (lock.fd < 0) throw Error(syscall_error("open(\"" + lock_path + "\")", errno));
    if (::flock(lock.fd, LOCK_EX | LOCK_NB) != 0)
        throw Error("step " + step +
                    " is being landed or undone by another toolcage; wait for it, then look "
                    "again (toolcage changes --step " +
                    step + ")");
    struct stat st {};
    if (::lstat((dir + "/" + kUndoJournal).c_str(), &st) == 0) {
        if (std::string e = finish_undo(dir, report); !e.empty()) throw Error(e);
        return 0;
    }
    if (::lstat((dir + "/record.json").c_str(), &st) != 0)
        throw Error("step " + step +
                    " has no record yet (it runs, or its landing is unfinished: the next "
                    "toolcage run in its workspace finishes it)");
    json record = read_state_json(dir + "/record.json");
    if (!record.value("undone", "").empty()) {
        if (report)
            std::fprintf(report, "toolcage undo: step %s was undone already (%s)\n", step.c_str(),
                         record.value("undone", "").c_str());
        return 0;
    }
    if (!record.value("layer", false))
        throw Error("step " + step +
                    " ran without a layer (snapshot and restore): what it replaced or removed was "
                    "not kept, so "
                    "it cannot be undone; steps of a policy with cage.layer: \"auto\" keep their "
                    "before-state "
                    "(README: The step's layer)");
    const std::string ws_path = record.at("workspace").get<std::string>();
    Fd ws(::open(ws_path.c_str(), kDirFlags));
    if (ws.fd < 0)
        throw Error(syscall_error("open(\"" + ws_path + "\", O_DIRECTORY|O_NOFOLLOW)", errno));
    Fd before(::open((dir + "/before").c_str(), kDirFlags));
    std::vector<Landed> landed = read_landed(dir);
    std::vector<std::string> found = conflicts(ws.fd, before.fd, landed);
    if (!found.empty()) {
        if (report) {
            for (const auto& c : found)
                std::fprintf(report, "toolcage undo: conflict: %s\n", c.c_str());
            std::fprintf(report,
                         "toolcage undo: step %s is not undone: the workspace is unchanged\n",
                         step.c_str());
        }
        return found.size();
    }
    // The intent on disk before the first change: killed from here on, the next toolcage call
    // (or toolcage undo again) finishes it.
    json intent = {{"step", step}, {"time", now_iso8601()}};
    if (std::string e = write_state_file(dir, kUndoJournal, intent.dump()); !e.empty())
        throw Error("the undo's journal cannot be written (" + e + "); nothing is undone");
    if (std::string e = run_undo(dir, report); !e.empty()) throw Error(e);
    return 0;
}

}  // namespace toolcage::cage
