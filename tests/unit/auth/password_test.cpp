#include "auth/password.hpp"

#include <gtest/gtest.h>

namespace cairn::auth {
namespace {

TEST(Password, HashesWithArgon2idAtTheOwaspBaseline) {
  auto hash = HashPassword("correct horse battery staple");
  ASSERT_TRUE(hash.ok());
  EXPECT_TRUE(hash.value().starts_with("$argon2id$v=19$m=19456,t=2,p=1$")) << hash.value();
  EXPECT_EQ(hash.value().find("correct horse"), std::string::npos);
  EXPECT_TRUE(VerifyPassword("correct horse battery staple", hash.value()));
  EXPECT_FALSE(VerifyPassword("correct horse battery stapler", hash.value()));
  EXPECT_FALSE(VerifyPassword("", hash.value()));
}

TEST(Password, SaltsEveryHash) {
  auto a = HashPassword("same password");
  auto b = HashPassword("same password");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(a.value(), b.value());
}

TEST(Password, MalformedHashesNeverVerify) {
  EXPECT_FALSE(VerifyPassword("x", ""));
  EXPECT_FALSE(VerifyPassword("x", "$argon2id$v=19$m=19456,t=2,p=1$bogus"));
  EXPECT_FALSE(VerifyPassword("x", "plaintext"));
}

TEST(Password, NulBytesAndLongPasswordsAreHashedWhole) {
  const std::string with_nul("abc\0def", 7);
  auto hash = HashPassword(with_nul);
  ASSERT_TRUE(hash.ok());
  EXPECT_TRUE(VerifyPassword(with_nul, hash.value()));
  EXPECT_FALSE(VerifyPassword("abc", hash.value()));
  const std::string long_password(128, 'p');
  auto long_hash = HashPassword(long_password);
  ASSERT_TRUE(long_hash.ok());
  EXPECT_FALSE(VerifyPassword(std::string(127, 'p'), long_hash.value()));
}

}  // namespace
}  // namespace cairn::auth
