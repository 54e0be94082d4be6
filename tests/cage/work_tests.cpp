// Ordinary work still runs in the cage under the shipped default policy, as root and as nobody;
// and the Landlock ABI emulation shows what an older kernel would (not) enforce.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cage/containment/netns.h"
#include "tests/other_user.h"

namespace fs = std::filesystem;

namespace {

struct Out {
    int status;
    std::string text;
};

Out run_in_cage(bool nobody, const fs::path& ws, const fs::path& home, const std::string& script,
                std::vector<std::string> opts = {},
                const std::string& policy = testsupport::reachable(TOOLCAGE_SOURCE_DIR "/profiles/default.json")) {
    std::vector<std::string> argv;
    if (nobody)
        argv = testsupport::as_nobody_prefix();
    argv.push_back(testsupport::reachable(CAGE_RUNNER));
    argv.emplace_back("--policy");
    argv.push_back(policy);
    argv.push_back("--workdir");
    argv.push_back(ws.string());
    argv.insert(argv.end(), opts.begin(), opts.end());
    for (const char* a : {"--", "/bin/sh", "-c"}) argv.emplace_back(a);
    argv.push_back(script);
    int p[2];
    REQUIRE(::pipe(p) == 0);
    pid_t pid = ::fork();
    if (pid == 0) {
        ::dup2(p[1], 1);
        ::dup2(p[1], 2);
        ::close(p[0]);
        int null = ::open("/dev/null", O_RDONLY);
        ::dup2(null, 0);
        std::string h = "HOME=" + home.string();
        ::putenv(h.data());
        std::vector<char*> args;
        for (auto& a : argv) args.push_back(a.data());
        args.push_back(nullptr);
        ::execv(args[0], args.data());
        _exit(99);
    }
    ::close(p[1]);
    Out o{-1, {}};
    char buf[4096];
    ssize_t n;
    while ((n = ::read(p[0], buf, sizeof buf)) > 0) o.text.append(buf, static_cast<std::size_t>(n));
    ::close(p[0]);
    int st = 0;
    ::waitpid(pid, &st, 0);
    o.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    return o;
}

struct Tree {
    fs::path base, ws, home;
    explicit Tree(bool nobody) {
        char tmpl[] = "/tmp/toolcage-work-XXXXXX";
        REQUIRE(::mkdtemp(tmpl));
        base = tmpl;
        ::chmod(tmpl, 0755);
        ws = base / "ws";
        home = base / "home";
        fs::create_directories(ws);
        fs::create_directories(home);
        if (nobody && testsupport::can_switch_user()) {  // else the test's own user is "nobody"
            REQUIRE(::chown(ws.c_str(), 65534, 65534) == 0);
            REQUIRE(::chown(home.c_str(), 65534, 65534) == 0);
        }
    }
    ~Tree() {
        std::error_code ec;
        fs::remove_all(base, ec);
    }
    void put(const std::string& name, const std::string& text) {
        std::ofstream(ws / name) << text;
        ::chmod((ws / name).c_str(), 0777);
    }
};

}  // namespace

TEST_CASE("ordinary work runs in the default policy", "[cage][work]") {
    bool nobody = GENERATE(false, true);
    INFO((nobody ? "nobody" : "root"));
    Tree t(nobody);

    SECTION("a shell script in the workspace") {
        t.put("build.sh",
              "#!/bin/sh\nset -e\necho built > out.txt\nmkdir -p d && mv out.txt d/\ncat "
              "d/out.txt\n");
        Out o = run_in_cage(nobody, t.ws, t.home, "./build.sh");
        INFO(o.text);
        CHECK(o.status == 0);
        CHECK(o.text.find("built") != std::string::npos);
    }
    SECTION("make on a small C project") {
        t.put("hello.c",
              "#include <stdio.h>\nint main(void){puts(\"hello from the cage\");return 0;}\n");
        t.put("Makefile", "hello: hello.c\n\tcc -O1 -o $@ $<\n");
        Out o = run_in_cage(nobody, t.ws, t.home, "make -s && ./hello");
        INFO(o.text);
        CHECK(o.status == 0);
        CHECK(o.text.find("hello from the cage") != std::string::npos);
    }
    SECTION("python3 -m unittest") {
        t.put("test_math.py",
              "import unittest, tempfile\nclass T(unittest.TestCase):\n"
              "    def test_add(self):\n        self.assertEqual(1 + 1, 2)\n"
              "    def test_tmp(self):\n        with tempfile.NamedTemporaryFile() as f: "
              "f.write(b'x')\n");
        Out o = run_in_cage(nobody, t.ws, t.home, "python3 -m unittest -v 2>&1");
        INFO(o.text);
        CHECK(o.status == 0);
        CHECK(o.text.find("OK") != std::string::npos);
    }
    SECTION("git init and commit") {
        t.put("README", "hi\n");
        Out o = run_in_cage(
            nobody, t.ws, t.home,
            "git init -q && git add README && git -c user.name=t -c user.email=t@example.org "
            "commit -q -m first && git log --oneline");
        INFO(o.text);
        CHECK(o.status == 0);
        CHECK(o.text.find("first") != std::string::npos);
    }
    SECTION("npm --version") {
        Out o = run_in_cage(nobody, t.ws, t.home, "npm --version");
        INFO(o.text);
        CHECK(o.status == 0);
        CHECK(o.text.find('.') != std::string::npos);
    }
}

TEST_CASE("an older kernel's ABI is reported, and refused below min_abi", "[cage][abi]") {
    Tree t(false);
    std::ifstream in(TOOLCAGE_SOURCE_DIR "/profiles/default.json");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // ABI 3: no Landlock network rights, so the run says what is missing (min_abi of default is
    // 1), on the host's network (cage.network landlock).
    std::string on_host = text;
    auto net = on_host.find("\"network\": \"auto\"");
    REQUIRE(net != std::string::npos);
    on_host.replace(net, 17, "\"network\": \"landlock\"");
    fs::path host_policy = t.base / "landlock.json";
    std::ofstream(host_policy) << on_host;
    Out three =
        run_in_cage(false, t.ws, t.home, "true", {"--landlock-abi", "3"}, host_policy.string());
    INFO(three.text);
    CHECK(three.status == 0);
    CHECK(three.text.find("Landlock ABI 3 (kernel: ") != std::string::npos);
    CHECK(three.text.find("partially enforced (missing: fs.ioctl_dev, net.bind_tcp, "
                          "net.connect_tcp, scope.abstract_unix_socket, scope.signal)") !=
          std::string::npos);
    // In a private network namespace the network rights are not missing: it stands in for them.
    if (toolcage::cage::can_create_user_namespace(nullptr)) {
        Out netns = run_in_cage(false, t.ws, t.home, "true", {"--landlock-abi", "3"});
        INFO(netns.text);
        CHECK(netns.text.find("partially enforced (missing: fs.ioctl_dev, "
                              "scope.abstract_unix_socket, scope.signal)") != std::string::npos);
    }

    // A policy that needs ABI 4 is refused on "ABI 3", unless --best-effort.
    auto at = text.find("\"min_abi\": 1");
    REQUIRE(at != std::string::npos);
    text.replace(at, 12, "\"min_abi\": 4");
    fs::path policy = t.base / "min4.json";
    std::ofstream(policy) << text;
    Out refused =
        run_in_cage(false, t.ws, t.home, "echo ran", {"--landlock-abi", "3"}, policy.string());
    INFO(refused.text);
    CHECK(refused.status == 2);
    CHECK(refused.text.find("needs Landlock ABI 4 (cage.min_abi), the kernel offers 3") !=
          std::string::npos);
    CHECK(refused.text.find("ran") == std::string::npos);
    Out forced = run_in_cage(false, t.ws, t.home, "echo ran",
                             {"--landlock-abi", "3", "--best-effort"}, policy.string());
    CHECK(forced.status == 0);
    CHECK(forced.text.find("ran") != std::string::npos);

    // ABI 0: nothing from Landlock; only --best-effort runs, and says so.
    Out none =
        run_in_cage(false, t.ws, t.home, "echo ran", {"--landlock-abi", "0", "--best-effort"});
    CHECK(none.text.find("not enforced") != std::string::npos);
}
