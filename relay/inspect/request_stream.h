// The requests a client sends inside an inspected connection, read by Debian's http-parser
// (nodejs http-parser 2.9): each request's head is handed to a judge, which may change its
// headers or refuse it, then written out again in one canonical form; a chunked body is passed on
// chunked, a sized one as it is. Keep-alive: one stream reads every request of a connection.
#pragma once

#include <http_parser.h>

#include <functional>
#include <string>
#include <string_view>

#include "relay/inspect/credentials.h"

namespace toolcage::relay {

struct RequestHead {
    std::string method;
    std::string target;  // as sent: /path?query
    unsigned short http_major = 1, http_minor = 1;
    HeaderList headers;
};

struct Judgement {
    bool refused = false;
    int status = 403;
    std::string reason;
};

class RequestStream {
  public:
    using Judge = std::function<Judgement(RequestHead&)>;
    // Looks at a request's body (de-chunked) before it is passed on: `window` is the piece just
    // read after the last `carry` bytes of the body before it, so a string of up to carry + 1
    // bytes is seen whole however the client splits or chunks it. A refusal stops the stream
    // before the piece goes on.
    using BodyCheck = std::function<Judgement(std::string_view window)>;
    explicit RequestStream(Judge judge, BodyCheck body_check = {}, std::size_t carry = 0);
    RequestStream(const RequestStream&) = delete;
    RequestStream& operator=(const RequestStream&) = delete;

    // Reads `bytes`; what goes on to the server is appended to `out`. False once the stream is
    // refused or malformed: `refusal()` says how to answer, and nothing more may be read.
    bool feed(std::string_view bytes, std::string& out);

    const Judgement& refusal() const { return refusal_; }

  private:
    static int on_message_begin(http_parser* p);
    static int on_url(http_parser* p, const char* at, size_t len);
    static int on_header_field(http_parser* p, const char* at, size_t len);
    static int on_header_value(http_parser* p, const char* at, size_t len);
    static int on_headers_complete(http_parser* p);
    static int on_body(http_parser* p, const char* at, size_t len);
    static int on_message_complete(http_parser* p);

    Judge judge_;
    BodyCheck body_check_;
    std::size_t carry_ = 0;
    std::string body_tail_;  // the body's last `carry_` bytes so far
    http_parser parser_{};
    http_parser_settings settings_{};
    RequestHead head_;
    bool in_value_ = false;
    bool chunked_ = false;
    std::string* out_ = nullptr;
    Judgement refusal_;
    bool stopped_ = false;
};

}  // namespace toolcage::relay
