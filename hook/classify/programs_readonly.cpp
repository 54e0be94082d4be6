// Read-only programs: one table entry per program, with the argument checks that keep it
// read-only written next to it (find without -exec/-delete, sed without -i or w/e commands, sort
// without -o, …). A check that finds a write or a command reports it and the program is not
// allowed; otherwise the verdict is `readonly.<program>`.
#include <algorithm>

#include "hook/classify/analyzer.h"
#include "hook/classify/paths.h"
#include "hook/classify/program_table.h"
#include "hook/classify/text.h"

namespace toolcage::classify::detail {

namespace {

// A check returns true while the invocation stays read-only; it reports whatever it found.
using Check = bool (*)(Analyzer&, Call&);

enum Flags : unsigned {
    kReadsFiles = 1,   // operands are files whose content it shows: secrets are refused
    kFilter = 2,       // copies stdin to stdout (pipe taint passes through)
    kPassThrough = 4,  // stdout is exactly stdin (cat, tee): known text stays known
};

struct ReadOnly {
    std::string_view name;
    Check check;
    unsigned flags;
};

Taint operands_taint(const Analyzer& an, const Call& c) {
    Taint t = Taint::none;
    for (const Value& a : c.args) t = std::max(t, an.file_taint(a, *c.scope));
    return t;
}

// ---- checks

bool check_find(Analyzer& a, Call& c) {
    size_t i = 0;
    while (i < c.argc() && (c.arg(i) == "-H" || c.arg(i) == "-L" || c.arg(i) == "-P" ||
                            c.arg(i).rfind("-O", 0) == 0 || c.arg(i) == "-D")) {
        i += c.arg(i) == "-D" ? 2 : 1;
    }
    std::vector<Value> starts;
    while (i < c.argc()) {
        const Value& v = c.args[i];
        if (!v.unknown && (v.text.empty() || v.text[0] == '-' || v.text == "(" || v.text == "!"))
            break;
        starts.push_back(v);
        ++i;
    }
    if (starts.empty()) starts.push_back(Value::literal("."));
    std::vector<std::string> names;
    bool filtered = false;
    bool negated = false;
    bool ro = true;
    std::vector<size_t> exec_at;
    std::vector<size_t> delete_at;
    for (; i < c.argc(); ++i) {
        const std::string& t = c.arg(i);
        if (t == "!" || t == "-not") {
            negated = true;
            continue;
        }
        if (t == "-name" || t == "-iname" || t == "-path" || t == "-ipath" || t == "-wholename" ||
            t == "-iwholename" || t == "-regex" || t == "-iregex" || t == "-lname" ||
            t == "-ilname") {
            if (i + 1 < c.argc() && !negated) {
                filtered = true;
                if (t == "-name" || t == "-iname" || t == "-path" || t == "-ipath" ||
                    t == "-wholename") {
                    names.push_back(c.arg(i + 1));
                }
            }
            ++i;
        } else if (t == "-newer" || t == "-mtime" || t == "-mmin" || t == "-atime" ||
                   t == "-amin" || t == "-ctime" || t == "-cmin" || t == "-size" || t == "-user" ||
                   t == "-group" || t == "-perm" || t == "-uid" || t == "-gid" || t == "-inum" ||
                   t == "-samefile" || t == "-newermt" || t == "-links") {
            if (!negated) filtered = true;
            ++i;
        } else if (t == "-empty" || t == "-nouser" || t == "-nogroup") {
            if (!negated) filtered = true;
        } else if (t == "-exec" || t == "-execdir" || t == "-ok" || t == "-okdir") {
            exec_at.push_back(i);
            while (i + 1 < c.argc() && c.arg(i + 1) != ";" && c.arg(i + 1) != "+") ++i;
            ++i;
        } else if (t == "-delete") {
            delete_at.push_back(i);
        } else if (t == "-fprint" || t == "-fprint0" || t == "-fls" || t == "-fprintf") {
            if (i + 1 < c.argc())
                a.check_write(c.args[i + 1], WriteMode::truncate, "find " + t, *c.scope);
            ro = false;
            i += t == "-fprintf" ? 2 : 1;
        } else if (t == "-maxdepth" || t == "-mindepth" || t == "-type" || t == "-xtype" ||
                   t == "-printf" || t == "-fstype" || t == "-used" || t == "-context") {
            ++i;
        }
        negated = false;
    }
    // Names are patterns for the basename, so the file found is <start>/…/<name>; -path
    // patterns already start with the start point.
    std::vector<Value> found = a.found_under(starts, names, filtered);
    for (size_t at : exec_at) {
        ro = false;
        size_t stop = at + 1;
        while (stop < c.argc() && c.arg(stop) != ";" && c.arg(stop) != "+") ++stop;
        bool placeholder = false;
        for (size_t k = at + 1; k < stop; ++k) {
            if (c.arg(k).find("{}") != std::string::npos) placeholder = true;
        }
        // The command runs once per found file: judge it with each pattern of what is found.
        for (const Value& f : found) {
            std::vector<Value> argv;
            for (size_t k = at + 1; k < stop; ++k)
                argv.push_back(substitute_placeholder(c.args[k], "{}", f));
            Call proto;
            proto.scope = c.scope;
            proto.elevated = c.elevated;
            proto.via = c.via;
            a.exec_argv(std::move(argv), proto);
            if (!placeholder) break;
        }
    }
    if (!delete_at.empty()) {
        ro = false;
        for (const Value& f : found) a.check_delete(f, true, "find -delete", c);
    }
    c.out.kind = Stream::Kind::paths;
    c.out.paths = found;
    return ro;
}

// GNU sed script scan: commands e (run), w/W (write), r/R (read) and the s/// flags e and w.
struct SedEffects {
    std::vector<std::string> runs;    // e command text ("" = pattern space as a command)
    std::vector<std::string> writes;  // w files
    std::vector<std::string> reads;   // r files
};

SedEffects scan_sed(std::string_view s) {
    SedEffects fx;
    size_t i = 0;
    auto skip_ws = [&] {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == ';' || s[i] == '\n')) ++i;
    };
    auto rest_of_line = [&] {
        size_t b = i;
        while (i < s.size() && s[i] != '\n') ++i;
        std::string r(s.substr(b, i - b));
        while (!r.empty() && r.front() == ' ') r.erase(r.begin());
        return r;
    };
    auto skip_delimited = [&](char d) {
        while (i < s.size() && s[i] != d) {
            if (s[i] == '\\') ++i;
            ++i;
        }
        if (i < s.size()) ++i;
    };
    while (i < s.size()) {
        skip_ws();
        if (i >= s.size()) break;
        // Addresses: numbers, $, /re/, \cREc, first~step, ranges, !
        for (int k = 0; k < 2; ++k) {
            if (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '$')) {
                while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) ||
                                        s[i] == '$' || s[i] == '~'))
                    ++i;
            } else if (i < s.size() && s[i] == '/') {
                ++i;
                skip_delimited('/');
                while (i < s.size() && (s[i] == 'I' || s[i] == 'M')) ++i;
            } else if (i + 1 < s.size() && s[i] == '\\') {
                char d = s[i + 1];
                i += 2;
                skip_delimited(d);
            }
            if (i < s.size() && s[i] == ',') {
                ++i;
                if (i < s.size() && s[i] == '+') ++i;
                continue;
            }
            break;
        }
        while (i < s.size() && (s[i] == ' ' || s[i] == '!')) ++i;
        if (i >= s.size()) break;
        char cmd = s[i++];
        switch (cmd) {
            case '{':
            case '}':
                break;
            case 's':
            case 'y': {
                if (i >= s.size()) break;
                char d = s[i++];
                skip_delimited(d);
                skip_delimited(d);
                if (cmd == 'y') break;
                while (i < s.size() && s[i] != ';' && s[i] != '\n' && s[i] != '}') {
                    char f = s[i];
                    if (f == 'e') fx.runs.emplace_back();
                    if (f == 'w') {
                        ++i;
                        fx.writes.push_back(rest_of_line());
                        break;
                    }
                    ++i;
                }
                break;
            }
            case 'e':
                fx.runs.push_back(rest_of_line());
                break;
            case 'w':
            case 'W':
                fx.writes.push_back(rest_of_line());
                break;
            case 'r':
            case 'R':
                fx.reads.push_back(rest_of_line());
                break;
            case 'a':
            case 'i':
            case 'c':
            case ':':
            case 'b':
            case 't':
            case 'T':
                rest_of_line();
                break;
            default:
                // p d n N q Q l = g G h H x D P z F and unknowns: nothing outside the stream.
                while (i < s.size() && s[i] != ';' && s[i] != '\n' && s[i] != '}') ++i;
        }
    }
    return fx;
}

bool check_sed(Analyzer& a, Call& c) {
    bool in_place = false;
    std::vector<std::string> scripts;
    bool script_file = false;
    std::vector<size_t> operands;
    for (size_t i = 0; i < c.argc(); ++i) {
        const Value& v = c.args[i];
        const std::string& t = v.text;
        if (!is_flag(v)) {
            operands.push_back(i);
            continue;
        }
        if (t == "--") {
            for (size_t k = i + 1; k < c.argc(); ++k) operands.push_back(k);
            break;
        }
        if (t.rfind("--in-place", 0) == 0) {
            in_place = true;
        } else if (t == "--expression" || t == "--file") {
            if (i + 1 < c.argc()) {
                if (t == "--file") {
                    script_file = true;
                } else {
                    scripts.push_back(c.arg(i + 1));
                }
                ++i;
            }
        } else if (t.rfind("--expression=", 0) == 0) {
            scripts.push_back(t.substr(13));
        } else if (t.rfind("--file=", 0) == 0) {
            script_file = true;
        } else if (t[1] != '-') {
            for (size_t k = 1; k < t.size(); ++k) {
                char f = t[k];
                if (f == 'i') {
                    in_place = true;  // -i[SUFFIX]: the rest is the suffix
                    break;
                }
                if (f == 'e' || f == 'f' || f == 'l') {
                    std::string val = t.substr(k + 1);
                    if (val.empty() && i + 1 < c.argc()) val = c.arg(++i);
                    if (f == 'e') scripts.push_back(val);
                    if (f == 'f') script_file = true;
                    break;
                }
            }
        }
    }
    if (scripts.empty() && !script_file && !operands.empty()) {
        scripts.push_back(c.arg(operands[0]));
        operands.erase(operands.begin());
    }
    bool ro = true;
    if (script_file) {
        a.hit(Decision::cage, "sed.script-file",
              "`sed -f` runs a script file that may write files or run commands");
        ro = false;
    }
    for (const std::string& s : scripts) {
        SedEffects fx = scan_sed(s);
        for (const std::string& r : fx.runs) {
            ro = false;
            a.hit(Decision::cage, "sed.runs-commands", "the sed script runs shell commands (e)");
            if (!r.empty()) {
                a.run_string(Value::literal(r), *c.scope, false, Stream(), "sed's e command");
            } else {
                // `e` alone and s///e run the pattern space: lines of the input, rewritten by
                // sed, as commands. That is a decoder feeding a shell.
                Call reader = c;
                a.shell_reads(Stream::unknown_data(std::max(c.in.taint, Taint::filtered)), *c.scope,
                              "sed's e (the pattern space as a command)", reader);
            }
        }
        for (const std::string& w : fx.writes) {
            ro = false;
            if (w == "/dev/stdout" || w == "/dev/stderr") continue;
            a.check_write(Value::literal(w), WriteMode::truncate, "sed's w command", *c.scope);
        }
        for (const std::string& r : fx.reads)
            a.check_read(Value::literal(r), "sed's r command", *c.scope);
    }
    if (in_place) {
        ro = false;
        for (size_t i : operands) a.check_write(c.args[i], WriteMode::replace, "sed -i", *c.scope);
        if (operands.empty()) a.hit(Decision::cage, "sed.in-place", "sed -i edits files in place");
    } else {
        for (size_t i : operands) a.check_read(c.args[i], "sed", *c.scope);
    }
    return ro;
}

// awk: system(), pipes to and from commands, and print redirections.
bool check_awk(Analyzer& a, Call& c) {
    Opts o = parse_opts(
        c.args, 0, "FvfiEe",
        {"--field-separator", "--assign", "--file", "--include", "--source", "--exec"}, false);
    bool ro = true;
    std::vector<std::string> programs;
    for (const std::string& s : o.values("-e")) programs.push_back(s);
    for (const std::string& s : o.values("--source")) programs.push_back(s);
    if (o.has("-f") || o.has("--file") || o.has("-E") || o.has("--exec")) {
        a.hit(Decision::cage, "awk.program-file",
              "awk runs a program file that may write files or run commands");
        ro = false;
    }
    for (const std::string& inc : o.values("-i")) {
        if (inc == "inplace") {
            ro = false;
            for (size_t k : o.operands)
                a.check_write(c.args[k], WriteMode::replace, "awk -i inplace", *c.scope);
        }
    }
    std::vector<size_t> files = o.operands;
    if (programs.empty() && !(o.has("-f") || o.has("--file")) && !files.empty()) {
        programs.push_back(c.arg(files[0]));
        files.erase(files.begin());
    }
    for (const std::string& p : programs) {
        // Outside string literals: system(, | (to or from a command), print … > file.
        std::string code;
        std::vector<std::string> strings;
        for (size_t i = 0; i < p.size(); ++i) {
            if (p[i] == '"') {
                std::string lit;
                ++i;
                while (i < p.size() && p[i] != '"') {
                    if (p[i] == '\\' && i + 1 < p.size()) ++i;
                    lit += p[i++];
                }
                strings.push_back(lit);
                code += '"';
                code += std::to_string(strings.size() - 1);
                code += '"';
                continue;
            }
            if (p[i] == '/') {
                // A regex literal: skip it so that `|` and `>` inside it do not count.
                size_t k = code.find_last_not_of(" \t");
                if (k == std::string::npos ||
                    std::string_view("({;,!~&|\n").find(code[k]) != std::string_view::npos) {
                    ++i;
                    while (i < p.size() && p[i] != '/') {
                        if (p[i] == '\\') ++i;
                        ++i;
                    }
                    code += "/re/";
                    continue;
                }
            }
            code += p[i];
        }
        auto literal_at = [&](size_t pos) -> std::optional<std::string> {
            while (pos < code.size() && (code[pos] == ' ' || code[pos] == '(')) ++pos;
            if (pos < code.size() && code[pos] == '"') {
                size_t e = code.find('"', pos + 1);
                size_t n = std::stoul(code.substr(pos + 1, e - pos - 1));
                if (n < strings.size()) return strings[n];
            }
            return std::nullopt;
        };
        // Where a literal ends in `code` ("3" -> the index after its closing quote).
        auto literal_end = [&](size_t pos) -> size_t {
            while (pos < code.size() && (code[pos] == ' ' || code[pos] == '(')) ++pos;
            if (pos >= code.size() || code[pos] != '"') return std::string::npos;
            size_t e = code.find('"', pos + 1);
            return e == std::string::npos ? e : e + 1;
        };
        // A command awk builds from its input (system($0), print | "sh") runs text a filter
        // made: a decoder into a shell.
        auto runs_input = [&](std::string_view how) {
            Call reader = c;
            a.shell_reads(Stream::unknown_data(std::max(c.in.taint, Taint::filtered)), *c.scope,
                          "awk's " + std::string(how), reader);
        };
        for (size_t pos = code.find("system"); pos != std::string::npos;
             pos = code.find("system", pos + 1)) {
            ro = false;
            a.hit(Decision::cage, "awk.runs-commands",
                  "the awk program runs shell commands (system)");
            if (auto s = literal_at(pos + 6)) {
                // "cmd " $1: a known command with data appended.
                size_t e = literal_end(pos + 6);
                size_t next = e == std::string::npos ? e : code.find_first_not_of(" ", e);
                Value v = Value::literal(*s);
                if (next != std::string::npos && code[next] != ')') {
                    v.text += kUnknown;
                    v.unknown = true;
                }
                a.run_string(v, *c.scope, false, Stream(), "awk's system()");
            } else {
                runs_input("system()");
            }
        }
        for (size_t pos = code.find('|'); pos != std::string::npos; pos = code.find('|', pos + 1)) {
            if (pos + 1 < code.size() && code[pos + 1] == '|') {
                ++pos;
                continue;
            }
            ro = false;
            a.hit(Decision::cage, "awk.runs-commands",
                  "the awk program pipes to or from a shell command");
            if (auto s = literal_at(pos + 1)) {
                std::vector<std::string> w = split_ws(*s);
                bool shell = !w.empty() && (basename_of(w[0]) == "sh" || basename_of(w[0]) == "bash" ||
                                            basename_of(w[0]) == "dash" || basename_of(w[0]) == "zsh" ||
                                            basename_of(w[0]) == "ksh" || basename_of(w[0]) == "ash") &&
                             (w.size() == 1 || w[1] == "-s" || w[1] == "-");
                if (!shell) {
                    a.run_string(Value::literal(*s), *c.scope, false, Stream(), "an awk pipe");
                } else {
                    // print "text" | "sh": the shell runs the text; anything else is input awk
                    // passed on.
                    size_t pr = code.rfind("print", pos);
                    size_t from = pr == std::string::npos ? pr : pr + (code.compare(pr, 6, "printf") == 0 ? 6 : 5);
                    size_t e = from == std::string::npos ? from : literal_end(from);
                    auto printed = from == std::string::npos ? std::nullopt : literal_at(from);
                    bool only = e != std::string::npos && code.find_first_not_of(" )", e) == pos;
                    if (printed && only) {
                        a.run_string(Value::literal(*printed), *c.scope, false, Stream(), "the text awk prints into a shell");
                    } else {
                        runs_input("print into a shell");
                    }
                }
            }
            // "cmd" | getline
            size_t q = code.rfind('"', pos);
            if (q != std::string::npos && q > 0) {
                size_t open = code.rfind('"', q - 1);
                if (open != std::string::npos) {
                    if (auto s = literal_at(open))
                        a.run_string(Value::literal(*s), *c.scope, false, Stream(), "an awk pipe");
                }
            }
        }
        for (size_t pos = code.find("print"); pos != std::string::npos;
             pos = code.find("print", pos + 1)) {
            int paren = 0;
            for (size_t k = pos; k < code.size(); ++k) {
                char ch = code[k];
                if (ch == '(') ++paren;
                if (ch == ')') --paren;
                if (ch == ';' || ch == '}' || ch == '\n') break;
                if (ch == '>' && paren <= 0) {
                    ro = false;
                    size_t t = k + 1;
                    WriteMode m = WriteMode::truncate;
                    if (t < code.size() && code[t] == '>') {
                        m = WriteMode::append;
                        ++t;
                    }
                    if (auto s = literal_at(t)) {
                        a.check_write(Value::literal(*s), m, "awk's print redirection", *c.scope);
                    } else {
                        a.hit(Decision::cage, "awk.writes-files",
                              "the awk program writes to a file named at run time");
                    }
                    break;
                }
            }
        }
    }
    for (size_t k : files) {
        if (c.arg(k).find('=') == std::string::npos) a.check_read(c.args[k], "awk", *c.scope);
    }
    return ro;
}

bool check_grep(Analyzer& a, Call& c) {
    Opts o = parse_opts(c.args, 0, "efABCmdD",
                        {"--regexp", "--file", "--after-context", "--before-context", "--context",
                         "--max-count", "--directories", "--devices", "--label", "--exclude",
                         "--include", "--exclude-dir", "--binary-files", "--color", "--colour"},
                        false);
    std::vector<size_t> files = o.operands;
    if (!o.has("-e") && !o.has("-f") && !o.has("--regexp") && !o.has("--file") && !files.empty())
        files.erase(files.begin());
    bool rec = o.has_any({"-r", "-R", "--recursive", "--dereference-recursive"});
    for (size_t k : files) a.check_read(c.args[k], c.name, *c.scope, rec);
    return true;
}

bool check_rg(Analyzer& a, Call& c) {
    Opts o = parse_opts(
        c.args, 0, "efgtTAmBCEjMrd",
        {"--regexp",       "--file",      "--glob",         "--iglob",         "--type",
         "--type-not",     "--pre",       "--pre-glob",     "--after-context", "--before-context",
         "--context",      "--max-count", "--encoding",     "--threads",       "--replace",
         "--max-depth",    "--type-add",  "--hostname-bin", "--sort",          "--sortr",
         "--max-filesize", "--colors",    "--color",        "--engine",        "--path-separator",
         "--ignore-file"},
        false);
    bool ro = true;
    std::vector<size_t> paths = o.operands;
    bool files_mode = o.has("--files");
    if (!files_mode && !o.has("-e") && !o.has("-f") && !o.has("--regexp") && !o.has("--file") &&
        !paths.empty()) {
        paths.erase(paths.begin());
    }
    std::vector<Value> starts;
    for (size_t k : paths) starts.push_back(c.args[k]);
    if (starts.empty()) starts.push_back(Value::literal("."));
    if (auto pre = o.value("--pre")) {
        ro = false;
        std::vector<std::string> names = o.values("--pre-glob");
        for (const std::string& g : o.values("-g")) names.push_back(g);
        for (const std::string& g : o.values("--glob")) names.push_back(g);
        bool filtered = !names.empty() || o.has("-t") || o.has("--type");
        std::vector<Value> found = a.found_under(starts, names, filtered);
        a.hit(Decision::cage, "rg.pre", "rg --pre runs `" + *pre + "` on every file it searches");
        for (const Value& f : found) {
            Call proto;
            proto.scope = c.scope;
            proto.elevated = c.elevated;
            a.exec_argv({Value::literal(*pre), f}, proto);
        }
    }
    if (o.has_any({"-z", "--search-zip"})) {
        ro = false;
        a.hit(Decision::cage, "rg.search-zip",
              "rg -z runs decompression programs on the files it searches");
    }
    if (o.has("--hostname-bin")) {
        ro = false;
        a.hit(Decision::cage, "rg.hostname-bin", "rg --hostname-bin runs a program");
    }
    for (const Value& s : starts) a.check_read(s, "rg", *c.scope, true);
    if (files_mode) {
        c.out.kind = Stream::Kind::paths;
        c.out.paths = a.found_under(starts, {}, true);
    }
    return ro;
}

bool check_fd(Analyzer& a, Call& c) {
    bool ro = true;
    std::vector<Value> pre;
    size_t exec_at = c.argc();
    for (size_t i = 0; i < c.argc(); ++i) {
        const std::string& t = c.arg(i);
        if (t == "-x" || t == "--exec" || t == "-X" || t == "--exec-batch") {
            exec_at = i;
            break;
        }
        pre.push_back(c.args[i]);
    }
    Opts o = parse_opts(
        pre, 0, "edtEScj",
        {"--extension", "--max-depth", "--type", "--exclude", "--size", "--changed-within",
         "--changed-before", "--threads", "--owner", "--base-directory"},
        false);
    std::vector<Value> starts;
    for (size_t k = 1; k < o.operands.size(); ++k) starts.push_back(pre[o.operands[k]]);
    if (starts.empty()) starts.push_back(Value::literal("."));
    bool filtered = !o.operands.empty() || o.has("-e") || o.has("--extension");
    std::vector<Value> found = a.found_under(starts, {}, filtered);
    if (exec_at < c.argc()) {
        ro = false;
        std::vector<Value> argv;
        bool placeholder = false;
        for (size_t k = exec_at + 1; k < c.argc() && c.arg(k) != ";"; ++k) {
            Value w = c.args[k];
            if (w.text.find("{}") != std::string::npos || w.text == "{/}" || w.text == "{//}" ||
                w.text == "{.}") {
                placeholder = true;
                w = found.empty() ? Value::unknown_value() : found[0];
            }
            argv.push_back(w);
        }
        if (!placeholder && !found.empty()) argv.push_back(found[0]);
        Call proto;
        proto.scope = c.scope;
        a.exec_argv(argv, proto);
    }
    c.out.kind = Stream::Kind::paths;
    c.out.paths = found;
    return ro;
}

bool check_sort(Analyzer& a, Call& c) {
    Opts o = parse_opts(c.args, 0, "kotSTy",
                        {"--key", "--output", "--field-separator", "--buffer-size",
                         "--temporary-directory", "--compress-program", "--files0-from",
                         "--parallel", "--batch-size", "--random-source", "--sort"},
                        false);
    bool ro = true;
    for (const char* n : {"-o", "--output"}) {
        for (const Opts::Flag& f : o.flags) {
            if (!(f.name == n || (std::string_view(n).size() > 2 && f.name.size() > 3 &&
                                  std::string_view(n).rfind(f.name, 0) == 0)))
                continue;
            Value target = f.value ? *f.value : Value::literal(f.inline_value);
            a.check_write(target, WriteMode::truncate, "sort -o", *c.scope);
            ro = false;
        }
    }
    if (o.has("--compress-program")) {
        ro = false;
        a.hit(Decision::cage, "sort.compress-program", "sort --compress-program runs a program");
    }
    for (size_t k : o.operands) a.check_read(c.args[k], "sort", *c.scope);
    return ro;
}

bool check_uniq(Analyzer& a, Call& c) {
    Opts o = parse_opts(
        c.args, 0, "fsw",
        {"--skip-fields", "--skip-chars", "--check-chars", "--group", "--all-repeated"}, false);
    if (o.operands.size() >= 2) {
        a.check_write(c.args[o.operands[1]], WriteMode::truncate, "uniq's output file", *c.scope);
        return false;
    }
    for (size_t k : o.operands) a.check_read(c.args[k], "uniq", *c.scope);
    return true;
}

bool check_tee(Analyzer& a, Call& c) {
    Opts o = parse_opts(c.args, 0, "", {"--output-error"}, false);
    bool append = o.has_any({"-a", "--append"});
    for (size_t k : o.operands) {
        a.check_write(c.args[k], append ? WriteMode::append : WriteMode::truncate, "tee", *c.scope);
        a.remember_taint(c.args[k], c.in.taint, *c.scope);
        a.remember_text(c.args[k],
                        !append && c.in.kind == Stream::Kind::literal ? &c.in.text : nullptr,
                        *c.scope);
    }
    c.out = c.in;
    return o.operands.empty();
}

bool check_output_option(Analyzer& a, Call& c, std::string_view short_opt,
                         std::string_view long_opt, std::string_view args_short,
                         std::initializer_list<std::string_view> args_long) {
    Opts o = parse_opts(c.args, 0, args_short, args_long, false);
    bool ro = true;
    for (const Opts::Flag& f : o.flags) {
        bool match = (!short_opt.empty() && f.name == short_opt) ||
                     (!long_opt.empty() && f.name.size() > 3 && long_opt.rfind(f.name, 0) == 0);
        if (!match) continue;
        Value target = f.value ? *f.value : Value::literal(f.inline_value);
        a.check_write(target, WriteMode::truncate, c.name + " " + f.name, *c.scope);
        ro = false;
    }
    return ro;
}

bool check_base64(Analyzer& a, Call& c) {
    Opts o = parse_opts(c.args, 0, "wio", {"--wrap", "--input", "--output"}, false);
    bool ro = check_output_option(a, c, "-o", "--output", "wio", {"--wrap", "--input", "--output"});
    bool decode = o.has_any({"-d", "-D", "--decode"});
    for (const std::string& in : o.values("-i")) a.check_read(Value::literal(in), c.name, *c.scope);
    for (size_t k : o.operands) a.check_read(c.args[k], c.name, *c.scope);
    if (decode) {
        if (o.operands.empty() && c.in.kind == Stream::Kind::literal) {
            std::optional<std::string> text =
                c.name == "base32" ? std::nullopt : base64_decode(c.in.text);
            c.out = text ? Stream::literal(*text, Taint::decoded)
                         : Stream::unknown_data(Taint::decoded);
        } else {
            c.out = Stream::unknown_data(std::max(Taint::decoded, c.in.taint));
        }
    } else {
        c.out = Stream::unknown_data(Taint::computed);
    }
    return ro;
}

bool check_xxd(Analyzer& a, Call& c) {
    Opts o = parse_opts(c.args, 0, "cglsonC", {}, false);
    bool reverse = o.has("-r") || o.has("-revert");
    if (o.operands.size() >= 2) {
        a.check_write(c.args[o.operands[1]], WriteMode::replace, "xxd's output file", *c.scope);
        return false;
    }
    for (size_t k : o.operands) a.check_read(c.args[k], "xxd", *c.scope);
    if (reverse) {
        if (o.operands.empty() && c.in.kind == Stream::Kind::literal && o.has("-p")) {
            auto text = hex_decode(c.in.text);
            c.out = text ? Stream::literal(*text, Taint::decoded)
                         : Stream::unknown_data(Taint::decoded);
        } else {
            c.out = Stream::unknown_data(Taint::decoded);
        }
    }
    return true;
}

bool check_date(Analyzer& a, Call& c) {
    Opts o =
        parse_opts(c.args, 0, "dfrsI",
                   {"--date", "--file", "--reference", "--set", "--iso-8601", "--rfc-3339"}, false);
    bool sets = o.has("-s") || o.has("--set");
    for (size_t k : o.operands) {
        if (c.arg(k).empty() || c.arg(k)[0] != '+') sets = true;
    }
    if (sets)
        a.hit(Decision::cage, "date.set", "date with a time operand or -s sets the system clock");
    return !sets;
}

bool check_hostname(Analyzer& a, Call& c) {
    Opts o = parse_opts(c.args, 0, "F", {"--file"}, false);
    if (!o.operands.empty() || o.has("-F") || o.has("--file")) {
        a.hit(Decision::cage, "hostname.set", "hostname with an operand sets the host name");
        return false;
    }
    return true;
}

bool check_tree(Analyzer& a, Call& c) {
    return check_output_option(a, c, "-o", "", "oLPIH", {"--filelimit"});
}
bool check_shuf(Analyzer& a, Call& c) {
    return check_output_option(a, c, "-o", "--output", "onir",
                               {"--output", "--head-count", "--input-range", "--random-source"});
}
bool check_iconv(Analyzer& a, Call& c) {
    return check_output_option(a, c, "-o", "--output", "oft",
                               {"--output", "--from-code", "--to-code"});
}

bool check_file(Analyzer& a, Call& c) {
    if (std::any_of(c.args.begin(), c.args.end(),
                    [](const Value& v) { return v.text == "-C" || v.text == "--compile"; })) {
        a.hit(Decision::cage, "file.compile", "file -C writes a compiled magic file");
        return false;
    }
    return true;
}

bool check_yq(Analyzer& a, Call& c) {
    Opts o = parse_opts(c.args, 0, "", {}, false);
    if (o.has("-i") || o.has("--inplace")) {
        for (size_t k : o.operands) {
            if (c.arg(k).find('/') != std::string::npos ||
                c.arg(k).find('.') != std::string::npos) {
                a.check_write(c.args[k], WriteMode::replace, "yq -i", *c.scope);
            }
        }
        a.hit(Decision::cage, "yq.in-place", "yq -i edits files in place");
        return false;
    }
    return true;
}

// A pager's start-up commands (less +CMD, ++CMD, the LESS variable): `!cmd` runs a shell
// command, `|` pipes to one, `s`/`o` save to a file. Anything else only moves or searches.
bool pager_commands(Analyzer& a, Call& c, const Value& cmds, std::string_view from) {
    std::string t = cmds.text;
    while (!t.empty() && t[0] == '+') t.erase(0, 1);
    size_t bang = t.find('!');
    size_t bar = t.find('|');
    if (bang == std::string::npos && bar == std::string::npos) return true;
    a.hit(Decision::cage, "pager.runs-commands", "`" + c.name + "` runs a shell command given in " + std::string(from));
    if (bang != std::string::npos && (bar == std::string::npos || bang < bar)) {
        Value code = cmds;
        code.text = t.substr(bang + 1);
        a.run_string(code, *c.scope, false, Stream(), "the `!` command of " + c.name);
    } else if (bar + 2 <= t.size()) {
        Value code = cmds;
        code.text = t.substr(bar + 2);  // |m: pipe to a command from mark m
        a.run_string(code, *c.scope, false, Stream(), "the `|` command of " + c.name);
    }
    return false;
}

// less, more, most, man, info, pager used as viewers are read-only; what makes them run a
// program is an option (+!cmd, -P/--pager, -H/--html, a lesskey file) or a variable set for
// them (LESSOPEN, PAGER, MANPAGER: check_env judges those as commands; LESS holds options).
bool check_pager(Analyzer& a, Call& c) {
    bool ro = true;
    bool is_man = c.name == "man";
    for (const auto& [name, value] : c.env) {
        if (name == "LESS" || name == "MORE") {
            // A + option takes the rest of the value (up to a `$`) as its command.
            const std::string& t = value.text;
            for (size_t p = 0; p < t.size(); ++p) {
                if (t[p] != '+' || (p > 0 && t[p - 1] != ' ')) continue;
                size_t end = t.find('$', p);
                Value cmd = value;
                cmd.text = t.substr(p, end == std::string::npos ? std::string::npos : end - p);
                ro = pager_commands(a, c, cmd, name) && ro;
                p = end == std::string::npos ? t.size() : end;
            }
            if (!value.known()) {
                a.hit(Decision::cage, "pager.runs-commands", name + " holds options known only at run time");
                ro = false;
            }
        }
        if (name == "LESSOPEN" || name == "LESSCLOSE" || name == "PAGER" || name == "MANPAGER" ||
            name == "BROWSER" || name == "LESSKEY" || name == "LESSKEYIN" || name == "MANOPT") {
            a.hit(Decision::cage, "pager.runs-commands", name + " makes `" + c.name + "` run a program");
            ro = false;
        }
    }
    for (size_t i = 0; i < c.argc(); ++i) {
        const Value& v = c.args[i];
        const std::string& t = v.text;
        if (!v.known() && !t.empty() && (t[0] == kUnknown || t[0] == '+' || t[0] == '-')) {
            a.hit(Decision::cage, "pager.runs-commands", "`" + c.name + "` gets options known only at run time");
            ro = false;
            continue;
        }
        if (!t.empty() && t[0] == '+' && !is_man) {
            ro = pager_commands(a, c, v, "+") && ro;
            continue;
        }
        if (is_man && (t == "-P" || t.rfind("--pager", 0) == 0 || t.rfind("-P", 0) == 0 || t.rfind("-H", 0) == 0 ||
                       t.rfind("--html", 0) == 0)) {
            // man -P PAGER / --pager=PAGER / -HBROWSER / --html=BROWSER: a command line.
            Value code = v;
            if (t == "-P" || t == "--pager") {
                if (i + 1 >= c.argc()) continue;
                code = c.args[++i];
            } else if (t.rfind("--", 0) == 0) {
                size_t eq = t.find('=');
                code.text = eq == std::string::npos ? std::string() : t.substr(eq + 1);
            } else {
                code.text = t.substr(2);
            }
            a.hit(Decision::cage, "pager.runs-commands", "`man " + t.substr(0, 2) + "` names a program to show the page with");
            ro = false;
            if (!code.text.empty()) a.run_string(code, *c.scope, false, Stream(), "the program `man` shows pages with");
            continue;
        }
        if (is_man && (t == "-C" || t.rfind("--config-file", 0) == 0 || t == "-p" || t == "-l" || t == "--local-file" ||
                       t == "-M" || t == "--manpath" || t == "-m" || t == "--systems")) {
            if (t == "-l" || t == "--local-file") continue;  // the operands are files it reads
            if (t == "-C" || t.rfind("--config-file", 0) == 0) {
                a.hit(Decision::cage, "pager.runs-commands", "`man -C` reads a configuration that names programs");
                ro = false;
            }
            if (t.find('=') == std::string::npos) ++i;  // the option's value
            continue;
        }
        if (!is_man && (t == "-k" || t.rfind("--lesskey", 0) == 0 || t == "-o" || t == "-O" ||
                        t.rfind("--log-file", 0) == 0 || t.rfind("--LOG-FILE", 0) == 0 || t.rfind("-k", 0) == 0 ||
                        t.rfind("-o", 0) == 0 || t.rfind("-O", 0) == 0)) {
            bool log = t.rfind("-o", 0) == 0 || t.rfind("-O", 0) == 0 || t.rfind("--log", 0) == 0 || t.rfind("--LOG", 0) == 0;
            Value file = v;
            if (t.size() > 2 && t[1] != '-') {
                file.text = t.substr(2);
            } else if (t.find('=') != std::string::npos) {
                file.text = t.substr(t.find('=') + 1);
            } else if (i + 1 < c.argc()) {
                file = c.args[++i];
            }
            if (log) {
                a.check_write(file, WriteMode::truncate, c.name + " " + t.substr(0, 2), *c.scope);
            } else {
                a.hit(Decision::cage, "pager.runs-commands", "a lesskey file can bind keys to shell commands");
            }
            ro = false;
            continue;
        }
        if (!is_flag(v)) a.check_read(v, c.name, *c.scope);
    }
    return ro;
}

bool check_ip(Analyzer& a, Call& c) {
    std::vector<std::string> words;
    for (size_t i = 0; i < c.argc(); ++i) {
        const std::string& t = c.arg(i);
        if (is_flag(c.args[i])) {
            if (t == "-n" || t == "-netns" || t == "-b" || t == "-batch" || t == "-rc" ||
                t == "-f" || t == "-family")
                ++i;
            if (t == "-b" || t == "-batch" || t == "-n" || t == "-netns") {
                a.hit(Decision::cage, "ip.changes-network",
                      "ip " + t + " can change network settings");
                return false;
            }
            continue;
        }
        words.push_back(t);
    }
    if (words.size() < 2) return true;
    static const std::string_view kRead[] = {"show", "list", "ls", "lst", "get",
                                             "help", "sh",   "s",  "l"};
    if (std::find(std::begin(kRead), std::end(kRead), words[1]) != std::end(kRead)) return true;
    if (words.size() >= 2 && (words[0] == "monitor" || words[0] == "mon")) return true;
    a.hit(Decision::cage, "ip.changes-network",
          "`ip " + words[0] + " " + words[1] + "` changes network settings");
    return false;
}

bool check_ifconfig(Analyzer& a, Call& c) {
    size_t operands = 0;
    for (const Value& v : c.args) {
        if (!is_flag(v)) ++operands;
    }
    if (operands > 1) {
        a.hit(Decision::cage, "ip.changes-network",
              "ifconfig with settings changes network interfaces");
        return false;
    }
    return true;
}

bool check_journalctl(Analyzer& a, Call& c) {
    for (const Value& v : c.args) {
        if (v.text.rfind("--vacuum", 0) == 0 || v.text == "--rotate" || v.text == "--flush" ||
            v.text == "--relinquish-var") {
            a.hit(Decision::cage, "journalctl.maintenance",
                  "journalctl " + v.text + " changes the system journal");
            return false;
        }
    }
    return true;
}

bool check_dmesg(Analyzer& a, Call& c) {
    for (const Value& v : c.args) {
        if (v.text == "-c" || v.text == "-C" || v.text == "--clear" || v.text == "--read-clear") {
            a.hit(Decision::cage, "dmesg.clear", "dmesg -c clears the kernel log");
            return false;
        }
    }
    return true;
}

bool check_reads(Analyzer& a, Call& c) {
    for (const Value& v : c.args) {
        if (!is_flag(v)) a.check_read(v, c.name, *c.scope);
    }
    return true;
}

// ---- programs whose output we can compute

bool run_echo(Analyzer&, Call& c) {
    size_t i = 0;
    bool newline = true, escapes = false;
    while (i < c.argc() && c.args[i].known() && c.arg(i).size() > 1 && c.arg(i)[0] == '-' &&
           c.arg(i).find_first_not_of("neE", 1) == std::string::npos) {
        for (char f : c.arg(i).substr(1)) {
            if (f == 'n') newline = false;
            if (f == 'e') escapes = true;
            if (f == 'E') escapes = false;
        }
        ++i;
    }
    Value v = join_values(c.args, i, " ");
    if (!v.known()) {
        c.out = Stream::unknown_data(v.taint);
        return true;
    }
    std::string text = escapes ? echo_escapes(v.text) : v.text;
    if (newline) text += '\n';
    c.out = Stream::literal(std::move(text), v.taint);
    return true;
}

bool run_printf(Analyzer& a, Call& c) {
    size_t i = 0;
    std::string var;
    if (i < c.argc() && c.arg(i) == "-v" && i + 1 < c.argc()) {
        var = c.arg(i + 1);
        i += 2;
    }
    if (i < c.argc() && c.arg(i) == "--") ++i;
    if (i >= c.argc()) return true;
    bool known = true;
    Taint taint = Taint::computed;
    std::vector<std::string> args;
    for (size_t k = i + 1; k < c.argc(); ++k) {
        known = known && c.args[k].known();
        taint = std::max(taint, c.args[k].taint);
        args.push_back(c.arg(k));
    }
    known = known && c.args[i].known();
    Stream out = known ? Stream::literal(printf_emulate(c.arg(i), args), taint)
                       : Stream::unknown_data(taint);
    if (!var.empty()) {
        Value v = known ? Value::literal(out.text) : Value::unknown_value();
        v.taint = taint;
        a.assign(*c.scope, var, v);
        c.out = Stream();
    } else {
        c.out = out;
    }
    return true;
}

bool run_cat(Analyzer& a, Call& c) {
    Opts o = parse_opts(c.args, 0, "", {}, false);
    for (size_t k : o.operands) a.check_read(c.args[k], c.name, *c.scope);
    if (o.operands.empty() || (o.operands.size() == 1 && c.arg(o.operands[0]) == "-")) {
        c.out = c.in;
        if (c.out.kind == Stream::Kind::none) c.out = Stream::unknown_data();
    } else if (o.operands.size() == 1 && c.args[o.operands[0]].procsub) {
        c.out = *c.args[o.operands[0]].procsub;
    } else {
        c.out = Stream::unknown_data(operands_taint(a, c));
    }
    return true;
}

bool run_pwd(Analyzer&, Call& c) {
    if (c.scope->cwd_known) c.out = Stream::literal(c.scope->cwd + "\n");
    return true;
}

bool run_ls(Analyzer& a, Call& c) {
    Opts o = parse_opts(
        c.args, 0, "IwT",
        {"--ignore", "--hide", "--width", "--tabsize", "--format", "--sort", "--time",
         "--time-style", "--color", "--quoting-style", "--indicator-style", "--block-size"},
        false);
    c.out.kind = Stream::Kind::paths;
    c.out.paths.clear();
    bool rec = o.has_any({"-R", "--recursive"});
    for (size_t k : o.operands) {
        Value v = c.args[k];
        if (rec) a.check_read(v, "ls -R", *c.scope, false);
        if (v.glob) {
            c.out.paths.push_back(v);
        } else {
            Value all = v;
            all.text += "/*";
            all.glob = true;
            c.out.paths.push_back(all);
        }
    }
    if (o.operands.empty()) {
        Value all = Value::literal("./*");
        all.glob = true;
        c.out.paths.push_back(all);
    }
    return true;
}

bool run_dirname_like(Analyzer&, Call& c) {
    std::vector<Value> ops;
    for (const Value& v : c.args) {
        if (!is_flag(v)) ops.push_back(v);
    }
    if (ops.size() != 1 || !ops[0].known()) return true;
    std::string t = ops[0].text;
    if (c.name == "basename") {
        c.out = Stream::literal(std::string(basename_of(t)) + "\n", Taint::computed);
    } else if (c.name == "dirname") {
        while (t.size() > 1 && t.back() == '/') t.pop_back();
        size_t s = t.rfind('/');
        std::string d = s == std::string::npos ? "." : (s == 0 ? "/" : t.substr(0, s));
        c.out = Stream::literal(d + "\n", Taint::computed);
    } else if (c.scope->cwd_known || (!t.empty() && t[0] == '/')) {
        std::string abs = !t.empty() && t[0] == '/' ? t : c.scope->cwd + "/" + t;
        c.out = Stream::literal(normalize_path(abs) + "\n", Taint::computed);
    }
    return true;
}

bool run_mktemp(Analyzer& a, Call& c) {
    Opts o = parse_opts(c.args, 0, "p", {"--tmpdir", "--suffix"}, false);
    std::string dir = a.ctx().tmp;
    bool tmpdir = o.has("-t") || o.has("-p") || o.has("--tmpdir");
    if (auto p = o.value("-p")) dir = *p;
    if (auto p = o.value("--tmpdir"); p && !p->empty()) dir = *p;
    Value v;
    if (!o.operands.empty() && !tmpdir) {
        const Value& tmpl = c.args[o.operands[0]];
        v = tmpl;
        size_t x = v.text.find("XXX");
        if (x != std::string::npos) v.text = v.text.substr(0, x);
        v.text += kUnknown;
    } else {
        v.text = dir + "/tmp." + std::string(1, kUnknown);
    }
    v.unknown = true;
    v.guarded = true;
    v.taint = Taint::computed;
    std::vector<PathInfo> where = a.resolve(v, *c.scope);
    bool temp = !where.empty() && where[0].cls == PathClass::temp;
    a.hit(Decision::cage, "mktemp.creates",
          std::string("mktemp creates a file") + (temp ? " in a temp directory" : ""));
    c.out.kind = Stream::Kind::paths;
    c.out.paths = {v};
    return false;
}

bool run_seq(Analyzer&, Call& c) {
    c.out = Stream::unknown_data(Taint::computed);
    return true;
}

// The table. Programs not here (and not in the other tables) are unknown: caged.
constexpr auto kReadOnly = sorted_by_name(std::to_array<ReadOnly>({
    {"ls", run_ls, 0},
    {"dir", run_ls, 0},
    {"vdir", run_ls, 0},
    {"cat", run_cat, kReadsFiles | kFilter | kPassThrough},
    {"tac", check_reads, kFilter},
    {"head", check_reads, kFilter},
    {"tail", check_reads, kFilter},
    {"wc", check_reads, kFilter},
    {"cut", check_reads, kFilter},
    {"tr", nullptr, kFilter},
    {"uniq", check_uniq, kFilter},
    {"sort", check_sort, kFilter},
    {"nl", check_reads, kFilter},
    {"fold", check_reads, kFilter},
    {"fmt", check_reads, kFilter},
    {"paste", check_reads, kFilter},
    {"join", check_reads, kFilter},
    {"comm", check_reads, kFilter},
    {"column", check_reads, kFilter},
    {"rev", check_reads, kFilter},
    {"expand", check_reads, kFilter},
    {"unexpand", check_reads, kFilter},
    {"od", check_reads, kFilter},
    {"hexdump", check_reads, kFilter},
    {"strings", check_reads, kFilter},
    {"xxd", check_xxd, kFilter},
    {"base64", check_base64, 0},
    {"base32", check_base64, 0},
    {"basenc", check_base64, 0},
    {"grep", check_grep, kFilter},
    {"egrep", check_grep, kFilter},
    {"fgrep", check_grep, kFilter},
    {"rgrep", check_grep, kFilter},
    {"zgrep", check_grep, kFilter},
    {"rg", check_rg, kFilter},
    {"ag", check_reads, kFilter},
    {"ack", check_reads, kFilter},
    {"fd", check_fd, 0},
    {"fdfind", check_fd, 0},
    {"find", check_find, 0},
    {"sed", check_sed, kFilter},
    {"awk", check_awk, kFilter},
    {"gawk", check_awk, kFilter},
    {"mawk", check_awk, kFilter},
    {"nawk", check_awk, kFilter},
    {"tee", check_tee, kFilter | kPassThrough},
    {"diff", check_reads, 0},
    {"cmp", check_reads, 0},
    {"colordiff", check_reads, 0},
    {"sdiff", check_reads, 0},
    {"md5sum", check_reads, 0},
    {"sha1sum", check_reads, 0},
    {"sha224sum", check_reads, 0},
    {"sha256sum", check_reads, 0},
    {"sha384sum", check_reads, 0},
    {"sha512sum", check_reads, 0},
    {"b2sum", check_reads, 0},
    {"cksum", check_reads, 0},
    {"sum", check_reads, 0},
    {"zcat", check_reads, 0},
    {"bzcat", check_reads, 0},
    {"xzcat", check_reads, 0},
    {"zstdcat", check_reads, 0},
    {"jq", check_reads, kFilter},
    {"yq", check_yq, kFilter},
    {"numfmt", nullptr, kFilter},
    {"shuf", check_shuf, kFilter},
    {"iconv", check_iconv, kFilter},
    {"tsort", nullptr, kFilter},
    {"less", check_pager, 0},
    {"more", check_pager, 0},
    {"most", check_pager, 0},
    {"man", check_pager, 0},
    {"info", check_pager, 0},
    {"pager", check_pager, 0},
    {"echo", run_echo, 0},
    {"printf", run_printf, 0},
    {"pwd", run_pwd, 0},
    {"basename", run_dirname_like, 0},
    {"dirname", run_dirname_like, 0},
    {"realpath", run_dirname_like, 0},
    {"readlink", nullptr, 0},
    {"mktemp", run_mktemp, 0},
    {"seq", run_seq, 0},
    {"true", nullptr, 0},
    {"false", nullptr, 0},
    {":", nullptr, 0},
    {"test", nullptr, 0},
    {"[", nullptr, 0},
    {"which", nullptr, 0},
    {"whereis", nullptr, 0},
    {"type", nullptr, 0},
    {"stat", nullptr, 0},
    {"file", check_file, 0},
    {"du", nullptr, 0},
    {"df", nullptr, 0},
    {"ps", nullptr, 0},
    {"pgrep", nullptr, 0},
    {"pidof", nullptr, 0},
    {"id", nullptr, 0},
    {"whoami", nullptr, 0},
    {"groups", nullptr, 0},
    {"hostname", check_hostname, 0},
    {"uname", nullptr, 0},
    {"uptime", nullptr, 0},
    {"date", check_date, 0},
    {"cal", nullptr, 0},
    {"nproc", nullptr, 0},
    {"arch", nullptr, 0},
    {"tty", nullptr, 0},
    {"locale", nullptr, 0},
    {"printenv", nullptr, 0},
    {"sleep", nullptr, 0},
    {"yes", nullptr, 0},
    {"expr", nullptr, 0},
    {"factor", nullptr, 0},
    {"bc", nullptr, kFilter},
    {"tree", check_tree, 0},
    {"lsblk", nullptr, 0},
    {"lscpu", nullptr, 0},
    {"lsusb", nullptr, 0},
    {"lspci", nullptr, 0},
    {"lsmod", nullptr, 0},
    {"lsof", nullptr, 0},
    {"lsattr", nullptr, 0},
    {"getfacl", nullptr, 0},
    {"namei", nullptr, 0},
    {"free", nullptr, 0},
    {"vmstat", nullptr, 0},
    {"iostat", nullptr, 0},
    {"mpstat", nullptr, 0},
    {"netstat", nullptr, 0},
    {"ss", nullptr, 0},
    {"ip", check_ip, 0},
    {"ifconfig", check_ifconfig, 0},
    {"getent", nullptr, 0},
    {"w", nullptr, 0},
    {"who", nullptr, 0},
    {"last", nullptr, 0},
    {"lastlog", nullptr, 0},
    {"users", nullptr, 0},
    {"nm", nullptr, 0},
    {"objdump", nullptr, 0},
    {"readelf", nullptr, 0},
    {"size", nullptr, 0},
    {"lsb_release", nullptr, 0},
    {"journalctl", check_journalctl, 0},
    {"dmesg", check_dmesg, 0},
    {"dig", nullptr, 0},
    {"nslookup", nullptr, 0},
    {"host", nullptr, 0},
    {"ping", nullptr, 0},
    {"clear", nullptr, 0},
    {"tput", nullptr, 0},
    {"stty", nullptr, 0},
    {"top", nullptr, 0},
    {"htop", nullptr, 0},
    {"pstree", nullptr, 0},
    {"tldr", nullptr, 0},
    {"apropos", nullptr, 0},
    {"whatis", nullptr, 0},
    {"look", nullptr, 0},
    {"ldconfig", nullptr, 0},
}));

const ReadOnly* find_readonly(std::string_view name) {
    return find_by_name<ReadOnly>(kReadOnly, name);
}

void readonly_dispatch(Analyzer& a, Call& c) {
    const ReadOnly* r = find_readonly(c.name);
    if (!r) {
        a.hit(Decision::cage, "unknown.program", "`" + c.name + "` is not known to be read-only");
        return;
    }
    if (r->flags & kFilter) {
        // A filter that changes its input is a decoder: what it writes is code nobody has read.
        c.out = (r->flags & kPassThrough) && c.in.kind == Stream::Kind::literal
                    ? c.in
                    : Stream::unknown_data((r->flags & kPassThrough) ? c.in.taint
                                                                     : std::max(c.in.taint, Taint::filtered));
    }
    bool ro = r->check ? r->check(a, c) : true;
    if ((r->flags & kReadsFiles) && r->check != run_cat) check_reads(a, c);
    if (ro)
        a.hit(Decision::allow, "readonly." + std::string(r->name), "`" + c.name + "` only reads");
}

}  // namespace

Handler readonly_handler(std::string_view name) {
    return find_readonly(name) ? readonly_dispatch : nullptr;
}

void readonly_rule_ids(std::vector<std::string>& out) {
    for (const ReadOnly& r : kReadOnly) out.push_back("readonly." + std::string(r.name));
}

std::vector<Value> Analyzer::found_under(const std::vector<Value>& starts,
                                         const std::vector<std::string>& names,
                                         bool filtered) const {
    std::vector<Value> out;
    for (const Value& s : starts) {
        std::string base = s.text;
        while (base.size() > 1 && base.back() == '/') base.pop_back();
        if (!names.empty()) {
            for (const std::string& n : names) {
                Value v = s;
                if (n.find('/') != std::string::npos) {
                    v.text = n.rfind(base, 0) == 0 ? n : base + "/" + n;
                } else {
                    v.text = base + "/" + n;
                }
                v.glob = has_glob_chars(n);
                v.taint = Taint::computed;
                out.push_back(v);
            }
        } else if (filtered) {
            Value v = s;
            v.text = base + "/" + std::string(1, kUnknown);
            v.unknown = true;
            v.guarded = true;
            v.taint = Taint::computed;
            out.push_back(v);
        } else {
            // Everything below the start, and the start itself.
            Value self = s;
            self.taint = Taint::computed;
            out.push_back(self);
            Value all = s;
            all.text = base + "/*";
            all.glob = true;
            all.taint = Taint::computed;
            out.push_back(all);
        }
    }
    return out;
}

}  // namespace toolcage::classify::detail
