// toolcage-relay: the cage's only way out. A CONNECT-only proxy with a host allowlist.
// Reads its options, then hands over to relay/relay.cpp, whose run_relay() tells the story.
#include <sys/prctl.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <string>

#include "common/error.h"
#include "relay/inspect/ca_status.h"
#include "relay/relay.h"

int main(int argc, char** argv) {
    // The relay holds the step's token and the upstream's credentials: no core dumps, and no
    // same-user process may read its memory.
    ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    toolcage::relay::RelayOptions opt;
    CLI::App app{"toolcage-relay: a CONNECT-only proxy with a host allowlist"};
    app.option_defaults()->always_capture_default();
    app.set_version_flag("--version", std::string("toolcage-relay ") + TOOLCAGE_VERSION);
    auto* listen =
        app.add_option("--listen", opt.listen, "address:port to listen on (port 0: any free port)");
    app.add_option("--listen-fd", opt.listen_fd,
                   "accept on this inherited listening TCP socket instead of --listen")
        ->excludes(listen);
    app.add_option("--allow", opt.allow,
                   "allowed target: host, host:port or *.suffix[:port] (port 443 by default)")
        ->take_all()
        ->expected(1, -1);
    app.add_option("--upstream", opt.upstream,
                   "send every CONNECT through this HTTP proxy: http://[user:pass@]host:port");
    std::string upstream_file;
    app.add_option("--upstream-file", upstream_file,
                   "read the --upstream URL from this file (keeps its credentials off the "
                   "command line)")
        ->excludes("--upstream");
    app.add_option("--token-file", opt.token_file,
                   "file holding the token clients must send (Proxy-Authorization: Basic, user "
                   "toolcage)");
    app.add_flag("--allow-private", opt.allow_private,
                 "let targets resolve to loopback and private addresses (tests only)");
    app.add_option("--allow-range", opt.allow_ranges,
                   "a CIDR range of this network the relay may dial although it is not public "
                   "(repeatable); never metadata, link-local, multicast or broadcast addresses");
    bool allow_missing_sni = false;
    app.add_flag("--allow-missing-sni", allow_missing_sni,
                 "pass a TLS handshake that names no server (no SNI) to a host-name target; by "
                 "default it is refused, as is one naming another host than the CONNECT");
    app.add_option("--inspect-file", opt.inspect_file,
                   "JSON file (written by toolcage run) naming the hosts whose TLS the relay ends "
                   "with toolcage's CA, their credentials and request rules");
    std::string make_ca_dir;
    app.add_option("--make-ca", make_ca_dir,
                   "make toolcage's inspection CA (ca.key 0600, ca.pem) in this directory unless "
                   "it is there, then exit");
    bool rotate_ca = false;
    app.add_flag(
        "--rotate", rotate_ca,
        "with --make-ca: replace the CA in the directory by a new one (a key that may have "
        "leaked, a certificate near its end); running steps keep the old one");
    app.add_option("--watch-fd", opt.watch_fd,
                   "pidfd of the launching step, or a lifeline pipe's read end: exit when it ends");
    app.add_option("--ready-fd", opt.ready_fd,
                   "write the bound port and a newline here when ready");
    app.add_flag("--detach", opt.detach, "double-fork and setsid() away from the launcher");
    app.add_option("--log", opt.log_file, "append JSON lines here instead of stderr");
    app.add_option("--step", opt.step, "tag every log line with this step id (\"step\": ID)");
    app.add_option("--max-tunnels", opt.max_tunnels, "connections held at once; beyond: 503")
        ->check(CLI::Range(1, 1'000'000));
    long header_ms = opt.header_timeout.count();
    long connect_ms = opt.connect_timeout.count();
    long idle_s = opt.idle_timeout.count() / 1000;
    long idle_ms = 0;
    long handshake_ms =
        opt.handshake_timeout
            .count();  // --idle-timeout-ms, as the other timeouts are given; wins over seconds
    app.add_option("--header-timeout-ms", header_ms, "time allowed for the request header (408)")
        ->check(CLI::Range(1L, 3'600'000L));
    app.add_option("--connect-timeout-ms", connect_ms, "time allowed to open the tunnel (504)")
        ->check(CLI::Range(1L, 3'600'000L));
    app.add_option("--handshake-timeout-ms", handshake_ms,
                   "time allowed for a tunnel's TLS ClientHello, from its first byte")
        ->check(CLI::Range(1L, 3'600'000L));
    auto* idle_seconds =
        app.add_option("--idle-timeout", idle_s, "seconds a tunnel may stay silent both ways")
            ->check(CLI::Range(1L, 604'800L));
    app.add_option("--idle-timeout-ms", idle_ms, "milliseconds a tunnel may stay silent both ways")
        ->check(CLI::Range(1L, 604'800'000L))
        ->excludes(idle_seconds);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e) == 0 ? 0 : 2;
    }
    if (!make_ca_dir.empty()) {
        try {
            if (rotate_ca)
                toolcage::relay::rotate_ca(make_ca_dir);
            else
                toolcage::relay::make_ca(make_ca_dir);
            return 0;
        } catch (const toolcage::Error& e) {
            std::fprintf(stderr, "toolcage-relay: %s\n", e.what());
            return 2;
        }
    }
    if (rotate_ca) {
        std::fprintf(stderr, "toolcage-relay: --rotate goes with --make-ca DIR\n");
        return 2;
    }
    if (!upstream_file.empty()) {
        std::ifstream in(upstream_file);
        if (!in || !std::getline(in, opt.upstream) || opt.upstream.empty()) {
            std::fprintf(stderr,
                         "toolcage-relay: --upstream-file %s: cannot read a URL from it; write "
                         "http://[user:pass@]host:port on its first line\n",
                         upstream_file.c_str());
            return 2;
        }
    }
    opt.header_timeout = std::chrono::milliseconds(header_ms);
    opt.connect_timeout = std::chrono::milliseconds(connect_ms);
    opt.handshake_timeout = std::chrono::milliseconds(handshake_ms);
    opt.require_sni = !allow_missing_sni;
    opt.idle_timeout =
        idle_ms > 0 ? std::chrono::milliseconds(idle_ms) : std::chrono::seconds(idle_s);
    try {
        toolcage::relay::run_relay(opt);
    } catch (const toolcage::Error& e) {
        std::fprintf(stderr, "toolcage-relay: %s\n", e.what());
        return 2;
    }
}
