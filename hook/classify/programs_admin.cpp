// Administration whose effect the agent cannot undo: the firewall, the kernel's settings, swap,
// ssh keys, remote storage, storage pools. Each program has a table entry with the words that
// destroy (refused), the words that only read (allowed) and why; anything else is caged. Backup
// tools read their repositories under a lock they write, so their listings are caged too.
#include <algorithm>

#include "hook/classify/analyzer.h"
#include "hook/classify/paths.h"
#include "hook/classify/program_table.h"
#include "hook/classify/text.h"

namespace toolcage::classify::detail {

namespace {

// One program: its destructive, changing and read-only words. A word is an option ("-F",
// "--flush"; single letters also count inside a bundle such as -nF) or a subcommand ("purge").
// Destroying words are refused; changing words are caged; a read word without either is
// allowed; anything else is caged.
struct Admin {
    std::string_view name;
    std::string_view destroys;  // refused
    std::string_view changes;   // caged
    std::string_view reads;     // allowed when nothing above is there
    std::string_view rule;      // the rule id of a refusal
    std::string_view reason;    // what a refusal says
};

constexpr std::string_view kXtablesChanges =
    "-A --append -I --insert -D --delete -R --replace -N --new-chain -E --rename-chain -P --policy -Z --zero";
constexpr std::string_view kXtablesReads = "-L --list -S --list-rules -V --version -h --help -C --check";

constexpr auto kAdmin = sorted_by_name(std::to_array<Admin>({
    {"arptables", "-F --flush -X --delete-chain", kXtablesChanges, kXtablesReads, "firewall.flush",
     "deletes every firewall rule (or chain) at once"},
    {"borg", "delete prune recreate",
     "create init rcreate extract mount umount rename key compact upgrade config benchmark with-lock export-tar "
     "import-tar serve break-lock",
     "--version -V help --help", "backup.delete",
     "deletes backup archives (prune and delete drop them, recreate rewrites them); `--dry-run --list` shows which"},
    {"ebtables", "-F --flush -X --delete-chain --init-table", kXtablesChanges, "-L --list -V --version -h --help",
     "firewall.flush", "deletes every firewall rule (or chain) at once"},
    {"helmfile", "destroy delete", "apply sync deps repos fetch init",
     "version --version help --help", "infra.destroy",
     "deletes every release of the helmfile and its resources; `helmfile diff` shows what is there"},
    {"ip6tables", "-F --flush -X --delete-chain", kXtablesChanges, kXtablesReads, "firewall.flush",
     "deletes every firewall rule (or chain) at once, or makes the default drop everything"},
    {"iptables", "-F --flush -X --delete-chain", kXtablesChanges, kXtablesReads, "firewall.flush",
     "deletes every firewall rule (or chain) at once, or makes the default drop everything"},
    {"nft", "flush destroy", "add create insert replace delete reset rename import -f --file -i --interactive",
     "list describe monitor -v --version -h --help -c --check", "firewall.flush",
     "flushes or deletes the firewall's rule sets"},
    {"restic", "forget prune",
     "backup restore init copy tag rewrite mount migrate repair key unlock cache generate self-update recover",
     "version help --help --version", "backup.delete",
     "deletes snapshots or the data only they held; `forget --dry-run` shows which"},
    {"rclone", "purge delete deletefile rmdir rmdirs cleanup sync bisync dedupe", "", "version help listremotes",
     "storage.delete", "deletes files on remote storage (sync deletes what the source lacks)"},
    {"swapoff", "-a --all", "", "-h --help -V --version", "system.swap",
     "turns off every swap area at once: memory pressure can kill processes"},
    {"ufw", "reset", "allow deny reject limit delete insert prepend enable disable default logging route reload",
     "status version --version help --help show", "firewall.flush", "deletes every firewall rule"},
    {"zfs", "destroy rollback",
     "create set inherit snapshot snap rename promote clone send receive recv mount unmount share unshare upgrade "
     "allow unallow hold release load-key unload-key change-key bookmark redact program jail unjail",
     "list get version --version help userspace groupspace projectspace diff wait", "disk.format",
     "destroys datasets or snapshots (rollback -r deletes later ones)"},
}));

// `subcommand_only`: a plain word counts only as the first operand (zfs list -t snapshot).
bool names_word(const Call& c, std::string_view words, bool subcommand_only = false) {
    bool operand_seen = false;
    for (const Value& v : c.args) {
        const std::string& t = v.text;
        if (!is_flag(v)) {
            if (subcommand_only && operand_seen) continue;
            operand_seen = true;
        }
        if (word_listed(words, t.substr(0, t.find('=')))) return true;
        // A short bundle (-nF): each letter counts as its own option.
        if (t.size() > 2 && t[0] == '-' && t[1] != '-' && t.find('=') == std::string::npos) {
            for (size_t k = 1; k < t.size(); ++k) {
                if (word_listed(words, std::string("-") + t[k])) return true;
            }
        }
    }
    return false;
}

void admin_program(Analyzer& a, Call& c) {
    const Admin* e = find_by_name<Admin>(kAdmin, c.name);
    if (!e) return;
    bool destroys = names_word(c, e->destroys);
    if ((c.name == "iptables" || c.name == "ip6tables") && !destroys) {
        // -P CHAIN DROP: the default policy drops everything, the machine is cut off.
        for (size_t i = 0; i + 2 < c.argc(); ++i) {
            if ((c.arg(i) == "-P" || c.arg(i) == "--policy") && (c.arg(i + 2) == "DROP" || c.arg(i + 2) == "REJECT")) {
                destroys = true;
            }
        }
    }
    if (c.name == "nft" && !destroys) {
        for (size_t i = 0; i + 1 < c.argc(); ++i) {
            if (c.arg(i) == "delete" && (c.arg(i + 1) == "table" || c.arg(i + 1) == "chain")) destroys = true;
        }
    }
    bool unknown = std::any_of(c.args.begin(), c.args.end(), [](const Value& v) { return !v.known(); });
    if (destroys || (unknown && c.name != "rclone")) {
        a.hit(destroys ? Decision::deny : Decision::cage, destroys ? e->rule : std::string_view("admin.change"),
              "`" + c.via + c.name + "` " + (destroys ? std::string(e->reason) : "gets arguments known only at run time"));
        return;
    }
    bool changes = names_word(c, e->changes, true);
    bool reads = names_word(c, e->reads, true) || (c.args.empty() && c.name != "rclone" && c.name != "swapoff" && c.name != "nft");
    if (!changes && reads) {
        a.hit(Decision::allow, "admin.query", "`" + c.name + "` only shows settings");
        return;
    }
    a.hit(Decision::cage, "admin.change", "`" + c.name + "` changes the system's configuration");
}

// sysctl: NAME reads, NAME=VALUE and -w write, -p/--system load settings files.
void sysctl_program(Analyzer& a, Call& c) {
    bool writes = false;
    for (const Value& v : c.args) {
        const std::string& t = v.text;
        if (!v.known()) {
            a.hit(Decision::cage, "admin.change", "`sysctl` gets arguments known only at run time");
            return;
        }
        if (t == "-w" || t == "--write" || t == "-p" || t.rfind("--load", 0) == 0 || t == "--system" ||
            (t.rfind("-p", 0) == 0 && t.size() > 2 && t[1] != '-')) {
            writes = true;
        } else if (!is_flag(v) && t.find('=') != std::string::npos) {
            writes = true;
        }
    }
    if (writes) {
        a.hit(Decision::deny, "sysctl.write", "`" + c.via + "sysctl` changes the running kernel's settings");
        return;
    }
    a.hit(Decision::allow, "admin.query", "`sysctl` without -w or NAME=VALUE only reads settings");
}

// swapon: showing is read-only; turning swap on changes the system.
void swapon_program(Analyzer& a, Call& c) {
    bool shows = c.args.empty();
    for (const Value& v : c.args) {
        if (v.text == "--show" || v.text.rfind("--show=", 0) == 0 || v.text == "-s" || v.text == "--summary" ||
            v.text == "--version" || v.text == "-V" || v.text == "--help" || v.text == "-h") {
            shows = true;
        }
    }
    if (shows) {
        a.hit(Decision::allow, "admin.query", "`swapon` only shows swap areas");
        return;
    }
    a.hit(Decision::cage, "admin.change", "`swapon` changes the system's swap");
}

// ssh-keygen: reading modes are allowed; generating a key over one in ~/.ssh (or any key
// file) destroys the old key, which nothing can bring back.
void ssh_keygen_program(Analyzer& a, Call& c) {
    Opts o = parse_opts(c.args, 0, "abCEfFgIJjKmNnOPrRsStTVwYzZ", {}, false);
    static const std::string_view kReads[] = {"-y", "-l", "-B", "-F", "-L", "-e", "-i", "-r", "-Q", "-D", "-k", "-?", "-h"};
    for (std::string_view r : kReads) {
        if (o.has(r)) {
            a.hit(Decision::allow, "admin.query", "`ssh-keygen " + std::string(r) + "` only prints key information");
            return;
        }
    }
    if (o.has("-R") || o.has("-H") || o.has("-p") || o.has("-c") || o.has("-s") || o.has("-A") || o.has("-Y") ||
        o.has("-M") || o.has("-G") || o.has("-T")) {
        a.hit(Decision::cage, "admin.change", "`ssh-keygen` changes a key, a certificate or known_hosts");
        return;
    }
    // Generating: -f FILE, or the default ~/.ssh/id_<type>.
    std::optional<std::string> f = o.value("-f");
    std::string type = o.value("-t").value_or("ed25519");
    Value target = f ? Value::literal(*f) : Value::literal(a.ctx().home + "/.ssh/id_" + type);
    if (f && f->rfind("~/", 0) == 0 && !a.ctx().home.empty()) target.text = a.ctx().home + f->substr(1);
    for (const PathInfo& p : a.resolve(target, *c.scope)) {
        bool key_place = p.secret || p.secret_dir || p.path.find("/.ssh/") != std::string::npos ||
                         p.cls == PathClass::system || p.cls == PathClass::root;
        if (key_place) {
            a.hit(Decision::deny, "ssh.key-overwrite",
                  "`ssh-keygen` writes a new key to " + target.shown() +
                      ": a key already there is lost (and with it every login that used it)");
            return;
        }
    }
    a.check_write(target, WriteMode::replace, "ssh-keygen", *c.scope);
    a.hit(Decision::cage, "admin.change", "`ssh-keygen` generates a key");
}

}  // namespace

namespace {
constexpr auto kAdminPrograms = [] {
    constexpr ProgramEntry kSpecial[] = {
        {"sysctl", sysctl_program},
        {"swapon", swapon_program},
        {"ssh-keygen", ssh_keygen_program},
    };
    std::array<ProgramEntry, kAdmin.size() + std::size(kSpecial)> out{};
    size_t i = 0;
    for (const Admin& e : kAdmin) out[i++] = {e.name, admin_program};
    for (const ProgramEntry& e : kSpecial) out[i++] = e;
    return sorted_by_name(out);
}();
}  // namespace

std::span<const ProgramEntry> admin_programs() { return kAdminPrograms; }

}  // namespace toolcage::classify::detail
