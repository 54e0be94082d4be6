// Inside an inspected connection: requests read by http-parser (keep-alive, chunked bodies),
// placeholders replaced by their secret only for their own host, request rules. Pure functions,
// by tables of cases.
#include <catch2/catch.hpp>

#include "relay/inspect/credentials.h"
#include "relay/inspect/request_rules.h"
#include "relay/inspect/request_stream.h"

using namespace toolcage::relay;

namespace {

const std::string kPh = "toolcage-placeholder-0123456789abcdef";
const std::string kOtherPh = "toolcage-placeholder-fedcba9876543210";

std::vector<BoundCredential> bindings() {
    return {{"git.example.com", "bearer", "GIT_TOKEN", kPh, "s3cret-git", "relay.credentials/0"},
            {"api.example.com", "basic:x-access-token", "API_TOKEN", kOtherPh, "s3cret-api",
             "relay.credentials/1"}};
}

std::string value_of(const HeaderList& h, const std::string& name) {
    for (const auto& [k, v] : h)
        if (k == name) return v;
    return "";
}

}  // namespace

TEST_CASE("a bearer placeholder becomes the secret for its own host", "[relay][inspect]") {
    auto all = bindings();
    HeaderList h = {{"Host", "git.example.com"}, {"Authorization", "Bearer " + kPh}};
    auto out = apply_credentials(h, "/repo.git/info/refs", &all[0], all, "git.example.com");
    CHECK_FALSE(out.refused);
    CHECK(out.injected);
    CHECK(value_of(h, "Authorization") == "Bearer s3cret-git");
}

TEST_CASE("a basic placeholder (as password or user) becomes user:secret", "[relay][inspect]") {
    auto all = bindings();
    for (const std::string& creds : {"anyone:" + kOtherPh, kOtherPh + ":x"}) {
        HeaderList h = {{"authorization", "Basic " + evp_base64_encode(creds)}};
        auto out = apply_credentials(h, "/", &all[1], all, "api.example.com");
        CHECK_FALSE(out.refused);
        CHECK(evp_base64_decode(value_of(h, "authorization").substr(6)) ==
              "x-access-token:s3cret-api");
    }
}

TEST_CASE("a request without the header gets the credential added", "[relay][inspect]") {
    auto all = bindings();
    HeaderList h = {{"Host", "git.example.com"}};
    auto out = apply_credentials(h, "/", &all[0], all, "git.example.com");
    CHECK(out.injected);
    CHECK(value_of(h, "Authorization") == "Bearer s3cret-git");
    all[0].as = "header:X-Api-Key";
    HeaderList h2 = {{"Host", "git.example.com"}};
    apply_credentials(h2, "/", &all[0], all, "git.example.com");
    CHECK(value_of(h2, "X-Api-Key") == "s3cret-git");
}

TEST_CASE("a placeholder sent to another host, header or the URL is refused, naming no secret",
          "[relay][inspect]") {
    auto all = bindings();
    struct Case {
        const char* what;
        HeaderList headers;
        std::string url;
        const BoundCredential* mine;
    };
    const Case cases[] = {
        {"another inspected host", {{"Authorization", "Bearer " + kPh}}, "/", nullptr},
        {"the other binding's host", {{"Authorization", "Bearer " + kPh}}, "/", &all[1]},
        {"base64'd to another host",
         {{"Authorization", "Basic " + evp_base64_encode("u:" + kPh)}},
         "/",
         nullptr},
        {"another header", {{"X-Token", kPh}}, "/", &all[0]},
        {"the query", {}, "/?token=" + kPh, &all[0]},
    };
    for (const auto& c : cases) {
        HeaderList h = c.headers;
        auto out = apply_credentials(h, c.url, c.mine, all, "other.example.com");
        INFO(c.what << ": " << out.reason);
        CHECK(out.refused);
        CHECK(out.reason.find("$") != std::string::npos);
        CHECK(out.reason.find("s3cret") == std::string::npos);
        CHECK(out.reason.find(kPh) == std::string::npos);
    }
}

TEST_CASE("request paths are decoded and dot segments refused before rules see them",
          "[relay][inspect]") {
    std::string problem;
    CHECK(decoded_request_path("/a/git-receive%2dpack?x=1", problem) == "/a/git-receive-pack");
    CHECK_FALSE(decoded_request_path("/a/../b", problem));
    CHECK_FALSE(decoded_request_path("/a/%2e%2e/b", problem));
    // npm's scoped names: an encoded '/' is read as '/', or kept as %2F when asked.
    CHECK(decoded_request_path("/@scope%2fname", problem) == "/@scope/name");
    CHECK(decoded_request_path("/@scope%2Fname", problem, true) == "/@scope%2Fname");
    CHECK(decoded_request_path("/@scope%2fname", problem, true) == "/@scope%2Fname");
    CHECK_FALSE(decoded_request_path("/a%2f..%2fb", problem));
    CHECK_FALSE(decoded_request_path("/a%2f%2e%2e%2fb", problem));
    CHECK_FALSE(decoded_request_path("/a%00b", problem));
    CHECK_FALSE(decoded_request_path("/a%0", problem));
    CHECK_FALSE(decoded_request_path("http://x/", problem));
}

TEST_CASE("request rules: deny first, then an allow list if there is one", "[relay][inspect]") {
    toolcage::RelayRequestRules read_only{{}, {{"POST", "/*/git-receive-pack"}}};
    auto r = judge_request("git.example.com", read_only, "POST", "/org/repo.git/git-receive-pack");
    REQUIRE(r);
    CHECK(r->rule == "relay.requests[\"git.example.com\"].deny[0]");
    CHECK(r->reason.find("POST /*/git-receive-pack") != std::string::npos);
    CHECK_FALSE(
        judge_request("git.example.com", read_only, "POST", "/org/repo.git/git-upload-pack"));
    CHECK_FALSE(
        judge_request("git.example.com", read_only, "GET", "/org/repo.git/git-receive-pack"));

    // A rule that would miss the path in one reading of its encoded '/' refuses it in the other.
    toolcage::RelayRequestRules raw_deny{{}, {{"PUT", "/a?2Fb"}}};
    CHECK(judge_request("h", raw_deny, "PUT", "/a/b", "/a%2Fb"));
    CHECK_FALSE(judge_request("h", raw_deny, "PUT", "/a/b"));

    toolcage::RelayRequestRules allow_get{{{"GET", "/v1/*"}, {"*", "/health"}}, {}};
    CHECK_FALSE(judge_request("api", allow_get, "GET", "/v1/models"));
    CHECK_FALSE(judge_request("api", allow_get, "DELETE", "/health"));
    auto refused = judge_request("api", allow_get, "POST", "/v1/models");
    REQUIRE(refused);
    CHECK(refused->rule == "relay.requests[\"api\"].allow");
}

TEST_CASE("npm: publish only the named package, reads of any, scoped or not", "[relay][inspect]") {
    // npm sends a publish as PUT /<name> and a scoped one as PUT /@scope%2fname; its reads as GET.
    toolcage::RelayRequestRules publish_one{
        {{"GET", "*"}, {"PUT", "/@toolcage/pkg"}, {"PUT", "/plain-pkg"}}, {}};
    std::string problem;
    auto judge = [&](const std::string& method, const std::string& target) {
        auto path = decoded_request_path(target, problem);
        auto kept = decoded_request_path(target, problem, true);
        REQUIRE(path);
        REQUIRE(kept);
        return judge_request("registry", publish_one, method, *path, *kept == *path ? "" : *kept);
    };
    CHECK_FALSE(judge("PUT", "/@toolcage%2fpkg"));
    CHECK_FALSE(judge("PUT", "/@toolcage%2Fpkg"));
    CHECK_FALSE(judge("PUT", "/@toolcage/pkg"));
    CHECK_FALSE(judge("PUT", "/plain-pkg"));
    CHECK_FALSE(judge("GET", "/@other%2fdep"));
    CHECK_FALSE(judge("GET", "/@other/dep/-/dep-1.0.0.tgz"));
    for (const char* other : {"/@toolcage%2fother", "/other", "/@toolcage%2fpkg2", "/plain-pkg%2fx",
                              "/-/package/plain-pkg/dist-tags/latest"}) {
        INFO(other);
        auto r = judge("PUT", other);
        REQUIRE(r);
        CHECK(r->rule == "relay.requests[\"registry\"].allow");
    }
    CHECK(judge("DELETE", "/plain-pkg/-rev/1-abc"));
}

TEST_CASE("http-parser reads keep-alive requests and re-chunks a chunked body",
          "[relay][inspect]") {
    std::vector<std::string> seen;
    RequestStream s([&](RequestHead& h) {
        seen.push_back(h.method + " " + h.target);
        h.headers.emplace_back("X-Added", "1");
        return Judgement{};
    });
    std::string out;
    const std::string two =
        "GET /a HTTP/1.1\r\nHost: h\r\n\r\n"
        "POST /b HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
        "5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\n\r\n";
    // Fed a byte at a time: a request split anywhere reads the same.
    for (char c : two) REQUIRE(s.feed(std::string_view(&c, 1), out));
    CHECK(seen == std::vector<std::string>{"GET /a", "POST /b"});
    CHECK(out.find("GET /a HTTP/1.1\r\nHost: h\r\nX-Added: 1\r\n\r\n") == 0);
    std::string body = out.substr(out.find("POST"));
    body = body.substr(body.find("\r\n\r\n") + 4);
    std::string plain;
    for (std::size_t at = 0;;) {
        std::size_t eol = body.find("\r\n", at);
        std::size_t n = std::stoul(body.substr(at, eol - at), nullptr, 16);
        if (n == 0) break;
        plain += body.substr(eol + 2, n);
        at = eol + 2 + n + 2;
    }
    CHECK(plain == "hello world");
    CHECK(out.ends_with("0\r\n\r\n"));
}

TEST_CASE("a refused or malformed request stops the stream with its status", "[relay][inspect]") {
    RequestStream s([](RequestHead& h) {
        return h.method == "DELETE" ? Judgement{true, 403, "no deletes"} : Judgement{};
    });
    std::string out;
    CHECK_FALSE(s.feed("DELETE /x HTTP/1.1\r\nHost: h\r\n\r\n", out));
    CHECK(s.refusal().status == 403);
    CHECK(out.empty());

    RequestStream bad([](RequestHead&) { return Judgement{}; });
    CHECK_FALSE(bad.feed(
        "GET /x HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n",
        out));
    CHECK(bad.refusal().status == 400);

    RequestStream up([](RequestHead&) { return Judgement{}; });
    std::string o2;
    CHECK_FALSE(up.feed(
        "GET /ws HTTP/1.1\r\nHost: h\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n", o2));
    CHECK(up.refusal().status == 501);
}

TEST_CASE("a placeholder in a body to a host it is not bound to stops the request before it goes on",
          "[relay][inspect]") {
    auto all = bindings();
    // Its own host may carry it (the relay swaps only headers, and it names nothing there).
    CHECK_FALSE(placeholder_in_body("x=" + kPh, &all[0], all, "git.example.com").refused);
    auto other = placeholder_in_body("x=" + kPh, &all[1], all, "api.example.com");
    CHECK(other.refused);
    CHECK(other.field == "relay.credentials/0");
    CHECK(other.reason.find("$GIT_TOKEN") != std::string::npos);
    CHECK(other.reason.find("body") != std::string::npos);
    CHECK(other.reason.find(kPh) == std::string::npos);
    CHECK(placeholder_in_body(kPh, nullptr, all, "elsewhere.example.com").refused);
    CHECK_FALSE(placeholder_in_body("toolcage-placeholder-", nullptr, all, "x").refused);
    CHECK(longest_placeholder(all) == kPh.size());

    // Through the stream, fed a byte at a time, sized and chunked: the placeholder is found
    // across every split, and nothing from the piece that holds it is passed on.
    for (bool chunked : {false, true}) {
        DYNAMIC_SECTION((chunked ? "chunked" : "sized")) {
            const std::string body = "token=" + kPh + "&more";
            std::string request = "POST /b HTTP/1.1\r\nHost: h\r\n";
            if (chunked) {
                request += "Transfer-Encoding: chunked\r\n\r\n";
                for (char c : body) request += "1\r\n" + std::string(1, c) + "\r\n";
                request += "0\r\n\r\n";
            } else {
                request += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
            }
            int checked = 0;
            RequestStream s([](RequestHead&) { return Judgement{}; },
                            [&](std::string_view w) {
                                ++checked;
                                auto c = placeholder_in_body(w, nullptr, all, "h");
                                return c.refused ? Judgement{true, 403, c.reason} : Judgement{};
                            },
                            longest_placeholder(all));
            std::string out;
            bool refused = false;
            for (char c : request) {
                std::string piece;
                if (!s.feed(std::string_view(&c, 1), piece)) {
                    refused = true;
                    break;
                }
                out += piece;
            }
            CHECK(refused);
            CHECK(checked > 1);
            CHECK(s.refusal().status == 403);
            CHECK(out.find(kPh) == std::string::npos);
            CHECK(out.find("&more") == std::string::npos);
        }
    }

    // A body without one passes whole, and the next request of the connection starts afresh.
    RequestStream clean([](RequestHead&) { return Judgement{}; },
                        [&](std::string_view w) {
                            auto c = placeholder_in_body(w, nullptr, all, "h");
                            return c.refused ? Judgement{true, 403, c.reason} : Judgement{};
                        },
                        longest_placeholder(all));
    std::string out;
    CHECK(clean.feed("POST /a HTTP/1.1\r\nHost: h\r\nContent-Length: 8\r\n\r\ntoolcage"
                     "POST /a HTTP/1.1\r\nHost: h\r\nContent-Length: 13\r\n\r\n-placeholder-",
                     out));
    CHECK(out.find("toolcage") != std::string::npos);
}
