#include "relay/inspect/request_stream.h"

#include <algorithm>

namespace toolcage::relay {

namespace {

// Bounds on one request's head, below http-parser's own (80 KiB): a head is rarely 8 KiB.
constexpr std::size_t kMaxTarget = 16 * 1024;
constexpr std::size_t kMaxHeaders = 200;

RequestStream* self(http_parser* p) {
    return static_cast<RequestStream*>(p->data);
}

}  // namespace

RequestStream::RequestStream(Judge judge, BodyCheck body_check, std::size_t carry)
    : judge_(std::move(judge)), body_check_(std::move(body_check)), carry_(carry) {
    http_parser_init(&parser_, HTTP_REQUEST);
    parser_.data = this;
    http_parser_settings_init(&settings_);
    settings_.on_message_begin = on_message_begin;
    settings_.on_url = on_url;
    settings_.on_header_field = on_header_field;
    settings_.on_header_value = on_header_value;
    settings_.on_headers_complete = on_headers_complete;
    settings_.on_body = on_body;
    settings_.on_message_complete = on_message_complete;
}

bool RequestStream::feed(std::string_view bytes, std::string& out) {
    if (stopped_) return false;
    out_ = &out;
    size_t n = http_parser_execute(&parser_, &settings_, bytes.data(), bytes.size());
    out_ = nullptr;
    if (stopped_) return false;
    if (HTTP_PARSER_ERRNO(&parser_) != HPE_OK || parser_.upgrade || n != bytes.size()) {
        stopped_ = true;
        refusal_.refused = true;
        refusal_.status = parser_.upgrade ? 501 : 400;
        refusal_.reason =
            parser_.upgrade
                ? "a protocol upgrade (or CONNECT) inside an inspected connection is not relayed"
                : std::string("the request is not well-formed HTTP/1.1 (") +
                      http_errno_description(HTTP_PARSER_ERRNO(&parser_)) + ")";
        return false;
    }
    return true;
}

int RequestStream::on_message_begin(http_parser* p) {
    RequestStream* s = self(p);
    s->head_ = RequestHead{};
    s->in_value_ = false;
    s->body_tail_.clear();
    return 0;
}

int RequestStream::on_url(http_parser* p, const char* at, size_t len) {
    RequestStream* s = self(p);
    s->head_.target.append(at, len);
    return s->head_.target.size() > kMaxTarget ? 1 : 0;
}

int RequestStream::on_header_field(http_parser* p, const char* at, size_t len) {
    RequestStream* s = self(p);
    if (s->in_value_ || s->head_.headers.empty()) {
        if (s->head_.headers.size() >= kMaxHeaders) return 1;
        s->head_.headers.emplace_back();
        s->in_value_ = false;
    }
    s->head_.headers.back().first.append(at, len);
    return 0;
}

int RequestStream::on_header_value(http_parser* p, const char* at, size_t len) {
    RequestStream* s = self(p);
    s->in_value_ = true;
    s->head_.headers.back().second.append(at, len);
    return 0;
}

int RequestStream::on_headers_complete(http_parser* p) {
    RequestStream* s = self(p);
    if (p->upgrade) return 0;  // feed() refuses it
    s->head_.method = http_method_str(static_cast<http_method>(p->method));
    s->head_.http_major = p->http_major;
    s->head_.http_minor = p->http_minor;
    Judgement j = s->judge_(s->head_);
    if (j.refused) {
        s->refusal_ = j;
        s->stopped_ = true;
        return -1;
    }
    s->chunked_ = (p->flags & F_CHUNKED) != 0;
    std::string& out = *s->out_;
    out += s->head_.method + " " + s->head_.target + " HTTP/" +
           std::to_string(s->head_.http_major) + "." + std::to_string(s->head_.http_minor) + "\r\n";
    for (const auto& [k, v] : s->head_.headers) out += k + ": " + v + "\r\n";
    out += "\r\n";
    return 0;
}

int RequestStream::on_body(http_parser* p, const char* at, size_t len) {
    RequestStream* s = self(p);
    if (s->body_check_) {
        std::string window = s->body_tail_;
        window.append(at, len);
        Judgement j = s->body_check_(window);
        if (j.refused) {
            s->refusal_ = j;
            s->stopped_ = true;
            return -1;
        }
        s->body_tail_ = window.substr(window.size() - std::min(window.size(), s->carry_));
    }
    std::string& out = *s->out_;
    if (s->chunked_) {
        char size[20];
        std::snprintf(size, sizeof size, "%zx\r\n", len);
        out += size;
        out.append(at, len);
        out += "\r\n";
    } else {
        out.append(at, len);
    }
    return 0;
}

int RequestStream::on_message_complete(http_parser* p) {
    RequestStream* s = self(p);
    // A chunked body's end; its trailers, if any, are not passed on.
    if (s->chunked_) *s->out_ += "0\r\n\r\n";
    s->chunked_ = false;
    return 0;
}

}  // namespace toolcage::relay
