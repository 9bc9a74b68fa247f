// Fuzz target: the parsers of storage input that arrive from the network. The whole input is
// checked as a file path and a list prefix (D44) and verified as a signed URL token (D42). A path
// that passes must hold none of the things a path may not hold; a token must be refused unless
// it is exactly one the signer made (the round trip of a signed token is checked on every run).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "common/text.hpp"
#include "storage/file_path.hpp"
#include "storage/signed_token.hpp"

namespace {

bool Escapes(std::string_view path) {
  if (path.empty() || path.front() == '/' || path.find('\\') != std::string_view::npos ||
      path.find('\0') != std::string_view::npos || path.find("//") != std::string_view::npos) {
    return true;
  }
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t slash = std::min(path.find('/', start), path.size());
    const std::string_view segment = path.substr(start, slash - start);
    if (segment == "." || segment == "..") return true;
    start = slash + 1;
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const cairn::Status path = cairn::storage::CheckPath(input);
  if (path.ok() && Escapes(input)) std::abort();
  if (!path.ok() && path.error().code != cairn::ErrorCode::kValidation) std::abort();
  (void)cairn::storage::CheckPrefix(input);

  static const cairn::storage::TokenSigner signer("fuzz secret fuzz secret fuzz secret!");
  const auto verified = signer.Verify(input);
  if (verified.ok()) {
    // Only a token the signer made verifies: signing its claims again must give it back.
    if (signer.Sign(*verified) != input) std::abort();
  } else if (verified.error().code != cairn::ErrorCode::kForbidden) {
    std::abort();
  }
  // Claims are valid UTF-8 in the server (checked paths, JSON strings, config names).
  if (!cairn::text::IsValidUtf8(input)) return 0;
  cairn::storage::TokenClaims claims{
      std::string(input), std::string(input), cairn::storage::Operation::kUpload, 7, 9,
      std::string(input), std::string(input)};
  const auto round = signer.Verify(signer.Sign(claims));
  if (!round.ok() || round->path != claims.path || round->content_type != claims.content_type) {
    std::abort();
  }
  return 0;
}
