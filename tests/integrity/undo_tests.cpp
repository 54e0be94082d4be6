// `toolcage undo` and the journal of a layer's landing, with the real `toolcage run`, as root and
// as nobody: undo puts back exactly what a layered step changed (added files gone, changed and
// removed ones back with their modes, symlinks as links) and drops its held changes; a later
// change that touched what the step landed makes it refuse, naming the path, with the workspace
// untouched; a step that ran without a layer, or an undo from inside a caged step, is refused; a
// landing or an undo killed at any moment leaves, once the next toolcage call has run, the whole
// tree before the step or after it, never a mix. Under the layer the protected paths (and the
// hooks directory git's config names) are held, never landed, and landed files keep no
// overlay attributes.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "cage/integrity/step_journal.h"
#include "support.h"
#include "tests/other_user.h"

using namespace integrity;
using nlohmann::json;

namespace {

bool present(const fs::path& p) {
    std::error_code ec;
    return fs::exists(fs::symlink_status(p, ec));
}

std::vector<As> users() {
    std::vector<As> out = {As::root};
    if (::geteuid() == 0) out.push_back(As::nobody);
    return out;
}

std::string bin() {
    return testsupport::reachable(TOOLCAGE_BIN);
}

std::string changes_dir(const Workspace& w) {
    return toolcage::cage::journal_dir(fs::weakly_canonical(w.ws).string(),
                                       state_dir_of(w.who) + "/changes");
}

struct ForgetChanges {
    const Workspace& w;
    ~ForgetChanges() {
        std::error_code ec;
        fs::remove_all(changes_dir(w), ec);
    }
};

Result tc(const Workspace& w, std::vector<std::string> args) {
    args.insert(args.begin(), bin());
    return run(as_user(w.who, args), w.env(), w.ws.string());
}

// The newest step recorded for the workspace.
std::string last_step(const Workspace& w) {
    Result r = tc(w, {"changes", "--json"});
    INFO(r.out);
    json j = json::parse(r.out, nullptr, false);
    if (!j.is_array() || j.empty()) return {};
    return j.back().value("step", "");
}

// The whole tree, by path: kind, permission bits, and a file's bytes or a symlink's target.
// Nothing is followed. `skip_git`: .git is left out (git's own files change on every call).
std::map<std::string, std::string> listing(const fs::path& root, bool skip_git = true) {
    std::map<std::string, std::string> out;
    std::error_code ec;
    for (fs::recursive_directory_iterator it(root, fs::directory_options::none, ec), end;
         !ec && it != end; it.increment(ec)) {
        const std::string rel = fs::relative(it->path(), root).string();
        if (skip_git && (rel == ".git" || rel.starts_with(".git/"))) {
            if (it->is_directory()) it.disable_recursion_pending();
            continue;
        }
        struct stat st {};
        if (::lstat(it->path().c_str(), &st) != 0) continue;
        std::ostringstream v;
        v << std::oct << (st.st_mode & 07777) << ' ';
        if (S_ISLNK(st.st_mode)) {
            v << "link " << fs::read_symlink(it->path()).string();
        } else if (S_ISDIR(st.st_mode)) {
            v << "dir";
        } else {
            std::ifstream in(it->path(), std::ios::binary);
            std::stringstream ss;
            ss << in.rdbuf();
            v << "file " << ss.str();
        }
        out[rel] = v.str();
    }
    return out;
}

std::string diff(const std::map<std::string, std::string>& a,
                 const std::map<std::string, std::string>& b) {
    std::string out;
    for (const auto& [k, v] : a)
        if (!b.count(k) || b.at(k) != v) out += "  " + k + "\n";
    for (const auto& [k, v] : b)
        if (!a.count(k)) out += "  " + k + " (only in the second)\n";
    if (out.size() > 2000) out.resize(2000);
    return out;
}

// Waits (up to 60 s, looking as often as it can) until a step's directory of the workspace holds
// `file`: the journal, written just before the first change.
bool wait_for_file(const Workspace& w, const std::string& file) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (std::chrono::steady_clock::now() < until) {
        std::error_code ec;
        for (fs::directory_iterator it(changes_dir(w), ec), end; !ec && it != end; it.increment(ec))
            if (present(it->path() / file)) return true;
        std::this_thread::yield();
    }
    return false;
}

void no_temporary_names(const Workspace& w) {
    std::error_code ec;
    for (fs::recursive_directory_iterator it(w.ws, ec), end; !ec && it != end; it.increment(ec))
        CHECK(it->path().filename().string().find(".toolcage-") != 0);
}

// A workspace with files, a script, a symlink, directories and their modes.
void populate(const Workspace& w) {
    w.put("keep.txt", "before\n");
    w.put("gone.txt", "gone\n", 0600);
    w.put("run.sh", "#!/bin/sh\n", 0644);
    w.put("olddir/a", "a\n");
    w.put("tree/sub/f", "f\n", 0640);
    w.put("modes/x", "x\n");
    w.put("file-to-dir", "plain\n");
    ::symlink("keep.txt", (w.ws / "link").c_str());
    w.own();
    ::chmod((w.ws / "modes").c_str(), 0755);
}

const std::string kChanges =
    "echo after > keep.txt && rm gone.txt && chmod +x run.sh && rm -rf olddir && mkdir olddir && "
    "echo c > olddir/c && rm -rf tree && mkdir -p newdir/deep && echo d > newdir/deep/d && "
    "ln -sfn elsewhere link && ln -s keep.txt newlink && chmod 0700 modes && rm file-to-dir && "
    "mkdir file-to-dir && echo in > file-to-dir/in && echo 'git=/bin/false' > .npmrc";

}  // namespace

TEST_CASE("toolcage undo puts the workspace back exactly as before a layered step", "[undo]") {
    for (As who : users()) {
        DYNAMIC_SECTION("as " << name_of(who)) {
            Workspace w(who);
            ForgetChanges forget{w};
            populate(w);
            const auto before = listing(w.ws);
            Result r = w.caged(kChanges, w.layer_policy());
            INFO(r.out);
            REQUIRE(r.status == 0);
            CHECK(r.out.find("held: .npmrc created") != std::string::npos);
            const auto after = listing(w.ws);
            REQUIRE(after != before);
            CHECK(w.read("keep.txt") == "after\n");
            const std::string step = last_step(w);
            REQUIRE(step.size() == 16);
            // What it replaced or removed is kept aside in the step's directory until undo.
            CHECK(present(fs::path(changes_dir(w)) / step / "before" / "gone.txt"));

            Result u = tc(w, {"undo", step});
            INFO(u.out);
            CHECK(u.status == 0);
            CHECK(u.out.find("step " + step + " undone") != std::string::npos);
            const auto back = listing(w.ws);
            INFO(diff(before, back));
            CHECK(back == before);
            struct stat st {};
            REQUIRE(::lstat((w.ws / "link").c_str(), &st) == 0);
            CHECK(S_ISLNK(st.st_mode));
            CHECK_FALSE(present(w.ws / ".npmrc"));
            no_temporary_names(w);

            // The record says so; the held change is dropped, nothing of the step is kept.
            Result list = tc(w, {"changes", "--step", step, "--json"});
            INFO(list.out);
            json rec = json::parse(list.out).at(0);
            CHECK_FALSE(rec.value("undone", "").empty());
            CHECK(rec["held"][0]["state"] == "dropped");
            CHECK_FALSE(present(fs::path(changes_dir(w)) / step / "before"));
            CHECK_FALSE(present(fs::path(changes_dir(w)) / step / "held"));
            Result shown = tc(w, {"changes", "--step", step});
            CHECK(shown.out.find("undone: ") != std::string::npos);
            Result again = tc(w, {"undo", step});
            CHECK(again.status == 0);
            CHECK(again.out.find("undone already") != std::string::npos);
            CHECK(listing(w.ws) == before);
            Result land = tc(w, {"land", step});
            CHECK_FALSE(present(w.ws / ".npmrc"));
        }
    }
}

TEST_CASE("toolcage undo refuses when a later change touched what the step landed", "[undo]") {
    for (As who : users()) {
        DYNAMIC_SECTION("as " << name_of(who)) {
            Workspace w(who);
            ForgetChanges forget{w};
            populate(w);
            const auto before = listing(w.ws);
            Result first = w.caged("echo one > keep.txt && echo new > new.txt && rm gone.txt",
                                   w.layer_policy());
            INFO(first.out);
            REQUIRE(first.status == 0);
            const std::string step1 = last_step(w);
            REQUIRE(step1.size() == 16);
            // A later step changes a file the first one landed, and puts back one it removed.
            Result second =
                w.caged("echo two > keep.txt && echo again > gone.txt", w.layer_policy());
            INFO(second.out);
            REQUIRE(second.status == 0);
            const std::string step2 = last_step(w);
            REQUIRE(step2 != step1);
            const auto later = listing(w.ws);
            Result u = tc(w, {"undo", step1});
            INFO(u.out);
            CHECK(u.status == 1);
            CHECK(u.out.find("conflict: keep.txt: changed since the step") != std::string::npos);
            CHECK(u.out.find("conflict: gone.txt: created since the step") != std::string::npos);
            CHECK(u.out.find("undo the later step first") != std::string::npos);
            CHECK(u.out.find("new.txt") == std::string::npos);
            CHECK(listing(w.ws) == later);  // untouched
            // An edit outside any step is a later change too.
            w.put("new.txt", "edited\n");
            w.own();
            Result u2 = tc(w, {"undo", step2});
            INFO(u2.out);
            CHECK(u2.status == 0);
            Result u3 = tc(w, {"undo", step1});
            INFO(u3.out);
            CHECK(u3.status == 1);
            CHECK(u3.out.find("conflict: new.txt: changed since the step") != std::string::npos);
            REQUIRE(::unlink((w.ws / "new.txt").c_str()) == 0);
            w.put("new.txt", "new\n");  // the same bytes, another file: still not the step's
            w.own();
            Result u4 = tc(w, {"undo", step1});
            CHECK(u4.status == 1);
            // Removed since: nothing of the step's is left there to take away.
            REQUIRE(::unlink((w.ws / "new.txt").c_str()) == 0);
            Result u5 = tc(w, {"undo", step1});
            INFO(u5.out);
            CHECK(u5.status == 0);
            INFO(diff(before, listing(w.ws)));
            CHECK(listing(w.ws) == before);
        }
    }
}

TEST_CASE("toolcage undo refuses a step that ran without a layer, and from inside a caged step",
          "[undo][refuse]") {
    for (As who : users()) {
        DYNAMIC_SECTION("as " << name_of(who)) {
            Workspace w(who);
            ForgetChanges forget{w};
            Result r = w.caged("echo x > plain.txt && echo 'git=/bin/false' > .npmrc",
                               w.snapshot_policy());
            INFO(r.out);
            REQUIRE(r.status == 0);
            const std::string step = last_step(w);
            REQUIRE(step.size() == 16);
            Result u = tc(w, {"undo", step});
            INFO(u.out);
            CHECK(u.status == 2);
            CHECK(u.out.find("ran without a layer") != std::string::npos);
            CHECK(u.out.find("cage.layer: \"auto\"") != std::string::npos);
            CHECK(w.read("plain.txt") == "x\n");

            Result l = w.caged("echo y > layered.txt", w.layer_policy());
            REQUIRE(l.status == 0);
            const std::string layered = last_step(w);
            REQUIRE(layered.size() == 16);
            const std::string b = bin();
            Result in = w.caged(
                b + " undo " + layered,
                w.policy_with("undo-in-cage",
                              {{"cage", {{"read", {b}}, {"execute", {b}}, {"layer", "auto"}}}}));
            INFO(in.out);
            CHECK(in.status != 0);
#if !defined(__SANITIZE_ADDRESS__)
            CHECK((in.out.find("not from inside a caged step") != std::string::npos ||
                   in.out.find("no step " + layered) != std::string::npos));
#endif
            CHECK(w.read("layered.txt") == "y\n");
            Result list = tc(w, {"changes", "--step", layered, "--json"});
            CHECK(json::parse(list.out).at(0).value("undone", "").empty());

            // A layered step whose only change is held (nothing moves) can be undone all the
            // same: its held change is dropped, the workspace keeps its own.
            w.put(".npmrc", "fund=false\n");
            w.own();
            Result rm = w.caged("rm .npmrc", w.layer_policy());
            INFO(rm.out);
            REQUIRE(rm.status == 0);
            CHECK(rm.out.find("held: .npmrc removed") != std::string::npos);
            const std::string held_only = last_step(w);
            REQUIRE(held_only.size() == 16);
            Result u2 = tc(w, {"undo", held_only});
            INFO(u2.out);
            CHECK(u2.status == 0);
            CHECK(w.read(".npmrc") == "fund=false\n");
        }
    }
}

namespace {

constexpr int kOld = 1500, kNew = 3000;

// Thousands of changes: old files rewritten and some removed, thousands of new ones.
void big_workspace(const Workspace& w) {
    for (int i = 0; i < kOld; ++i)
        w.put("old/f" + std::to_string(i), "old " + std::to_string(i) + "\n");
    w.own();
}

const std::string kBigStep = "i=0; while [ $i -lt " + std::to_string(kOld) +
                             " ]; do echo new $i > old/f$i; i=$((i+2)); done; "
                             "i=1; while [ $i -lt " +
                             std::to_string(kOld) +
                             " ]; do rm old/f$i; i=$((i+4)); done; "
                             "mkdir big && i=0; while [ $i -lt " +
                             std::to_string(kNew) +
                             " ]; do echo $i > big/f$i; i=$((i+1)); done; "
                             "echo STARTED";

// How long `args` (a step, or an undo) runs, in this build on this machine, from the moment its
// journal `file` appears until it exits, nothing killing it. The kills are spread over that span,
// so some fall inside it however slow the build (a sanitizer's) or the machine is.
std::vector<int> kill_delays(const Workspace& w, const std::vector<std::string>& args,
                             const std::string& file, const std::string& started) {
    WatchedRun run(w, args);
    if (!started.empty()) REQUIRE(run.wait_for(started));
    REQUIRE(wait_for_file(w, file));
    const auto t0 = std::chrono::steady_clock::now();
    INFO(run.seen);
    REQUIRE(run.finish() == 0);
    const auto span =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0)
            .count();
    return {0, static_cast<int>(span / 5), static_cast<int>(2 * span / 5),
            static_cast<int>(3 * span / 5), static_cast<int>(4 * span / 5)};
}

}  // namespace

TEST_CASE("a layer's landing killed at any moment is before or after once the next call ran",
          "[undo][kill]") {
    for (As who : users()) {
        // What the step leaves when nothing kills it.
        std::map<std::string, std::string> before, after;
        std::vector<int> delays;
        {
            Workspace ref(who);
            ForgetChanges forget{ref};
            big_workspace(ref);
            before = listing(ref.ws);
            delays = kill_delays(ref,
                                 {bin(), "run", "--policy", ref.layer_policy(), "--workdir",
                                  ref.ws.string(), "--", "/bin/sh", "-c", kBigStep},
                                 "layer-landing.json", "STARTED");
            after = listing(ref.ws);
            REQUIRE(after != before);
        }
        int between = 0;
        for (int delay_ms : delays) {
            // One run of the test case for every delay (no sections): `between` counts them all.
            {
                INFO("as " << name_of(who) << ", killed " << delay_ms << " ms into the landing");
                Workspace w(who);
                ForgetChanges forget{w};
                big_workspace(w);
                REQUIRE(listing(w.ws) == before);
                {
                    WatchedRun step(w, {bin(), "run", "--policy", w.layer_policy(), "--workdir",
                                        w.ws.string(), "--", "/bin/sh", "-c", kBigStep});
                    REQUIRE(step.wait_for("STARTED"));
                    REQUIRE(wait_for_file(w, "layer-landing.json"));
                    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
                    step.kill_now();
                }
                const auto cut = listing(w.ws);
                if (cut != before && cut != after) ++between;
                Result next = w.caged("true", w.layer_policy());
                INFO(next.out);
                CHECK(next.status == 0);
                const auto now = listing(w.ws);
                INFO("against before:\n"
                     << diff(before, now) << "against after:\n"
                     << diff(after, now));
                CHECK((now == before || now == after));
                no_temporary_names(w);
                if (now == after) {
                    // And it can be undone whole.
                    const std::string step = last_step(w);
                    REQUIRE(step.size() == 16);
                    Result u = tc(w, {"undo", step});
                    INFO(u.out);
                    CHECK(u.status == 0);
                    CHECK(listing(w.ws) == before);
                }
            }
        }
        // The kills fell inside the landing: the journal was what finished it.
        CHECK(between > 0);
    }
}

TEST_CASE("toolcage undo killed at any moment is before or after once the next call ran",
          "[undo][kill]") {
    // Kills that found the workspace half-undone, over both users: the journal was what finished
    // it. The kills are spread over an undo's span measured first (kill_delays).
    int between = 0;
    for (As who : users()) {
        std::vector<int> delays;
        {
            Workspace ref(who);
            ForgetChanges forget{ref};
            big_workspace(ref);
            const auto before = listing(ref.ws);
            REQUIRE(ref.caged(kBigStep, ref.layer_policy()).status == 0);
            const std::string step = last_step(ref);
            REQUIRE(step.size() == 16);
            delays = kill_delays(ref, {bin(), "undo", step}, "undo.json", "");
            CHECK(listing(ref.ws) == before);
        }
        for (int delay_ms : delays) {
            {
                INFO("as " << name_of(who) << ", killed " << delay_ms << " ms into the undo");
                Workspace w(who);
                ForgetChanges forget{w};
                big_workspace(w);
                const auto before = listing(w.ws);
                Result r = w.caged(kBigStep, w.layer_policy());
                REQUIRE(r.status == 0);
                const auto after = listing(w.ws);
                const std::string step = last_step(w);
                REQUIRE(step.size() == 16);
                {
                    WatchedRun undo(w, {bin(), "undo", step});
                    REQUIRE(wait_for_file(w, "undo.json"));
                    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
                    undo.kill_now();
                }
                const auto cut = listing(w.ws);
                if (cut != before && cut != after) ++between;
                Result next = tc(w, {"changes"});
                INFO(next.out);
                CHECK(next.status == 0);
                const auto now = listing(w.ws);
                INFO("against before:\n"
                     << diff(before, now) << "against after:\n"
                     << diff(after, now));
                CHECK((now == before || now == after));
                no_temporary_names(w);
                Result u = tc(w, {"undo", step});
                INFO(u.out);
                CHECK(u.status == 0);
                CHECK(listing(w.ws) == before);
            }
        }
    }
    CHECK(between > 0);
}

TEST_CASE(
    "under the layer the protected paths are held, never landed, and landed files keep no overlay "
    "attributes",
    "[undo][integrity]") {
    for (As who : users()) {
        DYNAMIC_SECTION("as " << name_of(who)) {
            Workspace w(who);
            ForgetChanges forget{w};
            w.put("githooks/README", "hooks\n");
            w.put("data.txt", "before\n");
            w.own();
            // git's config names a hooks directory outside any dot-directory: protected too.
            Result cfg = w.git({"config", "core.hooksPath", "githooks"});
            REQUIRE(cfg.status == 0);
            w.own();
            const std::string config = w.read(".git/config");
            Result r = w.caged("printf '" + w.evil_script("hook") +
                                   "' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit && "
                                   "printf '" +
                                   w.evil_script("hookspath") +
                                   "' > githooks/pre-commit && chmod +x githooks/pre-commit && "
                                   "git config core.fsmonitor /bin/false && echo after > data.txt",
                               w.layer_policy());
            INFO(r.out);
            // Held, and reported as tampering; never in the workspace, so never put back.
            CHECK(r.status == 3);
            CHECK(r.out.find("held: .git/hooks/pre-commit created") != std::string::npos);
            CHECK(r.out.find("held: githooks/pre-commit created") != std::string::npos);
            CHECK(r.out.find("held: .git/config changed") != std::string::npos);
            CHECK(r.out.find("; restored") == std::string::npos);
            CHECK(r.out.find("held: never landed") != std::string::npos);
            CHECK_FALSE(present(w.ws / ".git/hooks/pre-commit"));
            CHECK_FALSE(present(w.ws / "githooks/pre-commit"));
            CHECK(w.read(".git/config") == config);
            Result ci = w.git({"commit", "-q", "--allow-empty", "-m", "after"});
            CHECK(ci.status == 0);
            CHECK_FALSE(present(w.marker("hook")));
            CHECK_FALSE(present(w.marker("hookspath")));
            // The rewritten file landed, without the overlay's attributes of its copy-up.
            CHECK(w.read("data.txt") == "after\n");
            char names[4096] = {};
            ssize_t n = ::llistxattr((w.ws / "data.txt").c_str(), names, sizeof names);
            REQUIRE(n >= 0);
            for (ssize_t i = 0; i < n; i += static_cast<ssize_t>(std::strlen(names + i)) + 1)
                CHECK(std::string(names + i).find("user.overlay.") != 0);
        }
    }
}
