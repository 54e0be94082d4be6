// Code that arrives on a pipe: a shell or an interpreter reading its program from stdin is
// judged by where the data came from. Data fetched from the network or decoded from base64 is
// refused outright (curl | sh, base64 -d | bash); known text is parsed and judged as code.
#include "hook/classify/analyzer.h"
#include "hook/classify/text.h"

namespace toolcage::classify::detail {

void Analyzer::shell_reads(const Stream& in, Scope& scope, std::string_view shell, Call&) {
    std::string who = "`" + std::string(shell) + "`";
    if (in.taint == Taint::remote) {
        hit(Decision::deny, "pipe.remote-to-shell", who + " runs a script fetched from the network");
        return;
    }
    if (in.taint == Taint::decoded || in.taint == Taint::filtered) {
        hit(Decision::deny, "pipe.decoded-to-shell",
            who + (in.taint == Taint::decoded ? " runs a decoded (obfuscated) script"
                                              : " runs a script put together by a filter (rev, tr, sed, zcat, …): a decoder"));
        return;
    }
    switch (in.kind) {
        case Stream::Kind::literal: {
            Scope copy = copy_scope(scope);
            copy.functions.clear();
            run_string(Value::literal(in.text), copy, true, Stream(), who + " reading its script from stdin");
            break;
        }
        case Stream::Kind::none:
            hit(Decision::cage, "shell.interactive", who + " starts an interactive shell");
            break;
        case Stream::Kind::unknown:
        case Stream::Kind::paths:
            hit(Decision::cage, "shell.stdin", who + " runs a script read from stdin whose content is not known");
            break;
    }
}


void Analyzer::interpreter_reads(std::string_view lang, const Stream& in, Call& call) {
    std::string who = "`" + call.via + call.name + "`";
    if (in.taint == Taint::remote) {
        hit(Decision::deny, "pipe.remote-to-shell", who + " runs a program fetched from the network");
        return;
    }
    if (in.taint == Taint::decoded || in.taint == Taint::filtered) {
        hit(Decision::deny, "pipe.decoded-to-shell", who + " runs a program decoded or put together by a filter");
        return;
    }
    switch (in.kind) {
        case Stream::Kind::literal:
            interpreter_code(lang, Value::literal(in.text), call);
            break;
        case Stream::Kind::none:
            hit(Decision::cage, "interp.interactive", who + " starts an interactive interpreter");
            break;
        case Stream::Kind::unknown:
        case Stream::Kind::paths:
            hit(Decision::cage, "interp.stdin", who + " runs a program read from stdin whose content is not known");
            break;
    }
}

}  // namespace toolcage::classify::detail
