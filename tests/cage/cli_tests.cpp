// `toolcage run` and `toolcage doctor` through the built binary.
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/user_home.h"

namespace {

struct Out {
    int status;
    std::string text;
};

Out shell(const std::string& cmd) {
    Out o{-1, {}};
    std::FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
    REQUIRE(p);
    char buf[4096];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) o.text.append(buf, n);
    int st = ::pclose(p);
    o.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    return o;
}

const std::string bin = TOOLCAGE_BIN;

}  // namespace

TEST_CASE("toolcage run returns the step's status; 128+n for a signal", "[cage][cli]") {
    CHECK(shell(bin + " run -- /bin/sh -c 'exit 3'").status == 3);
    CHECK(shell(bin + " run -- /bin/sh -c 'kill -KILL $$'").status == 128 + 9);
    // Not /tmp itself: every user shares it, and it holds toolcage's fallback state directory.
    char dir[] = "/tmp/toolcage-cli-XXXXXX";
    REQUIRE(::mkdtemp(dir));
    Out o =
        shell(bin + " run --workdir " + dir + " -- /bin/sh -c 'echo x > /etc/toolcage-cli-test'");
    Out ok = shell(bin + " run --workdir " + dir + " -- /bin/true");
    ::rmdir(dir);
    INFO(o.text);
    CHECK(o.status != 0);
    // Landlock's refusal, or the step's read-only mounts before it.
    CHECK((o.text.find("Permission denied") != std::string::npos ||
           o.text.find("Read-only file system") != std::string::npos));
    // After the step's own output, one line counts what the cage refused.
    CHECK(o.text.find("toolcage run: 1 refusal by the cage; see above") != std::string::npos);
    CHECK(ok.status == 0);
    CHECK(ok.text.find("refusal") == std::string::npos);
    Out shared = shell(bin + " run --workdir /tmp -- /bin/true");
    INFO(shared.text);
    CHECK(shared.status == 2);
    CHECK((shared.text.find("shared with every user") != std::string::npos ||
           shared.text.find("toolcage's own state") != std::string::npos));
}

TEST_CASE("toolcage run starts the relay for a relay-enabled policy", "[cage][cli]") {
    // The relay's own behaviour: relay_step_tests.cpp; here only that it is linked in.
    Out o = shell("env -u https_proxy -u HTTPS_PROXY -u http_proxy " + bin +
                  " run --policy forge -- /bin/sh -c 'echo \"$https_proxy\"'");
    INFO(o.text);
    CHECK(o.status == 0);
    CHECK(o.text.find("http://toolcage:") != std::string::npos);
    CHECK(o.text.find("relay not available") == std::string::npos);
}

TEST_CASE("toolcage doctor --json reports the kernel and the policy right by right",
          "[cage][cli]") {
    Out o = shell(bin + " doctor --json --policy default");
    INFO(o.text);
    REQUIRE(o.status == 0);
    auto j = nlohmann::json::parse(o.text);
    CHECK(j["kernel"]["landlock_abi"].get<int>() >= 1);
    CHECK(j["policy"]["name"] == "default");
    CHECK(j["landlock"]["status"] == "fully enforced");
    CHECK(j["landlock"]["rights"].size() >= 20);
    Out text = shell(bin + " doctor --policy default --landlock-abi 3");
    CHECK(text.text.find("NOT ENFORCED (needs ABI 5)") != std::string::npos);
    CHECK(text.text.find("network (") != std::string::npos);
}

TEST_CASE("toolcage doctor resolves a relative --workdir and names a missing one", "[cage][cli]") {
    char dir[] = "/var/tmp/toolcage-doctor-XXXXXX";
    REQUIRE(::mkdtemp(dir));
    const std::string d = dir;
    REQUIRE(::mkdir((d + "/sub").c_str(), 0755) == 0);
    // "." and "sub" are the directories they name from the current one.
    Out dot = shell("cd " + d + " && " + bin + " doctor --json --policy default --workdir .");
    INFO(dot.text);
    CHECK(dot.status == 0);
    CHECK(dot.text.find("\"name\": \"default\"") != std::string::npos);
    Out sub = shell("cd " + d + " && " + bin + " doctor --policy default --cwd sub");
    INFO(sub.text);
    CHECK(sub.status == 0);
    // The text report starts with what a step there is granted, in words.
    CHECK(sub.text.find("what a step in " + d + "/sub is granted:") != std::string::npos);
    CHECK(sub.text.find("  workspace: " + d + "/sub\n") != std::string::npos);
    CHECK(sub.text.find("  writes:    the workspace") != std::string::npos);
    CHECK(sub.text.find("  network:   none") != std::string::npos);
    Out forge = shell("cd " + d + " && " + bin + " doctor --policy forge --cwd sub");
    CHECK(forge.text.find("  network:   HTTPS through the relay to ") != std::string::npos);
    CHECK(forge.text.find("pypi.org") != std::string::npos);
    // A directory that is not there: the error names it, and no policy.
    Out missing = shell("cd " + d + " && " + bin + " doctor --policy default --workdir nowhere");
    INFO(missing.text);
    CHECK(missing.status == 2);
    CHECK(missing.text.find("--workdir \"nowhere\": not a directory") != std::string::npos);
    CHECK(missing.text.find("policy") == std::string::npos);
    CHECK(std::system(("rm -rf " + d).c_str()) == 0);
}

TEST_CASE(
    "toolcage doctor says where the relay's CA is, its key's mode and owner, its expiry; "
    "--rotate replaces it",
    "[cage][cli]") {
    // A state directory of the test's own (the suite's marker in it), so the CA is this test's.
    char dir[] = "/var/tmp/toolcage-doctor-ca-XXXXXX";
    REQUIRE(::mkdtemp(dir));
    const std::string d = dir, ca = d + "/relay-ca";
    std::FILE* marker = std::fopen((d + "/.toolcage-test-state").c_str(), "w");
    REQUIRE(marker);
    std::fclose(marker);
    REQUIRE(::chmod((d + "/.toolcage-test-state").c_str(), 0600) == 0);
    const std::string env = "cd " + d + " && TOOLCAGE_STATE_DIR=" + d + " ";
    const std::string relay = TOOLCAGE_RELAY_BIN;
    auto line_of = [](const std::string& text) {
        auto at = text.find("relay CA: ");
        return at == std::string::npos ? std::string() : text.substr(at, text.find('\n', at) - at);
    };

    Out none = shell(env + bin + " doctor --policy forge");
    INFO(none.text);
    CHECK(line_of(none.text) ==
          "relay CA: none yet in " + ca +
              " (made by the first step that inspects a host, or by toolcage-relay "
              "--make-ca " +
              ca + ")");

    REQUIRE(shell(relay + " --make-ca " + ca).status == 0);
    Out made = shell(env + bin + " doctor --policy forge");
    const std::string line = line_of(made.text);
    INFO(line);
    CHECK(line.find("relay CA: " + ca + "/ca.pem, key " + ca + "/ca.key mode 0600 owned by uid " +
                    std::to_string(::geteuid()) + ", expires ") == 0);
    CHECK(line.find("WARNING") == std::string::npos);
    Out json = shell(env + bin + " doctor --json --policy forge");
    auto j = nlohmann::json::parse(json.text);
    CHECK(j["relay_ca"]["present"] == true);
    CHECK(j["relay_ca"]["warning"] == false);
    CHECK(j["relay_ca"]["key_mode"] == 0600);
    CHECK(j["relay_ca"]["days_left"].get<long long>() > 3000);

    // A key others can read: said, with the fix.
    REQUIRE(::chmod((ca + "/ca.key").c_str(), 0644) == 0);
    Out readable = shell(env + bin + " doctor --policy forge");
    CHECK(line_of(readable.text)
              .find("WARNING: the key is readable by group or others: chmod 600 " + ca +
                    "/ca.key") != std::string::npos);

    // --rotate: a new key and certificate, 0600 again; doctor quiet again.
    Out before = shell("cat " + ca + "/ca.pem");
    Out rotated = shell(relay + " --make-ca " + ca + " --rotate");
    INFO(rotated.text);
    REQUIRE(rotated.status == 0);
    CHECK(shell("cat " + ca + "/ca.pem").text != before.text);
    struct stat st {};
    REQUIRE(::stat((ca + "/ca.key").c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0600);
    CHECK_FALSE(std::filesystem::exists(ca + "/.rotating"));
    CHECK(line_of(shell(env + bin + " doctor --policy forge").text).find("WARNING") ==
          std::string::npos);
    CHECK(shell(relay + " --rotate").status == 2);

    // A CA near its end (made here by openssl, valid 10 days): the warning names the rotation.
    REQUIRE(
        shell("openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 10 "
              "-subj /CN=old -keyout " +
              ca + "/new.key -out " + ca + "/new.pem && mv " + ca + "/new.key " + ca +
              "/ca.key && mv " + ca + "/new.pem " + ca + "/ca.pem && chmod 600 " + ca + "/ca.key")
            .status == 0);
    Out near = shell(env + bin + " doctor --policy forge");
    CHECK(line_of(near.text).find("WARNING: it expires within 30 days: toolcage-relay --make-ca " +
                                  ca + " --rotate") != std::string::npos);
    CHECK(std::system(("rm -rf " + d).c_str()) == 0);
}

TEST_CASE("toolcage run --verbose says first what the step is granted, in words", "[cage][cli]") {
    char dir[] = "/var/tmp/toolcage-verbose-XXXXXX";
    REQUIRE(::mkdtemp(dir));
    const std::string d = dir;
    Out caged = shell("cd " + d + " && " + bin + " run --verbose --policy forge -- /bin/true");
    INFO(caged.text);
    CHECK(caged.status == 0);
    CHECK(caged.text.find("what a step in " + d + " is granted:") != std::string::npos);
    CHECK(caged.text.find("  writes:    the workspace") != std::string::npos);
    CHECK(caged.text.find("  TMPDIR:    a fresh directory per step") != std::string::npos);
    CHECK(caged.text.find("  network:   HTTPS through the relay to ") != std::string::npos);
    // The paths it reads are listed where they are counted: each an absolute path that exists
    // or is the policy's, the system's /usr among them; nothing promises a list elsewhere.
    CHECK(caged.text.find("listed under") == std::string::npos);
    const std::string reads = "  reads:     ";
    const std::size_t at = caged.text.find(reads);
    REQUIRE(at != std::string::npos);
    const std::size_t count = std::stoul(caged.text.substr(at + reads.size()));
    CHECK(count > 0);
    std::size_t line = caged.text.find('\n', at) + 1;
    std::vector<std::string> listed;
    while (caged.text.compare(line, 15, std::string(15, ' ')) == 0) {
        std::size_t end = caged.text.find('\n', line);
        listed.push_back(caged.text.substr(line + 15, end - line - 15));
        line = end + 1;
    }
    CHECK(listed.size() == count);
    for (const auto& p : listed) CHECK(p.starts_with("/"));
    CHECK(std::find(listed.begin(), listed.end(), "/usr") != listed.end());
    // The read-only cage writes nothing and has no network, whatever the policy's relay.
    Out ro =
        shell("cd " + d + " && " + bin + " run --verbose --read-only --policy forge -- /bin/true");
    INFO(ro.text);
    CHECK(ro.status == 0);
    CHECK(ro.text.find("  writes:    nothing (the read-only cage") != std::string::npos);
    CHECK(ro.text.find("  network:   none") != std::string::npos);
    CHECK(ro.text.find("TMPDIR:") == std::string::npos);
    // A workspace given by --workspace (as the hook's rewrite gives it) is the one named.
    REQUIRE(::mkdir((d + "/sub").c_str(), 0755) == 0);
    Out given = shell("cd " + d + "/sub && " + bin + " run --verbose --workspace " + d +
                      " --policy forge -- /bin/true");
    INFO(given.text);
    CHECK(given.status == 0);
    CHECK(given.text.find("  workspace: " + d + " (given by --workspace)") != std::string::npos);
    // Without --verbose, nothing of it.
    CHECK(shell("cd " + d + " && " + bin + " run --policy forge -- /bin/true")
              .text.find("is granted") == std::string::npos);
    CHECK(std::system(("rm -rf " + d).c_str()) == 0);
}

TEST_CASE("every caged step is one line in the decision log, naming its network mode",
          "[cage][cli]") {
    char dir[] = "/var/tmp/toolcage-steplog-XXXXXX";
    REQUIRE(::mkdtemp(dir));
    const std::string d = dir;
    for (const char* mode : {"landlock", "netns"}) {
        std::string policy = d + "/" + mode + ".json";
        std::FILE* f = std::fopen(policy.c_str(), "w");
        REQUIRE(f);
        std::fprintf(f, "{\"extends\": \"default\", \"cage\": {\"network\": \"%s\"}}", mode);
        std::fclose(f);
        // $TOOLCAGE_LOG counts only under toolcage's state directory (common/user_home.h).
        std::string log = toolcage::primary_state_dir() + "/test-logs/" +
                          d.substr(d.rfind('/') + 1) + "-" + mode + ".jsonl";
        Out o = shell("TOOLCAGE_LOG=" + log + " " + bin + " run --policy " + policy +
                      " --workdir " + d + " -- /bin/sh -c 'exit 4'");
        INFO(o.text);
        CHECK(o.status == 4);
        Out line = shell("cat " + log);
        auto j = nlohmann::json::parse(line.text);
        CHECK(j["event"] == "step");
        CHECK(j["network"] == mode);
        CHECK(j["status"] == 4);
        CHECK(j["command"] == "/bin/sh -c exit 4");
        std::remove(log.c_str());
    }
    shell("rm -rf " + d);
}

TEST_CASE("a test state directory takes the hook's decisions and doctor names it",
          "[cage][cli][state]") {
    char base[] = "/var/tmp/toolcage-suite-state-XXXXXX";
    REQUIRE(::mkdtemp(base));
    const std::string d = std::string(base) + "/state";
    REQUIRE(::mkdir(d.c_str(), 0700) == 0);
    REQUIRE(::mkdir((std::string(base) + "/ws").c_str(), 0755) == 0);
    std::FILE* m = std::fopen((d + "/.toolcage-test-state").c_str(), "w");
    REQUIRE(m);
    std::fclose(m);
    REQUIRE(::chmod((d + "/.toolcage-test-state").c_str(), 0600) == 0);
    const std::string env = "TOOLCAGE_STATE_DIR=" + d + " ";

    Out doctor = shell(env + bin + " doctor --policy default --workdir " + base + "/ws");
    INFO(doctor.text);
    CHECK(doctor.text.find("  state: " + d + " (journal, decision log; a test suite's") !=
          std::string::npos);

    const std::string payload =
        R"({"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash",)"
        R"("tool_input":{"command":"ls state-dir-probe"},"cwd":")" +
        std::string(base) + R"(/ws"})";
    Out hook = shell("printf '%s' '" + payload + "' | " + env + bin +
                     " hook --agent claude --policy default");
    INFO(hook.text);
    CHECK(hook.status == 0);
    Out logged = shell("grep -c 'ls state-dir-probe' " + d + "/decisions.jsonl");
    CHECK(logged.text == "1\n");

    // The marker's mode opened up: the variable is ignored and doctor says why.
    REQUIRE(::chmod((d + "/.toolcage-test-state").c_str(), 0644) == 0);
    Out refused = shell(env + bin + " doctor --policy default --workdir " + base + "/ws");
    INFO(refused.text);
    CHECK(refused.text.find("TOOLCAGE_STATE_DIR=" + d + " is ignored") != std::string::npos);
    CHECK(refused.text.find("  state: " + d + " ") == std::string::npos);
    // and it leaves the state in use (the user's own) as it is: no housekeeping there.
    CHECK(refused.text.find("housekeeping: skipped: $TOOLCAGE_STATE_DIR is set but ignored") !=
          std::string::npos);
    CHECK(refused.text.find("housekeeping: removed") == std::string::npos);
    CHECK(std::system((std::string("rm -rf ") + base).c_str()) == 0);
}

TEST_CASE(
    "a test state directory a step could write makes the run refuse, and nothing is written there",
    "[cage][cli][state]") {
    char base[] = "/var/tmp/toolcage-suite-ws-XXXXXX";
    REQUIRE(::mkdtemp(base));
    const std::string ws = base;
    const std::string d = ws + "/state";
    REQUIRE(::mkdir(d.c_str(), 0700) == 0);
    std::FILE* m = std::fopen((d + "/.toolcage-test-state").c_str(), "w");
    REQUIRE(m);
    std::fclose(m);
    REQUIRE(::chmod((d + "/.toolcage-test-state").c_str(), 0600) == 0);
    Out r = shell("cd " + ws + " && TOOLCAGE_STATE_DIR=" + d + " " + bin +
                  " run --policy default --workdir " + ws + " -- /bin/sh -c 'echo ran > ran.txt'");
    INFO(r.text);
    CHECK(r.status == 2);
    CHECK(r.text.find("holds " + d + " (toolcage's own state), so it cannot be a workspace") !=
          std::string::npos);
    CHECK(::access((ws + "/ran.txt").c_str(), F_OK) != 0);
    Out listed = shell("ls -A " + d);
    CHECK(listed.text == ".toolcage-test-state\n");
    CHECK(std::system(("rm -rf " + ws).c_str()) == 0);
}
