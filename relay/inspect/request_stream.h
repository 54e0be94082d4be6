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
    explicit RequestStream(Judge judge);
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
