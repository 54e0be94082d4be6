#include <stdlib.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "cage/containment/interpreter.h"
#include "cage/doctor.h"

using namespace toolcage::cage;

namespace {

// A directory of its own under /tmp (/tmp itself is no workspace), removed after the test.
struct OwnDir {
    std::string path;
    OwnDir() {
        std::string t = "/tmp/toolcage-doctor-XXXXXX";
        REQUIRE(::mkdtemp(t.data()) != nullptr);
        path = t;
    }
    ~OwnDir() { std::filesystem::remove_all(path); }
    OwnDir(const OwnDir&) = delete;
    OwnDir& operator=(const OwnDir&) = delete;
};

toolcage::Policy test_policy() {
    toolcage::Policy p;
    p.name = "test";
    p.cage.read = {"/usr", "/etc", "{workspace}"};
    p.cage.write = {"{workspace}", "{tmp}", "/dev/null"};
    p.cage.execute = {"/usr", "/lib", "/lib64", "{workspace}"};
    p.cage.min_abi = 4;
    p.cage.network = "landlock";  // the Landlock network rights (netns: network_tests.cpp)
    return p;
}

}  // namespace

TEST_CASE("interpreters: PT_INTERP of a dynamic ELF, the #! program of a script",
          "[cage][doctor]") {
    auto elf = elf_interpreter("/usr/bin/true");
    REQUIRE(elf);
    CHECK(elf->find("ld-linux") != std::string::npos);
    CHECK_FALSE(script_interpreter("/usr/bin/true"));
    CHECK(interpreter_of("/usr/bin/ldd").value_or("").find("bash") != std::string::npos);
    CHECK_FALSE(interpreter_of("/etc/hostname"));
}

TEST_CASE("doctor warns for an execute file whose interpreter the policy cannot run",
          "[cage][doctor]") {
    auto w = interpreter_warnings({"/usr/bin/true"});
    REQUIRE(w.size() == 1);
    CHECK(w[0].find("ld-linux") != std::string::npos);
    CHECK(interpreter_warnings({"/usr/bin/true", "/lib64", "/lib", "/usr"}).empty());
    CHECK(interpreter_warnings({"/usr"}).empty());  // directories are not checked
}

TEST_CASE("doctor reports right by right, and refusals below min_abi", "[cage][doctor]") {
    OwnDir own;
    DoctorReport full = diagnose(test_policy(), own.path, -1);
    CHECK(full.workspace.dir == own.path);
    CHECK(full.kernel.landlock_abi >= 4);
    CHECK(full.would_run);
    CHECK(full.landlock.status == Enforcement::full);
    auto j = to_json(full);
    CHECK(j["landlock"]["status"] == "fully enforced");
    CHECK(j["landlock"]["rights"].size() == landlock_rights().size());
    CHECK(j["network"].get<std::string>().starts_with("closed: no TCP connect or bind"));
    CHECK(to_text(full).find("needs cage.network \"netns\"") != std::string::npos);

    DoctorReport old = diagnose(test_policy(), own.path, 3);
    CHECK_FALSE(old.would_run);
    CHECK(old.refusal.find("needs Landlock ABI 4") != std::string::npos);
    CHECK(old.landlock.status == Enforcement::partial);
    std::string text = to_text(old);
    CHECK(text.find("net.connect_tcp") != std::string::npos);
    CHECK(text.find("NOT ENFORCED (needs ABI 4)") != std::string::npos);
    CHECK(text.find("would refuse") != std::string::npos);
    // Landlock below ABI 4 has no network rights: the network is not said to be closed.
    CHECK(to_json(old)["network"] == "TCP not restricted: Landlock ABI 3 has no network rights");
}

TEST_CASE("doctor says run would refuse where no workspace may be, in run's words", "[cage][doctor]") {
    DoctorReport r = diagnose(test_policy(), "/tmp", -1);
    CHECK_FALSE(r.would_run);
    CHECK_FALSE(r.workspace.ok());
    CHECK(r.refusal == r.workspace.reason);
    CHECK(r.refusal.starts_with("/tmp is shared with every user and program on this machine, so it cannot be a workspace"));
    CHECK(to_json(r)["workspace"]["reason"] == r.refusal);
    CHECK(to_text(r).find("would refuse: " + r.refusal) != std::string::npos);
}
