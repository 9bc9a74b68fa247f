// Request framing rules of RFC 9112 that Beast's parser leaves to the application. A request
// that breaks one is answered 400 and its connection closes: its body cannot be delimited
// safely, and reading on could serve part of it as a second, smuggled request.
#pragma once

#include <optional>

#include "common/error.hpp"
#include "http/request.hpp"

namespace cairn::http {

// Checks the header of `request` (its body is not read yet):
// - Transfer-Encoding (RFC 9112 §6.1, §6.3): only HTTP/1.1, exactly one field, exactly `chunked`,
//   and never together with Content-Length;
// - Host (§3.2): an HTTP/1.1 request carries exactly one, and it is a valid host[:port].
std::optional<Error> CheckFraming(const BeastRequest& request);

}  // namespace cairn::http
