// Programs that change files: copy, move, link, sync, permissions, raw devices, archives. The
// destination is judged as a write (overwriting outside the workspace or a secret is refused),
// sources that are read are checked for credentials.
#include <algorithm>
#include <cctype>

#include "hook/classify/analyzer.h"
#include "hook/classify/paths.h"
#include "hook/classify/program_table.h"
#include "hook/classify/text.h"

namespace toolcage::classify::detail {

namespace {

bool is_remote_spec(const Value& v) {
    const std::string& t = v.text;
    if (t.rfind("rsync://", 0) == 0) return true;
    size_t colon = t.find(':');
    if (colon == std::string::npos || colon == 0) return false;
    size_t slash = t.find('/');
    return slash == std::string::npos || colon < slash;
}

// The operand the data goes to: -t DIR, or the last operand.
struct SrcDest {
    std::vector<const Value*> sources;
    const Value* dest = nullptr;
};

SrcDest split_sources(const Call& c, const Opts& o, std::string_view target_short,
                      std::string_view target_long) {
    SrcDest sd;
    std::optional<std::string> t;
    for (const Opts::Flag& f : o.flags) {
        if (f.name == target_short ||
            (!target_long.empty() && f.name.size() > 3 && target_long.rfind(f.name, 0) == 0)) {
            sd.dest = f.value;
        }
    }
    size_t n = o.operands.size();
    if (sd.dest) {
        for (size_t k : o.operands) sd.sources.push_back(&c.args[k]);
    } else if (n >= 1) {
        sd.dest = n >= 2 ? &c.args[o.operands[n - 1]] : nullptr;
        for (size_t i = 0; i + (n >= 2 ? 1 : 0) < n; ++i)
            sd.sources.push_back(&c.args[o.operands[i]]);
    }
    return sd;
}

void cp_program(Analyzer& a, Call& c) {
    Opts o = parse_opts(c.args, 0, "tS",
                        {"--target-directory", "--suffix", "--backup", "--reflink", "--sparse",
                         "--preserve", "--no-preserve"},
                        false);
    bool rec = o.has_any({"-r", "-R", "-a", "--recursive", "--archive"});
    SrcDest sd = split_sources(c, o, "-t", "--target-directory");
    for (const Value* s : sd.sources) a.check_read(*s, c.name, *c.scope, rec);
    bool no_clobber = o.has_any({"-n", "--no-clobber"}) ||
                      o.value("--update") == std::optional<std::string>("none");
    if (sd.dest && no_clobber) {
        // Existing files are kept: only new files appear.
        for (const Value* s : sd.sources)
            a.remember_taint(*sd.dest, a.file_taint(*s, *c.scope), *c.scope);
        a.hit(Decision::cage, "cp.copies",
              "`" + c.name + " -n` copies without overwriting existing files");
        return;
    }
    if (sd.dest) {
        for (const Value* s : sd.sources) {
            a.remember_taint(*sd.dest, a.file_taint(*s, *c.scope), *c.scope);
            a.remember_text(*sd.dest, sd.sources.size() == 1 ? a.file_text(*s, *c.scope) : nullptr,
                            *c.scope);
        }
        a.check_write(*sd.dest, WriteMode::replace, c.name, *c.scope);
    } else {
        a.hit(Decision::cage, "cp.copies", "`" + c.name + "` copies files");
    }
}

void mv_program(Analyzer& a, Call& c) {
    Opts o = parse_opts(c.args, 0, "tS", {"--target-directory", "--suffix", "--backup"}, false);
    SrcDest sd = split_sources(c, o, "-t", "--target-directory");
    for (const Value* s : sd.sources) {
        // Moving away is deleting from where it was, except that the data survives: secrets
        // moved inside the workspace are not lost.
        std::vector<PathInfo> where = a.resolve(*s, *c.scope);
        bool secret_in_ws = std::any_of(where.begin(), where.end(), [](const PathInfo& p) {
            return p.secret && (p.cls == PathClass::workspace);
        });
        if (secret_in_ws) {
            a.hit(Decision::cage, "mv.moves", "`mv` moves " + s->shown() + " inside the workspace");
            continue;
        }
        a.check_delete(*s, true, "mv", c);
    }
    if (sd.dest) {
        for (const Value* s : sd.sources)
            a.remember_taint(*sd.dest, a.file_taint(*s, *c.scope), *c.scope);
        for (const PathInfo& p : a.resolve(*sd.dest, *c.scope)) {
            if (p.harmless_dev || p.device) {
                a.hit(Decision::deny, "mv.device",
                      "`mv` onto " + sd.dest->shown() + " replaces a device node");
            }
        }
        a.check_write(*sd.dest, WriteMode::replace, "mv", *c.scope);
    }
}

void ln_program(Analyzer& a, Call& c) {
    Opts o = parse_opts(c.args, 0, "tS", {"--target-directory", "--suffix", "--backup"}, false);
    bool force = o.has_any({"-f", "--force"});
    SrcDest sd = split_sources(c, o, "-t", "--target-directory");
    Value link;
    if (sd.dest) {
        link = *sd.dest;
    } else if (!sd.sources.empty()) {
        link = Value::literal(std::string(basename_of(sd.sources[0]->text)));
    }
    if (force) {
        a.check_write(link, WriteMode::replace, "ln -f", *c.scope);
    } else {
        a.hit(Decision::cage, "ln.creates", "`ln` creates a link");
    }
    // A symlink made here redirects later paths through it (ln -s / x; rm -rf x/).
    if (o.has_any({"-s", "--symbolic"}) && !sd.sources.empty() && sd.sources[0]->known() &&
        link.known()) {
        Scope& s = *c.scope;
        std::string link_abs = !link.text.empty() && link.text[0] == '/'
                                   ? normalize_path(link.text)
                                   : (s.cwd_known ? normalize_path(s.cwd + "/" + link.text) : "");
        if (sd.dest && !o.value("-t") && (sd.dest->text.empty() || sd.dest->text.back() == '/'))
            link_abs.clear();
        const std::string& t = sd.sources[0]->text;
        std::string dir = link_abs.substr(0, link_abs.rfind('/'));
        std::string target_abs = !t.empty() && t[0] == '/'
                                     ? normalize_path(t)
                                     : normalize_path((dir.empty() ? "/" : dir) + "/" + t);
        if (!link_abs.empty()) s.links.emplace_back(link_abs, target_abs);
    }
}

void rsync_program(Analyzer& a, Call& c) {
    Opts o = parse_opts(
        c.args, 0, "eTfBM",
        {"--rsh",           "--rsync-path", "--filter",       "--exclude",      "--include",
         "--files-from",    "--temp-dir",   "--backup-dir",   "--log-file",     "--suffix",
         "--chmod",         "--timeout",    "--bwlimit",      "--partial-dir",  "--compare-dest",
         "--copy-dest",     "--link-dest",  "--exclude-from", "--include-from", "--out-format",
         "--password-file", "--port",       "--remote-option"},
        false);
    bool del = false;
    for (const Opts::Flag& f : o.flags) {
        if (f.name.rfind("--del", 0) == 0) del = true;
    }
    bool remove_sources = o.has("--remove-source-files") || o.has("--remove-sent-files");
    bool rec = o.has_any({"-r", "-a", "--recursive", "--archive"});
    SrcDest sd = split_sources(c, o, "", "");
    for (const Value* s : sd.sources) {
        if (is_remote_spec(*s)) continue;
        a.check_read(*s, "rsync", *c.scope, rec);
        if (remove_sources) a.check_delete(*s, true, "rsync --remove-source-files", c);
    }
    if (o.has_any({"-e", "--rsh", "--rsync-path"})) {
        a.hit(Decision::cage, "rsync.runs-commands", "rsync -e/--rsync-path runs a command");
        // -e CMD runs here with the host and rsync's own arguments appended: judged as that.
        for (const Opts::Flag& f : o.flags) {
            if (f.name != "-e" && f.name.rfind("--rsh", 0) != 0) continue;
            Value code = f.value ? *f.value : Value::literal(f.inline_value);
            code.text += " " + std::string(1, kUnknown);
            code.unknown = true;
            a.run_string(code, *c.scope, false, Stream(), "rsync's remote shell");
        }
    }
    if (!sd.dest) {
        a.hit(Decision::allow, "rsync.list", "rsync with one operand only lists files");
        return;
    }
    if (is_remote_spec(*sd.dest)) {
        if (del) {
            a.hit(Decision::deny, "rsync.delete-remote",
                  "rsync --delete removes files on " + sd.dest->shown() + " that the source lacks");
        } else {
            a.hit(Decision::cage, "rsync.remote", "rsync copies files to another host");
        }
        return;
    }
    if (del) {
        a.check_delete(*sd.dest, true, "rsync --delete", c);
    }
    a.check_write(*sd.dest, WriteMode::replace, "rsync", *c.scope);
}

void scp_program(Analyzer& a, Call& c) {
    Opts o = parse_opts(c.args, 0, "cFiJlPSoDX", {}, false);
    bool rec = o.has("-r");
    SrcDest sd = split_sources(c, o, "", "");
    for (const Value* s : sd.sources) {
        if (!is_remote_spec(*s)) a.check_read(*s, "scp", *c.scope, rec);
    }
    if (sd.dest && !is_remote_spec(*sd.dest))
        a.check_write(*sd.dest, WriteMode::replace, "scp", *c.scope);
    a.hit(Decision::cage, "scp.remote", "`scp` copies files over the network");
}

// Symbolic modes with s (u+s, g+s, +s, =s), octal modes with the 4000 or 2000 bit.
bool sets_setuid(const std::string& mode) {
    if (mode.empty()) return false;
    if (std::all_of(mode.begin(), mode.end(), [](char ch) { return ch >= '0' && ch <= '7'; })) {
        if (mode.size() < 4) return false;
        int d = mode[mode.size() - 4] - '0';
        return (d & 6) != 0;
    }
    size_t op = mode.find_first_of("+=");
    return op != std::string::npos && mode.find('s', op) != std::string::npos;
}

void chmod_like(Analyzer& a, Call& c, bool is_chmod) {
    bool rec = false;
    bool have_spec = false;
    std::string spec;
    std::vector<const Value*> targets;
    bool options_done = false;
    for (const Value& v : c.args) {
        const std::string& t = v.text;
        if (!options_done && !v.unknown) {
            if (t == "--") {
                options_done = true;
                continue;
            }
            if (t == "-R" || t == "--recursive") {
                rec = true;
                continue;
            }
            if (t.rfind("--reference", 0) == 0) {
                have_spec = true;
                continue;
            }
            if (t == "-f" || t == "-v" || t == "-c" || t == "-h" || t == "-H" || t == "-L" ||
                t == "-P" || t.rfind("--", 0) == 0) {
                continue;
            }
            if (t.size() > 1 && t[0] == '-' &&
                t.find_first_not_of("Rfvc", 1) == std::string::npos) {
                rec = rec || t.find('R') != std::string::npos;
                continue;
            }
        }
        if (!have_spec) {
            spec = t;
            have_spec = true;
            continue;
        }
        targets.push_back(&v);
    }
    // Rule ids name the program's table entry, not the name as written: a versioned or
    // look-alike name ("chmod6") is looked up as the program it stands for.
    std::string prog = is_chmod ? "chmod" : c.name.find("chgrp") != std::string::npos ? "chgrp" : "chown";
    if (is_chmod && sets_setuid(spec)) {
        a.hit(Decision::deny, "chmod.setuid",
              "`chmod " + spec + "` sets the setuid/setgid bit: a privilege backdoor");
    }
    // chmod -R 000 (0, a-rwx, a=) of the workspace, .git or the home: nothing in it can be read
    // or run any more, by the agent or the user, until someone puts every mode back by hand.
    bool strips_all = is_chmod && rec &&
                      ((!spec.empty() && spec.find_first_not_of('0') == std::string::npos) || spec == "a-rwx" ||
                       spec == "ugo-rwx" || spec == "a=" || spec == "ugo=" || spec == "-rwx" || spec == "=");
    for (const Value* t : targets) {
        for (const PathInfo& p : a.resolve(*t, *c.scope)) {
            if (strips_all && (p.cls == PathClass::workspace_root || p.cls == PathClass::git_dir)) {
                a.hit(Decision::deny, "chmod.no-access",
                      "`chmod -R " + spec + "` on " + t->shown() +
                          " takes every permission from every file of the workspace: nothing can be read or run "
                          "until each mode is put back by hand; name the files that need it");
                continue;
            }
            switch (p.cls) {
                case PathClass::root:
                case PathClass::system:
                    a.hit(Decision::deny, prog + ".system",
                          "`" + prog + (rec ? " -R" : "") + "` changes " + t->shown() +
                              ", system files");
                    break;
                case PathClass::home:
                    a.hit(Decision::deny, prog + ".home",
                          "`" + prog + "` changes " + t->shown() + " outside the workspace");
                    break;
                case PathClass::unknown:
                    if (rec && !p.guarded) {
                        a.hit(Decision::deny, prog + ".unknown-target",
                              "`" + prog + " -R` on " + t->shown() + ", known only at run time");
                    } else {
                        a.hit(Decision::cage, prog + ".workspace",
                              "`" + prog + "` on " + t->shown() + ", known only at run time");
                    }
                    break;
                default:
                    a.hit(Decision::cage, prog + ".workspace",
                          "`" + prog + "` changes " + t->shown() + " inside the workspace or temp");
            }
        }
    }
    if (targets.empty()) a.hit(Decision::cage, prog + ".workspace", "`" + prog + "` without files");
}

void chmod_program(Analyzer& a, Call& c) {
    chmod_like(a, c, true);
}
void chown_program(Analyzer& a, Call& c) {
    chmod_like(a, c, false);
}

void dd_program(Analyzer& a, Call& c) {
    bool writes = false;
    bool reads_stdin = true;
    for (const Value& v : c.args) {
        const std::string& t = v.text;
        if (t.rfind("of=", 0) == 0) {
            Value target = v;
            target.text = t.substr(3);
            a.check_write(target, WriteMode::replace, "dd of=", *c.scope);
            writes = true;
        } else if (t.rfind("if=", 0) == 0) {
            Value src = v;
            src.text = t.substr(3);
            a.check_read(src, "dd", *c.scope);
            reads_stdin = false;
        }
    }
    if (!writes) {
        a.hit(Decision::allow, "readonly.dd", "`dd` without of= only copies to stdout");
        c.out = reads_stdin ? Stream::unknown_data(c.in.taint) : Stream::unknown_data();
    }
}

void truncate_program(Analyzer& a, Call& c) {
    Opts o = parse_opts(c.args, 0, "sr", {"--size", "--reference"}, false);
    for (size_t k : o.operands) a.check_write(c.args[k], WriteMode::truncate, "truncate", *c.scope);
}

// parted's commands (after the device): these change the disk; print, unit, help only show.
// `-s`/`--script` is parted's script mode (no questions asked), not a listing flag.
void parted_program(Analyzer& a, Call& c) {
    static const std::string_view kShows[] = {"print", "p", "unit", "help", "version", "quit", "align-check"};
    bool any_command = false;
    bool device_seen = false;
    for (size_t i = 0; i < c.argc(); ++i) {
        const Value& v = c.args[i];
        const std::string& t = v.text;
        if (t == "-l" || t == "--list" || t == "-v" || t == "--version" || t == "-h" || t == "--help") {
            a.hit(Decision::allow, "disk.list", "`parted " + t + "` only lists partitions");
            return;
        }
        if (is_flag(v)) {
            if ((t == "-a" || t == "--align") && i + 1 < c.argc()) ++i;
            continue;
        }
        if (!device_seen) {
            device_seen = true;
            continue;
        }
        any_command = true;
        if (!v.known()) {
            a.hit(Decision::deny, "disk.format", "`parted` gets a command known only at run time");
            return;
        }
        bool shows = std::find(std::begin(kShows), std::end(kShows), t) != std::end(kShows);
        if (t == "unit" && i + 1 < c.argc()) ++i;
        if (t == "print" || t == "p") {
            if (i + 1 < c.argc() && (c.arg(i + 1) == "free" || c.arg(i + 1) == "all" || c.arg(i + 1) == "devices" ||
                                     c.arg(i + 1) == "list")) {
                ++i;
            }
        }
        if (!shows) {
            a.hit(Decision::deny, "disk.format",
                  "`parted " + t + "` changes the partition table: what is on the disk is lost");
            return;
        }
    }
    if (!any_command) {
        a.hit(Decision::cage, "disk.manage", "`parted` without a command reads commands from its input");
        if (c.in.kind != Stream::Kind::none) a.hit(Decision::deny, "disk.format", "`parted` reads its commands from a pipe");
        return;
    }
    a.hit(Decision::allow, "disk.list", "`parted` only prints partitions");
}

// Partitioning and formatting: read-only listing forms only.
void disk_program(Analyzer& a, Call& c) {
    if (c.name == "parted") {
        parted_program(a, c);
        return;
    }
    static const std::string_view kList[] = {"-l",        "--list", "-d",     "--dump", "-p",
                                             "--print",   "print",  "-s",     "--show", "-V",
                                             "--version", "-h",     "--help", "-n",     "--no-act"};
    bool lists = std::any_of(c.args.begin(), c.args.end(), [](const Value& v) {
        return std::find(std::begin(kList), std::end(kList), v.text) != std::end(kList);
    });
    if (c.name == "wipefs") {
        bool erases = std::any_of(c.args.begin(), c.args.end(), [](const Value& v) {
            return v.text == "-a" || v.text == "--all" || v.text.rfind("-o", 0) == 0 ||
                   v.text.rfind("--offset", 0) == 0 ||
                   (v.text.size() > 1 && v.text[0] == '-' && v.text[1] != '-' &&
                    v.text.find('a') != std::string::npos);
        });
        bool no_act = std::any_of(c.args.begin(), c.args.end(), [](const Value& v) {
            return v.text == "-n" || v.text == "--no-act";
        });
        lists = !erases || no_act;
    }
    if (lists && c.name.rfind("mkfs", 0) != 0 && c.name != "mkswap" && c.name != "blkdiscard" &&
        c.name.rfind("mke2fs", 0) != 0) {
        a.hit(Decision::allow, "disk.list", "`" + c.name + "` only lists partitions or signatures");
        return;
    }
    a.hit(Decision::deny, "disk.format",
          "`" + c.name + "` rewrites a disk's partitions or file system: everything on it is lost");
}

void cryptsetup_program(Analyzer& a, Call& c) {
    for (const Value& v : c.args) {
        if (v.text == "luksFormat" || v.text == "erase" || v.text == "luksErase" ||
            v.text == "luksKillSlot" || v.text == "reencrypt" || v.text == "luksRemoveKey") {
            a.hit(Decision::deny, "disk.format",
                  "`cryptsetup " + v.text + "` destroys the keys or data of a volume");
            return;
        }
    }
    a.hit(Decision::cage, "disk.manage", "`cryptsetup` manages encrypted volumes");
}

void hdparm_program(Analyzer& a, Call& c) {
    for (const Value& v : c.args) {
        if (v.text.rfind("--security-erase", 0) == 0 || v.text == "--trim-sector-ranges" ||
            v.text == "--write-sector" || v.text == "--make-bad-sector") {
            a.hit(Decision::deny, "disk.format",
                  "`hdparm " + v.text + "` destroys data on the disk");
            return;
        }
    }
    a.hit(Decision::cage, "disk.manage", "`hdparm` changes disk settings");
}

void volume_remove_program(Analyzer& a, Call& c) {
    a.hit(Decision::deny, "disk.format", "`" + c.name + "` removes a volume and the data on it");
}

void creates_program(Analyzer& a, Call& c) {
    a.hit(Decision::cage, c.name == "mkdir" ? "mkdir.creates" : "touch.creates",
          "`" + c.name + "` creates files or directories");
}

void install_program(Analyzer& a, Call& c) {
    Opts o = parse_opts(c.args, 0, "gmotS",
                        {"--group", "--mode", "--owner", "--target-directory", "--suffix"}, false);
    if (o.has_any({"-d", "--directory"})) {
        a.hit(Decision::cage, "mkdir.creates", "`install -d` creates directories");
        return;
    }
    SrcDest sd = split_sources(c, o, "-t", "--target-directory");
    for (const Value* s : sd.sources) a.check_read(*s, "install", *c.scope);
    if (sd.dest) a.check_write(*sd.dest, WriteMode::replace, "install", *c.scope);
    for (const std::string& m : o.values("-m")) {
        if (sets_setuid(m))
            a.hit(Decision::deny, "chmod.setuid", "`install -m " + m + "` installs a setuid file");
    }
}

void tar_program(Analyzer& a, Call& c) {
    // The first word may be a bundle without '-' (tar xzf a.tgz).
    std::vector<Value> args = c.args;
    if (!args.empty() && args[0].known() && !args[0].text.empty() && args[0].text[0] != '-' &&
        args[0].text.find_first_not_of("AcdrtuxfjJzZvkpPsSwWhOlbBgGmMnNoqRTVX") ==
            std::string::npos) {
        args[0].text.insert(0, "-");
    }
    Opts o = parse_opts(args, 0, "fCTXbgIKLNVFH",
                        {"--file",
                         "--directory",
                         "--files-from",
                         "--exclude-from",
                         "--use-compress-program",
                         "--to-command",
                         "--checkpoint-action",
                         "--info-script",
                         "--new-volume-script",
                         "--rsh-command",
                         "--exclude",
                         "--owner",
                         "--group",
                         "--mode",
                         "--transform",
                         "--format",
                         "--newer",
                         "--after-date",
                         "--blocking-factor",
                         "--label"},
                        false);
    bool ro = true;
    for (const std::string& act : o.values("--checkpoint-action")) {
        ro = false;
        a.hit(Decision::cage, "tar.runs-commands", "tar --checkpoint-action runs commands");
        if (act.rfind("exec=", 0) == 0)
            a.run_string(Value::literal(act.substr(5)), *c.scope, false, Stream(),
                         "tar's checkpoint action");
    }
    for (const char* opt : {"--to-command", "--info-script", "--new-volume-script", "-F"}) {
        for (const std::string& cmd : o.values(opt)) {
            ro = false;
            a.hit(Decision::cage, "tar.runs-commands",
                  std::string("tar ") + opt + " runs commands");
            a.run_string(Value::literal(cmd), *c.scope, false, Stream(), std::string("tar ") + opt);
        }
    }
    for (const char* opt : {"-I", "--use-compress-program", "--rsh-command"}) {
        for (const std::string& cmd : o.values(opt)) {
            ro = false;
            a.hit(Decision::cage, "tar.runs-commands",
                  std::string("tar ") + opt + " runs a program");
            a.run_string(Value::literal(cmd), *c.scope, false, Stream(), std::string("tar ") + opt);
        }
    }
    bool create = o.has_any({"-c", "--create"});
    bool extract = o.has_any({"-x", "--extract", "--get"});
    bool update = o.has_any(
        {"-r", "-u", "--append", "--update", "-A", "--catenate", "--concatenate", "--delete"});
    std::optional<std::string> file = o.value("-f");
    if (!file) file = o.value("--file");
    std::vector<const Value*> dirs;
    for (const Opts::Flag& f : o.flags) {
        if ((f.name == "-C" || f.name.rfind("--dir", 0) == 0) && f.value) dirs.push_back(f.value);
    }
    if (create || update) {
        ro = false;
        if (file && *file != "-") {
            a.check_write(Value::literal(*file), create ? WriteMode::truncate : WriteMode::append,
                          "tar's archive", *c.scope);
        } else {
            a.hit(Decision::cage, "tar.creates", "tar writes an archive");
        }
        for (size_t k : o.operands) a.check_read(args[k], "tar", *c.scope, true);
        if (o.has("--remove-files")) {
            for (size_t k : o.operands) a.check_delete(args[k], true, "tar --remove-files", c);
        }
    }
    if (extract) {
        bool to_stdout = o.has_any({"-O", "--to-stdout"});
        if (!to_stdout) {
            ro = false;
            if (dirs.empty()) {
                a.check_write(Value::literal("."), WriteMode::replace, "tar -x", *c.scope);
            } else {
                for (const Value* d : dirs)
                    a.check_write(*d, WriteMode::replace, "tar -x -C", *c.scope);
            }
        }
    }
    if (ro) a.hit(Decision::allow, "readonly.tar", "`tar` only lists an archive");
}

void unzip_program(Analyzer& a, Call& c) {
    Opts o = parse_opts(c.args, 0, "dxP", {}, false);
    if (o.has_any({"-l", "-t", "-v", "-Z", "-p", "-z"})) {
        a.hit(Decision::allow, "readonly.unzip", "`unzip` only lists or tests an archive");
        return;
    }
    auto dir = o.value("-d");
    a.check_write(Value::literal(dir ? *dir : "."), WriteMode::replace, "unzip", *c.scope);
}

void zip_program(Analyzer& a, Call& c) {
    Opts o = parse_opts(
        c.args, 0, "bntTxiO",
        {"--temp-path", "--unzip-command", "--exclude", "--include", "--output-file"}, false);
    if (o.has_any({"-T", "--test", "-TT", "--unzip-command"})) {
        a.hit(Decision::cage, "zip.runs-commands", "zip -T runs a test command");
    }
    if (!o.operands.empty())
        a.check_write(c.args[o.operands[0]], WriteMode::replace, "zip's archive", *c.scope);
    bool rec = o.has_any({"-r", "--recurse-paths"});
    for (size_t i = 1; i < o.operands.size(); ++i) {
        a.check_read(c.args[o.operands[i]], "zip", *c.scope, rec);
        if (o.has_any({"-m", "--move"})) a.check_delete(c.args[o.operands[i]], true, "zip -m", c);
    }
    a.hit(Decision::cage, "zip.creates", "`zip` writes an archive");
}

void compress_program(Analyzer& a, Call& c) {
    Opts o = parse_opts(c.args, 0, "S", {"--suffix"}, false);
    bool to_stdout = o.has_any({"-c", "--stdout", "--to-stdout", "-l", "--list", "-t", "--test"}) ||
                     c.name == "zcat" || c.name == "gzcat";
    for (size_t k : o.operands) a.check_read(c.args[k], c.name, *c.scope);
    if (o.operands.empty() || to_stdout) {
        c.out = Stream::unknown_data(o.operands.empty() ? c.in.taint : Taint::none);
        a.hit(Decision::allow, "readonly." + c.name, "`" + c.name + "` writes to stdout only");
        return;
    }
    a.hit(Decision::cage, "compress.replaces",
          "`" + c.name + "` replaces files with their (de)compressed form");
}

// One Ex command of vi/vim/nvim/ex (-c CMD, +CMD, --cmd CMD): `:!cmd`, `:r !cmd`, `:w !cmd`,
// `:{range}!filter` run a shell command; system() and :terminal run one too.
void vim_ex_command(Analyzer& a, Call& c, const Value& given) {
    std::string t = given.text;
    auto run = [&](std::string code, std::string_view how) {
        Value v = given;
        v.text = std::move(code);
        a.run_string(v, *c.scope, false, Stream(), "the shell command of vim's " + std::string(how));
    };
    size_t i = 0;
    for (int round = 0; round < 4; ++round) {
        while (i < t.size() && (t[i] == ':' || t[i] == ' ' || t[i] == '\t')) ++i;
        // Modifiers that precede a command.
        bool again = false;
        for (std::string_view m : {"silent!", "silent", "sil!", "sil", "keepalt", "noautocmd", "verbose", "unsilent"}) {
            if (t.compare(i, m.size(), m) == 0 && (i + m.size() == t.size() || t[i + m.size()] == ' ')) {
                i += m.size();
                again = true;
                break;
            }
        }
        if (!again) break;
    }
    // A range: %, ., $, numbers, marks, patterns are rare in -c; skip the simple ones.
    while (i < t.size() && std::string_view("%.$,;0123456789'+-").find(t[i]) != std::string_view::npos) ++i;
    if (i < t.size() && t[i] == '!') {
        run(t.substr(i + 1), ":!");
        return;
    }
    size_t w = i;
    while (i < t.size() && std::isalpha(static_cast<unsigned char>(t[i]))) ++i;
    std::string word = t.substr(w, i - w);
    if (i < t.size() && t[i] == '!') ++i;  // :w! :q! force, not a shell
    size_t rest = i;
    while (rest < t.size() && t[rest] == ' ') ++rest;
    if (rest < t.size() && t[rest] == '!' && rest > i) {
        run(t.substr(rest + 1), ":" + word + " !");
        return;
    }
    if (word == "sh" || word == "shell" || word == "term" || word == "terminal" || word == "py" || word == "python" ||
        word == "py3" || word == "python3" || word == "pyx" || word == "lua" || word == "luado" || word == "perl" ||
        word == "ruby" || word == "exe" || word == "execute" || word == "so" || word == "source" || word == "runtime") {
        a.hit(Decision::cage, "editor.runs-commands", "vim's `:" + word + "` runs code");
    }
    for (std::string_view fn : {"system(", "systemlist(", "jobstart(", "termopen(", "job_start(", "term_start("}) {
        size_t at = t.find(fn);
        if (at == std::string::npos) continue;
        a.hit(Decision::cage, "editor.runs-commands", "vim's " + std::string(fn) + ") runs a command");
        size_t q = at + fn.size();
        while (q < t.size() && t[q] == ' ') ++q;
        if (q < t.size() && (t[q] == '"' || t[q] == '\'')) {
            size_t e = t.find(t[q], q + 1);
            if (e != std::string::npos) run(t.substr(q + 1, e - q - 1), std::string(fn) + ")");
        }
    }
}

void editor_program(Analyzer& a, Call& c) {
    a.hit(Decision::cage, "editor.edits", "`" + c.name + "` edits files and can run commands");
    bool vim_like = c.name == "vi" || c.name == "vim" || c.name == "nvim" || c.name == "ex" || c.name == "view" ||
                    c.name == "gvim" || c.name == "vimdiff" || c.name == "rvim";
    if (!vim_like) return;
    for (size_t i = 0; i < c.argc(); ++i) {
        const Value& v = c.args[i];
        const std::string& t = v.text;
        if ((t == "-c" || t == "--cmd") && i + 1 < c.argc()) {
            vim_ex_command(a, c, c.args[++i]);
        } else if (t.size() > 1 && t[0] == '+' && t.find_first_not_of("0123456789", 1) != std::string::npos &&
                   t[1] != '/' && t[1] != '?') {
            Value cmd = v;
            cmd.text = t.substr(1);
            vim_ex_command(a, c, cmd);
        } else if ((t == "-S" || t == "-s" || t == "-u" || t == "-W" || t == "-w") && i + 1 < c.argc()) {
            // A script of Ex commands or of typed keys: judged when written in this command.
            const Value& f = c.args[++i];
            if (t == "-W" || t == "-w") {
                a.check_write(f, WriteMode::append, c.name + " " + t, *c.scope);
                continue;
            }
            if (a.refuse_tainted_script(f, *c.scope, c.name + " " + t, false)) return;
            if (const std::string* text = a.file_text(f, *c.scope)) {
                size_t b = 0;
                while (b < text->size()) {
                    size_t e = text->find('\n', b);
                    if (e == std::string::npos) e = text->size();
                    vim_ex_command(a, c, Value::literal(text->substr(b, e - b)));
                    b = e + 1;
                }
            }
        } else if (!v.known() && !t.empty() && (t[0] == '+' || t[0] == kUnknown)) {
            a.hit(Decision::cage, "editor.runs-commands", "`" + c.name + "` gets commands known only at run time");
        }
    }
}

void patch_program(Analyzer& a, Call& c) {
    Opts o = parse_opts(c.args, 0, "pdioBDFrVYz", {"--directory", "--input", "--output"}, false);
    for (const std::string& out : o.values("-o"))
        a.check_write(Value::literal(out), WriteMode::truncate, "patch -o", *c.scope);
    a.hit(Decision::cage, "patch.edits", "`patch` edits files");
}

}  // namespace

namespace {
constexpr auto kFilePrograms = sorted_by_name(std::to_array<ProgramEntry>({
    {"cp", cp_program},
    {"mv", mv_program},
    {"ln", ln_program},
    {"rsync", rsync_program},
    {"scp", scp_program},
    {"chmod", chmod_program},
    {"chown", chown_program},
    {"chgrp", chown_program},
    {"dd", dd_program},
    {"truncate", truncate_program},
    {"mkfs", disk_program},
    {"mke2fs", disk_program},
    {"mkswap", disk_program},
    {"mkdosfs", disk_program},
    {"mkntfs", disk_program},
    {"wipefs", disk_program},
    {"fdisk", disk_program},
    {"sfdisk", disk_program},
    {"cfdisk", disk_program},
    {"gdisk", disk_program},
    {"sgdisk", disk_program},
    {"parted", disk_program},
    {"blkdiscard", disk_program},
    {"cryptsetup", cryptsetup_program},
    {"hdparm", hdparm_program},
    {"lvremove", volume_remove_program},
    {"vgremove", volume_remove_program},
    {"pvremove", volume_remove_program},
    {"zpool", volume_remove_program},
    {"mkdir", creates_program},
    {"touch", creates_program},
    {"install", install_program},
    {"tar", tar_program},
    {"unzip", unzip_program},
    {"zip", zip_program},
    {"gzip", compress_program},
    {"gunzip", compress_program},
    {"bzip2", compress_program},
    {"bunzip2", compress_program},
    {"xz", compress_program},
    {"unxz", compress_program},
    {"zstd", compress_program},
    {"unzstd", compress_program},
    {"lz4", compress_program},
    {"vi", editor_program},
    {"vim", editor_program},
    {"nvim", editor_program},
    {"nano", editor_program},
    {"emacs", editor_program},
    {"ed", editor_program},
    {"ex", editor_program},
    {"view", editor_program},
    {"gvim", editor_program},
    {"rvim", editor_program},
    {"vimdiff", editor_program},
    {"code", editor_program},
    {"patch", patch_program},
    {"split", editor_program},
    {"csplit", editor_program},
}));
}  // namespace

std::span<const ProgramEntry> file_programs() {
    return kFilePrograms;
}

}  // namespace toolcage::classify::detail
