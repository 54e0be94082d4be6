// libFuzzer target: the bytes a step sends inside an inspected connection, read by http-parser
// through the relay's RequestStream, each request judged as the relay judges it (path decoding,
// request rules, credentials). Checks the promises: a refusal says why, and a secret never
// appears in a reason, nor in what goes upstream unless a request to its own host asked for it.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "relay/inspect/credentials.h"
#include "relay/inspect/request_rules.h"
#include "relay/inspect/request_stream.h"

using namespace toolcage::relay;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size > 256 * 1024) return 0;
    static const std::vector<BoundCredential> all = {
        {"git.example.com", "bearer", "GIT_TOKEN", "toolcage-placeholder-0123456789abcdef",
         "SECRET-ONE", "relay.credentials/0"},
        {"api.example.com", "basic:u", "API_TOKEN", "toolcage-placeholder-fedcba9876543210",
         "SECRET-TWO", "relay.credentials/1"}};
    static const toolcage::RelayRequestRules rules{{{"GET", "/*"}, {"*", "/health"}},
                                                   {{"POST", "/*/git-receive-pack"}}};
    bool injected = false;
    RequestStream stream([&](RequestHead& h) {
        std::string problem;
        auto path = decoded_request_path(h.target, problem);
        if (!path) return Judgement{true, 400, problem};
        if (auto r = judge_request("api.example.com", rules, h.method, *path))
            return Judgement{true, 403, r->reason};
        CredentialOutcome c =
            apply_credentials(h.headers, h.target, &all[1], all, "api.example.com");
        if (c.refused) {
            // A reason may echo the step's own header names, never a secret it did not send.
            if (c.reason.empty() ||
                (c.reason.find("SECRET-") != std::string::npos &&
                 std::string_view(reinterpret_cast<const char*>(data), size).find("SECRET-") ==
                     std::string_view::npos))
                std::abort();
            return Judgement{true, 403, c.reason};
        }
        injected = injected || c.injected;
        return Judgement{};
    });
    std::string out;
    std::string_view bytes(reinterpret_cast<const char*>(data), size);
    // In two pieces: a request split anywhere must read the same.
    size_t half = size / 2;
    bool ok = stream.feed(bytes.substr(0, half), out) && stream.feed(bytes.substr(half), out);
    if (!ok && stream.refusal().reason.empty()) std::abort();
    // The secret bound to another host is never added (the step may send those bytes itself).
    auto count = [](std::string_view hay) {
        size_t n = 0;
        for (size_t at = hay.find("SECRET-ONE"); at != std::string_view::npos;
             at = hay.find("SECRET-ONE", at + 1))
            ++n;
        return n;
    };
    if (count(out) > count(bytes)) std::abort();
    return 0;
}
