// The cage rewrite hands bash exactly the command the agent wrote, whatever it holds.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "hook/classify/text.h"
#include "hook/decision/rewrite.h"
#include "hook/shell/ast.h"
#include "run_binary.h"
#include "tests/corpus_file.h"

using namespace toolcage;
using toolcage::test::TempDir;

namespace {

// The project's corpus, and the team's shared one when it is there beside the project.
std::vector<std::string> corpus_commands() {
    std::vector<std::string> out;
    for (const auto& path : {toolcage::test::kProjectCorpus, toolcage::test::kSharedCorpus})
        for (const auto& row : toolcage::test::read_corpus(path)) out.push_back(row.command);
    return out;
}

const std::vector<std::string> kOwnCases = {
    "",
    "'",
    "''",
    "'\\''",
    "it's",
    "echo 'a'\\''b'",
    "printf '%s\\n' \"$HOME\" $'\\x41\\'' `date`",
    "a\nb\n\n",
    "trailing backslash \\",
    "tab\there",
    "!! !$ !-1",
    "$(rm -rf ~) ${x:-$(id)}",
    "cat <<'EOF'\n'quoted' \"heredoc\"\nEOF",
    "ünïcødé ☃ 日本",
    "\x01\x7f bytes",
    std::string(5000, '\''),
    "toolcage run --policy weak -- sh -c 'echo hi'",
};

// The rewrite as bash would read it: the words of its only command.
std::vector<std::string> words_of(const std::string& rewrite) {
    shell::ParseLimits limits;
    limits.max_bytes = 1 << 20;
    auto r = shell::parse(rewrite, limits);
    INFO(rewrite);
    REQUIRE(r.ok);
    REQUIRE(r.script.items.size() == 1);
    const auto& pipes = r.script.items[0].and_or.pipelines;
    REQUIRE(pipes.size() == 1);
    REQUIRE(pipes[0].commands.size() == 1);
    const auto& c = pipes[0].commands[0];
    REQUIRE(c.kind == shell::Command::Kind::simple);
    REQUIRE(c.redirects.empty());
    REQUIRE(c.assignments.empty());
    std::vector<std::string> out;
    for (const auto& w : c.words) {
        REQUIRE(w.known());
        out.push_back(w.literal());
    }
    return out;
}

void check_round_trip(const std::string& cmd) {
    const std::string bin = "/opt/tool cage's/bin/toolcage";
    const std::string dir = "/home/u/it's a \"dir\"";
    std::string rw = hook::cage_rewrite(bin, "forge", "0123456789abcdef", dir, cmd);
    auto w = words_of(rw);
    REQUIRE(w.size() == 12);
    CHECK(w[0] == bin);
    CHECK(w[1] == "run");
    CHECK(w[2] == "--policy");
    CHECK(w[3] == "forge");
    CHECK(w[4] == "--step-id");
    CHECK(w[5] == "0123456789abcdef");
    CHECK(w[6] == "--workdir");
    CHECK(w[7] == dir);
    CHECK(w[8] == "--");
    CHECK(w[9] == "/bin/bash");
    CHECK(w[10] == "-c");
    CHECK(w[11] == cmd);
}

}  // namespace

TEST_CASE("shell_quote wraps in single quotes and escapes embedded ones", "[rewrite]") {
    CHECK(classify::detail::single_quoted("") == "''");
    CHECK(classify::detail::single_quoted("abc") == "'abc'");
    CHECK(classify::detail::single_quoted("it's") == "'it'\\''s'");
}

TEST_CASE("the rewrite of every corpus command parses back to the original as the last argument",
          "[rewrite]") {
    auto cmds = corpus_commands();
    REQUIRE(cmds.size() > 100);
    for (const auto& c : cmds) check_round_trip(c);
}

TEST_CASE("the rewrite of awkward commands parses back to the original", "[rewrite]") {
    for (const auto& c : kOwnCases) check_round_trip(c);
}

TEST_CASE("bash itself hands the rewritten command through byte for byte", "[rewrite]") {
    TempDir dir;
    // Stands in for toolcage: prints its last argument, exactly.
    std::string fake = dir / "toolcage";
    toolcage::test::write_file(fake, "#!/bin/bash\nprintf '%s' \"${@: -1}\"\n");
    chmod(fake.c_str(), 0755);
    auto cmds = corpus_commands();
    cmds.insert(cmds.end(), kOwnCases.begin(), kOwnCases.end());
    for (const auto& c : cmds) {
        if (c.size() > 4000) continue;
        std::string rw = hook::cage_rewrite(fake, "default", "0123456789abcdef", dir.path(), c);
        auto r = toolcage::test::run_binary("/bin/bash", {"-c", rw}, "", {{"PATH", "/usr/bin:/bin"}});
        INFO(c);
        CHECK(r.exit_code == 0);
        CHECK(r.out == c);
    }
}
