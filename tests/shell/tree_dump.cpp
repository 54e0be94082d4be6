#include "tests/shell/tree_dump.h"

namespace toolcage::shell::testing {

namespace {

std::string dump_subs(const std::vector<Script>& subs) {
    std::string out;
    for (const Script& s : subs) out += " <" + dump(s) + ">";
    return out;
}

const char* kind_name(Command::Kind k) {
    switch (k) {
        case Command::Kind::simple:
            return "simple";
        case Command::Kind::subshell:
            return "subshell";
        case Command::Kind::group:
            return "group";
        case Command::Kind::if_clause:
            return "if";
        case Command::Kind::while_loop:
            return "while";
        case Command::Kind::until_loop:
            return "until";
        case Command::Kind::for_loop:
            return "for";
        case Command::Kind::arith_for:
            return "arith_for";
        case Command::Kind::select_loop:
            return "select";
        case Command::Kind::case_clause:
            return "case";
        case Command::Kind::arith_command:
            return "arith";
        case Command::Kind::cond_command:
            return "cond";
        case Command::Kind::function_def:
            return "function";
        case Command::Kind::coproc:
            return "coproc";
    }
    return "?";
}

std::string dump_command(const Command& c) {
    std::string out;
    auto add = [&out](const std::string& s) {
        if (!out.empty() && out.back() != '(') out += ' ';
        out += s;
    };
    if (c.kind != Command::Kind::simple) {
        out = kind_name(c.kind);
        if (!c.name.empty()) out += " " + c.name;
        out += "(";
    }
    for (const Assignment& a : c.assignments) {
        std::string s = a.name + (a.append ? "+=" : "=");
        if (a.array) {
            s += "(";
            for (size_t i = 0; i < a.items.size(); ++i) s += (i ? " " : "") + dump(a.items[i]);
            s += ")";
        } else {
            s += dump(a.value);
        }
        s += dump_subs(a.subscript_subs);
        add(s);
    }
    for (size_t i = 0; i < c.patterns.size(); ++i) {
        std::string s;
        for (const Word& w : c.patterns[i]) s += (s.empty() ? "" : "|") + dump(w);
        add(s + ") " + dump(c.bodies[i]) + " ;;");
    }
    if (c.kind != Command::Kind::case_clause) {
        for (const Word& w : c.words) add(dump(w));
        for (size_t i = 0; i < c.bodies.size(); ++i) add((i ? "| " : "") + dump(c.bodies[i]));
    } else {
        for (const Word& w : c.words) add("subject " + dump(w));
    }
    for (const Redirect& r : c.redirects) {
        std::string s = (r.fd >= 0 ? std::to_string(r.fd) : "") +
                        (r.fd_var.empty() ? "" : "{" + r.fd_var + "}") + r.op + dump(r.target);
        if (r.op == "<<" || r.op == "<<-") {
            s += (r.heredoc_quoted ? "q{" : "{") + r.heredoc_body + "}" + dump_subs(r.heredoc_subs);
        }
        add(s);
    }
    if (c.kind != Command::Kind::simple) out += ")";
    return out;
}

}  // namespace

std::string dump(const Word& w) {
    std::string out = "[";
    for (const WordPart& p : w.parts) {
        switch (p.kind) {
            case PartKind::literal:
                out += p.quoted ? "'" + p.text + "'" : p.text;
                break;
            case PartKind::tilde:
                out += "{~" + p.text + "}";
                break;
            case PartKind::parameter:
                out += "{$" + p.text + (p.op.empty() ? "" : " " + p.op) + dump_subs(p.subs) + "}";
                break;
            case PartKind::command_sub:
                out += "{$(" + (p.subs.empty() ? std::string() : dump(p.subs[0])) + ")}";
                break;
            case PartKind::arithmetic:
                out += "{$((" + p.text + "))" + dump_subs(p.subs) + "}";
                break;
            case PartKind::process_sub:
                out +=
                    "{" + p.text + "(" + (p.subs.empty() ? std::string() : dump(p.subs[0])) + ")}";
                break;
            case PartKind::glob:
                out += "{glob " + p.text + "}";
                break;
        }
    }
    return out + "]";
}

std::string dump(const Script& s) {
    std::string out;
    for (size_t i = 0; i < s.items.size(); ++i) {
        const ListItem& item = s.items[i];
        if (i > 0) out += " ; ";
        const AndOr& ao = item.and_or;
        for (size_t j = 0; j < ao.pipelines.size(); ++j) {
            if (j > 0) out += " " + ao.ops[j - 1] + " ";
            const Pipeline& p = ao.pipelines[j];
            if (p.timed) out += "time ";
            if (p.negated) out += "! ";
            for (size_t k = 0; k < p.commands.size(); ++k) {
                if (k > 0) out += p.stderr_piped[k - 1] ? " |& " : " | ";
                out += dump_command(p.commands[k]);
            }
        }
        if (item.background) out += " &";
    }
    return out;
}

}  // namespace toolcage::shell::testing
