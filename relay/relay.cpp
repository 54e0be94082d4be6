#include "relay/relay.h"

#include <signal.h>
#include <unistd.h>

#include "common/error.h"
#include "relay/inspect/inspect_config.h"
#include "relay/lifetime.h"
#include "relay/listener.h"
#include "relay/pump.h"
#include "relay/relay_log.h"
#include "relay/session.h"

namespace toolcage::relay {

void run_relay(const RelayOptions& opt) {
    // 1. Everything the command line says is checked before anything listens.
    if (opt.allow.empty())
        throw Error("--allow: no host allowed (name at least one, e.g. --allow api.example.com)");
    if (opt.max_tunnels < 1)
        throw Error("--max-tunnels " + std::to_string(opt.max_tunnels) + ": must be at least 1");
    SessionContext ctx;
    ctx.allowlist = Allowlist::parse(opt.allow, "--allow");
    if (!opt.token_file.empty()) ctx.auth = TokenAuth::from_file(opt.token_file);
    if (!opt.upstream.empty()) ctx.upstream = UpstreamProxy::parse(opt.upstream);
    if (opt.watch_fd >= 0) check_watch_fd(opt.watch_fd);
    ctx.allow_private = opt.allow_private;
    for (const auto& text : opt.allow_ranges) {
        std::string problem;
        auto range = parse_address_range(text, problem);
        if (!range) throw Error("--allow-range: " + problem);
        ctx.allow_ranges.push_back(*range);
    }
    ctx.header_timeout = opt.header_timeout;
    ctx.connect_timeout = opt.connect_timeout;
    ctx.require_sni = opt.require_sni;
    ctx.handshake_timeout = opt.handshake_timeout;
    ctx.idle_timeout = opt.idle_timeout;
    // Inspection: the CA, the verified upstream context and every credential's secret, read now;
    // a secret that cannot be read stops the relay before it listens.
    if (!opt.inspect_file.empty()) ctx.inspect = load_inspect_file(opt.inspect_file);

    // 2. The log, then the socket: bind errors reach the launcher before any detaching.
    init_log(opt.log_file);
    set_log_step(opt.step);
    uint16_t port = 0;
    Fd listener =
        opt.listen_fd >= 0 ? adopt_listener(opt.listen_fd, port) : listen_on(opt.listen, port);
    ctx.relay_port = port;

    // 3. Leave the launcher's process tree (no threads exist yet, so forking is safe).
    if (opt.detach) detach(opt.log_file);
    ::signal(SIGPIPE, SIG_IGN);

    // 4. Say loudly what is weaker than it should be.
    if (!ctx.auth.required())
        log_event("warn", "start",
                  "no --token-file: any local process may use this relay (pass --token-file)");
    if (opt.allow_private)
        log_event("warn", "start",
                  "--allow-private: loopback and private addresses may be dialled; use this "
                  "for tests only");
    if (!opt.require_sni)
        log_event("warn", "start",
                  "--allow-missing-sni: a TLS handshake that names no server is passed to the "
                  "CONNECT host unchecked");
    if (ctx.inspect)
        log_event(
            "info", "start",
            std::to_string(ctx.inspect->inspect.size()) + " inspected host entries, " +
                std::to_string(ctx.inspect->credentials.size()) + " credentials, " +
                std::to_string(ctx.inspect->requests.size()) + " request rule sets" +
                (ctx.inspect->upstream_ca.empty() ? std::string()
                                                  : ", upstream CA " + ctx.inspect->upstream_ca));
    for (const auto& r : ctx.allow_ranges)
        log_event("info", "start", "--allow-range " + r.text + ": its addresses may be dialled");
    log_event("info", "start",
              "listening on port " + std::to_string(port) + ", " +
                  (ctx.upstream
                       ? "upstream " + ctx.upstream->host + ":" + std::to_string(ctx.upstream->port)
                       : std::string("direct")) +
                  " mode, " + std::to_string(opt.allow.size()) + " allow entries");

    // 5. The pump, then the accept loop; the port is announced once both run.
    Pump pump({opt.idle_timeout, opt.handshake_timeout, [] { connections_in_use().fetch_sub(1); }});
    pump.start();
    ctx.pump = &pump;
    ctx.on_refused = [] { connections_in_use().fetch_sub(1); };
    if (opt.ready_fd >= 0) announce_ready(opt.ready_fd, port);
    accept_loop(listener.get(), {opt.max_tunnels, opt.watch_fd}, ctx);

    // 6. The watched step ended: exiting closes every socket, tunnels included, at once.
    log_event("info", "stop",
              "the watched step ended; closing " + std::to_string(connections_in_use().load()) +
                  " connections and exiting");
    flush_log();
    ::_exit(0);
}

void make_ca(const std::string& dir) {
    ensure_ca(dir);
}

}  // namespace toolcage::relay
