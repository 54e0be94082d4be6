// Word expansion as bash does it, on what is statically known: literals, tilde, variables
// assigned earlier in the command, substitutions whose output we can compute; everything else
// becomes an unknown run (kUnknown) that the rules treat as "could be anything".
#include <algorithm>
#include <array>
#include <cctype>

#include "common/analysis_budget.h"
#include "hook/classify/analyzer.h"
#include "hook/classify/paths.h"
#include "hook/classify/text.h"

namespace toolcage::classify::detail {

namespace {


// Collects fields as parts are appended: quoted text joins the current field, unquoted
// expansion results are split on blanks and may carry pattern characters.
struct FieldBuilder {
    std::vector<Value> fields;
    Value cur;
    bool started = false;
    std::array<bool, 256> ifs_chars{};  // a table: $IFS may be long

    FieldBuilder() { set_ifs(" \t\n"); }
    void set_ifs(std::string_view ifs) {
        ifs_chars.fill(false);
        for (char c : ifs) ifs_chars[static_cast<unsigned char>(c)] = true;
    }
    bool is_ifs(char c) const { return ifs_chars[static_cast<unsigned char>(c)]; }

    void merge_flags(const Value& v) {
        if (v.unknown) {
            cur.guarded = cur.unknown ? (cur.guarded && v.guarded) : v.guarded;
            cur.unknown = true;
        }
        cur.alt_unknown = cur.alt_unknown || v.alt_unknown;
        if (v.taint > cur.taint) cur.taint = v.taint;
        cur.secret = cur.secret || v.secret;
        cur.glob = cur.glob || v.glob;
        if (v.procsub) cur.procsub = v.procsub;
        if (v.writes_to) cur.writes_to = v.writes_to;
    }
    // A field past the bound stops here, before the next part doubles it again.
    void check_size() const {
        if (cur.text.size() > budget::kMaxValueBytes) {
            budget::exceeded("a word's expansion would pass " + std::to_string(budget::kMaxValueBytes) + " bytes");
        }
    }
    void end_field() {
        if (started) fields.push_back(std::move(cur));
        cur = Value();
        started = false;
    }
    void add_literal(std::string_view text, bool glob) {
        cur.text += text;
        if (text.find(kUnknown) != std::string_view::npos) {
            cur.guarded = cur.unknown ? cur.guarded : false;
            cur.unknown = true;
        }
        if (glob) cur.glob = true;
        started = true;
        check_size();
    }
    void add_quoted(const Value& v) {
        cur.text += v.text;
        merge_flags(v);
        started = true;
        check_size();
    }
    void add_unquoted(const Value& v) {
        const std::string& t = v.text;
        if (t.empty()) {
            if (v.unknown || v.alt_unknown) {
                merge_flags(v);
                started = true;
            }
            return;
        }
        // The pieces share v's flags; its text is copied once, not once a piece.
        Value flags = v;
        flags.text.clear();
        size_t i = 0;
        while (i < t.size()) {
            if (is_ifs(t[i])) {
                end_field();
                while (i < t.size() && is_ifs(t[i])) ++i;
                continue;
            }
            size_t b = i;
            while (i < t.size() && !is_ifs(t[i])) ++i;
            std::string_view piece(t.data() + b, i - b);
            Value pv = flags;
            pv.unknown = piece.find(kUnknown) != std::string_view::npos;
            pv.glob = v.glob || has_glob_chars(piece);
            cur.text += piece;
            merge_flags(pv);
            cur.expanded = true;
            if (pv.unknown) cur.splits = true;
            started = true;
            check_size();
        }
    }
};

// Strips trailing newlines, as command substitution does.
std::string strip_newlines(std::string s) {
    while (!s.empty() && s.back() == '\n') s.pop_back();
    return s;
}

// Removes a prefix (front) or suffix matching pattern, shortest or longest. Each length is
// tried, and a match with several '*' backtracks: the subject is kept small.
std::string remove_pattern(const std::string& s, const std::string& pat, bool front, bool longest) {
    if (s.size() > budget::kMaxPatternSubject) {
        budget::exceeded("a pattern removal (${x#…}, ${x%…}) on a value of more than " +
                         std::to_string(budget::kMaxPatternSubject) + " bytes");
    }
    if (front) {
        if (longest) {
            for (size_t n = s.size() + 1; n-- > 0;) {
                if (glob_match(pat, s.substr(0, n))) return s.substr(n);
            }
        } else {
            for (size_t n = 0; n <= s.size(); ++n) {
                if (glob_match(pat, s.substr(0, n))) return s.substr(n);
            }
        }
    } else {
        if (longest) {
            for (size_t n = 0; n <= s.size(); ++n) {
                if (glob_match(pat, s.substr(n))) return s.substr(0, n);
            }
        } else {
            for (size_t n = s.size() + 1; n-- > 0;) {
                if (glob_match(pat, s.substr(n))) return s.substr(0, n);
            }
        }
    }
    return s;
}

// Quote removal on operator text that holds no expansions.
std::optional<std::string> plain_operand(std::string_view t) {
    std::string out;
    for (size_t i = 0; i < t.size(); ++i) {
        char c = t[i];
        if (c == '$' || c == '`') return std::nullopt;
        if (c == '\'' || c == '"') continue;
        if (c == '\\' && i + 1 < t.size()) {
            out += t[++i];
            continue;
        }
        out += c;
    }
    return out;
}

}  // namespace

Value Analyzer::lookup(std::string_view name, const Scope& scope) const {
    // A nameref reads the variable it names (bash follows a chain of them).
    for (int hops = 0; hops < 8; ++hops) {
        auto ref = scope.namerefs.find(name);
        if (ref == scope.namerefs.end()) break;
        name = ref->second;
    }
    auto it = scope.vars.find(name);
    if (it != scope.vars.end()) return it->second;
    if (name == "HOME") return Value::literal(ctx().home);
    if (name == "PWD") return scope.cwd_known ? Value::literal(scope.cwd) : Value::unknown_value(scope.cwd_guarded);
    if (name == "TMPDIR") return Value::literal(ctx().tmp);
    if (name == "IFS") return Value::literal(" \t\n");
    if (!name.empty() && std::isdigit(static_cast<unsigned char>(name[0]))) {
        if (name == "0") return scope.arg0 ? *scope.arg0 : Value::literal("bash");
        if (!scope.positional_known) return Value::unknown_value(scope.positional_guarded);
        size_t n = 0;
        for (char c : name) n = n * 10 + static_cast<size_t>(c - '0');
        if (n == 0) return scope.arg0 ? *scope.arg0 : Value::literal("bash");
        return n <= scope.positional.size() ? scope.positional[n - 1] : Value::literal("");
    }
    if (name == "#" && scope.positional_known) return Value::literal(std::to_string(scope.positional.size()));
    if (name == "@" || name == "*") return Value::unknown_value(scope.positional_guarded);
    auto arr = scope.arrays.find(name);
    if (arr != scope.arrays.end()) return arr->second.empty() ? Value::literal("") : arr->second[0];
    return Value::unknown_value();
}

void Analyzer::assign(Scope& scope, const std::string& given, Value v) const {
    std::string name = given;
    for (int hops = 0; hops < 8; ++hops) {
        auto ref = scope.namerefs.find(name);
        if (ref == scope.namerefs.end()) break;
        name = ref->second;  // assigning through a nameref sets the variable it names
    }
    if (name == "PATH") {
        // A PATH of system directories only keeps program names meaning what they mean.
        bool trusted = v.known();
        if (trusted) {
            size_t i = 0;
            const std::string& t = v.text;
            while (i <= t.size()) {
                size_t e = t.find(':', i);
                if (e == std::string::npos) e = t.size();
                std::string dir = t.substr(i, e - i);
                bool system = dir == "/bin" || dir == "/usr/bin" || dir == "/sbin" || dir == "/usr/sbin" ||
                              dir == "/usr/local/bin" || dir == "/usr/local/sbin";
                if (!system) trusted = false;
                i = e + 1;
            }
        }
        scope.path_untrusted = !trusted;
    }
    // Each value is checked where it is made; this catches the ones made elsewhere.
    if (v.text.size() > budget::kMaxValueBytes) {
        budget::exceeded("the value of " + name + " would pass " + std::to_string(budget::kMaxValueBytes) +
                         " bytes");
    }
    scope.vars.insert_or_assign(name, std::move(v));
}

Stream Analyzer::capture(const shell::Script& s, Scope& scope) {
    Scope copy = copy_scope(scope);
    Stream out = walk_script(s, copy, Stream());
    // Files written inside $( … ) stay written.
    scope.tainted_files = copy.tainted_files;
    scope.links = copy.links;
    scope.file_texts = copy.file_texts;
    return out;
}

Value Analyzer::part_value(const shell::WordPart& p, Scope& scope) {
    using shell::PartKind;
    switch (p.kind) {
        case PartKind::literal: return Value::literal(p.text);
        case PartKind::glob: {
            Value v = Value::literal(p.text);
            v.glob = true;
            return v;
        }
        case PartKind::tilde: {
            if (p.text.empty()) return lookup("HOME", scope);
            if (p.text == "root") return Value::literal("/root");
            if (p.text == "+") return lookup("PWD", scope);
            if (p.text == "-") return Value::unknown_value(true);
            return Value::literal("/home/" + p.text);
        }
        case PartKind::command_sub: {
            Stream out;
            for (const shell::Script& s : p.subs) out = capture(s, scope);
            if (out.kind == Stream::Kind::literal) {
                Value v = Value::literal(strip_newlines(out.text));
                v.taint = std::max(out.taint, Taint::computed);
                v.secret = out.secret;
                return v;
            }
            if (out.kind == Stream::Kind::paths && out.paths.size() == 1) return out.paths[0];
            Value v = Value::unknown_value(false, out.taint);
            v.secret = out.secret;
            return v;
        }
        case PartKind::arithmetic: {
            for (const shell::Script& s : p.subs) capture(s, scope);
            check_arithmetic(p.text, scope);
            return Value::unknown_value(true, Taint::computed);
        }
        case PartKind::process_sub: {
            Stream out;
            for (const shell::Script& s : p.subs) out = capture(s, scope);
            Value v = Value::literal("/dev/fd/63");
            if (p.text == "<") v.procsub = std::make_shared<Stream>(std::move(out));
            if (p.text == ">") v.writes_to = &p.subs;
            return v;
        }
        case PartKind::parameter: break;
    }

    // ---- ${name op}
    for (const shell::Script& s : p.subs) capture(s, scope);
    std::string_view name = p.text;
    const std::string& op = p.op;
    if (name.size() > 1 && name[0] == '#') {
        Value v = lookup(name.substr(1), scope);
        return v.known() ? Value::literal(std::to_string(v.text.size())) : Value::unknown_value(true);
    }
    if (size_t br = name.find('['); br != std::string_view::npos && op.empty()) {
        auto arr = scope.arrays.find(name.substr(0, br));
        std::string_view index = name.substr(br + 1, name.size() - br - 2);
        if (arr != scope.arrays.end() && !index.empty() &&
            std::all_of(index.begin(), index.end(), [](char ch) { return ch >= '0' && ch <= '9'; })) {
            size_t n = std::stoul(std::string(index));
            return n < arr->second.size() ? arr->second[n] : Value::literal("");
        }
        return Value::unknown_value();
    }
    if (name.empty() || name[0] == '!' || name.find('[') != std::string_view::npos) {
        return Value::unknown_value();
    }
    Value v = lookup(name, scope);
    if (op.empty()) return v;
    bool colon = op[0] == ':';
    std::string_view rest = colon ? std::string_view(op).substr(1) : std::string_view(op);
    if (rest.empty()) return Value::unknown_value();
    char c = rest[0];
    auto operand_value = [&](std::string_view text) -> Value {
        if (auto plain = plain_operand(text)) {
            std::string t = *plain;
            if (!t.empty() && t[0] == '~' && (t.size() == 1 || t[1] == '/')) {
                Value home = lookup("HOME", scope);
                if (!home.known()) return Value::unknown_value();
                t = home.text + t.substr(1);
            }
            return Value::literal(t);
        }
        // Expansions inside the operand: expand it as a word of its own (parsed each time
        // it is met, as in a function called again and again: counted).
        spend_parse(text.size());
        shell::ParseResult r = shell::parse(": " + std::string(text));
        if (!r.ok || r.script.items.empty() || r.script.items[0].and_or.pipelines.empty()) {
            return Value::unknown_value();
        }
        const shell::Command& cmd = r.script.items[0].and_or.pipelines[0].commands[0];
        if (cmd.words.size() != 2) return Value::unknown_value();
        return expand_single(cmd.words[1], scope);
    };
    switch (c) {
        case '?':
            if (v.known()) return v;
            return Value::unknown_value(true, v.taint);
        case '-':
        case '=': {
            if (v.known() && !(colon && v.text.empty())) return v;
            Value d = operand_value(rest.substr(1));
            if (!v.known()) {
                // Set or not is decided at run time: either the value or the default.
                if (d.known() && !d.text.empty()) {
                    d.alt_unknown = true;
                } else {
                    d = Value::unknown_value(!d.text.empty());
                }
            }
            if (c == '=') assign(scope, std::string(name), d);
            return d;
        }
        case '+': {
            if (!v.known()) return Value::unknown_value();
            if (v.text.empty() && colon) return Value::literal("");
            return operand_value(rest.substr(1));
        }
        case '#':
        case '%': {
            bool longest = rest.size() > 1 && rest[1] == c;
            auto pat = plain_operand(rest.substr(longest ? 2 : 1));
            if (!v.known() || !pat) return Value::unknown_value();
            return Value::literal(remove_pattern(v.text, *pat, c == '#', longest));
        }
        case '/': {
            bool all = rest.size() > 1 && rest[1] == '/';
            std::string_view body = rest.substr(all ? 2 : 1);
            size_t slash = body.find('/');
            auto pat = plain_operand(body.substr(0, slash));
            auto rep = slash == std::string_view::npos ? std::optional<std::string>("")
                                                        : plain_operand(body.substr(slash + 1));
            if (!v.known() || !pat || !rep || pat->empty() || has_glob_chars(*pat)) return Value::unknown_value();
            // Built left to right, its size checked as it grows: ${x//a/$long} multiplies.
            std::string out;
            size_t from = 0;
            size_t pos = 0;
            while ((pos = v.text.find(*pat, from)) != std::string::npos) {
                out.append(v.text, from, pos - from);
                out += *rep;
                from = pos + pat->size();
                if (out.size() > budget::kMaxValueBytes) break;
                if (!all) break;
            }
            out.append(v.text, from, std::string::npos);
            spend_value(out, "a replacement's result (${x//a/b})");
            return Value::literal(out);
        }
        case '^':
        case ',': {
            if (!v.known()) return Value::unknown_value();
            std::string out = v.text;
            bool upper = c == '^';
            bool all = rest.size() > 1 && rest[1] == c;
            for (size_t i = 0; i < out.size() && (all || i == 0); ++i) {
                out[i] = static_cast<char>(upper ? std::toupper(static_cast<unsigned char>(out[i]))
                                                 : std::tolower(static_cast<unsigned char>(out[i])));
            }
            return Value::literal(out);
        }
        default: break;
    }
    if (colon && v.known()) {
        // ${x:offset} / ${x:offset:length}
        std::string_view spec = rest;
        size_t colon2 = spec.find(':');
        auto num = [](std::string_view s, long& out) {
            std::string t(s);
            char* end = nullptr;
            out = std::strtol(t.c_str(), &end, 10);
            return end && *end == '\0' && !t.empty();
        };
        long off = 0, len = -1;
        std::string_view a = spec.substr(0, colon2);
        while (!a.empty() && a[0] == ' ') a.remove_prefix(1);
        if (num(a, off) && (colon2 == std::string_view::npos || num(spec.substr(colon2 + 1), len))) {
            long size = static_cast<long>(v.text.size());
            if (off < 0) off = std::max(0L, size + off);
            if (off > size) off = size;
            long n = len < 0 ? size - off : std::min(len, size - off);
            return Value::literal(v.text.substr(static_cast<size_t>(off), static_cast<size_t>(n)));
        }
    }
    return Value::unknown_value();
}

std::vector<Value> Analyzer::expand_word(const shell::Word& w, Scope& scope) {
    using shell::PartKind;
    FieldBuilder b;
    if (auto it = scope.vars.find("IFS"); it != scope.vars.end() && it->second.known()) b.set_ifs(it->second.text);
    for (const shell::WordPart& p : w.parts) {
        switch (p.kind) {
            case PartKind::literal:
                b.add_literal(p.text, false);
                break;
            case PartKind::glob:
                b.add_literal(p.text, true);
                break;
            case PartKind::tilde:
                b.add_quoted(part_value(p, scope));
                break;
            case PartKind::parameter: {
                // Lists: "$@", "${arr[@]}" give one field per element.
                const std::vector<Value>* list = nullptr;
                bool list_known = true;
                if ((p.text == "@" || p.text == "*") && p.op.empty()) {
                    list = &scope.positional;
                    list_known = scope.positional_known;
                } else if (p.op.empty() && p.text.size() > 3 &&
                           (p.text.compare(p.text.size() - 3, 3, "[@]") == 0 || p.text.compare(p.text.size() - 3, 3, "[*]") == 0)) {
                    auto arr = scope.arrays.find(std::string_view(p.text).substr(0, p.text.size() - 3));
                    if (arr != scope.arrays.end()) {
                        list = &arr->second;
                    } else {
                        list_known = false;
                    }
                }
                if (list || !list_known) {
                    if (!list_known) {
                        b.add_quoted(Value::unknown_value(p.text == "@" || p.text == "*" ? scope.positional_guarded : false));
                        break;
                    }
                    for (size_t i = 0; i < list->size(); ++i) {
                        if (i > 0) b.end_field();
                        if (p.quoted) {
                            b.add_quoted((*list)[i]);
                        } else {
                            b.add_unquoted((*list)[i]);
                        }
                    }
                    break;
                }
            }
                [[fallthrough]];
            case PartKind::command_sub:
            case PartKind::arithmetic:
            case PartKind::process_sub: {
                Value v = part_value(p, scope);
                if (p.quoted || p.kind == PartKind::process_sub) {
                    b.add_quoted(v);
                } else {
                    b.add_unquoted(v);
                }
                break;
            }
        }
    }
    b.end_field();
    for (const Value& f : b.fields) spend_value(f.text, "a word's expansion (x=$x$x, a long output)");
    return std::move(b.fields);
}

Value Analyzer::expand_single(const shell::Word& w, Scope& scope) {
    using shell::PartKind;
    FieldBuilder b;
    for (const shell::WordPart& p : w.parts) {
        if (p.kind == PartKind::literal) {
            b.add_literal(p.text, false);
        } else if (p.kind == PartKind::glob) {
            b.add_literal(p.text, true);
        } else {
            b.add_quoted(part_value(p, scope));
        }
    }
    b.started = true;
    b.end_field();
    spend_value(b.fields[0].text, "a word's expansion (x=$x$x, a long output)");
    return std::move(b.fields[0]);
}

std::vector<Value> Analyzer::expand_words(const std::vector<shell::Word>& ws, Scope& scope) {
    std::vector<Value> out;
    out.reserve(ws.size());
    for (const shell::Word& w : ws) {
        std::vector<Value> f = expand_word(w, scope);
        for (Value& v : f) out.push_back(std::move(v));
    }
    return out;
}

void Analyzer::check_arithmetic(std::string_view expr, Scope& scope) {
    if (scope.vars.empty()) return;
    size_t i = 0;
    while (i < expr.size()) {
        char c = expr[i];
        if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
            size_t b = i;
            while (i < expr.size() && (std::isalnum(static_cast<unsigned char>(expr[i])) || expr[i] == '_')) ++i;
            auto it = scope.vars.find(expr.substr(b, i - b));
            if (it != scope.vars.end() && it->second.known() &&
                (contains(it->second.text, "$(") || contains(it->second.text, "`"))) {
                // a[$x] in arithmetic expands x's value again: a command inside it runs.
                Value code = it->second;
                std::string inner = code.text;
                size_t open = inner.find('[');
                size_t close = inner.rfind(']');
                if (open != std::string::npos && close != std::string::npos && close > open) {
                    code.text = "echo " + inner.substr(open + 1, close - open - 1);
                } else {
                    code.text = "echo " + inner;
                }
                run_string(code, scope, true, Stream(), "an arithmetic expansion");
            }
            continue;
        }
        ++i;
    }
}

}  // namespace toolcage::classify::detail
