#include "tools/cli_hints.h"

#include <algorithm>

namespace toolcage::cli {

namespace {

std::vector<std::string> subcommand_names(const CLI::App& app) {
    std::vector<std::string> out;
    for (const CLI::App* s : app.get_subcommands([](const CLI::App*) { return true; }))
        out.push_back(s->get_name());
    return out;
}

std::vector<std::string> option_names(const CLI::App& app) {
    std::vector<std::string> out;
    for (const CLI::Option* o : app.get_options()) {
        for (const auto& l : o->get_lnames()) out.push_back("--" + l);
        for (const auto& s : o->get_snames()) out.push_back("-" + s);
    }
    return out;
}

CLI::App* find_sub(CLI::App& app, const std::string& name) {
    for (CLI::App* s : app.get_subcommands([](const CLI::App*) { return true; }))
        if (s->get_name() == name) return s;
    return nullptr;
}

std::string join_args(const std::vector<std::string>& v, std::size_t from) {
    std::string s;
    for (std::size_t i = from; i < v.size(); ++i) s += (s.empty() ? "" : " ") + v[i];
    return s;
}

// Subcommands that take a command to run or judge after `--`.
bool takes_command(const std::string& name) {
    return name == "run" || name == "check" || name == "explain";
}

// An option no near one matches: our own line, pointing at the command's --help.
std::string unknown_option(const std::string& where, const std::string& flag) {
    return where + ": unknown option \"" + flag + "\"; see `" + where + " --help` for the options";
}

}  // namespace

std::size_t edit_distance(std::string_view a, std::string_view b) {
    // Optimal string alignment: a swap of two neighbours ("lnog") is one slip, not two.
    std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
    for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
    for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i)
        for (std::size_t j = 1; j <= b.size(); ++j) {
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1,
                                d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    return d[a.size()][b.size()];
}

std::string nearest(std::string_view word, const std::vector<std::string>& candidates) {
    std::string best;
    std::size_t best_d = SIZE_MAX;
    for (const auto& c : candidates) {
        std::size_t d = edit_distance(word, c);
        // A prefix is a slip too ("--ver" for "--verbose").
        if (c.size() > word.size() && c.starts_with(word) && word.size() >= 3)
            d = std::min<std::size_t>(d, 1);
        if (d < best_d) {
            best_d = d;
            best = c;
        }
    }
    std::size_t letters =
        word.size() - std::min<std::size_t>(word.find_first_not_of('-'), word.size());
    if (best_d == 0 || best_d > 2 || best_d * 2 >= letters) return {};
    return best;
}

std::string slip_hint(CLI::App& app, const std::vector<std::string>& args) {
    if (args.empty()) return {};
    const std::string program = app.get_name().empty() ? "toolcage" : app.get_name();
    // 1. The first word names no subcommand.
    const std::string& first = args[0];
    CLI::App* sub = first.starts_with("-") ? nullptr : find_sub(app, first);
    if (!first.starts_with("-") && !sub && !subcommand_names(app).empty()) {
        std::string n = nearest(first, subcommand_names(app));
        if (!n.empty())
            return program + ": unknown command \"" + first + "\"; did you mean `" + program + " " +
                   n + "`?";
        std::string all;
        for (const auto& s : subcommand_names(app)) all += (all.empty() ? "" : ", ") + s;
        return program + ": unknown command \"" + first + "\"; the commands are " + all;
    }
    if (!sub) {
        for (const auto& a : args)
            if (a.starts_with("-") && a != "--") {
                std::string flag = a.substr(0, a.find('='));
                std::string n = nearest(flag, option_names(app));
                if (!n.empty())
                    return program + ": unknown option \"" + flag + "\"; did you mean " + n + "?";
                if (!app.get_option_no_throw(flag)) return unknown_option(program, flag);
            }
        return {};
    }
    // 2. A command for run/check/explain without `--`: its options were read as ours.
    std::size_t at = 1;
    CLI::App* leaf = sub;
    if (at < args.size() && !args[at].starts_with("-")) {
        if (CLI::App* inner = find_sub(*sub, args[at])) {
            leaf = inner;
            ++at;
        } else if (std::vector<std::string> names = subcommand_names(*sub); !names.empty()) {
            // `toolcage policy frobnicate`, `toolcage install cursor`: the choices there are.
            const std::string here = program + " " + sub->get_name();
            std::string n = nearest(args[at], names);
            if (!n.empty())
                return here + ": unknown command \"" + args[at] + "\"; did you mean `" + here + " " + n + "`?";
            std::string all;
            for (const auto& x : names) all += (all.empty() ? "" : ", ") + x;
            return here + ": unknown command \"" + args[at] + "\"; the commands are " + all;
        }
    }
    // `toolcage policy` alone: the commands it takes.
    if (leaf == sub && leaf->get_require_subcommand_min() > 0 &&
        std::none_of(args.begin() + 1, args.end(), [](const std::string& a) { return !a.starts_with("-"); }) &&
        std::find(args.begin(), args.end(), "--help") == args.end()) {
        std::string all;
        for (const auto& x : subcommand_names(*sub)) all += (all.empty() ? "" : ", ") + x;
        return command_words(*sub) + ": name one of its commands: " + all + " (see `" + command_words(*sub) +
               " --help`)";
    }
    // The words that name the command, as the user typed them: "toolcage install claude".
    const std::string where = command_words(*leaf);
    bool dashdash = std::find(args.begin(), args.end(), "--") != args.end();
    const std::vector<std::string> known = option_names(*leaf);
    for (std::size_t i = at; i < args.size() && args[i] != "--"; ++i) {
        const std::string& a = args[i];
        if (!a.starts_with("-")) continue;
        std::string flag = a.substr(0, a.find('='));
        if (std::find(known.begin(), known.end(), flag) != known.end()) {
            // Its value is not an option of ours ("-n -5"): the word after it is skipped.
            const CLI::Option* o = leaf->get_option_no_throw(flag);
            if (o && o->get_type_size() != 0 && a.find('=') == std::string::npos) ++i;
            continue;
        }
        std::string n = nearest(flag, known);
        if (takes_command(leaf->get_name()) && !dashdash) {
            // The first word that is not one of our options starts the command.
            std::size_t cmd = at;
            while (cmd < args.size() && args[cmd].starts_with("-")) {
                std::string f = args[cmd].substr(0, args[cmd].find('='));
                const CLI::Option* o = leaf->get_option_no_throw(f);
                cmd += (o && o->get_type_size() != 0 && args[cmd].find('=') == std::string::npos)
                           ? 2
                           : 1;
            }
            if (cmd < args.size() && !n.empty() && cmd > i)
                return where + ": unknown option \"" + flag + "\"; did you mean " + n + "?";
            std::string before = join_args(
                std::vector<std::string>(
                    args.begin(),
                    args.begin() + static_cast<std::ptrdiff_t>(std::min(cmd, args.size()))),
                0);
            return where + ": put -- before the command: " + program +
                   " " + before + (before.empty() ? "" : " ") + "-- " +
                   join_args(args, std::min(cmd, args.size()));
        }
        if (!n.empty()) return where + ": unknown option \"" + flag + "\"; did you mean " + n + "?";
        return unknown_option(where, flag);
    }
    return {};
}

std::string command_words(const CLI::App& leaf) {
    std::string words;
    for (const CLI::App* a = &leaf; a; a = a->get_parent()) {
        std::string name = a->get_name().empty() ? "toolcage" : a->get_name();
        words = words.empty() ? name : name + " " + words;
    }
    return words;
}

std::string parsed_command_words(const CLI::App& app) {
    const CLI::App* at = &app;
    for (bool deeper = true; deeper;) {
        deeper = false;
        for (const CLI::App* s : at->get_subcommands([](const CLI::App*) { return true; }))
            if (s->parsed()) {
                at = s;
                deeper = true;
                break;
            }
    }
    return command_words(*at);
}

}  // namespace toolcage::cli
