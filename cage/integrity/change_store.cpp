#include "cage/integrity/change_store.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cage/integrity/step_journal.h"
#include "cage/integrity/step_undo.h"
#include "cage/integrity/tree_ops.h"
#include "common/decision_log.h"
#include "common/error.h"
#include "common/step_id.h"
#include "common/user_home.h"

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace toolcage::cage {

namespace {

constexpr int kDirFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
constexpr std::string_view kLandTemp = ".toolcage-land-";

struct Fd {
    int fd = -1;
    explicit Fd(int f = -1) : fd(f) {}
    ~Fd() {
        if (fd >= 0) ::close(fd);
    }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
};

// A file of the step's directory, written whole under a new name and renamed into place: a
// reader (and a landing killed half-way) sees the old one or the new one.
std::string write_atomically(const std::string& dir, const std::string& name,
                             const std::string& text) {
    Fd d(::open(dir.c_str(), kDirFlags));
    if (d.fd < 0) return syscall_error("open(\"" + dir + "\", O_DIRECTORY|O_NOFOLLOW)", errno);
    const std::string temp = tree::temp_name("." + name + "-");
    if (std::string e = tree::write_new(d.fd, temp, text, 0600); !e.empty()) {
        (void)::unlinkat(d.fd, temp.c_str(), 0);
        return dir + ": " + e;
    }
    if (::renameat(d.fd, temp.c_str(), d.fd, name.c_str()) != 0) {
        int err = errno;
        (void)::unlinkat(d.fd, temp.c_str(), 0);
        return syscall_error("renameat(\"" + dir + "/" + temp + "\", \"" + name + "\")", err);
    }
    (void)::fsync(d.fd);
    return {};
}

json read_json(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw Error(path + ": cannot be read (" + std::strerror(errno) + ")");
    std::stringstream ss;
    ss << in.rdbuf();
    try {
        return json::parse(ss.str());
    } catch (const json::exception& e) {
        throw Error(path + ": not JSON (" + e.what() + "); remove the step's directory " +
                    fs::path(path).parent_path().string() + " (its held changes go with it)");
    }
}

std::string command_of(const std::vector<std::string>& argv) {
    std::string c;
    for (const auto& a : argv) c += (c.empty() ? "" : " ") + a;
    if (c.size() > 4096) c.resize(4096);
    return c;
}

std::string log_line(const std::string& event, const json& record, const json& h) {
    json j = {{"time", now_iso8601()},
              {"event", event},
              {"tool", event == "held" ? "run" : "land"},
              {"verdict", event},
              {"rule", "cage.hold." + h.value("rule", std::string())},
              {"reason", h.value("path", std::string()) + " " + h.value("change", std::string()) +
                             ": " + h.value("why", std::string())},
              {"path", h.value("path", std::string())},
              {"change", h.value("change", std::string())},
              {"workspace", record.value("workspace", std::string())},
              {"step", record.value("step", std::string())},
              {"command", record.value("command", std::string())}};
    return j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

// How many records of steps with nothing waiting to land a workspace keeps: the newest.
constexpr std::size_t kKeptRecords = 50;

// A step with held changes not yet landed has a file `waiting` in its directory, so that the
// pruning tells them apart by a stat.
void mark_waiting(const std::string& step_dir, const json& record) {
    bool waiting = false;
    for (const auto& h : record.value("held", json::array()))
        waiting |= h.value("state", "") == "held";
    const std::string path = step_dir + "/waiting";
    if (waiting) {
        int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0) ::close(fd);
    } else {
        ::unlink(path.c_str());
    }
}

// The records of the workspace's steps that have nothing waiting, beyond the newest kKeptRecords,
// are removed: every step that changes anything makes one.
void prune_records(const std::string& ws_dir) {
    std::vector<std::pair<std::int64_t, std::string>> done;
    std::error_code ec;
    for (fs::directory_iterator it(ws_dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (!is_step_id(name)) continue;
        struct stat st {};
        if (::lstat((it->path() / "waiting").c_str(), &st) == 0) continue;
        if (::lstat((it->path() / "record.json").c_str(), &st) != 0) continue;
        done.emplace_back(
            static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec, name);
    }
    if (done.size() <= kKeptRecords) return;
    std::sort(done.begin(), done.end());
    Fd d(::open(ws_dir.c_str(), kDirFlags));
    if (d.fd < 0) return;
    for (std::size_t i = 0; i + kKeptRecords < done.size(); ++i)
        (void)tree::remove(d.fd, done[i].second);
}

// The step's directory by its id, in whichever workspace's directory it is.
std::string find_step_dir(const std::string& step) {
    if (!is_step_id(step))
        throw Error("\"" + step +
                    "\" is not a step's id (16 characters of 0-9 and a-f, as toolcage run and "
                    "toolcage changes print it)");
    const std::string root = changes_root(false);
    std::error_code ec;
    if (!root.empty())
        for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
            const std::string d = it->path().string() + "/" + step;
            struct stat st {};
            if (::lstat(d.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
                if (std::string p = private_dir_problem(d); !p.empty())
                    throw Error("the step's directory " + p + "; remove " + d +
                                " (its held changes go with it)");
                return d;
            }
        }
    throw Error("no step " + step +
                " has recorded changes (toolcage changes lists the steps that do)");
}

// The mode a state string names ("file:0644:<sha>", "dir:0755").
mode_t mode_of(const std::string& state) {
    auto colon = state.find(':');
    if (colon == std::string::npos) return 0;
    return static_cast<mode_t>(std::strtoul(state.substr(colon + 1, 4).c_str(), nullptr, 8));
}

// Lands one held change. "" when the path holds the step's version afterwards (or already did).
std::string land_one(int ws, int aside, const json& h, const std::string& temp) {
    const std::string rel = h.at("path").get<std::string>();
    const std::string before = h.value("before", std::string("?"));
    const std::string after = h.value("after", std::string("?"));
    const std::string change = h.value("change", std::string());
    const std::string now = path_state(ws, rel);
    if (now == after) return {};
    if (now != before)
        return "it changed since the step (it no longer holds what toolcage put back): look at it, "
               "move it away, "
               "then land again";
    auto [parent, name] = tree::split(rel);
    Fd p(tree::open_dir(ws, parent, true));
    if (p.fd < 0) return syscall_error("openat(\"" + parent + "\", O_DIRECTORY|O_NOFOLLOW)", errno);
    if (change == "mode changed") {
        if (::fchmodat(p.fd, name.c_str(), mode_of(after), 0) != 0)
            return syscall_error("fchmodat(\"" + rel + "\")", errno);
    } else if (after == "absent") {
        // Out of the way in one rename, then removed: the path is either there or gone.
        if (::renameat(p.fd, name.c_str(), p.fd, temp.c_str()) != 0)
            return syscall_error("renameat(\"" + rel + "\", \"" + temp + "\")", errno);
        if (std::string e = tree::remove(p.fd, temp); !e.empty()) return e;
    } else {
        Fd a(tree::open_dir(aside, parent, false));
        if (a.fd < 0) return "the step's version is missing from its held changes";
        if (std::string e = tree::copy(a.fd, name, p.fd, temp); !e.empty()) return e;
        int rc;
        if (now == "absent")
            rc = ::renameat2(p.fd, temp.c_str(), p.fd, name.c_str(), RENAME_NOREPLACE);
        else if (now.starts_with("dir:") || after.starts_with("dir:"))
            rc = ::renameat2(p.fd, temp.c_str(), p.fd, name.c_str(), RENAME_EXCHANGE);
        else
            rc = ::renameat(p.fd, temp.c_str(), p.fd, name.c_str());
        if (rc != 0) {
            int err = errno;
            (void)tree::remove(p.fd, temp);
            return syscall_error("renameat2(\"" + temp + "\", \"" + rel + "\")", err);
        }
        // After an exchange the temporary name holds what was there: it goes.
        if (std::string e = tree::remove(p.fd, temp); !e.empty()) return e;
    }
    if (path_state(ws, rel) != after) return "it does not hold the step's version after landing";
    return {};
}

struct Landing {
    std::string dir;
    json record;
    int lock = -1;
    ~Landing() {
        if (lock >= 0) ::close(lock);
    }
};

// Locks the step's directory for a landing (or its recovery). False when another holds it.
bool lock_step(Landing& l, bool wait) {
    const std::string path = l.dir + "/lock";
    l.lock = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (l.lock < 0) throw Error(syscall_error("open(\"" + path + "\")", errno));
    return ::flock(l.lock, LOCK_EX | (wait ? 0 : LOCK_NB)) == 0;
}

// Lands the entries of `l.record` at `indexes` under the journal landing.json; returns how many
// did not land. `report` gets one line per path.
std::size_t land_entries(Landing& l, const std::vector<std::size_t>& indexes, std::FILE* report) {
    const std::string ws_path = l.record.at("workspace").get<std::string>();
    Fd ws(::open(ws_path.c_str(), kDirFlags));
    if (ws.fd < 0)
        throw Error(syscall_error("open(\"" + ws_path + "\", O_DIRECTORY|O_NOFOLLOW)", errno));
    Fd aside(::open((l.dir + "/held").c_str(), kDirFlags));
    json& held = l.record["held"];
    // 1. The journal first: which paths, by which temporary names, so that a landing killed
    //    half-way is finished from it (finish_landings) and leaves no temporary name behind.
    json journal = {{"entries", json::array()}};
    for (std::size_t i : indexes)
        journal["entries"].push_back(
            {{"index", i}, {"path", held[i]["path"]}, {"temp", tree::temp_name(kLandTemp)}});
    if (std::string e = write_atomically(l.dir, "landing.json", journal.dump()); !e.empty())
        throw Error("the landing's journal cannot be written: " + e + "; nothing was landed");
    // 2. Each path in one rename.
    std::size_t failed = 0;
    std::vector<std::string> lines;
    for (const auto& j : journal["entries"]) {
        json& h = held[j["index"].get<std::size_t>()];
        const std::string rel = h["path"].get<std::string>();
        std::string e = land_one(ws.fd, aside.fd, h, j["temp"].get<std::string>());
        if (e.empty()) {
            h["state"] = "landed";
            h["landed_time"] = now_iso8601();
            lines.push_back(log_line("landed", l.record, h));
            if (report)
                std::fprintf(report, "toolcage land: %s: landed (%s)\n", rel.c_str(),
                             h.value("change", "").c_str());
        } else {
            ++failed;
            if (report)
                std::fprintf(report, "toolcage land: %s: not landed: %s\n", rel.c_str(), e.c_str());
        }
    }
    // 3. The record, then the journal goes.
    if (std::string e = write_atomically(l.dir, "record.json", l.record.dump(1)); !e.empty())
        throw Error("the step's record cannot be written: " + e +
                    "; toolcage changes will finish it");
    mark_waiting(l.dir, l.record);
    ::unlink((l.dir + "/landing.json").c_str());
    if (std::string e = append_to_decision_log(lines); !e.empty() && report)
        std::fprintf(report, "toolcage land: warning: not logged: %s\n", e.c_str());
    return failed;
}

// A landing whose process is gone: its temporary names removed, then each path landed again
// (one that already holds the step's version is only marked).
std::string finish_landing(Landing& l, std::FILE* report) {
    const std::string journal_path = l.dir + "/landing.json";
    struct stat st {};
    if (::lstat(journal_path.c_str(), &st) != 0) return {};
    json journal = read_json(journal_path);
    l.record = read_json(l.dir + "/record.json");
    const std::string ws_path = l.record.at("workspace").get<std::string>();
    Fd ws(::open(ws_path.c_str(), kDirFlags));
    if (ws.fd < 0) return syscall_error("open(\"" + ws_path + "\", O_DIRECTORY|O_NOFOLLOW)", errno);
    std::vector<std::size_t> again;
    for (const auto& j : journal.at("entries")) {
        const std::string rel = j.at("path").get<std::string>();
        const std::string temp = j.at("temp").get<std::string>();
        if (!tree::relative_inside(rel) || !temp.starts_with(kLandTemp) ||
            temp.find('/') != std::string::npos)
            return journal_path + " names a path outside the workspace; remove it";
        Fd p(tree::open_dir(ws.fd, tree::split(rel).first, false));
        if (p.fd >= 0) (void)tree::remove(p.fd, temp);
        std::size_t i = j.at("index").get<std::size_t>();
        if (i < l.record["held"].size() && l.record["held"][i].value("state", "") == "held")
            again.push_back(i);
    }
    if (report)
        std::fprintf(report, "toolcage: finishing the landing of step %s that was cut short\n",
                     l.record.value("step", "").c_str());
    land_entries(l, again, report);
    return {};
}

}  // namespace

std::string changes_root(bool make) {
    std::string state = state_dir(make);
    if (state.empty()) return {};
    std::string root = state + "/changes";
    if (make && !make_private_dirs(root).empty()) return {};
    return root;
}

std::string make_step_dir(const std::string& workspace, const std::string& step) {
    const std::string root = changes_root(true);
    if (root.empty())
        throw Error("no place for the step's held changes: toolcage's state directory (" +
                    primary_state_dir() +
                    ") cannot be made; make it a directory of the user's, mode 0700");
    const std::string dir = journal_dir(workspace, root) + "/" + step;
    if (std::string e = make_private_dirs(dir); !e.empty())
        throw Error("held changes: " + e + "; make " + root + " writable");
    if (std::string p = private_dir_problem(dir); !p.empty())
        throw Error("held changes: " + p + "; remove " + dir + " (toolcage makes it again, 0700)");
    return dir;
}

void record_step_changes(const std::string& step_dir, const StepInfo& info,
                         const StepChanges& changes, std::FILE* report) {
    json record = {
        {"step", info.step},       {"workspace", info.workspace},       {"time", now_iso8601()},
        {"policy", info.policy},   {"command", command_of(info.argv)},  {"held", json::array()},
        {"landed", json::array()}, {"landed_more", changes.landed_more}};
    for (const auto& h : changes.held)
        record["held"].push_back(
            {{"path", h.path},
             {"change", h.change},
             {"kind", h.kind},
             {"rule", h.rule},
             {"why", h.why},
             {"put_back", h.put_back},
             {"note", h.note},
             {"before", h.before},
             {"after", h.after},
             {"state", h.rule == "walk" || h.rule == "aside" ? "failed" : "held"}});
    if (changes.undoable) record["layer"] = true;
    for (const auto& c : changes.landed)
        record["landed"].push_back({{"path", c.path}, {"change", c.change}});
    std::string err = write_atomically(step_dir, "record.json", record.dump(1));
    if (!err.empty() && report)
        std::fprintf(report, "toolcage run: warning: the step's changes are not recorded: %s\n",
                     err.c_str());
    mark_waiting(step_dir, record);
    prune_records(fs::path(step_dir).parent_path().string());
    if (changes.held.empty()) return;
    std::vector<std::string> lines;
    for (const auto& h : record["held"]) {
        lines.push_back(log_line("held", record, h));
        if (!report) continue;
        const std::string path = h["path"].get<std::string>();
        const std::string note = h["note"].get<std::string>();
        std::fprintf(report, "toolcage run: held: %s %s (%s); %s%s\n", path.c_str(),
                     h["change"].get<std::string>().c_str(), h["why"].get<std::string>().c_str(),
                     h["put_back"].get<bool>() ? "the workspace has it as before the step" : "",
                     note.empty()
                         ? ""
                         : (std::string(h["put_back"].get<bool>() ? "; " : "") + note).c_str());
    }
    if (report)
        std::fprintf(report,
                     "toolcage run: %zu change%s held: files that configure how tools run, or run "
                     "later, wait for a "
                     "person: toolcage changes --step %s shows them; toolcage land %s [PATH...] "
                     "lands them\n",
                     changes.held.size(), changes.held.size() == 1 ? "" : "s", info.step.c_str(),
                     info.step.c_str());
    if (std::string e = append_to_decision_log(lines); !e.empty() && report)
        std::fprintf(report, "toolcage run: warning: held changes not logged: %s\n", e.c_str());
}

std::vector<json> step_records(const std::string& workspace) {
    std::vector<json> out;
    const std::string root = changes_root(false);
    if (root.empty()) return out;
    std::vector<std::string> dirs;
    std::error_code ec;
    if (!workspace.empty()) {
        dirs.push_back(journal_dir(workspace, root));
    } else {
        for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec))
            dirs.push_back(it->path().string());
    }
    for (const auto& d : dirs)
        for (fs::directory_iterator it(d, ec), end; !ec && it != end; it.increment(ec)) {
            const std::string rec = it->path().string() + "/record.json";
            if (!is_step_id(it->path().filename().string()) || !fs::exists(rec)) continue;
            try {
                json j = read_json(rec);
                if (!workspace.empty() && j.value("workspace", "") != workspace) continue;
                out.push_back(std::move(j));
            } catch (const Error&) {
            }
        }
    std::sort(out.begin(), out.end(), [](const json& a, const json& b) {
        return a.value("time", "") < b.value("time", "");
    });
    return out;
}

std::size_t land_step(const std::string& step, const std::vector<std::string>& paths,
                      std::FILE* report) {
    if (std::string why = landing_refusal(); !why.empty()) throw Error(why);
    Landing l;
    l.dir = find_step_dir(step);
    if (!lock_step(l, false))
        throw Error("step " + step +
                    "'s changes are being landed by another toolcage land; wait for it, then look "
                    "again (toolcage changes --step " +
                    step + ")");
    if (std::string e = finish_landing(l, report); !e.empty()) throw Error(e);
    l.record = read_json(l.dir + "/record.json");
    const std::string ws = l.record.at("workspace").get<std::string>();
    std::vector<std::size_t> chosen;
    std::vector<bool> matched(paths.size(), false);
    json& held = l.record["held"];
    for (std::size_t i = 0; i < held.size(); ++i) {
        const std::string rel = held[i].value("path", "");
        if (!tree::relative_inside(rel))
            throw Error(l.dir + "/record.json names \"" + rel +
                        "\", a path outside the workspace; remove " + l.dir);
        if (held[i].value("state", "") != "held") continue;
        bool want = paths.empty();
        for (std::size_t p = 0; p < paths.size(); ++p) {
            std::string given = paths[p];
            // An absolute path inside the workspace names the same as its workspace-relative form.
            if (given.starts_with(ws + "/")) given = given.substr(ws.size() + 1);
            while (given.size() > 1 && given.back() == '/') given.pop_back();
            if (rel == given || rel.starts_with(given + "/")) {
                want = true;
                matched[p] = true;
            }
        }
        if (want) chosen.push_back(i);
    }
    std::size_t not_landed = 0;
    for (std::size_t p = 0; p < paths.size(); ++p)
        if (!matched[p]) {
            ++not_landed;
            if (report)
                std::fprintf(report,
                             "toolcage land: %s: step %s holds no change there (toolcage changes "
                             "--step %s lists what it holds)\n",
                             paths[p].c_str(), step.c_str(), step.c_str());
        }
    if (chosen.empty()) {
        if (report && paths.empty())
            std::fprintf(report, "toolcage land: step %s holds nothing more to land\n",
                         step.c_str());
        return not_landed;
    }
    return not_landed + land_entries(l, chosen, report);
}

std::string finish_landings(const std::string& workspace, std::FILE* report) {
    const std::string root = changes_root(false);
    if (root.empty()) return {};
    const std::string dir = journal_dir(workspace, root);
    std::string left;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const bool undo = fs::exists(it->path() / "undo.json");
        if (!fs::exists(it->path() / "landing.json") && !undo) continue;
        Landing l;
        l.dir = it->path().string();
        try {
            if (std::string p = private_dir_problem(l.dir); !p.empty()) throw Error(p);
            if (!lock_step(l, false)) continue;  // under way: its own process finishes it
            if (std::string e = finish_landing(l, report); !e.empty()) throw Error(e);
            // An undo cut short is finished too (step_undo.h).
            if (undo)
                if (std::string e = finish_undo(l.dir, report); !e.empty()) throw Error(e);
        } catch (const std::exception& e) {
            left += (left.empty() ? "" : "; ") + l.dir + ": " + e.what();
        }
    }
    return left;
}

std::string write_state_file(const std::string& dir, const std::string& name,
                             const std::string& text) {
    return write_atomically(dir, name, text);
}

json read_state_json(const std::string& path) {
    return read_json(path);
}

std::string step_dir_of(const std::string& step) {
    return find_step_dir(step);
}

std::string landing_refusal(const std::string& what) {
    const std::string state = state_dir(false);
    const std::string why_person =
        ": " + what +
        " by a person from their own shell, not from inside a caged step (nor by an "
        "agent's command, which toolcage's hook runs in the cage)";
    if (state.empty())
        return "toolcage's state directory (" + primary_state_dir() + ") cannot be reached" +
               why_person;
    // A caged step can neither read nor write toolcage's state (cage/run.cpp refuses every grant
    // of it): Landlock answers EACCES here inside a step.
    Fd d(::open(state.c_str(), kDirFlags));
    if (d.fd < 0 || ::faccessat(d.fd, ".", W_OK, AT_EACCESS) != 0)
        return syscall_error("open(\"" + state + "\", O_DIRECTORY)", errno ? errno : EACCES) +
               why_person;
    const std::string probe = tree::temp_name(".land-probe-");
    int fd =
        ::openat(d.fd, probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return syscall_error("openat(\"" + state + "/" + probe + "\", O_CREAT)", errno) +
               why_person;
    ::close(fd);
    ::unlinkat(d.fd, probe.c_str(), 0);
    return {};
}

std::string begin_held_step(const StepInfo& info, const HoldPass& pass, int& lock_fd) {
    if (!is_step_id(info.step))
        throw Error("held changes: the step has no id (no random bytes from the kernel)");
    const std::string dir = make_step_dir(info.workspace, info.step);
    const std::string lock = dir + "/running";
    lock_fd = ::open(lock.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (lock_fd < 0 || ::flock(lock_fd, LOCK_EX | LOCK_NB) != 0)
        throw Error("held changes: " + syscall_error("flock(\"" + lock + "\")", errno) +
                    "; remove " + dir);
    json j = {{"step", info.step},
              {"workspace", info.workspace},
              {"policy", info.policy},
              {"argv", info.argv}};
    if (std::string e = write_atomically(dir, "info.json", j.dump()); !e.empty())
        throw Error("held changes: " + e + "; the step does not run without its snapshot on disk");
    if (std::string e = write_atomically(dir, "before.cbor", pass.to_bytes()); !e.empty())
        throw Error("held changes: " + e + "; the step does not run without its snapshot on disk");
    return dir;
}

void end_held_step(const std::string& step_dir, int& lock_fd) {
    ::unlink((step_dir + "/before.cbor").c_str());
    ::unlink((step_dir + "/info.json").c_str());
    if (lock_fd >= 0) ::close(lock_fd);
    lock_fd = -1;
}

std::string finish_held_steps(const std::string& workspace, std::FILE* report) {
    const std::string root = changes_root(false);
    if (root.empty()) return {};
    const std::string dir = journal_dir(workspace, root);
    std::string left;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string step_dir = it->path().string();
        struct stat st {};
        if (::lstat((step_dir + "/before.cbor").c_str(), &st) != 0) continue;
        int lock = ::open((step_dir + "/running").c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
        if (lock >= 0 && ::flock(lock, LOCK_EX | LOCK_NB) != 0) {
            ::close(lock);  // its supervisor still runs: it settles its own step
            continue;
        }
        try {
            if (std::string p = private_dir_problem(step_dir); !p.empty()) throw Error(p);
            json info = read_json(step_dir + "/info.json");
            std::ifstream in(step_dir + "/before.cbor", std::ios::binary);
            std::stringstream ss;
            ss << in.rdbuf();
            HoldPass pass = HoldPass::from_bytes(ss.str(), workspace);
            if (report)
                std::fprintf(
                    report,
                    "toolcage: the supervisor of step %s was killed: holding what it changed\n",
                    it->path().filename().string().c_str());
            StepChanges changes = pass.settle(step_dir + "/held");
            StepInfo si{info.at("step").get<std::string>(), workspace, info.value("policy", ""),
                        info.value("argv", std::vector<std::string>{})};
            int fd = lock;
            lock = -1;
            if (changes.held.empty() && changes.landed.empty()) {
                end_held_step(step_dir, fd);
                (void)fs::remove_all(step_dir, ec);  // it changed nothing (or never ran)
                ec.clear();
                continue;
            }
            record_step_changes(step_dir, si, changes, report);
            end_held_step(step_dir, fd);
        } catch (const std::exception& e) {
            left += (left.empty() ? "" : "; ") + step_dir + ": " + e.what() + " (remove " +
                    step_dir + " once the workspace is checked by hand)";
        }
        if (lock >= 0) ::close(lock);
    }
    return left;
}

std::vector<std::string> changes_housekeeping() {
    std::vector<std::string> out;
    const std::string root = changes_root(false);
    if (root.empty()) return out;
    if (std::string p = private_dir_problem(root); !p.empty())
        return {"held changes " + root + ": " + p + "; left alone"};
    std::error_code ec;
    for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
        // The workspace, from any record or snapshot of its steps.
        std::string ws;
        std::size_t steps = 0;
        std::error_code ec2;
        for (fs::directory_iterator st(it->path(), ec2), e2; !ec2 && st != e2; st.increment(ec2)) {
            ++steps;
            for (const char* f : {"record.json", "info.json"}) {
                if (!ws.empty()) break;
                try {
                    if (fs::exists(st->path() / f))
                        ws = read_json((st->path() / f).string()).value("workspace", "");
                } catch (const Error&) {
                }
            }
        }
        if (ws.empty() && steps > 0) continue;  // nothing says whose: left
        struct stat s {};
        if (!ws.empty() && ::lstat(ws.c_str(), &s) == 0) continue;
        Fd d(::open(root.c_str(), kDirFlags));
        const std::string name = it->path().filename().string();
        if (std::string e = d.fd < 0 ? "cannot open " + root : tree::remove(d.fd, name); e.empty())
            out.push_back("removed the held changes of " + std::to_string(steps) + " step(s) of " +
                          (ws.empty() ? it->path().string() : ws) + ", which no longer exists");
        else
            out.push_back("held changes " + it->path().string() + ": " + e + "; left");
    }
    return out;
}

}  // namespace toolcage::cage
