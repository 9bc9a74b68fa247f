// Signed URL tokens (D42): what they bind, and that no change to one survives verification.
#include <gtest/gtest.h>

#include "common/crypto.hpp"
#include "storage/signed_token.hpp"

namespace cairn::storage {
namespace {

constexpr const char* kSecret = "0123456789abcdef0123456789abcdef-secret";

TokenClaims Upload() {
  return {"docs", "a/b.pdf", Operation::kUpload, 2'000'000'000, 1024, "application/pdf", "user-1"};
}

TEST(SignedToken, RoundTripsEveryClaim) {
  const TokenSigner signer(kSecret);
  const auto claims = signer.Verify(signer.Sign(Upload()));
  ASSERT_TRUE(claims.ok());
  EXPECT_EQ(claims->bucket, "docs");
  EXPECT_EQ(claims->path, "a/b.pdf");
  EXPECT_EQ(claims->operation, Operation::kUpload);
  EXPECT_EQ(claims->expires_at, 2'000'000'000);
  EXPECT_EQ(claims->max_size, 1024u);
  EXPECT_EQ(claims->content_type, "application/pdf");
  EXPECT_EQ(claims->signer_id, "user-1");

  const auto download =
      signer.Verify(signer.Sign({"docs", "ü \"quoted\"/x", Operation::kDownload, 5, 0, {}, {}}));
  ASSERT_TRUE(download.ok());
  EXPECT_EQ(download->path, "ü \"quoted\"/x");
  EXPECT_EQ(download->operation, Operation::kDownload);
}

TEST(SignedToken, AnyChangedByteOrOtherSecretIsRefused) {
  const TokenSigner signer(kSecret);
  const std::string token = signer.Sign(Upload());
  for (std::size_t i = 0; i < token.size(); ++i) {
    std::string changed = token;
    changed[i] = changed[i] == 'A' ? 'B' : 'A';
    if (changed == token) continue;
    const auto verified = signer.Verify(changed);
    EXPECT_FALSE(verified.ok()) << "byte " << i;
    if (!verified.ok()) {
      EXPECT_EQ(verified.error().code, ErrorCode::kForbidden);
    }
  }
  EXPECT_FALSE(TokenSigner("another secret of enough length 123456").Verify(token).ok());
  for (const char* bad : {"", ".", "abc", "abc.", ".abc", "a.b.c", "====.===="}) {
    EXPECT_FALSE(signer.Verify(bad).ok()) << bad;
  }
  EXPECT_FALSE(signer.Verify(std::string(10'000, 'a') + ".b").ok());
}

TEST(SignedToken, AForgedPayloadNeedsTheKey) {
  // A payload the attacker writes, signed with the raw secret instead of the derived key.
  const std::string payload = R"({"b":"docs","p":"x","o":"d","e":2000000000})";
  const std::string forged =
      crypto::Base64Url(payload) + "." + crypto::Base64Url(crypto::HmacSha256(kSecret, payload));
  EXPECT_FALSE(TokenSigner(kSecret).Verify(forged).ok());
}

// A download token may carry an image transform; it is signed like every other claim.
TEST(SignedToken, CarriesADownloadTransform) {
  const TokenSigner signer(kSecret);
  TokenClaims claims;
  claims.bucket = "docs";
  claims.path = "a.jpg";
  claims.expires_at = 2'000'000'000;
  claims.transform = "w=400;fit=cover;crop=center;q=80;f=webp";
  const std::string token = signer.Sign(claims);
  auto verified = signer.Verify(token);
  ASSERT_TRUE(verified.ok());
  EXPECT_EQ(verified->transform, claims.transform);
  claims.transform = "w=4000;fit=cover;crop=center;q=80;f=webp";
  EXPECT_NE(signer.Sign(claims), token);
  claims.transform.clear();
  EXPECT_TRUE(signer.Verify(signer.Sign(claims))->transform.empty());
}

}  // namespace
}  // namespace cairn::storage
