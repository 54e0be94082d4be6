// The relay's few HTTP answers. Every refusal carries its reason in `X-Toolcage-Reason` and in
// the body, so the caged program's error message says why.
#pragma once

#include <string>
#include <string_view>

namespace toolcage::relay {

// A complete response with `Connection: close` (every refusal ends the connection).
std::string http_refusal(int status, std::string_view reason);

inline constexpr std::string_view kConnectEstablished = "HTTP/1.1 200 Connection established\r\n\r\n";

std::string_view status_text(int status);

}  // namespace toolcage::relay
