// Host lock-outs and disabled defences, as one family of rules (host.*): commands that leave a
// machine unreachable or unguarded rather than delete anything -- the firewall turned off, the
// remote-access service stopped or masked, the network interface taken down, an account's
// password removed or locked, the logs vacuumed, a shell served on the network. Judged after a
// program's own table, for known and unknown programs alike: each program here has a check that
// names what it would do.
#include <algorithm>

#include "hook/classify/analyzer.h"
#include "hook/classify/program_table.h"
#include "hook/classify/text.h"

namespace toolcage::classify::detail {

namespace {

struct Lockout {
    std::string_view rule;
    std::string reason;
};
using Check = std::optional<Lockout> (*)(const Call&);

bool has(const Call& c, std::initializer_list<std::string_view> words) {
    return std::any_of(c.args.begin(), c.args.end(), [&](const Value& v) {
        return std::find(words.begin(), words.end(), v.text) != words.end();
    });
}

// Whether a short-option bundle or a long option of `c` holds the letter or name.
bool has_short(const Call& c, char letter, std::string_view long_name = {}) {
    return std::any_of(c.args.begin(), c.args.end(), [&](const Value& v) {
        const std::string& t = v.text;
        if (!is_flag(v)) return false;
        if (t[1] == '-') return !long_name.empty() && t.substr(0, t.find('=')) == long_name;
        return t.find(letter, 1) != std::string::npos;
    });
}

std::vector<std::string> operands(const Call& c) {
    std::vector<std::string> out;
    for (const Value& v : c.args) {
        if (!is_flag(v)) out.push_back(v.text);
    }
    return out;
}

// What a unit (ssh.service, sshd, ufw.socket) is to the host, or "" for an ordinary service.
std::string_view unit_role(std::string unit) {
    for (std::string_view suffix : {".service", ".socket", ".target"}) {
        if (unit.size() > suffix.size() && unit.ends_with(suffix)) unit.resize(unit.size() - suffix.size());
    }
    if (size_t at = unit.find('@'); at != std::string::npos) unit.resize(at);
    static const std::pair<std::string_view, std::string_view> kUnits[] = {
        {"ssh", "remote"},         {"sshd", "remote"},          {"dropbear", "remote"},
        {"openssh-server", "remote"}, {"ufw", "firewall"},      {"firewalld", "firewall"},
        {"nftables", "firewall"},  {"iptables", "firewall"},    {"ip6tables", "firewall"},
        {"netfilter-persistent", "firewall"}, {"NetworkManager", "network"}, {"networking", "network"},
        {"systemd-networkd", "network"}, {"network", "network"}, {"wpa_supplicant", "network"},
        {"auditd", "defence"},     {"apparmor", "defence"},     {"fail2ban", "defence"},
        {"systemd-journald", "defence"}, {"rsyslog", "defence"}, {"syslog", "defence"},
        {"crowdsec", "defence"},   {"falco", "defence"},        {"wazuh-agent", "defence"},
        {"osqueryd", "defence"},   {"sysmon", "defence"},       {"clamav-daemon", "defence"}};
    for (const auto& [name, role] : kUnits) {
        if (unit == name) return role;
    }
    return {};
}

std::optional<Lockout> unit_stopped(std::string_view how, const std::string& unit) {
    std::string_view role = unit_role(unit);
    if (role.empty()) return {};
    std::string what = "`" + std::string(how) + " " + unit + "` ";
    if (role == "remote")
        return Lockout{"host.remote-access-off",
                       what + "stops remote access to the machine: whoever works on it over ssh is locked out. "
                              "`systemctl reload " + unit + "` applies a changed configuration instead"};
    if (role == "firewall")
        return Lockout{"host.firewall-off", what + "turns the host's firewall off"};
    if (role == "network")
        return Lockout{"host.network-down", what + "takes the machine's network down: it cannot be reached"};
    return Lockout{"host.defence-off", what + "turns off a defence of the host (auditing, confinement or its logs)"};
}

std::optional<Lockout> systemctl_check(const Call& c) {
    std::vector<std::string> ops = operands(c);
    if (ops.empty()) return {};
    const std::string& sub = ops[0];
    if (sub != "stop" && sub != "disable" && sub != "mask" && sub != "kill" && sub != "freeze") return {};
    // disable without --now: the unit keeps running until the next boot, and is gone then.
    for (size_t k = 1; k < ops.size(); ++k) {
        if (auto l = unit_stopped("systemctl " + sub, ops[k])) return l;
    }
    return {};
}

// service NAME stop, rc-service NAME stop, update-rc.d NAME disable, chkconfig NAME off.
std::optional<Lockout> service_check(const Call& c) {
    std::vector<std::string> ops = operands(c);
    if (ops.size() < 2) return {};
    const std::string& action = ops[1];
    bool stops = action == "stop" || action == "disable" || action == "off" || action == "remove" || action == "del";
    if (!stops) return {};
    return unit_stopped(c.name + " " + action, ops[0]);
}

// pkill sshd, killall sshd: the server and, with it, every session over ssh.
std::optional<Lockout> kill_check(const Call& c) {
    for (const std::string& op : operands(c)) {
        std::string_view name = op;
        if (name.starts_with("^")) name.remove_prefix(1);
        if (name.ends_with("$")) name.remove_suffix(1);
        if (unit_role(std::string(name)) == "remote" && name != "ssh")
            return Lockout{"host.remote-access-off",
                           "`" + c.name + " " + op + "` kills the ssh server and every session through it: whoever "
                           "works on the machine over ssh is locked out"};
    }
    return {};
}

std::optional<Lockout> ufw_check(const Call& c) {
    std::vector<std::string> ops = operands(c);
    if (!ops.empty() && ops[0] == "disable")
        return Lockout{"host.firewall-off", "`ufw disable` turns the host's firewall off; `ufw status` shows its rules"};
    return {};
}

std::optional<Lockout> firewall_cmd_check(const Call& c) {
    if (has(c, {"--panic-on"}))
        return Lockout{"host.network-down",
                       "`firewall-cmd --panic-on` drops every packet in and out: the machine is cut off, ssh too"};
    for (const Value& v : c.args) {
        if (v.text == "--set-default-zone=drop" || v.text == "--set-default-zone=block")
            return Lockout{"host.network-down",
                           "`firewall-cmd " + v.text + "` refuses every connection not allowed by name, ssh too"};
    }
    return {};
}

bool loopback(std::string_view dev) { return dev == "lo"; }

// ip link set DEV down, ip link delete DEV, ip addr flush dev DEV, ip route flush/del default.
std::optional<Lockout> ip_check(const Call& c) {
    std::vector<std::string> ops = operands(c);
    if (ops.size() < 2) return {};
    std::string obj = ops[0], verb = ops[1];
    bool link = obj == "link" || obj == "l" || obj == "li";
    bool addr = obj == "addr" || obj == "address" || obj == "a" || obj == "ad";
    bool route = obj == "route" || obj == "r" || obj == "ro";
    std::string dev;
    for (size_t k = 2; k < ops.size(); ++k) {
        if (ops[k] == "dev" && k + 1 < ops.size()) {
            dev = ops[k + 1];
            break;
        }
        if (dev.empty()) dev = ops[k];
    }
    if (link && verb == "set" && std::find(ops.begin(), ops.end(), "down") != ops.end() && !loopback(dev))
        return Lockout{"host.network-down", "`ip link set " + dev + " down` takes the network interface down: "
                                            "the machine cannot be reached through it, ssh too"};
    if (link && (verb == "delete" || verb == "del") && !loopback(dev))
        return Lockout{"host.network-down", "`ip link delete " + dev + "` removes the network interface"};
    if (addr && verb == "flush" && !loopback(dev))
        return Lockout{"host.network-down", "`ip addr flush` removes the interface's addresses: the machine cannot be reached"};
    if (route && (verb == "flush" || ((verb == "del" || verb == "delete") && ops.size() > 2 && ops[2] == "default")))
        return Lockout{"host.network-down", "`ip route " + verb + "` removes the routes the machine is reached by"};
    return {};
}

std::optional<Lockout> ifdown_check(const Call& c) {
    std::vector<std::string> ops = operands(c);
    if (c.name == "ifconfig") {
        if (ops.size() >= 2 && ops.back() == "down" && !loopback(ops[0]))
            return Lockout{"host.network-down", "`ifconfig " + ops[0] + " down` takes the network interface down"};
        return {};
    }
    bool all = has(c, {"-a", "--all"});
    for (const std::string& dev : ops) {
        if (!loopback(dev)) all = true;
    }
    if (!all) return {};
    return Lockout{"host.network-down", "`" + c.name + "` takes network interfaces down: the machine cannot be reached through them"};
}

std::optional<Lockout> nmcli_check(const Call& c) {
    std::vector<std::string> ops = operands(c);
    auto at = [&](size_t k) { return k < ops.size() ? ops[k] : std::string(); };
    std::string o = at(0);
    if ((o == "networking" || o == "n") && at(1) == "off")
        return Lockout{"host.network-down", "`nmcli networking off` turns all networking off"};
    if ((o == "radio" || o == "r") && at(2) == "off")
        return Lockout{"host.network-down", "`nmcli radio … off` turns the wireless network off"};
    if ((o == "connection" || o == "con" || o == "c") && (at(1) == "down" || at(1) == "delete"))
        return Lockout{"host.network-down", "`nmcli connection " + at(1) + "` takes a network connection down"};
    if ((o == "device" || o == "dev" || o == "d") && (at(1) == "disconnect" || at(1) == "down" || at(1) == "delete"))
        return Lockout{"host.network-down", "`nmcli device " + at(1) + "` takes a network device down"};
    return {};
}

// passwd -d removes the password (anyone logs in without one); -l locks it.
std::optional<Lockout> passwd_check(const Call& c) {
    if (has_short(c, 'd', "--delete"))
        return Lockout{"host.account-locked",
                       "`passwd -d` removes the account's password: anyone may then log in to it without one"};
    if (has_short(c, 'l', "--lock"))
        return Lockout{"host.account-locked", "`passwd -l` locks the account: its owner can no longer log in"};
    return {};
}

std::optional<Lockout> usermod_check(const Call& c) {
    for (size_t i = 0; i < c.argc(); ++i) {
        const std::string& t = c.arg(i);
        if (t == "-L" || t == "--lock")
            return Lockout{"host.account-locked", "`usermod -L` locks the account: its owner can no longer log in"};
        if ((t == "-e" || t == "--expiredate") && i + 1 < c.argc() && c.arg(i + 1) != "" && c.arg(i + 1) != "-1")
            return Lockout{"host.account-locked", "`usermod -e` expires the account: its owner can no longer log in"};
        if ((t == "-s" || t == "--shell") && i + 1 < c.argc() &&
            (basename_of(c.arg(i + 1)) == "nologin" || basename_of(c.arg(i + 1)) == "false"))
            return Lockout{"host.account-locked", "`usermod -s " + c.arg(i + 1) + "` takes the account's shell away"};
    }
    return {};
}

std::optional<Lockout> chage_check(const Call& c) {
    for (size_t i = 0; i + 1 < c.argc(); ++i) {
        if ((c.arg(i) == "-E" || c.arg(i) == "--expiredate") && c.arg(i + 1) == "0")
            return Lockout{"host.account-locked", "`chage -E 0` expires the account: its owner can no longer log in"};
    }
    return {};
}

std::optional<Lockout> chpasswd_check(const Call& c) {
    if (has(c, {"-h", "--help"})) return {};
    return Lockout{"host.account-locked",
                   "`" + c.name + "` replaces accounts' passwords: their owners can no longer log in with theirs"};
}

std::optional<Lockout> chsh_check(const Call& c) {
    for (size_t i = 0; i + 1 < c.argc(); ++i) {
        if ((c.arg(i) == "-s" || c.arg(i) == "--shell") &&
            (basename_of(c.arg(i + 1)) == "nologin" || basename_of(c.arg(i + 1)) == "false"))
            return Lockout{"host.account-locked", "`chsh -s " + c.arg(i + 1) + "` takes the account's shell away"};
    }
    return {};
}

std::optional<Lockout> loginctl_check(const Call& c) {
    std::vector<std::string> ops = operands(c);
    if (ops.empty()) return {};
    static const std::string_view kEnds[] = {"terminate-user", "kill-user", "terminate-session", "kill-session",
                                             "terminate-seat"};
    if (std::find(std::begin(kEnds), std::end(kEnds), ops[0]) == std::end(kEnds)) return {};
    return Lockout{"host.sessions-ended",
                   "`loginctl " + ops[0] + "` ends a user's sessions and kills their processes, unsaved work too"};
}

std::optional<Lockout> journalctl_check(const Call& c) {
    for (const Value& v : c.args) {
        if (v.text.rfind("--vacuum-", 0) == 0)
            return Lockout{"host.logs-deleted",
                           "`journalctl " + v.text + "` deletes the system's logs: what happened on the machine is gone. "
                           "`journalctl --disk-usage` shows their size"};
    }
    return {};
}

std::optional<Lockout> setenforce_check(const Call& c) {
    std::vector<std::string> ops = operands(c);
    if (!ops.empty() && (ops[0] == "0" || lower(ops[0]) == "permissive"))
        return Lockout{"host.defence-off", "`setenforce " + ops[0] + "` turns SELinux enforcement off"};
    return {};
}

std::optional<Lockout> auditctl_check(const Call& c) {
    for (size_t i = 0; i < c.argc(); ++i) {
        if (c.arg(i) == "-D")
            return Lockout{"host.defence-off", "`auditctl -D` deletes every audit rule"};
        if (c.arg(i) == "-e" && i + 1 < c.argc() && c.arg(i + 1) == "0")
            return Lockout{"host.defence-off", "`auditctl -e 0` turns auditing off"};
    }
    return {};
}

std::optional<Lockout> apparmor_check(const Call& c) {
    return Lockout{"host.defence-off", "`" + c.name + "` unloads AppArmor's confinement"};
}

bool is_shell_program(std::string_view prog) {
    std::string_view b = basename_of(prog);
    if (size_t sp = b.find(' '); sp != std::string_view::npos) b = b.substr(0, sp);
    static const std::string_view kShells[] = {"sh", "bash", "dash", "zsh", "ksh", "fish", "ash", "busybox",
                                               "python", "python3", "perl", "ruby", "php", "node", "pwsh"};
    return std::find(std::begin(kShells), std::end(kShells), b) != std::end(kShells);
}

// nc -l -e /bin/sh, ncat --listen --exec, ncat -c 'bash': a program served to whoever connects
// (or, without -l, handed to the host it connects to: a reverse shell).
std::optional<Lockout> netcat_check(const Call& c) {
    std::string prog;
    for (size_t i = 0; i < c.argc(); ++i) {
        const std::string& t = c.arg(i);
        std::string name = t.substr(0, t.find('='));
        if (name == "-e" || name == "-c" || name == "--exec" || name == "--sh-exec" || name == "--lua-exec") {
            prog = t.find('=') != std::string::npos ? t.substr(t.find('=') + 1) : (i + 1 < c.argc() ? c.arg(i + 1) : "?");
            break;
        }
        // -lvpe /bin/sh: e ends a bundle and takes the next word.
        if (is_flag(c.args[i]) && t[1] != '-' && t.back() == 'e' && t.size() > 2) {
            prog = i + 1 < c.argc() ? c.arg(i + 1) : "?";
            break;
        }
    }
    if (prog.empty()) return {};
    bool listens = has_short(c, 'l', "--listen");
    const std::string& shown = prog;
    if (listens)
        return Lockout{"host.shell-on-network",
                       "`" + c.name + " -l … " + shown + "` serves " + (is_shell_program(prog) ? "a shell" : "a program") +
                           " to anyone who connects: the machine is theirs"};
    return Lockout{"host.shell-on-network",
                   "`" + c.name + " … " + shown + "` hands " + (is_shell_program(prog) ? "a shell" : "a program") +
                       " to the host it connects to (a reverse shell)"};
}

// socat TCP-LISTEN:4444,fork EXEC:/bin/bash; socat TCP:host:4444 EXEC:sh.
std::optional<Lockout> socat_check(const Call& c) {
    bool exec = false, listens = false, network = false;
    for (const std::string& op : operands(c)) {
        std::string u = lower(op);
        if (u.rfind("exec:", 0) == 0 || u.rfind("system:", 0) == 0) exec = true;
        if (contains(u, "-listen") || u.rfind("listen", 0) == 0) listens = network = true;
        if (u.rfind("tcp", 0) == 0 || u.rfind("udp", 0) == 0 || u.rfind("openssl", 0) == 0 ||
            u.rfind("sctp", 0) == 0)
            network = true;
    }
    if (!exec || !network) return {};
    return Lockout{"host.shell-on-network",
                   listens ? "`socat … LISTEN … EXEC:` serves a program to anyone who connects: the machine is theirs"
                           : "`socat … EXEC:` hands a program to the host it connects to (a reverse shell)"};
}

struct HostEntry {
    std::string_view name;
    Check check;
};

constexpr auto kHost = sorted_by_name(std::to_array<HostEntry>({
    {"aa-teardown", apparmor_check},
    {"auditctl", auditctl_check},
    {"chage", chage_check},
    {"chkconfig", service_check},
    {"chpasswd", chpasswd_check},
    {"chsh", chsh_check},
    {"firewall-cmd", firewall_cmd_check},
    {"ifconfig", ifdown_check},
    {"ifdown", ifdown_check},
    {"ip", ip_check},
    {"loginctl", loginctl_check},
    {"nc", netcat_check},
    {"ncat", netcat_check},
    {"netcat", netcat_check},
    {"newusers", chpasswd_check},
    {"nmcli", nmcli_check},
    {"passwd", passwd_check},
    {"journalctl", journalctl_check},
    {"killall", kill_check},
    {"pkill", kill_check},
    {"rc-service", service_check},
    {"service", service_check},
    {"setenforce", setenforce_check},
    {"socat", socat_check},
    {"systemctl", systemctl_check},
    {"ufw", ufw_check},
    {"update-rc.d", service_check},
    {"usermod", usermod_check},
}));

}  // namespace

void judge_host_lockout(Analyzer& a, const Call& c) {
    const HostEntry* e = find_by_name<HostEntry>(kHost, c.name);
    if (!e) return;
    if (std::optional<Lockout> l = e->check(c)) a.hit(Decision::deny, l->rule, c.via + l->reason);
}

}  // namespace toolcage::classify::detail
