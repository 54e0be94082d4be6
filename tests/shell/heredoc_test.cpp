// Heredocs: bodies end at the delimiter line, parsing continues after them, unquoted bodies
// have their substitutions parsed, quoted ones are inert.
#include "tests/shell/test_util.h"

using namespace toolcage::shell;
using namespace toolcage::shell::testing;

TEST_CASE("heredoc bodies and what follows them", "[shell][heredoc]") {
    const Row rows[] = {
        {"cat <<EOF\nhello $(id)\nEOF", "[cat] <<[EOF]{hello $(id)\n} <[id]>"},
        {"cat <<'EOF'\nrm -rf / $(id)\nEOF", "[cat] <<['EOF']q{rm -rf / $(id)\n}"},
        {"cat <<\"EOF\"\n$(id)\nEOF", "[cat] <<['EOF']q{$(id)\n}"},
        {"cat <<\\EOF\n$(id)\nEOF", "[cat] <<['EOF']q{$(id)\n}"},
        {"cat <<E\"O\"F\nx\nEOF", "[cat] <<['EOF']q{x\n}"},
        {"python3 << \"EOF SPACE\"\nimport os\nEOF SPACE\nrm -rf ~",
         "[python3] <<['EOF SPACE']q{import os\n} ; [rm] [-rf] [{~}]"},
        {"cat <<-EOF\n\t\tindented\n\tEOF\necho after",
         "[cat] <<-[EOF]{indented\n} ; [echo] [after]"},
        {"cat <<EOF\n\tEOF\nEOF", "[cat] <<[EOF]{\tEOF\n}"},
        {"cat <<A <<'B'; echo next\na $(x)\nA\nb $(y)\nB\necho last",
         "[cat] <<[A]{a $(x)\n} <[x]> <<['B']q{b $(y)\n} ; [echo] [next] ; [echo] [last]"},
        {"cat <<A; cat <<B\na\nA\nb\nB", "[cat] <<[A]{a\n} ; [cat] <<[B]{b\n}"},
        {"cat <<EOF | sh\nrm -rf ~\nEOF\necho done",
         "[cat] <<[EOF]{rm -rf ~\n} | [sh] ; [echo] [done]"},
        {"cat <<EOF && rm x\nbody\nEOF", "[cat] <<[EOF]{body\n} && [rm] [x]"},
        {"cat <<EOF &&\nbody\nEOF\nrm x", "[cat] <<[EOF]{body\n} && [rm] [x]"},
        {"cat <<EOF\nno end", "[cat] <<[EOF]{no end}"},
        {"cat <<EOF", "[cat] <<[EOF]{}"},
        {"cat <<EOF\na\\\nb\nEO\\\nF\necho z", "[cat] <<[EOF]{ab\n} ; [echo] [z]"},
        {"cat <<'EOF'\na\\\nEOF\nEOF", "[cat] <<['EOF']q{a\\\n} ; [EOF]"},
        {"cat <<EOF\n`id` ${x:-$(a)} $((1+$(b)))\nEOF",
         "[cat] <<[EOF]{`id` ${x:-$(a)} $((1+$(b)))\n} <[id]> <[a]> <[b]>"},
        {"cat <<EOF\n\\$(id) \\`x\\`\nEOF", "[cat] <<[EOF]{\\$(id) \\`x\\`\n}"},
        {"cat <<EOF\n\"$(id)\"\nEOF", "[cat] <<[EOF]{\"$(id)\"\n} <[id]>"},
        {"echo $(cat <<EOF\ninner\nEOF\n)", "[echo] [{$([cat] <<[EOF]{inner\n})}]"},
        {"cat <<EOF; echo $(\necho hi)\nbody\nEOF\necho end",
         "[cat] <<[EOF]{body\n} ; [echo] [{$([echo] [hi])}] ; [echo] [end]"},
        {"echo $(cat <<EOF)\nhello\nEOF\necho after",
         "[echo] [{$([cat] <<[EOF]{hello\n})}] ; [echo] [after]"},
        {"cat <<EOF\n$(cat <<X\ninner\nX\n)\nEOF",
         "[cat] <<[EOF]{$(cat <<X\ninner\nX\n)\n} <[cat] <<[X]{inner\n}>"},
        {"if true; then cat <<EOF\nx\nEOF\nfi", "if([true] | [cat] <<[EOF]{x\n})"},
        {"echo {a,b}$(cat <<EOF\n$(id)\nEOF\n)",
         "[echo] [a{$([cat] <<[EOF]{$(id)\n} <[id]>)}] [b{$([cat] <<[EOF]{$(id)\n} <[id]>)}]"},
        {"echo {a,b}$(cat <<EOF)\nx\nEOF",
         "[echo] [a{$([cat] <<[EOF]{x\n})}] [b{$([cat] <<[EOF]{x\n})}]"},
    };
    for (const Row& row : rows) {
        INFO("source: " << row.source);
        CHECK(tree(row.source) == row.expected);
    }
}

TEST_CASE("heredoc redirect fields", "[shell][heredoc]") {
    ParseResult r = parse("cat 3<<-'END'\n\tbody\nEND\n");
    REQUIRE(r.ok);
    const Redirect& rd = r.script.items[0].and_or.pipelines[0].commands[0].redirects.at(0);
    CHECK(rd.fd == 3);
    CHECK(rd.op == "<<-");
    CHECK(rd.heredoc_quoted);
    CHECK(rd.heredoc_body == "body\n");
    CHECK(rd.target.literal() == "END");
    CHECK(rd.target.raw == "'END'");
    CHECK(rd.heredoc_subs.empty());
}
