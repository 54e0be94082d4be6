// A TLS ClientHello read by OpenSSL: the bytes a client sends first, handed to a server-side SSL
// object over memory BIOs, stopped in its ClientHello callback. Pure: bytes in, what the hello
// says out. Nothing is answered to anyone; it reads untrusted bytes, so it has a fuzz target.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace toolcage::relay {

struct ClientHelloRead {
    enum class State {
        incomplete,  // a ClientHello so far: read more
        hello,       // a whole ClientHello, parsed by OpenSSL
        malformed,   // not a ClientHello OpenSSL would accept (why in `problem`)
    };
    State state = State::incomplete;
    // The server_name extension's one host_name, as sent (not canonical); empty when absent.
    std::optional<std::string> server_name;
    // The hello carries an encrypted_client_hello (ECH) extension: its real server name is
    // inside, where the relay cannot read it.
    bool encrypted_name = false;
    std::string problem;
    // The fatal alert (access_denied) OpenSSL wrote in answer: what a refused client is sent.
    std::string alert;
};

// Reads `bytes` from their start (TLS records, the first of them a handshake record).
ClientHelloRead read_client_hello(std::string_view bytes);

}  // namespace toolcage::relay
