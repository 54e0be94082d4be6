// The tree walk: every list, pipeline, compound body, function and substitution is visited in
// the order bash runs it, with the shell state (cwd, variables, functions) carried sequentially
// and copied where bash forks (subshells, pipeline members, substitutions, background jobs).
#include <algorithm>
#include <string>

#include "hook/classify/analyzer.h"
#include "hook/classify/paths.h"
#include "hook/classify/text.h"

namespace toolcage::classify::detail {

namespace {

constexpr int kMaxStringDepth = 6;  // bash -c inside eval inside sh -c …: deeper is an attack
constexpr size_t kMaxLoopItems = 16;

}  // namespace

Stream Analyzer::join_output(Stream a, const Stream& b) {
    spend_bytes(b.text.size() + b.paths.size());
    if (a.kind == Stream::Kind::none) return b;
    if (b.kind == Stream::Kind::none) return a;
    if (a.kind == Stream::Kind::literal && b.kind == Stream::Kind::literal) {
        a.text += b.text;
        a.taint = std::max(a.taint, b.taint);
        return a;
    }
    if (a.kind == Stream::Kind::paths && b.kind == Stream::Kind::paths) {
        a.paths.insert(a.paths.end(), b.paths.begin(), b.paths.end());
        return a;
    }
    return Stream::unknown_data(std::max(a.taint, b.taint));
}

namespace {

// A subshell's shell state is lost when it ends; what it did to files is not.
void keep_file_effects(Scope& into, const Scope& from) {
    for (size_t i = 0; i < from.tainted_files.size(); ++i) {
        if (std::find(into.tainted_files.begin(), into.tainted_files.end(), from.tainted_files[i]) == into.tainted_files.end()) {
            into.tainted_files.push_back(from.tainted_files[i]);
        }
    }
    for (const auto& l : from.links) {
        if (std::find(into.links.begin(), into.links.end(), l) == into.links.end()) into.links.push_back(l);
    }
    into.file_texts = from.file_texts;
}

bool same_value(const Value& a, const Value& b) {
    return a.text == b.text && a.unknown == b.unknown && a.glob == b.glob && a.guarded == b.guarded &&
           a.alt_unknown == b.alt_unknown;
}

}  // namespace

Stream Analyzer::walk_script(const shell::Script& s, Scope& scope, const Stream& in) {
    Stream out;
    for (const shell::ListItem& item : s.items) {
        if (item.background) {
            Scope copy = copy_scope(scope);
            out = join_output(std::move(out), walk_and_or(item.and_or, copy, in, true));
            keep_file_effects(scope, copy);
        } else {
            out = join_output(std::move(out), walk_and_or(item.and_or, scope, in, false));
        }
    }
    return out;
}

Stream Analyzer::walk_and_or(const shell::AndOr& ao, Scope& scope, const Stream& in, bool background) {
    Stream out;
    for (const shell::Pipeline& p : ao.pipelines) {
        out = join_output(std::move(out), walk_pipeline(p, scope, in, background));
    }
    return out;
}

Stream Analyzer::walk_pipeline(const shell::Pipeline& p, Scope& scope, const Stream& in, bool background) {
    if (p.commands.size() == 1) return walk_command(p.commands[0], scope, in, false, background);
    Stream cur = in;
    for (const shell::Command& c : p.commands) {
        Scope copy = copy_scope(scope);  // every member of a pipeline runs in a subshell
        cur = walk_command(c, copy, cur, true, background);
        keep_file_effects(scope, copy);
    }
    return cur;
}

void Analyzer::merge_branches(Scope& into, const std::vector<Scope>& branches) {
    if (branches.empty()) return;
    const Scope& first = branches[0];
    bool all_known = true;
    bool all_guarded = true;
    std::vector<std::string> cwds;
    for (const Scope& b : branches) {
        if (!b.cwd_known) {
            all_known = false;
            if (!b.cwd_guarded) all_guarded = false;
            continue;
        }
        // Past five the cwd is not known anyway: no need to gather (and compare) more.
        if (cwds.size() > 4) continue;
        for (const std::string* d : {&b.cwd}) {
            if (std::find(cwds.begin(), cwds.end(), *d) == cwds.end()) cwds.push_back(*d);
        }
        for (const std::string& d : b.alt_cwds) {
            if (std::find(cwds.begin(), cwds.end(), d) == cwds.end()) cwds.push_back(d);
        }
    }
    if (all_known && !cwds.empty() && cwds.size() <= 4) {
        // Which one is decided at run time: keep them all, paths are judged from each.
        into.cwd = cwds[0];
        into.cwd_known = true;
        into.cwd_guarded = false;
        into.alt_cwds.assign(cwds.begin() + 1, cwds.end());
    } else {
        into.cwd_known = false;
        into.cwd_guarded = all_known || all_guarded;
        into.alt_cwds.clear();
    }
    std::map<std::string, Value, std::less<>> vars;
    for (const Scope& b : branches) {
        for (const auto& [name, v] : b.vars) {
            if (vars.count(name)) continue;
            bool agree = true;
            for (const Scope& o : branches) {
                auto it = o.vars.find(name);
                if (it == o.vars.end() || !same_value(it->second, v)) agree = false;
            }
            vars.emplace(name, agree ? v : Value::unknown_value());
        }
    }
    into.vars = std::move(vars);
    for (const Scope& b : branches) {
        for (const auto& f : b.functions) into.functions.insert(f);
        for (const auto& arr : b.arrays) into.arrays.insert(arr);
        for (const auto& al : b.aliases) into.aliases.insert(al);
        into.path_untrusted = into.path_untrusted || b.path_untrusted;
        for (const auto& r : b.tainted_files) into.tainted_files.push_back(r);
        for (const auto& l : b.links) into.links.push_back(l);
        for (const auto& t : b.file_texts) into.file_texts.push_back(t);
    }
    into.dirstack = first.dirstack;
}

Stream Analyzer::walk_command(const shell::Command& c, Scope& scope, const Stream& in, bool in_pipeline,
                              bool background) {
    using K = shell::Command::Kind;
    if (c.kind == K::simple) return walk_simple(c, scope, in, in_pipeline, background);
    spend_command();
    Stream body_in = in;
    std::vector<std::pair<std::string, bool>> out_files;
    bool to_file = false;
    if (c.kind != K::function_def) {
        to_file = apply_redirects(c.redirects, scope, body_in, &out_files);
    }
    Stream out;
    switch (c.kind) {
        case K::simple: break;
        case K::subshell: {
            Scope copy = copy_scope(scope);
            for (const shell::Script& b : c.bodies) out = walk_script(b, copy, body_in);
            keep_file_effects(scope, copy);
            break;
        }
        case K::group:
            for (const shell::Script& b : c.bodies) out = walk_script(b, scope, body_in);
            break;
        case K::if_clause: {
            // bodies: cond, then, [elif-cond, elif-then]…, [else]
            std::vector<Scope> ends;
            size_t i = 0;
            while (i + 1 < c.bodies.size()) {
                out = join_output(std::move(out), walk_script(c.bodies[i], scope, body_in));
                Scope branch = copy_scope(scope);
                out = join_output(std::move(out), walk_script(c.bodies[i + 1], branch, body_in));
                ends.push_back(std::move(branch));
                i += 2;
            }
            if (i < c.bodies.size()) {
                Scope branch = copy_scope(scope);
                out = join_output(std::move(out), walk_script(c.bodies[i], branch, body_in));
                ends.push_back(std::move(branch));
            } else {
                ends.push_back(scope);  // no branch taken
            }
            merge_branches(scope, ends);
            break;
        }
        case K::while_loop:
        case K::until_loop:
        case K::arith_for: {
            if (c.kind == K::arith_for) {
                for (const shell::Word& w : c.words) {
                    expand_single(w, scope);
                    check_arithmetic(w.raw, scope);
                }
            }
            for (int round = 0; round < 2; ++round) {
                Scope start = copy_scope(scope);
                for (size_t b = 0; b < c.bodies.size(); ++b) out = join_output(std::move(out), walk_script(c.bodies[b], scope, body_in));
                bool changed = start.cwd != scope.cwd || start.cwd_known != scope.cwd_known ||
                               start.alt_cwds != scope.alt_cwds ||
                               start.vars.size() != scope.vars.size();
                merge_branches(scope, {start, scope});
                if (!changed) break;
            }
            break;
        }
        case K::for_loop:
        case K::select_loop: {
            std::vector<Value> items;
            bool items_known = true;
            if (c.words.empty()) {
                items = scope.positional;
                items_known = scope.positional_known;
            } else {
                items = expand_words(c.words, scope);
            }
            if (items_known && !items.empty() && items.size() <= kMaxLoopItems) {
                Scope start = copy_scope(scope);
                for (const Value& it : items) {
                    assign(scope, c.name, it);
                    for (const shell::Script& b : c.bodies) out = join_output(std::move(out), walk_script(b, scope, body_in));
                }
                if (c.kind == K::select_loop) merge_branches(scope, {start, scope});
            } else {
                Scope start = copy_scope(scope);
                for (int round = 0; round < 2; ++round) {
                    assign(scope, c.name, items.size() == 1 ? items[0] : Value::unknown_value());
                    for (const shell::Script& b : c.bodies) out = join_output(std::move(out), walk_script(b, scope, body_in));
                    merge_branches(scope, {start, scope});
                }
            }
            break;
        }
        case K::case_clause: {
            if (!c.words.empty()) expand_single(c.words[0], scope);
            std::vector<Scope> ends;
            for (size_t i = 0; i < c.bodies.size(); ++i) {
                if (i < c.patterns.size()) {
                    for (const shell::Word& w : c.patterns[i]) expand_single(w, scope);
                }
                Scope branch = copy_scope(scope);
                out = join_output(std::move(out), walk_script(c.bodies[i], branch, body_in));
                ends.push_back(std::move(branch));
            }
            ends.push_back(scope);
            merge_branches(scope, ends);
            break;
        }
        case K::arith_command:
            for (const shell::Word& w : c.words) {
                expand_single(w, scope);
                check_arithmetic(w.raw, scope);
            }
            hit(Decision::allow, "shell.builtin", "arithmetic only computes numbers");
            break;
        case K::cond_command:
            for (const shell::Word& w : c.words) {
                expand_single(w, scope);
                check_arithmetic(w.raw, scope);
            }
            hit(Decision::allow, "shell.builtin", "[[ … ]] only tests");
            break;
        case K::function_def: {
            scope.functions.insert_or_assign(c.name, &c);
            // The body is code too: judged where it is called, and at the end (walk_deferred_bodies).
            Scope copy = copy_scope(scope);
            copy.positional_known = false;
            copy.positional_guarded = true;  // "some arguments": the calls are judged with theirs
            copy.positional.clear();
            if (probing > 0) {
                call_stack.push_back(c.name);
                for (const shell::Script& b : c.bodies) walk_script(b, copy, Stream());
                call_stack.pop_back();
            } else {
                std::vector<std::string> stack = call_stack;
                stack.push_back(c.name);
                deferred_bodies_.push_back({&c, std::move(copy), remote(), std::move(stack)});
            }
            hit(Decision::allow, "shell.builtin", "defines a function");
            break;
        }
        case K::coproc: {
            Scope copy = copy_scope(scope);
            for (const shell::Script& b : c.bodies) walk_script(b, copy, body_in);
            break;
        }
    }
    if (to_file) {
        record_output(out_files, out, scope);
        return Stream();
    }
    return out;
}

Stream Analyzer::walk_simple(const shell::Command& c, Scope& scope, const Stream& in, bool in_pipeline,
                             bool background) {
    spend_command();
    std::vector<Value> argv = expand_words(c.words, scope);
    std::vector<std::pair<std::string, Value>> env;
    for (const shell::Assignment& a : c.assignments) {
        for (const shell::Script& s : a.subscript_subs) capture(s, scope);
        Value v;
        if (a.array) {
            std::vector<Value> items = expand_words(a.items, scope);
            if (argv.empty() && a.name.find('[') == std::string::npos) {
                if (a.append) {
                    auto& arr = scope.arrays[a.name];
                    arr.insert(arr.end(), items.begin(), items.end());
                } else {
                    scope.arrays[a.name] = items;
                }
            }
            v = items.empty() ? Value::literal("") : items[0];
        } else {
            v = expand_single(a.value, scope);
        }
        if (a.name.find('[') != std::string::npos) continue;
        if (argv.empty()) {
            if (a.append) {
                Value old = lookup(a.name, scope);
                std::vector<Value> both{old, v};
                v = join_values(both, 0, "");
            }
            judge_command_variable(a.name, v, scope);
            assign(scope, a.name, std::move(v));
        } else {
            env.emplace_back(a.name, v);
            if (a.name == "PATH" || a.name == "HOME") {
                // Names and ~ in this command still expand with the shell's values; only the
                // program sees the new ones.
            }
        }
    }
    Stream stdin_stream = in;
    std::vector<std::pair<std::string, bool>> out_files;
    bool to_file = apply_redirects(c.redirects, scope, stdin_stream, &out_files);
    if (argv.empty()) {
        if (!c.assignments.empty()) hit(Decision::allow, "shell.assignment", "sets shell variables");
        if (c.assignments.empty() && c.redirects.empty()) hit(Decision::allow, "shell.builtin", "does nothing");
        if (c.assignments.empty() && !c.redirects.empty()) hit(Decision::allow, "shell.builtin", "only opens files");
        return Stream();
    }
    Call proto;
    proto.scope = &scope;
    proto.in = std::move(stdin_stream);
    proto.in_pipeline = in_pipeline;
    proto.background = background;
    proto.env = std::move(env);
    Stream out = exec_argv(std::move(argv), std::move(proto));
    if (to_file) {
        record_output(out_files, out, scope);
        return Stream();
    }
    return out;
}

void Analyzer::record_output(const std::vector<std::pair<std::string, bool>>& files, const Stream& out, Scope& scope) {
    for (const auto& [f, append] : files) {
        Value file = Value::literal(f);
        check_written_text(file, out, scope);
        remember_taint(file, out.taint, scope);
        if (append && out.kind == Stream::Kind::literal) {
            // What was there before is not known, but what is appended will run too.
            const std::string* before = file_text(file, scope);
            std::string text = (before ? *before : std::string()) + out.text;
            spend_bytes(text.size());  // appended again and again, it is copied again and again
            remember_text(file, &text, scope);
        } else {
            remember_text(file, out.kind == Stream::Kind::literal ? &out.text : nullptr, scope);
        }
    }
}

Stream Analyzer::run_string(const Value& code, Scope& scope, bool same_scope, const Stream& in,
                            std::string_view what) {
    if (code.taint == Taint::remote) {
        hit(Decision::deny, "pipe.remote-to-shell",
            std::string(what) + " runs code fetched from the network");
        return Stream::unknown_data();
    }
    if (code.taint == Taint::decoded) {
        hit(Decision::deny, "pipe.decoded-to-shell",
            std::string(what) + " runs decoded (obfuscated) code");
    }
    if (code.taint == Taint::filtered) {
        hit(Decision::deny, "pipe.decoded-to-shell",
            std::string(what) + " runs code put together by a filter (rev, tr, sed, zcat, …): a decoder");
    }
    if (depth >= kMaxStringDepth) {
        hit(Decision::deny, "shell.nesting-depth",
            std::string(what) + " nests shells more than " + std::to_string(kMaxStringDepth) +
                " deep; nesting that deep only hides what runs");
        return Stream::unknown_data();
    }
    if (!code.known()) {
        hit(Decision::cage, "eval.dynamic",
            std::string(what) + " runs code that is only known at run time (`" + code.shown() + "`)");
        if (code.text.find_first_not_of(std::string(1, kUnknown) + " \t\n") == std::string::npos) {
            return Stream::unknown_data();
        }
    }
    spend_parse(code.text.size());
    shell::ParseResult r = shell::parse(code.text);
    if (!r.ok) {
        parse_failed(code.text, r.error, what);
        return Stream::unknown_data();
    }
    owned_.push_back(std::move(r));
    const shell::Script& s = owned_.back().script;
    ++depth;
    Stream out;
    if (same_scope) {
        out = walk_script(s, scope, in);
    } else {
        Scope copy = copy_scope(scope);
        out = walk_script(s, copy, in);
    }
    --depth;
    return out;
}

void Analyzer::call_function(const std::string& name, const shell::Command& fn, Call& call) {
    if (std::find(call_stack.begin(), call_stack.end(), name) != call_stack.end()) {
        if (call.in_pipeline || call.background) {
            hit(Decision::deny, "shell.fork-bomb",
                "function `" + name + "` starts copies of itself in a pipeline or in the background: a fork bomb");
        }
        return;
    }
    if (call_stack.size() >= 16) return;
    if (probing == 0) called_functions_.push_back(&fn);
    Scope& scope = *call.scope;
    std::vector<Value> saved = std::move(scope.positional);
    bool saved_known = scope.positional_known;
    scope.positional = call.args;
    scope.positional_known = true;
    call_stack.push_back(name);
    Stream in = call.in;
    apply_redirects(fn.redirects, scope, in, nullptr);
    Stream out;
    for (const shell::Script& b : fn.bodies) out = walk_script(b, scope, in);
    call_stack.pop_back();
    scope.positional = std::move(saved);
    scope.positional_known = saved_known;
    call.out = out.kind == Stream::Kind::none ? Stream::unknown_data() : out;
    hit(Decision::allow, "shell.builtin", "calls function `" + name + "`");
}

void Analyzer::walk_deferred_bodies(const Scope& last) {
    // Walking a body may define more functions: the list grows while it is read. A definition
    // met several times (a function defining another, called twice) is walked once.
    std::vector<const shell::Command*> done;
    for (size_t i = 0; i < deferred_bodies_.size(); ++i) {
        const shell::Command* fn = deferred_bodies_[i].fn;
        if (std::find(done.begin(), done.end(), fn) != done.end()) continue;
        auto defined = last.functions.find(fn->name);
        bool still_defined = defined != last.functions.end() && defined->second == fn;
        bool called = std::find(called_functions_.begin(), called_functions_.end(), fn) != called_functions_.end();
        if (called && !still_defined) continue;
        done.push_back(fn);
        Scope scope = deferred_bodies_[i].scope;
        if (still_defined) {
            scope = last;
            scope.positional_known = false;
            scope.positional_guarded = true;
            scope.positional.clear();
        }
        std::vector<std::string> saved = std::move(call_stack);
        call_stack = deferred_bodies_[i].call_stack;
        bool was = remote();
        set_remote(deferred_bodies_[i].remote);
        for (const shell::Script& b : fn->bodies) walk_script(b, scope, Stream());
        set_remote(was);
        call_stack = std::move(saved);
    }
}

}  // namespace toolcage::classify::detail
