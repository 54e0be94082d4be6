// Every command of the project's corpus parses (tests/data/commands.tsv), and of the team's
// shared corpus when it is there beside the project.
#include <catch2/catch.hpp>

#include "hook/shell/ast.h"
#include "tests/corpus_file.h"

using toolcage::test::kProjectCorpus;
using toolcage::test::kSharedCorpus;
using toolcage::test::read_corpus;

namespace {

void check_parses(const std::string& path, std::size_t min_rows) {
    bool found = false;
    auto rows = read_corpus(path, &found);
    INFO("corpus: " << path);
    REQUIRE(found);
    for (const auto& row : rows) {
        auto r = toolcage::shell::parse(row.command);
        INFO("command: " << row.command << "\nerror: " << r.error);
        CHECK(r.ok);
        CHECK_FALSE(r.script.items.empty());
    }
    CHECK(rows.size() > min_rows);
}

}  // namespace

TEST_CASE("every command in the project's corpus parses", "[shell][corpus]") {
    check_parses(kProjectCorpus, 150);
}

TEST_CASE("every command in the shared corpus parses, when it is there", "[shell][corpus][shared]") {
    bool found = false;
    read_corpus(kSharedCorpus, &found);
    if (!found) {
        WARN("skipped: ../shared/data/commands.tsv not present (" << kSharedCorpus << ")");
        return;
    }
    check_parses(kSharedCorpus, 100);
}
