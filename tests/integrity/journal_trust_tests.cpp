// The step journal cannot be forged, as root and as nobody: a journal is obeyed only from
// toolcage's own state directory (found from the user database, never $HOME), and only when its
// directory chain, owner, mode and contents check out; one that does not is named with what
// failed and left alone (nothing restored, nothing killed). A well-formed journal beside each
// case is obeyed, so every refusal is a refusal of that one flaw.
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "cage/integrity/protected_paths.h"
#include "cage/integrity/step_journal.h"
#include "cage/integrity/workspace_guard.h"
#include "support.h"
#include "tests/other_user.h"

using namespace integrity;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

constexpr std::string_view kMagic = "toolcage-journal 1\n";

bool present(const fs::path& p) {
    std::error_code ec;
    return fs::exists(fs::symlink_status(p, ec));
}

std::string slurp(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

uid_t uid_of(As who) { return testsupport::case_uid(who == As::nobody); }

// A journal as toolcage writes it: the record, and the workspace's snapshot taken now.
json journal_record(const Workspace& w) {
    toolcage::cage::WorkspaceGuard guard(w.ws.string(), toolcage::cage::protected_paths({}));
    std::string snap = guard.to_journal();
    return {{"workspace", w.ws.string()}, {"policy", "integrity-test"}, {"argv", {"/bin/sh", "-c", "x"}},
            {"tmpdir", ""},               {"memory_cgroup", ""},       {"pid_namespace", true},
            {"step", 0},                  {"step_start", 0},
            {"snapshot", json::binary(std::vector<std::uint8_t>(snap.begin(), snap.end()))}};
}

std::string journal_bytes(const json& record) {
    std::vector<std::uint8_t> cbor = json::to_cbor(record);
    std::string out(kMagic);
    out.append(cbor.begin(), cbor.end());
    return out;
}

// The journal directory of `w` under the state directory of the test's user.
std::string journal_dir_of(const Workspace& w) {
    return toolcage::cage::journal_dir(w.ws.string(), state_dir_of(w.who) + "/journal");
}

void own_dir(const std::string& d, uid_t uid, mode_t mode = 0700) {
    fs::create_directories(d);
    REQUIRE(::chown(d.c_str(), uid, uid) == 0);
    REQUIRE(::chmod(d.c_str(), mode) == 0);
}

// Places `bytes` as <journal dir>/1-test.journal, everything the test's user's, 0700/0600;
// returns the file's path.
std::string place_journal(const Workspace& w, const std::string& bytes) {
    const uid_t uid = uid_of(w.who);
    const std::string state = state_dir_of(w.who);
    // The state directory is made as toolcage makes it: only its missing parts.
    if (!present(state)) {
        if (w.who == As::root) {
            fs::create_directories(state);
            ::chmod(state.c_str(), 0700);
        } else {
            own_dir(state, uid);
        }
    }
    own_dir(state + "/journal", uid);
    const std::string dir = journal_dir_of(w);
    own_dir(dir, uid);
    // The workspace file a run writes beside its journals (doctor's housekeeping reads it).
    if (!present(dir + "/workspace")) {
        std::ofstream(dir + "/workspace") << w.ws.string() << "\n";
        REQUIRE(::chown((dir + "/workspace").c_str(), uid, uid) == 0);
        REQUIRE(::chmod((dir + "/workspace").c_str(), 0600) == 0);
    }
    const std::string file = dir + "/1-test.journal";
    std::ofstream(file, std::ios::binary) << bytes;
    REQUIRE(::chown(file.c_str(), uid, uid) == 0);
    REQUIRE(::chmod(file.c_str(), 0600) == 0);
    return file;
}

// A pre-commit hook planted after the snapshot: a journal that is obeyed removes it.
void plant(const Workspace& w) {
    w.put(".git/hooks/pre-commit", "#!/bin/sh\ntouch " + w.marker("planted") + "\n", 0755);
    w.own();
}

// A process of the test's user that is not the step's: `sleep`, in a session of its own.
pid_t start_bystander(As who) {
    pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        ::setsid();
        if (!testsupport::become_case_user(who == As::nobody)) _exit(97);
        ::execl("/bin/sleep", "sleep", "30", static_cast<char*>(nullptr));
        _exit(98);
    }
    return pid;
}

bool alive(pid_t pid) {
    int st = 0;
    return ::waitpid(pid, &st, WNOHANG) == 0;
}

}  // namespace

TEST_CASE("a journal that does not check out is named and left alone; a sound one is obeyed",
          "[journal][trust][cage]") {
    for (As who : {As::root, As::nobody}) {
        DYNAMIC_SECTION(name_of(who)) {
            Workspace w(who);
            const std::string policy = w.policy();
            const json sound = journal_record(w);
            plant(w);
            const fs::path hook = w.ws / ".git/hooks/pre-commit";

            struct Case {
                const char* name;
                std::function<std::string()> make;  // places the journal; returns what to look for
            };
            const std::string dir = journal_dir_of(w);
            Workspace other(who);
            const Case cases[] = {
                {"truncated", [&] {
                     std::string b = journal_bytes(sound);
                     place_journal(w, b.substr(0, b.size() / 2));
                     return std::string("1-test.journal");
                 }},
                {"a symlinked journal file", [&] {
                     std::string f = place_journal(w, journal_bytes(sound));
                     fs::rename(f, w.base / "elsewhere.journal");
                     fs::create_symlink(w.base / "elsewhere.journal", f);
                     return std::string("1-test.journal: a symlink");
                 }},
                {"a symlinked journal directory", [&] {
                     place_journal(w, journal_bytes(sound));
                     fs::rename(dir, w.base / "elsewhere-dir");
                     fs::create_symlink(w.base / "elsewhere-dir", dir);
                     return dir + ": a symlink";
                 }},
                {"a foreign-owned journal", [&] {
                     if (!testsupport::can_switch_user()) return std::string();  // only root can give it away
                     std::string f = place_journal(w, journal_bytes(sound));
                     REQUIRE(::chown(f.c_str(), 12345, 12345) == 0);
                     // The user can read it (as toolcage could read one that another user left).
                     REQUIRE(::chmod(f.c_str(), 0644) == 0);
                     return std::string("owned by uid 12345");
                 }},
                {"a group-writable journal directory", [&] {
                     place_journal(w, journal_bytes(sound));
                     REQUIRE(::chmod(dir.c_str(), 0770) == 0);
                     return dir + ": mode 0770";
                 }},
                {"a journal naming another workspace", [&] {
                     json r = sound;
                     r["workspace"] = other.ws.string();
                     place_journal(w, journal_bytes(r));
                     return "names the workspace " + other.ws.string();
                 }},
                {"a snapshot naming a path outside its workspace", [&] {
                     json snap = json::from_cbor(sound["snapshot"].get_binary());
                     snap["paths"][0][0] = "../outside";
                     json r = sound;
                     auto bytes = json::to_cbor(snap);
                     r["snapshot"] = json::binary(bytes);
                     place_journal(w, journal_bytes(r));
                     return std::string("\"../outside\", a path outside the workspace");
                 }},
            };
            for (const auto& c : cases) {
                INFO(c.name);
                std::string expect = c.make();
                if (expect.empty()) continue;  // a case this user cannot set up
                Result r = w.caged("true", policy);
                INFO(r.out);
                CHECK(r.status != 0);
                CHECK(r.out.find(expect) != std::string::npos);
                CHECK(r.out.find("left alone") != std::string::npos);
                CHECK(r.out.find("remove it") != std::string::npos);  // what the user should do
                CHECK(present(hook));  // nothing restored
                // The hook refuses the same way, naming it.
                Result h = w.hook(w.env());
                INFO(h.out);
                CHECK(h.status == 2);
                CHECK(h.out.find(expect) != std::string::npos);
                CHECK(present(hook));
                std::error_code ec;
                fs::remove(dir, ec);  // the directory symlink itself
                fs::remove_all(dir, ec);
                fs::remove_all(w.base / "elsewhere-dir", ec);
            }

            // A journal naming a pid that is not the step's: nothing killed, nothing restored.
            pid_t bystander = start_bystander(who);
            std::this_thread::sleep_for(50ms);
            json r = sound;
            r["pid_namespace"] = false;
            r["step"] = bystander;
            r["step_start"] = toolcage::cage::process_start_time(bystander) + 1;
            place_journal(w, journal_bytes(r));
            Result killed = w.caged("true", policy);
            INFO(killed.out);
            CHECK(killed.status != 0);
            CHECK(killed.out.find("it names pid " + std::to_string(bystander) + " as the step, but that process is not the step's") != std::string::npos);
            CHECK(alive(bystander));
            CHECK(present(hook));
            ::kill(bystander, SIGKILL);
            ::waitpid(bystander, nullptr, 0);
            std::error_code ec;
            fs::remove_all(dir, ec);

            // The legitimate path: a sound journal is finished, and its directory removed.
            place_journal(w, journal_bytes(sound));
            Result ok = w.caged("true", policy);
            INFO(ok.out);
            CHECK(ok.status == 0);
            CHECK(ok.out.find(".git/hooks/pre-commit created; removed (by the next toolcage call") != std::string::npos);
            CHECK_FALSE(present(hook));
            // The finished journal is gone (the run's own step made and removed one since).
            for (const auto& e : fs::directory_iterator(dir, ec)) CHECK_FALSE(e.path().extension() == ".journal");
            // The hook finishes one the same way, and removes the workspace's emptied directory.
            place_journal(w, journal_bytes(sound));
            plant(w);
            Result again = w.hook(w.env());
            INFO(again.out);
            CHECK(again.status == 0);
            CHECK_FALSE(present(hook));
            CHECK_FALSE(present(dir));
        }
    }
}

TEST_CASE("a journal forged in a granted cache, with HOME pointed there, is not obeyed",
          "[journal][trust][cage][hook]") {
    for (As who : {As::root, As::nobody}) {
        DYNAMIC_SECTION(name_of(who)) {
            Workspace w(who);
            // A policy that grants the step a cache, as forge grants ~/.npm/_cacache.
            const fs::path cache = w.base / "cache";
            fs::create_directories(cache);
            const std::string policy = w.policy_with(
                "integrity-cache", {{"cage", {{"read", json::array({cache.string()})}, {"write", json::array({cache.string()})}}}});
            w.own();
            ::chown(cache.c_str(), uid_of(who), uid_of(who));

            // The fake home's .bashrc is what a forged snapshot would put back.
            const std::string fake_home = cache.string();
            const std::string bashrc = fake_home + "/.bashrc";
            const std::string real_bashrc = slurp(std::string(::getpwuid(uid_of(who))->pw_dir) + "/.bashrc");
            const json sound = journal_record(w);
            plant(w);
            // The step writes the journal, where $HOME/$XDG_STATE_HOME would put it.
            const std::string rel = toolcage::cage::journal_dir(w.ws.string(), fake_home + "/.local/state/toolcage/journal");
            std::ofstream(cache / "forged.journal", std::ios::binary) << journal_bytes(sound);
            ::chmod((cache / "forged.journal").c_str(), 0644);
            Result wrote = w.caged("mkdir -p '" + rel + "' && chmod 700 '" + fake_home + "' '" + rel +
                                       "' && cp '" + (cache / "forged.journal").string() + "' '" + rel +
                                       "/1-forged.journal' && chmod 600 '" + rel + "/1-forged.journal' && echo original > '" +
                                       bashrc + "'",
                                   policy);
            INFO(wrote.out);
            REQUIRE(wrote.status == 0);
            REQUIRE(present(rel + "/1-forged.journal"));

            std::map<std::string, std::string> env = w.env();
            env["HOME"] = fake_home;
            env["XDG_STATE_HOME"] = fake_home + "/.local/state";
            Result next = w.caged("true", policy, {{"HOME", fake_home}, {"XDG_STATE_HOME", fake_home + "/.local/state"}});
            INFO(next.out);
            CHECK(next.status == 0);
            CHECK(next.out.find("tamper") == std::string::npos);
            CHECK(present(w.ws / ".git/hooks/pre-commit"));  // not "restored" from the forgery
            Result h = w.hook(env);
            INFO(h.out);
            CHECK(h.status == 0);
            CHECK(present(w.ws / ".git/hooks/pre-commit"));
            CHECK(present(rel + "/1-forged.journal"));  // left where it was, never finished
            CHECK(slurp(bashrc) == "original\n");
            CHECK(slurp(std::string(::getpwuid(uid_of(who))->pw_dir) + "/.bashrc") == real_bashrc);
        }
    }
}

TEST_CASE("no policy can grant a step toolcage's state directory", "[journal][trust][policy]") {
    Workspace w(As::root);
    const std::string state = state_dir_of(As::root);
    auto refused = [&](const std::string& field, const std::string& entry) {
        INFO(entry << " in " << field);
        Result r = w.caged("true", w.policy_with("integrity-state", {{"cage", {{field, json::array({entry})}}}}));
        INFO(r.out);
        CHECK(r.status != 0);
        CHECK(r.out.find("toolcage's own state") != std::string::npos);
    };
    for (const std::string& entry : {std::string("{home}/.local/state"), std::string("{home}/.local"), state + "/journal",
                                     "/tmp/toolcage-state-" + std::to_string(::geteuid())})
        for (const char* field : {"read", "write"}) refused(field, entry);
    // A symlink to it is refused by its real path.
    if (!present(state)) {
        fs::create_directories(state);
        ::chmod(state.c_str(), 0700);
    }
    fs::create_symlink(state, w.base / "to-state");
    refused("read", (w.base / "to-state").string());
    // Beside it, the shipped policy still runs.
    CHECK(w.caged("true", w.policy()).status == 0);
}

TEST_CASE("doctor removes the journals of workspaces that no longer exist, and only those",
          "[journal][trust][doctor]") {
    Workspace w(As::root);
    const std::string root = state_dir_of(As::root) + "/journal";
    place_journal(w, journal_bytes(journal_record(w)));
    const std::string live = journal_dir_of(w);
    std::ofstream(live + "/workspace") << w.ws.string() << "\n";
    const std::string gone_ws = (w.base / "deleted-ws").string();
    const std::string gone = toolcage::cage::journal_dir(gone_ws, root);
    fs::create_directories(gone);
    ::chmod(gone.c_str(), 0700);
    std::ofstream(gone + "/workspace") << gone_ws << "\n";
    std::ofstream(gone + "/1-old.journal") << "toolcage-journal 1\n";
    // Directories without their workspace file: one being made by a run right now (kept), one
    // a minute old (a run that died before writing it: removed).
    const std::string making = toolcage::cage::journal_dir((w.base / "being-made").string(), root);
    const std::string stale = toolcage::cage::journal_dir((w.base / "stale").string(), root);
    for (const auto& d : {making, stale}) {
        fs::create_directories(d);
        ::chmod(d.c_str(), 0700);
    }
    const timeval old_times[2] = {{::time(nullptr) - 120, 0}, {::time(nullptr) - 120, 0}};
    REQUIRE(::utimes(stale.c_str(), old_times) == 0);
    Result r = run({TOOLCAGE_BIN, "doctor"}, w.env());
    INFO(r.out);
    CHECK(r.out.find("housekeeping: removed " + gone) != std::string::npos);
    CHECK_FALSE(present(gone));
    CHECK(present(making));
    CHECK_FALSE(present(stale));
    fs::remove(making);
    CHECK(present(live + "/1-test.journal"));  // its workspace exists: the next run finishes it
    std::error_code ec;
    fs::remove_all(live, ec);
}
