// The way to the collector: RFC 5424 messages, octet-counted frames, the sender against real
// sockets (TCP, UDP, a unix datagram socket; refused; a reader that never reads), the events
// kept for later, and the host's setting.
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstring>
#include <regex>
#include <string>
#include <thread>

#include "fleet/ocsf_event.h"
#include "fleet/setting.h"
#include "fleet/syslog_message.h"
#include "fleet/syslog_sender.h"
#include "fleet/unsent.h"
#include "tests/unit/temp_dir.h"

using namespace toolcage;
using namespace toolcage::fleet;
using namespace std::chrono_literals;

namespace {

// A loopback TCP listener on a free port.
struct Listener {
    int fd = -1;
    unsigned port = 0;
    explicit Listener(int rcvbuf = 0) {
        fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        // A small receive buffer (inherited by the connections it queues) fills after a few KiB.
        if (rcvbuf) ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
        REQUIRE(::listen(fd, 8) == 0);
        socklen_t len = sizeof a;
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
        port = ntohs(a.sin_port);
    }
    ~Listener() { ::close(fd); }
    // Accepts one connection and reads it to its end.
    std::string read_one() {
        int c = ::accept(fd, nullptr, nullptr);
        std::string out;
        char buf[4096];
        ssize_t n;
        while ((n = ::read(c, buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
        ::close(c);
        return out;
    }
};

SyslogTarget tcp(unsigned port) { return {"tcp", "127.0.0.1", port}; }

nlohmann::json sample_event() {
    return *ocsf_event(R"({"time":"2026-11-30T18:44:17.123Z","agent":"claude","verdict":"deny","rule":"rm.home",)"
                       R"("reason":"r","command":"rm -rf ~"})",
                       {"0.1.0", "h"});
}

// Splits octet-counted frames; fails the test on a malformed stream.
std::vector<std::string> frames(const std::string& stream) {
    std::vector<std::string> out;
    std::size_t i = 0;
    while (i < stream.size()) {
        std::size_t sp = stream.find(' ', i);
        REQUIRE(sp != std::string::npos);
        std::size_t len = std::stoul(stream.substr(i, sp - i));
        REQUIRE(sp + 1 + len <= stream.size());
        out.push_back(stream.substr(sp + 1, len));
        i = sp + 1 + len;
    }
    return out;
}

}  // namespace

TEST_CASE("an event is an RFC 5424 message with the event as its text") {
    auto e = sample_event();
    std::string m = syslog_message(e, "build 7", 4242);
    // <PRI>VERSION TIMESTAMP HOSTNAME APP-NAME PROCID MSGID STRUCTURED-DATA MSG
    std::regex form(R"(^<84>1 2026-11-30T18:44:17\.123Z build7 toolcage 4242 detection_finding - \{.*\}$)");
    CHECK(std::regex_match(m, form));
    CHECK(nlohmann::json::parse(m.substr(m.find(" - ") + 3)) == e);
    CHECK(syslog_message(nlohmann::json::object(), "", 1).starts_with("<85>1 1970-01-01T00:00:00.000Z - toolcage 1 ocsf - "));
    CHECK(octet_counted("héllo") == "6 héllo");
}

TEST_CASE("the sender hands every message whole to a TCP collector, octet-counted") {
    Listener l;
    std::string got;
    std::thread t([&] { got = l.read_one(); });
    std::vector<std::string> msgs{"one", "two two", std::string(100000, 'x')};
    SendResult r = send_syslog(tcp(l.port), msgs, 2000ms);
    t.join();
    CHECK(r.sent == 3);
    CHECK(r.error.empty());
    CHECK(frames(got) == msgs);
}

TEST_CASE("a collector that is down costs nothing and sends nothing") {
    unsigned port;
    {
        Listener l;
        port = l.port;
    }  // closed: the port refuses
    auto t0 = std::chrono::steady_clock::now();
    SendResult r = send_syslog(tcp(port), {"a", "b"}, 250ms);
    CHECK(std::chrono::steady_clock::now() - t0 < 200ms);
    CHECK(r.sent == 0);
    CHECK_THAT(r.error, Catch::Contains("Connection refused"));
}

TEST_CASE("a collector that stops reading holds the sender no longer than its budget") {
    Listener l(4096);  // never accepts: the connection's buffers fill, then nothing moves
    std::vector<std::string> msgs(64, std::string(64 * 1024, 'y'));
    auto t0 = std::chrono::steady_clock::now();
    SendResult r = send_syslog(tcp(l.port), msgs, 200ms);
    auto took = std::chrono::steady_clock::now() - t0;
    CHECK(took < 1000ms);
    CHECK(r.sent < msgs.size());
    CHECK_FALSE(r.error.empty());
}

TEST_CASE("udp and unix datagram collectors get one message per datagram") {
    int u = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(u, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    socklen_t len = sizeof a;
    ::getsockname(u, reinterpret_cast<sockaddr*>(&a), &len);
    SendResult r = send_syslog({"udp", "127.0.0.1", ntohs(a.sin_port)}, {"first", "second"}, 200ms);
    CHECK(r.sent == 2);
    char buf[64];
    CHECK(std::string(buf, static_cast<std::size_t>(::recv(u, buf, sizeof buf, 0))) == "first");
    CHECK(std::string(buf, static_cast<std::size_t>(::recv(u, buf, sizeof buf, 0))) == "second");
    ::close(u);

    test::TempDir d;
    std::string path = (d.path / "log.sock").string();
    int x = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_un un{};
    un.sun_family = AF_UNIX;
    std::strcpy(un.sun_path, path.c_str());
    REQUIRE(::bind(x, reinterpret_cast<sockaddr*>(&un), sizeof un) == 0);
    r = send_syslog({"unix", path, 0}, {"via /dev/log"}, 200ms);
    CHECK(r.sent == 1);
    CHECK(std::string(buf, static_cast<std::size_t>(::recv(x, buf, sizeof buf, 0))) == "via /dev/log");
    ::close(x);
    r = send_syslog({"unix", (d.path / "none.sock").string(), 0}, {"lost"}, 200ms);
    CHECK(r.sent == 0);
}

TEST_CASE("unsent events wait in a file; one taker empties it") {
    test::TempDir d;
    std::string path = unsent_path((d.path / "decisions.jsonl").string());
    CHECK(path == (d.path / "decisions.jsonl.unsent").string());
    CHECK(count_unsent(path) == 0);
    CHECK(take_unsent(path).empty());
    CHECK(keep_unsent(path, {"{\"a\":1}", "{\"b\":2}"}) == 2);
    CHECK(keep_unsent(path, {"{\"c\":3}"}) == 1);
    CHECK(count_unsent(path) == 3);
    CHECK(take_unsent(path) == std::vector<std::string>{"{\"a\":1}", "{\"b\":2}", "{\"c\":3}"});
    CHECK(count_unsent(path) == 0);
    CHECK(take_unsent(path).empty());
    // Bounded: past kMaxUnsentBytes the newest are not kept.
    std::vector<std::string> big(17, std::string(1024 * 1024, 'z'));
    CHECK(keep_unsent(path, big) == 15);
    CHECK(keep_unsent(path, {"{}"}) == 1);
}

TEST_CASE("the host's setting: a collector URL, validated, with the file and the fix in errors") {
    test::TempDir d;
    auto ok = read_fleet_setting(d.write("a.json", R"({"log": {"syslog": "tcp://127.0.0.1:6514"}} // fleet)").string());
    CHECK(ok.error.empty());
    REQUIRE(ok.syslog);
    CHECK(ok.syslog->transport == "tcp");
    CHECK(ok.syslog->port == 6514);
    auto v6 = read_fleet_setting(d.write("b.json", R"({"log": {"syslog": "udp://[::1]:514"}})").string());
    REQUIRE(v6.syslog);
    CHECK(v6.syslog->address == "::1");
    auto unix_ = read_fleet_setting(d.write("c.json", R"({"log": {"syslog": "unix:/dev/log"}})").string());
    REQUIRE(unix_.syslog);
    CHECK(unix_.syslog->address == "/dev/log");
    auto none = read_fleet_setting(d.write("d.json", R"({})").string());
    CHECK(none.error.empty());
    CHECK_FALSE(none.syslog);

    struct Bad {
        const char* text;
        const char* says;
    };
    for (auto b : {Bad{R"({"log": {"syslog": "tcp://siem.example:6514"}})", "/log/syslog"},
                   Bad{R"({"log": {"syslog": "tcp://127.0.0.1"}})", "port from 1 to 65535"},
                   Bad{R"({"log": {"syslog": "tcp://127.0.0.1:70000"}})", "port from 1 to 65535"},
                   Bad{R"({"log": {"syslog": "http://127.0.0.1:80"}})", "unknown collector scheme"},
                   Bad{R"({"log": {"syslog": "unix:dev/log"}})", "absolute path"},
                   Bad{R"({"log": {"syslog": 514}})", "must be a string"},
                   Bad{R"({"log": {"sislog": "tcp://127.0.0.1:1"}})", "unknown field"},
                   Bad{R"({"logs": {}})", "unknown field"},
                   Bad{R"([1])", "JSON object"},
                   Bad{R"({"log": )", "not valid JSON"}}) {
        auto s = read_fleet_setting(d.write("bad.json", b.text).string());
        INFO(b.text);
        CHECK_FALSE(s.syslog);
        CHECK_THAT(s.error, Catch::Contains(b.says));
        CHECK_THAT(s.error, Catch::Contains("bad.json"));
    }
    auto missing = read_fleet_setting((d.path / "none.json").string());
    CHECK_THAT(missing.error, Catch::Contains("cannot be read"));
}

TEST_CASE("the setting is looked for in /etc first, then beside the install; never in the environment") {
    auto paths = fleet_setting_paths();
    REQUIRE(paths.size() == 3);
    CHECK(paths[0] == "/etc/toolcage/fleet.json");
    CHECK(paths[1].ends_with("/share/toolcage/fleet.json"));
}
