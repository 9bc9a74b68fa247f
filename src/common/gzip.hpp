#pragma once
// gzip (RFC 1952) for bodies served compressed to clients that accept it.

#include <string>
#include <string_view>

namespace cairn::gzip {

// `data` compressed as one gzip member at zlib's best compression: for bodies compressed once
// and served many times.
std::string Compress(std::string_view data);

// True when an Accept-Encoding header value accepts gzip (`gzip` or `x-gzip` without q=0).
bool Accepted(std::string_view accept_encoding);

}  // namespace cairn::gzip
