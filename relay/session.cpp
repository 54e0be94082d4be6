#include "relay/session.h"

#include <sys/socket.h>

#include "relay/address_check.h"
#include "relay/http_answer.h"
#include "relay/inspected_tunnel.h"
#include "relay/request_parser.h"

namespace toolcage::relay {
namespace {

constexpr auto kLinger = std::chrono::milliseconds(1000);

uint64_t ms_since(Clock::time_point t) {
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t).count());
}

}  // namespace

bool names_relay_itself(const Target& t, uint16_t relay_port) {
    if (t.port != relay_port) return false;
    if (t.host == "localhost") return true;
    if (t.host.size() > 10 && t.host.compare(t.host.size() - 10, 10, ".localhost") == 0)
        return true;
    if (!t.ip_literal) return false;
    sockaddr_storage ss{};
    if (t.family == AF_INET) {
        auto* in = reinterpret_cast<sockaddr_in*>(&ss);
        in->sin_family = AF_INET;
        in->sin_addr = t.addr4;
    } else {
        auto* in6 = reinterpret_cast<sockaddr_in6*>(&ss);
        in6->sin6_family = AF_INET6;
        in6->sin6_addr = t.addr6;
    }
    auto* sa = reinterpret_cast<const sockaddr*>(&ss);
    return classify_address(sa).reaches_this_machine || is_own_address(sa, own_addresses_cached());
}

namespace {

void serve_client(Fd& client, ConnectRecord& rec, bool& finished, Clock::time_point accepted,
                  const SessionContext& ctx);

}  // namespace

void handle_client(Fd client, std::string peer, Clock::time_point accepted,
                   const SessionContext& ctx) {
    ConnectRecord rec;
    rec.client = std::move(peer);
    bool finished = false;  // set once the connection was refused or handed to the pump
    try {
        serve_client(client, rec, finished, accepted, ctx);
    } catch (const std::exception& e) {
        // Out of descriptors or memory half way: refuse, never leave the client hanging.
        if (finished) return;
        std::string reason = std::string("the relay failed: ") + e.what();
        close_gracefully(client, http_refusal(502, reason), kLinger);
        rec.verdict = "deny";
        rec.status = 502;
        rec.reason = reason;
        rec.ms = ms_since(accepted);
        log_connect(rec);
        if (ctx.on_refused) ctx.on_refused();
    }
}

namespace {

void serve_client(Fd& client, ConnectRecord& rec, bool& finished, Clock::time_point accepted,
                  const SessionContext& ctx) {
    rec.mode = ctx.upstream ? "upstream" : "direct";
    rec.verdict = "deny";

    auto refuse = [&](int status, const std::string& reason) {
        finished = true;
        rec.status = status;
        rec.reason = reason;
        // Logged before the client hears it: the launcher reads its step's refusals from the
        // log as soon as the step ends, which may be as soon as the client has its answer.
        rec.ms = ms_since(accepted);
        log_connect(rec);
        close_gracefully(client, http_refusal(status, reason), kLinger);
        if (ctx.on_refused) ctx.on_refused();
    };

    // 1. Read the request header, all of it within one deadline (a slow client gets 408).
    auto header_deadline = accepted + ctx.header_timeout;
    std::string buf;
    ParseResult parsed;
    char chunk[2048];
    for (;;) {
        parsed = parse_connect_request(buf);
        if (parsed.state != ParseResult::State::incomplete) break;
        size_t room = kMaxHeaderBytes - buf.size();
        IoResult r = read_some(client.get(), chunk, std::min(room, sizeof chunk), header_deadline);
        if (r.status == IoStatus::timeout)
            return refuse(408, "the request header was not complete within " +
                                   std::to_string(ctx.header_timeout.count()) + " ms");
        if (r.status != IoStatus::ok) {
            rec.reason = r.status == IoStatus::eof ? "client closed before a complete request"
                                                   : "reading the request failed";
            finished = true;
            client.reset();
            rec.ms = ms_since(accepted);
            log_connect(rec);
            if (ctx.on_refused) ctx.on_refused();
            return;
        }
        buf.append(chunk, r.bytes);
    }
    if (parsed.state == ParseResult::State::refused) return refuse(parsed.status, parsed.reason);
    const ConnectRequest& req = parsed.request;
    rec.host = req.target;

    // 2. Who asks: the step's token, before anything about the target is revealed.
    if (!ctx.auth.accepts(req.proxy_authorization))
        return refuse(407, req.proxy_authorization
                               ? "wrong proxy credentials (user toolcage, the step's token)"
                               : "proxy credentials required (user toolcage, the step's token)");

    // 3. What it names: host:port, canonical, on the allowlist, not a loop back into us.
    TargetParse tp = parse_target(req.target);
    if (!tp.target) return refuse(400, tp.error);
    const Target& target = *tp.target;
    rec.host = target.host;
    rec.port = target.port;
    if (ctx.upstream && ctx.upstream->is_self(target))
        return refuse(403, "the target " + target.authority() + " is the upstream proxy itself");
    if (names_relay_itself(target, ctx.relay_port))
        return refuse(403, "the target " + target.authority() + " is this relay itself");
    if (auto why = ctx.allowlist.refusal(target)) return refuse(403, *why);

    // 4. Dial: directly (resolve once, check every address) or through the upstream proxy.
    auto dial_deadline = Clock::now() + ctx.connect_timeout;
    DialOutcome dialed =
        ctx.upstream ? dial_upstream(*ctx.upstream, target, dial_deadline)
                     : dial_direct(target, {ctx.allow_private, ctx.relay_port, ctx.allow_ranges},
                                   dial_deadline);
    rec.address = dialed.address;
    if (dialed.status != 0) return refuse(dialed.status, dialed.reason);

    // 5. Answer 200; only now may the bytes the client sent early go to the target, and only once
    // the pump has judged them: a TLS handshake must name this host (relay/handshake/).
    IoResult w = write_all(client.get(), kConnectEstablished, Clock::now() + ctx.connect_timeout);
    if (w.status != IoStatus::ok) {
        finished = true;
        rec.reason = "client went away before the tunnel opened";
        rec.ms = ms_since(accepted);
        log_connect(rec);
        if (ctx.on_refused) ctx.on_refused();
        return;
    }
    rec.verdict = "allow";
    rec.status = 200;
    // 6. An inspected host: this thread ends the step's TLS and reads its requests until the end.
    if (ctx.inspect && ctx.inspect->inspected(target.host, target.port)) {
        finished = true;
        InspectedStart in;
        in.client = std::move(client);
        in.server = std::move(dialed.fd);
        in.early = buf.substr(req.header_bytes);
        in.record = std::move(rec);
        in.accepted = accepted;
        in.target = target;
        in.require_sni = ctx.require_sni;
        in.handshake_timeout = ctx.handshake_timeout;
        in.idle_timeout = ctx.idle_timeout;
        run_inspected(std::move(in), *ctx.inspect);
        if (ctx.on_refused) ctx.on_refused();
        return;
    }
    TunnelStart start;
    start.client = std::move(client);
    start.target = std::move(dialed.fd);
    start.to_target = buf.substr(req.header_bytes);
    start.to_client = std::move(dialed.leftover);
    start.record = std::move(rec);
    start.accepted = accepted;
    start.check = HandshakeRule{target.host, target.port, target.ip_literal, ctx.require_sni};
    finished = true;
    ctx.pump->add(std::move(start));
}

}  // namespace

}  // namespace toolcage::relay
