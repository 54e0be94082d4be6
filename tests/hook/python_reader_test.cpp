// Code judged by the interpreter's own reading: whatever toolcage lets execute_code or a
// `python3 -c` run without a writable cage, the real python3 reads as the same pure code.
#include <arpa/inet.h>
#include <signal.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "fixture.h"
#include "hook/decision/python_reader.h"
#include "hook/decision/python_readonly.h"

using namespace toolcage::test;
using toolcage::hook::check_python_read_only;
using toolcage::hook::check_python_text;
using toolcage::hook::judge_python_tokens;
using toolcage::hook::read_with_python;

namespace {

// What the real python3 compiles from these bytes, read as a source file (its coding cookie
// applied) and as the text `python3 -c` gets: the two syntax trees dumped, or the error.
std::string python_reads(const std::string& code) {
    const char* dump =
        "import ast, sys\n"
        "src = sys.stdin.buffer.read()\n"
        "for s in (src, src.decode('utf-8', 'surrogateescape')):\n"
        "    try:\n"
        "        print(ast.dump(compile(s, 'f', 'exec', ast.PyCF_ONLY_AST)))\n"
        "    except Exception as e:\n"
        "        print('error', type(e).__name__)\n";
    RunResult r = run_binary("/usr/bin/python3", {"-I", "-S", "-E", "-c", dump}, code, {});
    REQUIRE(r.exit_code == 0);
    return r.out;
}

bool python_sees_system(const std::string& code) {
    return python_reads(code).find("attr='system'") != std::string::npos;
}

struct Case {
    const char* what;
    std::string code;
};

// Each hides `os.system` from a reader that is not Python's own.
const Case kHidden[] = {
    {"a comment ended by a lone CR", "# comment\rimport os; os.system(\"id\")"},
    {"a CR after code", "print(1)\rimport os; os.system('id')"},
    {"CRLF line ends", "import os\r\nos.system('id')\r\n"},
    {"an emacs utf-7 cookie", "# -*- coding: utf-7 -*-\n# +AAo-import os+ADs- os.system(+ACc-id+ACc-)\n"},
    {"a vim fileencoding cookie", "# vim: set fileencoding=utf_7 :\n# +AAo-import os+ADs- os.system(+ACc-id+ACc-)\n"},
    {"a bare coding= cookie", "#coding=utf7\n# +AAo-import os+ADs- os.system(+ACc-id+ACc-)\n"},
    {"coding inside another word, then a cookie",
     "# encodings; coding: utf_7\n# +AAo-import os+ADs- os.system(+ACc-id+ACc-)\n"},
    {"a cookie on line 2 after a shebang",
     "#!/usr/bin/python3\n# coding: utf-7\n# +AAo-import os+ADs- os.system(+ACc-id+ACc-)\n"},
};

// Python reads each of these otherwise than plain text would suggest, or not at all; none hides
// a call, but toolcage's own reading does not follow it there.
const Case kOdd[] = {
    {"a cookie on line 3 (Python ignores it)", "\n\n# coding: utf-7\n# +AAo-import os+ADs- os.system(+ACc-id+ACc-)\n"},
    {"a BOM and a utf-7 cookie", "\xef\xbb\xbf# coding: utf-7\nprint(1)\n"},
    {"a BOM", "\xef\xbb\xbfprint(1)\n"},
    {"a form feed", "x = 1\f\nprint(x)\n"},
    {"a vertical tab in a comment", "# c\vimport os; os.system('id')\nprint(1)\n"},
    {"U+2028 in a comment", "# c\xe2\x80\xa8import os; os.system('id')\nprint(1)\n"},
    {"a backslash continuation", "x = 1 + \\\n2\nprint(x)\n"},
    {"a backslash at the end of a comment", "# c \\\nprint(1)\n"},
    {"bytes that are not UTF-8", "print('\xff\xfe')\n"},
    {"a NUL byte", std::string("print(1)\0import os", 18)},
    {"a syntax error", "print(1\n"},
};

}  // namespace

TEST_CASE("python reader: pure code is read-only by both readings", "[python]") {
    for (const char* code : {"print(1+1)", "import json; print(json.dumps({}))",
                             "import math\nprint(f'{math.pi:.3f} {[1, 2][0]!r}')\n"}) {
        INFO(code);
        auto r = read_with_python(code);
        INFO(r.why);
        REQUIRE(r.ok);
        CHECK(judge_python_tokens(r.tokens).empty());
        CHECK(check_python_read_only(code).read_only);
    }
    // The interpreter reports the tree's names and attributes as a reader of the source sees them.
    auto r = read_with_python("import json; print(json.dumps({}))");
    REQUIRE(r.ok);
    std::string names;
    for (const auto& t : r.tokens) names += t.text + " ";
    CHECK(names.find("import json ") != std::string::npos);
    CHECK(names.find("json . dumps ") != std::string::npos);
}

TEST_CASE("python reader: code that hides os.system from another reader is never read-only", "[python]") {
    for (const Case& c : kHidden) {
        INFO(c.what);
        // The payload is real: the interpreter reads a call of os.system in it.
        REQUIRE(python_sees_system(c.code));
        CHECK_FALSE(check_python_text(c.code).read_only);
        auto both = check_python_read_only(c.code);
        CHECK_FALSE(both.read_only);
        CHECK_FALSE(both.why.empty());
        // The interpreter's reading alone refuses it too: a syntax error, readings that differ,
        // or os itself.
        auto r = read_with_python(c.code);
        CHECK((!r.ok || !judge_python_tokens(r.tokens).empty()));
    }
}

TEST_CASE("python reader: the interpreter's reading finds what a comment ended by CR hides", "[python]") {
    auto r = read_with_python("# comment\rimport os; os.system(\"id\")");
    REQUIRE(r.ok);
    std::string why = judge_python_tokens(r.tokens);
    CHECK(why.find("import of os") != std::string::npos);
    CHECK(why.find("line 2") != std::string::npos);
}

TEST_CASE("python reader: a coding cookie Python applies makes the readings differ and is refused", "[python]") {
    auto r = read_with_python("# -*- coding: utf-7 -*-\nprint(+ACc-x+ACc-)\n");
    CHECK_FALSE(r.ok);
    CHECK_FALSE(r.why.empty());
}

TEST_CASE("python reader: whatever is read-only, python3 reads as the same pure code", "[python]") {
    std::vector<const Case*> all;
    for (const Case& c : kHidden) all.push_back(&c);
    for (const Case& c : kOdd) all.push_back(&c);
    for (const Case* c : all) {
        INFO(c->what);
        if (check_python_read_only(c->code).read_only) CHECK_FALSE(python_sees_system(c->code));
    }
    // Python ignores a cookie on line 3: the code is the comment it looks like.
    CHECK_FALSE(python_sees_system(kOdd[0].code));
}

TEST_CASE("python reader: a SIGCHLD its starter left ignored does not lose the reader's status", "[python]") {
    auto* before = ::signal(SIGCHLD, SIG_IGN);
    auto r = read_with_python("print(1)");
    ::signal(SIGCHLD, before);
    INFO(r.why);
    CHECK(r.ok);
}

TEST_CASE("python reader: no interpreter, a failing one or an empty report is a refusal", "[python]") {
    auto missing = read_with_python("print(1)", "/nonexistent/python3");
    CHECK_FALSE(missing.ok);
    CHECK(missing.why.find("/nonexistent/python3") != std::string::npos);
    auto silent = read_with_python("print(1)", "/bin/true");
    CHECK_FALSE(silent.ok);
    CHECK(silent.why.find("report") != std::string::npos);
    auto failing = read_with_python("print(1)", "/bin/false");
    CHECK_FALSE(failing.ok);
    auto syntax = read_with_python("print(1\n");
    CHECK_FALSE(syntax.ok);
    CHECK(syntax.why.find("SyntaxError") != std::string::npos);
}

TEST_CASE("hermes: execute_code that python3 reads otherwise is not run bare; pure code is", "[hermes][python]") {
    HookFixture f;
    for (const char* code : {"print(1+1)", "import json; print(json.dumps({}))"}) {
        auto ok = f.hook(hermes_payload("execute_code", {{"code", code}}, f.ws));
        INFO(code << "\n" << ok.err);
        CHECK(ok.exit_code == 0);
        CHECK(ok.out == "{}\n");
    }
    for (const Case& c : kHidden) {
        INFO(c.what);
        auto r = f.hook(hermes_payload("execute_code", {{"code", c.code}}, f.ws));
        CHECK(r.exit_code == 2);
        CHECK(parse_out(r)["action"] == "block");
    }
}

TEST_CASE("hermes: a python3 -c one-liner python3 reads otherwise is caged, not read-only", "[hermes][python]") {
    HookFixture f;
    auto pure = f.hook(hermes_terminal("python3 -c 'print(1+1)'", f.ws));
    INFO(pure.err);
    REQUIRE(pure.exit_code == 0);
    CHECK(parse_out(pure)["args"]["command"].get<std::string>().find("--read-only") != std::string::npos);
    auto hidden = f.hook(hermes_terminal("python3 -c '# comment\rimport os; os.system(\"id\")'", f.ws));
    INFO(hidden.out << hidden.err);
    REQUIRE(hidden.exit_code == 0);
    std::string rw = parse_out(hidden)["args"]["command"];
    CHECK(rw.find(" run ") != std::string::npos);
    CHECK(rw.find("--read-only") == std::string::npos);
}

TEST_CASE("python reader: the reader can neither write nor connect nor see the environment", "[python]") {
    // A stand-in for python3 that tries: a file in the scratch directory, a TCP connection to a
    // listener of the test's, the caller's HOME and descriptors. It reports on stderr, as the
    // checker reports a refusal.
    TempDir dir(TOOLCAGE_HOOK_TEST_DIR);
    const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    REQUIRE(listener >= 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    REQUIRE(::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    REQUIRE(::listen(listener, 4) == 0);
    REQUIRE(::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
    const std::string target = dir / "escaped";
    const std::string fake = dir / "python3";
    write_file(fake, "#!/bin/bash\n"
                     "r=''\n"
                     "if (echo x > '" + target + "') 2>/dev/null; then r+='wrote '; else r+='no-write '; fi\n"
                     "if (exec 3<>/dev/tcp/127.0.0.1/" + std::to_string(ntohs(addr.sin_port)) +
                         ") 2>/dev/null; then r+='connected '; else r+='no-connect '; fi\n"
                     "r+=\"home=${HOME-unset} fds=$(ls /proc/self/fd | tr '\\n' ,)\"\n"
                     "printf '%s' \"$r\" >&2\n"
                     "exit 3\n");
    REQUIRE(::chmod(fake.c_str(), 0755) == 0);
    // Unconfined, the same program writes and connects.
    RunResult free_run = run_binary(fake, {}, "", {{"HOME", "/root"}});
    INFO(free_run.err);
    CHECK(free_run.err.find("wrote connected home=/root") != std::string::npos);
    REQUIRE(::unlink(target.c_str()) == 0);
    // As the reader it does neither.
    auto r = toolcage::hook::read_with_python("print(1)", fake.c_str());
    INFO(r.why);
    CHECK_FALSE(r.ok);
    CHECK(r.why.find("no-write no-connect home=unset fds=0,1,2,3,") != std::string::npos);
    struct stat st {};
    CHECK(::stat(target.c_str(), &st) != 0);
    ::close(listener);
}
