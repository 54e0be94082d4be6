// Shells: `bash -c STRING` is judged by parsing STRING (recursively, with a depth bound);
// `sh -s` and a shell without a script read their script from stdin, which pipes.cpp judges
// by where it came from; `bash FILE` runs a script file (caged, refused if just downloaded).
#include <algorithm>

#include "hook/classify/analyzer.h"
#include "hook/classify/program_table.h"
#include "hook/classify/text.h"

namespace toolcage::classify::detail {

namespace {

void shell_program(Analyzer& a, Call& c) {
    bool has_c = false, has_s = false, no_exec = false;
    size_t i = 0;
    for (; i < c.argc(); ++i) {
        const Value& v = c.args[i];
        const std::string& t = v.text;
        if (v.unknown || t.empty() || (t[0] != '-' && t[0] != '+') || t == "-") {
            if (t == "-") ++i;
            break;
        }
        if (t == "--") {
            ++i;
            break;
        }
        if (t.rfind("--", 0) == 0) {
            if (t == "--rcfile" || t == "--init-file") ++i;
            continue;
        }
        for (size_t k = 1; k < t.size(); ++k) {
            char f = t[k];
            if (f == 'c') has_c = true;
            if (f == 's') has_s = true;
            if (f == 'n' && t[0] == '-') no_exec = true;
            if (f == 'o' || f == 'O') ++i;
        }
    }
    std::string shell = c.via + c.name;
    if (no_exec) {
        a.hit(Decision::allow, "shell.syntax-check", "`" + c.name + " -n` only checks syntax");
        return;
    }
    if (has_c) {
        if (i >= c.argc()) {
            a.hit(Decision::cage, "shell.exec", "`" + shell + " -c` without a command string");
            return;
        }
        Scope copy = a.copy_scope(*c.scope);
        copy.positional.assign(c.args.begin() + static_cast<long>(std::min(i + 2, c.argc())),
                               c.args.end());
        copy.positional_known = true;
        if (i + 1 < c.argc()) copy.arg0 = c.args[i + 1];
        copy.functions.clear();  // a new shell: functions are not inherited (unless exported)
        c.out = a.run_string(c.args[i], copy, true, c.in, "`" + shell + " -c`");
        return;
    }
    if (has_s || i >= c.argc()) {
        a.shell_reads(c.in, *c.scope, shell, c);
        return;
    }
    const Value& script = c.args[i];
    if (script.procsub) {
        a.shell_reads(*script.procsub, *c.scope, shell, c);
        return;
    }
    if (a.refuse_tainted_script(script, *c.scope, "`" + shell + "`")) return;
    if (a.run_known_script(script, c, "shell")) return;
    if (script.known() && (script.text == "/dev/stdin" || script.text == "/proc/self/fd/0" ||
                           script.text == "/dev/fd/0")) {
        a.shell_reads(c.in, *c.scope, shell, c);
        return;
    }
    a.hit(Decision::cage, "shell.script",
          "`" + shell + " " + script.shown() + "` runs a script file");
}

}  // namespace

namespace {
constexpr auto kShellPrograms =
    sorted_by_name(std::to_array<ProgramEntry>({{"sh", shell_program},
                                                {"bash", shell_program},
                                                {"dash", shell_program},
                                                {"zsh", shell_program},
                                                {"ksh", shell_program},
                                                {"mksh", shell_program},
                                                {"ash", shell_program},
                                                {"fish", shell_program},
                                                {"csh", shell_program},
                                                {"tcsh", shell_program},
                                                {"yash", shell_program},
                                                {"rbash", shell_program},
                                                {"posh", shell_program},
                                                {"oksh", shell_program}}));
}  // namespace

std::span<const ProgramEntry> shell_programs() {
    return kShellPrograms;
}

}  // namespace toolcage::classify::detail
