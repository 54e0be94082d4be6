// Interpreter code (python -c, node -e, perl -e, ruby -e, php -r, heredoc programs): a small
// tokenizer per language finds calls to sinks that run shell commands or delete, write or read
// files. A sink's argument is evaluated from literals, simple variables assigned in the code and
// home-directory idioms (os.path.expanduser('~'), process.env.HOME, $ENV{HOME}); the command or
// path it yields is judged by the same rules as shell. An argument that cannot be evaluated is
// refused only when the code also holds a destructive command string or a protected path.
#include <algorithm>
#include <cctype>
#include <cstring>

#include "common/analysis_budget.h"
#include "hook/classify/analyzer.h"
#include "hook/classify/text.h"

namespace toolcage::classify::detail {

namespace {

enum class Tok { ident, str, cmd, punct, number };

struct Token {
    Tok kind;
    std::string text;
    int line = 0;
};

struct Lang {
    bool hash_comments = false;
    bool slash_comments = false;
    bool dash_comments = false;  // lua --
    bool backtick_cmd = false;   // perl, ruby, php
    bool backtick_template = false;  // js
    bool sigils = false;             // $x @x (perl, php)
    bool python_prefixes = false;
    bool perl_quotes = false;        // q qq qx qw
    bool ruby_percent = false;       // %x %w %q %Q
    bool dq_interpolates = false;
};

Lang lang_of(std::string_view l) {
    Lang g;
    if (l == "python") {
        g.hash_comments = true;
        g.python_prefixes = true;
    } else if (l == "node") {
        g.slash_comments = true;
        g.backtick_template = true;
    } else if (l == "perl") {
        g.hash_comments = true;
        g.backtick_cmd = true;
        g.sigils = true;
        g.perl_quotes = true;
        g.dq_interpolates = true;
    } else if (l == "ruby") {
        g.hash_comments = true;
        g.backtick_cmd = true;
        g.ruby_percent = true;
        g.dq_interpolates = true;
    } else if (l == "php") {
        g.hash_comments = true;
        g.slash_comments = true;
        g.backtick_cmd = true;
        g.sigils = true;
        g.dq_interpolates = true;
    } else if (l == "lua") {
        g.dash_comments = true;
    } else {
        g.hash_comments = true;
    }
    return g;
}

class Tokenizer {
public:
    Tokenizer(std::string_view src, const Lang& g, const std::string& home)
        : s_(src), g_(g), home_(home), blanked_(src) {}

    std::vector<Token> run() {
        while (i_ < s_.size()) {
            size_t before = out_.size();
            size_t start = i_;
            step();
            bool literal = false;
            for (size_t k = before; k < out_.size(); ++k) {
                if (out_[k].kind == Tok::str || out_[k].kind == Tok::cmd) literal = true;
            }
            if (literal) {
                for (size_t k = start; k < i_ && k < blanked_.size(); ++k) {
                    if (blanked_[k] != '\n') blanked_[k] = ' ';
                }
            }
        }
        return std::move(out_);
    }

    // The source with every string literal blanked out: what is left is code.
    const std::string& blanked() const { return blanked_; }

private:
    // The value an interpolation ${…} / #{…} / {…} / $VAR stands for.
    std::string interpolation(std::string_view expr) const {
        if (contains(expr, "HOME") || contains(expr, "homedir") || contains(expr, "home()") || contains(expr, "Dir.home") ||
            contains(expr, "expanduser")) {
            return home_;
        }
        return std::string(1, kUnknown);
    }

    char unescape_char(char d) {
        switch (d) {
            case 'n': return '\n';
            case 't': return '\t';
            case 'r': return '\r';
            case '0': return '\0';
            default: return d;
        }
    }

    // Reads a quoted string body up to `close` (nesting `open` when it differs).
    std::string read_quoted(char open, char close, bool escapes, bool interp, char sigil_interp) {
        std::string out;
        int nest = 0;
        while (i_ < s_.size()) {
            char c = s_[i_];
            if (c == '\n') ++line_;
            if (c == '\\' && i_ + 1 < s_.size()) {
                char d = s_[i_ + 1];
                if (escapes) {
                    if (d == 'x' && i_ + 3 < s_.size() && std::isxdigit(static_cast<unsigned char>(s_[i_ + 2])) &&
                        std::isxdigit(static_cast<unsigned char>(s_[i_ + 3]))) {
                        out += static_cast<char>(std::stoi(std::string(s_.substr(i_ + 2, 2)), nullptr, 16));
                        i_ += 4;
                        continue;
                    }
                    out += unescape_char(d);
                } else {
                    if (d != close && d != '\\') out += '\\';
                    out += d;
                }
                i_ += 2;
                continue;
            }
            if (open != close && c == open) ++nest;
            if (c == close) {
                if (nest == 0) {
                    ++i_;
                    return out;
                }
                --nest;
            }
            if (interp && sigil_interp == '#' && c == '#' && i_ + 1 < s_.size() && s_[i_ + 1] == '{') {
                size_t e = s_.find('}', i_);
                if (e == std::string_view::npos) e = s_.size() - 1;
                out += interpolation(s_.substr(i_ + 2, e - i_ - 2));
                i_ = e + 1;
                continue;
            }
            if (interp && sigil_interp == '$' && c == '$' && i_ + 1 < s_.size() && s_[i_ + 1] == '{') {
                size_t e = s_.find('}', i_);
                if (e == std::string_view::npos) e = s_.size() - 1;
                out += interpolation(s_.substr(i_ + 2, e - i_ - 2));
                i_ = e + 1;
                continue;
            }
            if (interp && sigil_interp == '{' && c == '{') {
                if (i_ + 1 < s_.size() && s_[i_ + 1] == '{') {
                    out += '{';
                    i_ += 2;
                    continue;
                }
                size_t e = s_.find('}', i_);
                if (e == std::string_view::npos) e = s_.size() - 1;
                out += interpolation(s_.substr(i_ + 1, e - i_ - 1));
                i_ = e + 1;
                continue;
            }
            if (interp && sigil_interp == 'S' && (c == '$' || c == '@') && i_ + 1 < s_.size() &&
                (std::isalpha(static_cast<unsigned char>(s_[i_ + 1])) || s_[i_ + 1] == '_' || s_[i_ + 1] == '{')) {
                // perl/php "$var", "$ENV{HOME}", "{$x}"
                size_t e = i_ + 1;
                while (e < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[e])) || s_[e] == '_' || s_[e] == ':')) ++e;
                if (e < s_.size() && (s_[e] == '{' || s_[e] == '[')) {
                    char cl = s_[e] == '{' ? '}' : ']';
                    size_t f = s_.find(cl, e);
                    if (f != std::string_view::npos) e = f + 1;
                }
                out += interpolation(s_.substr(i_, e - i_));
                i_ = e;
                continue;
            }
            out += c;
            ++i_;
        }
        return out;
    }

    void push(Tok k, std::string t) { out_.push_back(Token{k, std::move(t), line_}); }

    static char closer(char open) {
        switch (open) {
            case '(': return ')';
            case '[': return ']';
            case '{': return '}';
            case '<': return '>';
            default: return open;
        }
    }

    void step() {
        char c = s_[i_];
        if (c == '\n') {
            ++line_;
            ++i_;
            return;
        }
        if (c == ' ' || c == '\t' || c == '\r') {
            ++i_;
            return;
        }
        if ((g_.hash_comments && c == '#') || (g_.slash_comments && c == '/' && i_ + 1 < s_.size() && s_[i_ + 1] == '/') ||
            (g_.dash_comments && c == '-' && i_ + 1 < s_.size() && s_[i_ + 1] == '-')) {
            while (i_ < s_.size() && s_[i_] != '\n') ++i_;
            return;
        }
        if (g_.slash_comments && c == '/' && i_ + 1 < s_.size() && s_[i_ + 1] == '*') {
            size_t e = s_.find("*/", i_ + 2);
            i_ = e == std::string_view::npos ? s_.size() : e + 2;
            return;
        }
        if (c == '<' && s_.substr(i_, 5) == "<?php") {
            i_ += 5;
            return;
        }
        // Python string prefixes: r'' b'' f'' rb'' …
        if (g_.python_prefixes && std::isalpha(static_cast<unsigned char>(c))) {
            size_t k = i_;
            while (k < s_.size() && k - i_ < 2 && std::strchr("rRbBuUfF", s_[k])) ++k;
            if (k > i_ && k < s_.size() && (s_[k] == '\'' || s_[k] == '"')) {
                std::string prefix = lower(s_.substr(i_, k - i_));
                i_ = k;
                python_string(prefix.find('r') == std::string::npos, prefix.find('f') != std::string::npos);
                return;
            }
        }
        if (g_.python_prefixes && (c == '\'' || c == '"')) {
            python_string(true, false);
            return;
        }
        if (g_.perl_quotes && (c == 'q') && i_ + 1 < s_.size()) {
            size_t k = i_ + 1;
            std::string kind = "q";
            if (k < s_.size() && (s_[k] == 'q' || s_[k] == 'x' || s_[k] == 'w')) kind += s_[k++];
            bool word_end = k >= s_.size() || !(std::isalnum(static_cast<unsigned char>(s_[k])) || s_[k] == '_');
            if (word_end && k < s_.size() && std::strchr("({[</|!#~", s_[k])) {
                char open = s_[k];
                i_ = k + 1;
                std::string body = read_quoted(open, closer(open), kind != "q", kind == "qq" || kind == "qx", 'S');
                if (kind == "qx") {
                    push(Tok::cmd, body);
                } else if (kind == "qw") {
                    push(Tok::punct, "[");
                    for (const std::string& w : split_ws(body)) {
                        push(Tok::str, w);
                        push(Tok::punct, ",");
                    }
                    push(Tok::punct, "]");
                } else {
                    push(Tok::str, body);
                }
                return;
            }
        }
        if (g_.ruby_percent && c == '%' && i_ + 2 < s_.size() && std::strchr("xwqQiW", s_[i_ + 1]) &&
            std::strchr("({[<|!", s_[i_ + 2])) {
            char kind = s_[i_ + 1];
            char open = s_[i_ + 2];
            i_ += 3;
            std::string body = read_quoted(open, closer(open), kind != 'q', kind == 'x' || kind == 'Q' || kind == 'W', '#');
            if (kind == 'x') {
                push(Tok::cmd, body);
            } else if (kind == 'w' || kind == 'W' || kind == 'i') {
                push(Tok::punct, "[");
                for (const std::string& w : split_ws(body)) {
                    push(Tok::str, w);
                    push(Tok::punct, ",");
                }
                push(Tok::punct, "]");
            } else {
                push(Tok::str, body);
            }
            return;
        }
        if (c == '\'') {
            ++i_;
            push(Tok::str, read_quoted('\'', '\'', false, false, 0));
            return;
        }
        if (c == '"') {
            ++i_;
            char interp = g_.sigils ? 'S' : (g_.dq_interpolates ? '#' : 0);
            push(Tok::str, read_quoted('"', '"', true, interp != 0, interp));
            return;
        }
        if (c == '`') {
            ++i_;
            if (g_.backtick_template) {
                push(Tok::str, read_quoted('`', '`', true, true, '$'));
            } else if (g_.backtick_cmd) {
                char interp = g_.sigils ? 'S' : '#';
                push(Tok::cmd, read_quoted('`', '`', true, true, interp));
            } else {
                push(Tok::punct, "`");
            }
            return;
        }
        if (std::isalpha(static_cast<unsigned char>(c)) || c == '_' ||
            (g_.sigils && (c == '$' || c == '@') && i_ + 1 < s_.size() &&
             (std::isalpha(static_cast<unsigned char>(s_[i_ + 1])) || s_[i_ + 1] == '_'))) {
            size_t b = i_++;
            while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_')) ++i_;
            push(Tok::ident, std::string(s_.substr(b, i_ - b)));
            return;
        }
        if (std::isdigit(static_cast<unsigned char>(c))) {
            size_t b = i_;
            while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '.')) ++i_;
            push(Tok::number, std::string(s_.substr(b, i_ - b)));
            return;
        }
        if ((c == '=' || c == '!' || c == '<' || c == '>') && i_ + 1 < s_.size() && s_[i_ + 1] == '=') {
            push(Tok::punct, std::string(s_.substr(i_, 2)));
            i_ += 2;
            return;
        }
        if (c == '=' && i_ + 1 < s_.size() && s_[i_ + 1] == '>') {
            push(Tok::punct, "=>");
            i_ += 2;
            return;
        }
        push(Tok::punct, std::string(1, c));
        ++i_;
    }

    void python_string(bool escapes, bool fstring) {
        char q = s_[i_];
        bool triple = s_.substr(i_, 3) == std::string(3, q);
        if (triple) {
            i_ += 3;
            std::string out;
            std::string end(3, q);
            size_t e = s_.find(end, i_);
            if (e == std::string_view::npos) e = s_.size();
            std::string_view body = s_.substr(i_, e - i_);
            for (char ch : body) {
                if (ch == '\n') ++line_;
            }
            out.assign(body);
            i_ = std::min(s_.size(), e + 3);
            push(Tok::str, fstring ? std::string(1, kUnknown) : out);
            return;
        }
        ++i_;
        push(Tok::str, read_quoted(q, q, escapes, fstring, fstring ? '{' : 0));
    }

    std::string_view s_;
    const Lang& g_;
    const std::string& home_;
    std::string blanked_;
    size_t i_ = 0;
    int line_ = 0;
    std::vector<Token> out_;
};

enum class Sink { command, command_args, delete_one, delete_tree, delete_each, write, read, open_mode, eval };

struct SinkDef {
    std::string_view name;
    Sink kind;
    std::string_view need;  // text the code must also contain ("" = none)
};

const std::vector<SinkDef>& sinks(std::string_view lang) {
    static const std::vector<SinkDef> python = {
        {"system", Sink::command, ""},          {"popen", Sink::command, ""},
        {"getoutput", Sink::command, ""},       {"getstatusoutput", Sink::command, ""},
        {"check_output", Sink::command, ""},    {"check_call", Sink::command, ""},
        {"call", Sink::command, "subprocess"},  {"run", Sink::command, "subprocess"},
        {"Popen", Sink::command, ""},           {"spawn", Sink::command, "pty"},
        {"execv", Sink::command_args, ""},      {"execvp", Sink::command_args, ""},
        {"execve", Sink::command_args, ""},     {"execvpe", Sink::command_args, ""},
        {"execl", Sink::command_args, ""},      {"execlp", Sink::command_args, ""},
        {"rmtree", Sink::delete_tree, ""},      {"remove", Sink::delete_one, "os"},
        {"unlink", Sink::delete_one, ""},       {"rmdir", Sink::delete_one, ""},
        {"removedirs", Sink::delete_tree, ""},  {"truncate", Sink::write, "os"},
        {"open", Sink::open_mode, ""},          {"exec", Sink::eval, ""},
        {"eval", Sink::eval, ""},               {"compile", Sink::eval, ""},
        {"write_text", Sink::write, ""},        {"write_bytes", Sink::write, ""},
        {"read_text", Sink::read, ""},          {"read_bytes", Sink::read, ""},
    };
    static const std::vector<SinkDef> node = {
        {"exec", Sink::command, "child_process"},       {"execSync", Sink::command, ""},
        {"spawn", Sink::command_args, "child_process"}, {"spawnSync", Sink::command_args, ""},
        {"execFile", Sink::command_args, "child_process"}, {"execFileSync", Sink::command_args, ""},
        {"rmSync", Sink::delete_tree, ""},              {"rm", Sink::delete_tree, "fs"},
        {"rmdirSync", Sink::delete_tree, ""},           {"rmdir", Sink::delete_tree, "fs"},
        {"unlinkSync", Sink::delete_one, ""},           {"unlink", Sink::delete_one, "fs"},
        {"writeFileSync", Sink::write, ""},             {"writeFile", Sink::write, "fs"},
        {"truncateSync", Sink::write, ""},              {"readFileSync", Sink::read, ""},
        {"readFile", Sink::read, "fs"},                 {"eval", Sink::eval, ""},
        {"Function", Sink::eval, ""},                   {"remove", Sink::delete_tree, "Deno"},
        {"removeSync", Sink::delete_tree, ""},          {"Command", Sink::command_args, "Deno"},
        {"run", Sink::command, "Deno"},
    };
    static const std::vector<SinkDef> perl = {
        {"system", Sink::command, ""},   {"exec", Sink::command, ""},      {"unlink", Sink::delete_each, ""},
        {"rmdir", Sink::delete_one, ""}, {"rmtree", Sink::delete_tree, ""}, {"remove_tree", Sink::delete_tree, ""},
        {"open", Sink::open_mode, ""},   {"eval", Sink::eval, ""},
    };
    static const std::vector<SinkDef> ruby = {
        {"system", Sink::command, ""},       {"exec", Sink::command, ""},         {"spawn", Sink::command, ""},
        {"popen", Sink::command, ""},        {"capture2", Sink::command, ""},     {"capture2e", Sink::command, ""},
        {"capture3", Sink::command, ""},     {"popen3", Sink::command, ""},       {"rm_rf", Sink::delete_each, ""},
        {"rm_r", Sink::delete_each, ""},     {"remove_dir", Sink::delete_tree, ""}, {"remove_entry", Sink::delete_tree, ""},
        {"remove_entry_secure", Sink::delete_tree, ""}, {"rmtree", Sink::delete_tree, ""},
        {"rm", Sink::delete_each, "FileUtils"}, {"rm_f", Sink::delete_each, ""}, {"remove", Sink::delete_each, "FileUtils"},
        {"delete", Sink::delete_each, "File"},  {"unlink", Sink::delete_each, ""}, {"rmdir", Sink::delete_one, ""},
        {"write", Sink::write, "File"},      {"read", Sink::read, "File"},        {"eval", Sink::eval, ""},
    };
    static const std::vector<SinkDef> php = {
        {"system", Sink::command, ""},   {"exec", Sink::command, ""},     {"shell_exec", Sink::command, ""},
        {"passthru", Sink::command, ""}, {"popen", Sink::command, ""},    {"proc_open", Sink::command, ""},
        {"unlink", Sink::delete_one, ""}, {"rmdir", Sink::delete_one, ""}, {"file_put_contents", Sink::write, ""},
        {"file_get_contents", Sink::read, ""}, {"readfile", Sink::read, ""}, {"eval", Sink::eval, ""},
    };
    static const std::vector<SinkDef> lua = {
        {"execute", Sink::command, ""}, {"popen", Sink::command, ""}, {"remove", Sink::delete_one, "os"},
    };
    static const std::vector<SinkDef> r = {
        {"system", Sink::command, ""}, {"system2", Sink::command_args, ""}, {"unlink", Sink::delete_tree, ""},
    };
    if (lang == "python") return python;
    if (lang == "node") return node;
    if (lang == "perl") return perl;
    if (lang == "ruby") return ruby;
    if (lang == "php") return php;
    if (lang == "lua") return lua;
    return r;
}

// What an expression evaluates to, as far as literals tell.
struct CodeVal {
    std::string text;  // kUnknown marks unknown runs
    bool list = false;
    std::vector<CodeVal> items;
    bool glob = false;
    bool known() const { return !list && text.find(kUnknown) == std::string::npos; }
    Value value() const {
        Value v;
        v.text = text;
        v.unknown = text.find(kUnknown) != std::string::npos;
        v.glob = glob;
        return v;
    }
};

class Evaluator {
public:
    // `work`: the steps taken so far in this command, over every program's code.
    Evaluator(const std::vector<Token>& t, const std::string& home, const std::string& cwd, size_t& work)
        : t_(t), home_(home), cwd_(cwd), work_(work) {}

    size_t match(size_t open) const {
        int depth = 0;
        for (size_t i = open; i < t_.size(); ++i) {
            if (t_[i].kind != Tok::punct) continue;
            const std::string& p = t_[i].text;
            if (p == "(" || p == "[" || p == "{") ++depth;
            if (p == ")" || p == "]" || p == "}") {
                if (--depth == 0) return i;
            }
        }
        return t_.size();
    }

    // Where the receiver of the method call whose '.' is at `dot` begins: a.b(…)[…].c
    size_t receiver_start(size_t dot) const {
        size_t j = dot;
        while (j > 0) {
            size_t k = j - 1;
            const Token& x = t_[k];
            if (x.kind == Tok::punct && (x.text == ")" || x.text == "]")) {
                std::string open = x.text == ")" ? "(" : "[";
                int d = 0;
                size_t m = k;
                for (;;) {
                    if (t_[m].kind == Tok::punct && t_[m].text == x.text) ++d;
                    if (t_[m].kind == Tok::punct && t_[m].text == open && --d == 0) break;
                    if (m == 0) return 0;
                    --m;
                }
                j = m;
                continue;
            }
            if (x.kind == Tok::ident || x.kind == Tok::str) {
                j = k;
                if (j > 0 && t_[j - 1].kind == Tok::punct && t_[j - 1].text == ".") {
                    j = j - 1;
                    continue;
                }
                return j;
            }
            return j;
        }
        return 0;
    }

    // Top-level comma-separated ranges in [b, e).
    std::vector<std::pair<size_t, size_t>> split_args(size_t b, size_t e) const {
        std::vector<std::pair<size_t, size_t>> out;
        int depth = 0;
        size_t start = b;
        for (size_t i = b; i < e; ++i) {
            if (t_[i].kind != Tok::punct) continue;
            const std::string& p = t_[i].text;
            if (p == "(" || p == "[" || p == "{") ++depth;
            if (p == ")" || p == "]" || p == "}") --depth;
            if (p == "," && depth == 0) {
                if (i > start) out.emplace_back(start, i);
                start = i + 1;
            }
        }
        if (e > start) out.emplace_back(start, e);
        return out;
    }

    bool mentions_home(size_t b, size_t e) const {
        for (size_t i = b; i < e && i < t_.size(); ++i) {
            const std::string& x = t_[i].text;
            if (t_[i].kind == Tok::str && x == "HOME") return true;
            if (t_[i].kind == Tok::ident && (x == "HOME" || x == "homedir" || x == "expanduser" || x == "home" || x == "gethome")) return true;
        }
        return false;
    }

    CodeVal unknown() const { return CodeVal{std::string(1, kUnknown), false, {}, false}; }

    CodeVal eval(size_t b, size_t e, int depth) const {
        if (b >= e || depth > 4) return unknown();
        // Names defined from names, each used many times, multiply the work by level.
        spend(1);
        // A list literal: [a, b] (python, js, ruby, perl qw) or (a, b) in perl.
        if (t_[b].kind == Tok::punct && (t_[b].text == "[" || t_[b].text == "(") && match(b) == e - 1) {
            auto parts = split_args(b + 1, e - 1);
            if (t_[b].text == "(" && parts.size() == 1) return eval(b + 1, e - 1, depth + 1);
            CodeVal l;
            l.list = true;
            for (auto [pb, pe] : parts) l.items.push_back(eval(pb, pe, depth + 1));
            return l;
        }
        CodeVal out;
        size_t i = b;
        for (;;) {
            size_t next = i;
            CodeVal part = term(i, e, next, depth);
            if (part.list) return (i == b && next >= e) ? part : unknown();
            out.text += part.text;
            if (out.text.size() > budget::kMaxValueBytes)
                budget::exceeded("a value in the interpreter code would pass " +
                                 std::to_string(budget::kMaxValueBytes) + " bytes");
            out.glob = out.glob || part.glob;
            i = next;
            if (i >= e) return out;
            // Concatenation: + (python, js, ruby), . and .. (perl, php, lua), / (pathlib)
            const Token& op = t_[i];
            if (op.kind == Tok::punct && (op.text == "+" || op.text == "." || op.text == "/")) {
                if (op.text == "/") out.text += '/';
                ++i;
                if (i < e && t_[i].kind == Tok::punct && t_[i].text == ".") ++i;
                if (i >= e) return with_unknown(out);
                continue;
            }
            return with_unknown(out);
        }
    }

private:
    CodeVal with_unknown(CodeVal v) const {
        if (v.text.empty() || v.text.back() != kUnknown) v.text += kUnknown;
        return v;
    }

    static bool home_name(const std::string& n) {
        return n == "HOME" || n == "homedir" || n == "gethome" || n == "home" || n == "expand_path_home";
    }

    // One operand starting at i, sets next past it. A chain a.b(…).c[…] is evaluated left to
    // right: the value so far is the receiver of the next call (Path.home().joinpath("x")).
    CodeVal term(size_t i, size_t e, size_t& next, int depth) const {
        const Token& t = t_[i];
        next = i + 1;
        if (t.kind == Tok::str || t.kind == Tok::number) return CodeVal{t.text, false, {}, false};
        if (t.kind != Tok::ident) return unknown();
        CodeVal cur = unknown();
        bool have = false;      // cur holds a value computed from the chain
        bool plain_var = true;  // the chain is one bare name
        size_t k = i;
        std::string name = t.text;
        for (;;) {
            next = k + 1;
            bool call = next < e && t_[next].kind == Tok::punct && t_[next].text == "(";
            std::vector<std::pair<size_t, size_t>> args;
            if (call) {
                size_t close = match(next);
                args = split_args(next + 1, close);
                next = std::min(e, close + 1);
                plain_var = false;
            }
            auto arg = [&](size_t n) { return n < args.size() ? eval(args[n].first, args[n].second, depth + 1) : unknown(); };
            if (home_name(name) && (call || name == "HOME" || k > i)) {
                cur = CodeVal{home_, false, {}, false};
                have = true;
            } else if (call && (name == "expanduser" || name == "expand_path" || name == "realpath" || name == "abspath" ||
                                name == "normpath" || name == "resolve" || name == "absolute" || name == "Path" ||
                                name == "PurePath" || name == "str" || name == "String" || name == "fspath" ||
                                name == "new" || name == "File" || name == "Pathname")) {
                if (!args.empty()) {
                    CodeVal v = arg(0);
                    if (!v.list && !v.text.empty() && v.text[0] == '~' && (v.text.size() == 1 || v.text[1] == '/')) {
                        v.text = home_ + v.text.substr(1);
                    }
                    cur = v;
                    have = true;
                } else if (name == "expanduser" && have && !cur.text.empty() && cur.text[0] == '~') {
                    cur.text = home_ + cur.text.substr(1);
                }
            } else if (call && (name == "join" || name == "joinpath" || name == "resolve")) {
                CodeVal v = have && name == "joinpath" ? cur : CodeVal{};
                for (size_t a = 0; a < args.size(); ++a) {
                    CodeVal p = arg(a);
                    if (p.list) return unknown();
                    if (!p.text.empty() && p.text[0] == '/') v.text.clear();
                    if (!v.text.empty() && v.text.back() != '/') v.text += '/';
                    v.text += p.text;
                    v.glob = v.glob || p.glob;
                }
                cur = v;
                have = true;
            } else if (call && (name == "glob" || name == "iglob")) {
                cur = arg(0);
                cur.glob = true;
                have = true;
            } else if (call && (name == "getenv" || name == "get" || name == "fetch" || name == "env") && !args.empty() &&
                       mentions_home(args[0].first, args[0].second)) {
                cur = CodeVal{home_, false, {}, false};
                have = true;
            } else if (call && (name == "getcwd" || name == "cwd" || name == "pwd")) {
                cur = CodeVal{cwd_, false, {}, false};
                have = true;
            } else if (call) {
                // Any other call: its result is unknown (a method on a known path keeps the path's
                // directory only for the calls above).
                if (name != "require" && name != "__import__") {
                    cur = unknown();
                    have = false;
                }
            }
            // Subscripts: os.environ['HOME'], $ENV{HOME}, ENV['HOME'], process.env["HOME"]
            while (next < e && t_[next].kind == Tok::punct && (t_[next].text == "[" || t_[next].text == "{")) {
                size_t close = match(next);
                if (mentions_home(next, close)) {
                    cur = CodeVal{home_, false, {}, false};
                    have = true;
                } else {
                    cur = unknown();
                    have = false;
                }
                plain_var = false;
                next = std::min(e, close + 1);
            }
            // Continue the chain: . or :: then a name.
            size_t n = next;
            if (n + 1 < e && t_[n].kind == Tok::punct && (t_[n].text == "." || t_[n].text == ":")) {
                size_t m = n + 1;
                if (t_[n].text == ":" && m < e && t_[m].kind == Tok::punct && t_[m].text == ":") ++m;
                if (m < e && t_[m].kind == Tok::ident) {
                    k = m;
                    name = t_[m].text;
                    plain_var = false;
                    continue;
                }
            }
            break;
        }
        if (plain_var) return variable(t.text, depth);
        return have ? cur : unknown();
    }

    CodeVal variable(const std::string& name, int depth) const {
        spend(t_.size());
        for (size_t i = 0; i + 1 < t_.size(); ++i) {
            if (t_[i].kind != Tok::ident || t_[i].text != name) continue;
            if (!(t_[i + 1].kind == Tok::punct && t_[i + 1].text == "=")) continue;
            size_t b = i + 2, e = b;
            int d = 0;
            int line = t_[i].line;
            for (; e < t_.size(); ++e) {
                const Token& x = t_[e];
                if (x.kind == Tok::punct) {
                    if (x.text == "(" || x.text == "[" || x.text == "{") ++d;
                    if (x.text == ")" || x.text == "]" || x.text == "}") {
                        if (d == 0) break;
                        --d;
                    }
                    if (d == 0 && (x.text == ";" || x.text == ",")) break;
                }
                if (d == 0 && x.line != line) break;
            }
            return eval(b, e, depth + 1);
        }
        return unknown();
    }

    void spend(size_t steps) const {
        work_ += steps;
        if (work_ > budget::kMaxCodeSteps)
            budget::exceeded("evaluating the interpreter code's names takes more than " +
                             std::to_string(budget::kMaxCodeSteps) + " steps");
    }

    const std::vector<Token>& t_;
    const std::string& home_;
    const std::string& cwd_;
    size_t& work_;
};

bool looks_like_command(const std::string& s) {
    std::vector<std::string> w = split_ws(s);
    if (w.empty()) return false;
    return w.size() > 1 || find_handler(basename_of(w[0])) != nullptr;
}

// A string that names a place (not "/" alone: that is a separator far more often than a path).
bool looks_like_path(const std::string& s) {
    if (s.size() > 1 && s[0] == '/' && (std::isalnum(static_cast<unsigned char>(s[1])) || s[1] == '.' || s[1] == '*')) return true;
    return !s.empty() && (s[0] == '~' || s == "." || s == ".." || s.rfind("../", 0) == 0 || s == "*");
}

}  // namespace

void Analyzer::interpreter_code(std::string_view lang, const Value& code, Call& call) {
    if (code.taint == Taint::remote || code.taint == Taint::decoded || code.taint == Taint::filtered) {
        bool remote_code = code.taint == Taint::remote;
        hit(Decision::deny, remote_code ? "pipe.remote-to-shell" : "pipe.decoded-to-shell",
            "the " + std::string(lang) + " program is " + (remote_code ? "fetched from the network" : "decoded at run time"));
        return;
    }
    if (depth >= 6) {
        hit(Decision::deny, "shell.nesting-depth", "interpreter code nested too deep");
        return;
    }
    if (!code.known()) {
        hit(Decision::cage, "interp.code", "the " + std::string(lang) + " program is only known at run time");
    }
    if (code_sends_environment(lang, code.text)) {
        hit(Decision::deny, "secret.exfiltrate",
            "the " + std::string(lang) +
                " program reads the whole environment and talks to the network: the tokens and keys in "
                "it would be published");
    }
    if (code_deletes_remotely(code.text)) {
        hit(Decision::deny, "net.remote-delete",
            "the " + std::string(lang) +
                " program sends an HTTP DELETE: it deletes data on a server, which no cage protects");
    }
    std::string home = ctx().home;
    std::string cwd = call.scope->cwd_known ? call.scope->cwd : std::string(1, kUnknown);
    Lang g = lang_of(lang);
    Tokenizer tz(code.text, g, home);
    std::vector<Token> toks = tz.run();
    Evaluator ev(toks, home, cwd, code_steps);
    // Shell text given as the program (python3 - <<EOF … rm -rf ~ …): it does nothing in the
    // interpreter, or it is a mistake about which program reads it; refused when destructive.
    if (depth < 6) {
        spend_parse(tz.blanked().size());
        shell::ParseResult as_shell = shell::parse(tz.blanked());
        if (as_shell.ok) {
            ++probing;
            Decision saved = probe_max;
            probe_max = Decision::allow;
            Scope copy = copy_scope(*call.scope);
            ++depth;
            owned_.push_back(std::move(as_shell));
            walk_script(owned_.back().script, copy, Stream());
            --depth;
            Decision got = probe_max;
            probe_max = saved;
            --probing;
            if (got == Decision::deny) {
                hit(Decision::deny, "interp.shell-text",
                    "the " + std::string(lang) + " program is written like a destructive shell command");
            }
        }
    }
    const std::vector<SinkDef>& defs = sinks(lang);
    std::string who = std::string(lang) + " ";
    bool unresolved_command = false, unresolved_path = false, any_eval = false;
    ++depth;
    auto run_command = [&](const CodeVal& v, const std::string& via) {
        if (v.list) {
            std::vector<Value> argv;
            for (const CodeVal& it : v.items) {
                if (it.list) return;
                argv.push_back(it.value());
            }
            Call proto;
            proto.scope = call.scope;
            proto.via = call.via + who;
            if (!argv.empty() && argv[0].known()) {
                exec_argv(std::move(argv), proto);
            } else {
                unresolved_command = true;
            }
            return;
        }
        if (!v.known() && v.text.find_first_not_of(std::string(1, kUnknown) + " ") == std::string::npos) {
            unresolved_command = true;
            return;
        }
        run_string(v.value(), *call.scope, false, Stream(), who + via);
    };
    auto judge_path = [&](const CodeVal& v, Sink kind, const std::string& sink) {
        if (v.list) {
            for (const CodeVal& it : v.items) {
                if (!it.list) check_delete(it.value(), kind == Sink::delete_tree, who + sink, call);
            }
            return;
        }
        if (v.text.empty() || v.text[0] == kUnknown) {
            unresolved_path = true;
            return;
        }
        Value p = v.value();
        if (kind == Sink::write) {
            check_write(p, WriteMode::truncate, who + sink, *call.scope);
        } else if (kind == Sink::read) {
            check_read(p, who + sink, *call.scope);
        } else {
            check_delete(p, kind == Sink::delete_tree, who + sink, call);
        }
    };
    for (size_t i = 0; i < toks.size(); ++i) {
        const Token& t = toks[i];
        if (t.kind == Tok::cmd) {
            run_command(CodeVal{t.text, false, {}, false}, "backquotes");
            continue;
        }
        if (t.kind != Tok::ident) continue;
        const SinkDef* def = nullptr;
        for (const SinkDef& d : defs) {
            if (d.name == t.text && (d.need.empty() || contains(code.text, d.need))) def = &d;
        }
        if (!def) continue;
        // Arguments: in parentheses, or (perl, ruby) up to the end of the statement.
        size_t b, e;
        if (i + 1 < toks.size() && toks[i + 1].kind == Tok::punct && toks[i + 1].text == "(") {
            b = i + 2;
            e = ev.match(i + 1);
        } else if ((lang == "perl" || lang == "ruby") && i + 1 < toks.size() &&
                   (toks[i + 1].kind == Tok::str || toks[i + 1].kind == Tok::ident || toks[i + 1].kind == Tok::cmd ||
                    (toks[i + 1].kind == Tok::punct && toks[i + 1].text == "["))) {
            b = i + 1;
            e = b;
            while (e < toks.size() && toks[e].line == t.line &&
                   !(toks[e].kind == Tok::punct && (toks[e].text == ";" || toks[e].text == "}" || toks[e].text == ")"))) {
                ++e;
            }
        } else {
            continue;
        }
        auto args = ev.split_args(b, std::min(e, toks.size()));
        std::string sink = t.text;
        // A method on a path object: Path(x).unlink(), p.write_text(…), Pathname(x).rmtree
        bool method = i >= 2 && toks[i - 1].kind == Tok::punct && toks[i - 1].text == ".";
        if (method && (args.empty() || sink == "write_text" || sink == "write_bytes") &&
            (def->kind == Sink::delete_one || def->kind == Sink::delete_tree || def->kind == Sink::write ||
             def->kind == Sink::read || def->kind == Sink::delete_each)) {
            size_t start = ev.receiver_start(i - 1);
            bool module = start + 1 == i - 1 && toks[start].kind == Tok::ident &&
                          (toks[start].text == "os" || toks[start].text == "shutil" || toks[start].text == "fs" ||
                           toks[start].text == "File" || toks[start].text == "FileUtils" || toks[start].text == "Dir");
            if (!module) {
                Sink k = def->kind == Sink::delete_each ? Sink::delete_tree : def->kind;
                if (sink == "rmtree") k = Sink::delete_tree;
                judge_path(ev.eval(start, i - 1, 0), k, sink + "()");
                continue;
            }
        }
        if (args.empty()) continue;
        switch (def->kind) {
            case Sink::command: {
                if (args.size() > 1 && (lang == "perl" || lang == "ruby" || lang == "php")) {
                    CodeVal l;
                    l.list = true;
                    for (auto [ab, ae] : args) {
                        CodeVal x = ev.eval(ab, ae, 0);
                        if (x.list) {
                            for (CodeVal& y : x.items) l.items.push_back(y);
                        } else {
                            l.items.push_back(x);
                        }
                    }
                    run_command(l, sink + "()");
                } else {
                    run_command(ev.eval(args[0].first, args[0].second, 0), sink + "()");
                }
                break;
            }
            case Sink::command_args: {
                CodeVal first = ev.eval(args[0].first, args[0].second, 0);
                if (first.list) {
                    run_command(first, sink + "()");
                    break;
                }
                CodeVal l;
                l.list = true;
                l.items.push_back(first);
                for (size_t k = 1; k < args.size(); ++k) {
                    CodeVal x = ev.eval(args[k].first, args[k].second, 0);
                    if (x.list) {
                        // execv(path, [argv0, args…]): argv0 repeats the program
                        for (size_t y = (sink.rfind("exec", 0) == 0 && lang == "python") ? 1 : 0; y < x.items.size(); ++y) {
                            l.items.push_back(x.items[y]);
                        }
                        break;
                    }
                    if (lang == "python" && sink.rfind("execl", 0) == 0 && k == 1) continue;  // argv0
                    if (lang == "python") l.items.push_back(x);
                }
                run_command(l, sink + "()");
                break;
            }
            case Sink::delete_one:
            case Sink::delete_tree:
            case Sink::write:
            case Sink::read:
                judge_path(ev.eval(args[0].first, args[0].second, 0), def->kind, sink + "()");
                break;
            case Sink::delete_each:
                for (auto [ab, ae] : args) {
                    // ruby FileUtils.rm_rf(x, secure: true): skip keyword options
                    if (ae > ab + 1 && toks[ab + 1].kind == Tok::punct && toks[ab + 1].text == ":") continue;
                    CodeVal v = ev.eval(ab, ae, 0);
                    judge_path(v, sink.find("rf") != std::string::npos || sink.find("_r") != std::string::npos ||
                                          sink == "remove_entry"
                                      ? Sink::delete_tree
                                      : Sink::delete_one,
                               sink + "()");
                }
                break;
            case Sink::open_mode: {
                CodeVal path = ev.eval(args[0].first, args[0].second, 0);
                std::string mode = "r";
                if (lang == "perl") {
                    if (args.size() >= 3) {
                        mode = ev.eval(args[1].first, args[1].second, 0).text;
                        path = ev.eval(args[2].first, args[2].second, 0);
                    } else if (args.size() == 2) {
                        CodeVal spec = ev.eval(args[1].first, args[1].second, 0);
                        std::string s = spec.text;
                        size_t k = 0;
                        while (k < s.size() && (s[k] == '>' || s[k] == '<' || s[k] == '+' || s[k] == ' ')) ++k;
                        mode = s.substr(0, k);
                        if (!s.empty() && (s.back() == '|' || s[0] == '|')) {
                            std::string cmdtext = s[0] == '|' ? s.substr(1) : s.substr(0, s.size() - 1);
                            run_command(CodeVal{cmdtext, false, {}, false}, "open() pipe");
                            break;
                        }
                        path = spec;
                        path.text = s.substr(k);
                    }
                    if (mode.find('>') != std::string::npos) {
                        mode = mode.find(">>") != std::string::npos ? "a" : "w";
                    } else if (mode.find('|') != std::string::npos) {
                        run_command(path, "open() pipe");
                        break;
                    } else {
                        mode = "r";
                    }
                } else if (args.size() >= 2) {
                    mode = ev.eval(args[1].first, args[1].second, 0).text;
                }
                if (mode.find('w') != std::string::npos) {
                    judge_path(path, Sink::write, sink + "()");
                } else if (mode.find('a') != std::string::npos) {
                    if (!path.list && !path.text.empty() && path.text[0] != kUnknown) {
                        check_write(path.value(), WriteMode::append, who + sink + "()", *call.scope);
                    }
                } else {
                    judge_path(path, Sink::read, sink + "()");
                }
                break;
            }
            case Sink::eval: {
                any_eval = true;
                CodeVal v = ev.eval(args[0].first, args[0].second, 0);
                if (!v.list && v.known() && !v.text.empty()) {
                    interpreter_code(lang, v.value(), call);
                } else {
                    unresolved_command = true;
                }
                break;
            }
        }
    }
    --depth;
    // Indirection the evaluator cannot follow: getattr(os, 'system'), send(:system), decoded code.
    static const std::string_view kIndirect[] = {"getattr", "__import__", "importlib", "send", "public_send", "__send__",
                                                 "method", "globals", "constructor", "Reflect"};
    static const std::string_view kDecode[] = {"b64decode", "a85decode", "b32decode", "decodebytes", "atob",
                                               "fromhex", "decode_base64", "unhexlify", "zlib", "marshal", "rot13", "unpack",
                                               // perl/ruby pack("H*"), php's decoders, commands spelled in char codes
                                               "pack", "hex2bin", "base64_decode", "str_rot13", "gzinflate",
                                               "gzuncompress", "convert_uudecode", "chr", "fromCharCode", "unpack1", "char"};
    bool indirect = false, decodes = false;
    for (const Token& t : toks) {
        if (t.kind == Tok::ident) {
            for (std::string_view s : kIndirect) indirect = indirect || t.text == s;
            for (std::string_view s : kDecode) decodes = decodes || t.text == s;
        }
        if (t.text == "base64" || (t.kind == Tok::str && (t.text == "hex" || t.text == "H*"))) decodes = true;
        if (t.kind == Tok::str) {
            for (std::string_view s : kDecode) decodes = decodes || t.text == s;  // array_map("chr", …)
            for (const SinkDef& d : defs) {
                if (d.kind != Sink::eval && t.text == d.name) indirect = true;
            }
        }
    }
    // A decoder called inside an interpolation ("#{x.pack('H*')}", backticks) is not a token.
    auto called = [&](std::string_view name) {
        const std::string& x = code.text;
        for (size_t at = x.find(name); at != std::string::npos; at = x.find(name, at + 1)) {
            bool starts = at == 0 || !(std::isalnum(static_cast<unsigned char>(x[at - 1])) || x[at - 1] == '_');
            size_t e = at + name.size();
            bool ends = e >= x.size() || !(std::isalnum(static_cast<unsigned char>(x[e])) || x[e] == '_');
            if (starts && ends && ((e < x.size() && x[e] == '(') || (at > 0 && x[at - 1] == '.'))) return true;
        }
        return false;
    };
    for (std::string_view s : kDecode) decodes = decodes || called(s);
    if (decodes && (any_eval || unresolved_command || indirect)) {
        hit(Decision::deny, "interp.obfuscated", "the " + std::string(lang) + " program decodes data and runs it as code");
        return;
    }
    bool forks = false, loops = false;
    for (const Token& t : toks) {
        if (t.kind != Tok::ident) continue;
        forks = forks || t.text == "fork";
        loops = loops || t.text == "while" || t.text == "for" || t.text == "loop" || t.text == "until";
    }
    if (forks && loops) {
        hit(Decision::deny, "interp.fork-bomb", "the " + std::string(lang) + " program forks in a loop");
    }
    if (unresolved_command || unresolved_path || indirect) {
        // The argument is computed: refuse when the code carries a destructive command or path.
        Decision worst = Decision::allow;
        std::string example;
        // Literal strings, and literal strings joined by a concatenation ("r" . "m -rf ~").
        std::vector<Token> strings;
        for (size_t i = 0; i < toks.size(); ++i) {
            if (toks[i].kind != Tok::str) continue;
            strings.push_back(toks[i]);
            std::string folded = toks[i].text;
            size_t j = i;
            while (j + 2 < toks.size() && toks[j + 1].kind == Tok::punct &&
                   (toks[j + 1].text == "+" || toks[j + 1].text == "." || toks[j + 1].text == "..") &&
                   toks[j + 2].kind == Tok::str) {
                folded += toks[j + 2].text;
                j += 2;
            }
            if (j > i) strings.push_back(Token{Tok::str, folded, toks[i].line});
        }
        for (const Token& t : strings) {
            if (t.kind != Tok::str || t.text.empty()) continue;
            ++probing;
            Decision saved = probe_max;
            probe_max = Decision::allow;
            if ((unresolved_command || indirect) && looks_like_command(t.text)) {
                ++depth;
                run_string(Value::literal(t.text), *call.scope, false, Stream(), "a string in the program");
                --depth;
            }
            if ((unresolved_path || indirect) && looks_like_path(t.text)) {
                Value p = Value::literal(t.text[0] == '~' ? home + t.text.substr(1) : t.text);
                p.glob = has_glob_chars(p.text);
                check_delete(p, true, "a path in the program", call);
            }
            Decision got = probe_max;
            probe_max = saved;
            --probing;
            if (static_cast<int>(got) > static_cast<int>(worst)) {
                worst = got;
                example = t.text;
            }
        }
        if (worst == Decision::deny) {
            hit(Decision::deny, "interp.destructive-string",
                "the " + std::string(lang) + " program passes computed arguments to a command or delete call, and holds `" +
                    example + "`");
        } else {
            hit(Decision::cage, "interp.dynamic-sink",
                "the " + std::string(lang) + " program runs commands or deletes files named at run time");
        }
    }
}

}  // namespace toolcage::classify::detail
