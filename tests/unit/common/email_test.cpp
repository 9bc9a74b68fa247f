#include "common/email.hpp"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace cairn::email {
namespace {

TEST(EmailAddress, AcceptsTheWhatwgGrammar) {
  for (const std::string& address : std::vector<std::string>{
           "ann@example.com", "first.last+tag@mail.example.co.uk", "o'brien@example.ie",
           "!#$%&'*+/=?^_`{|}~-@example.com",
           "a..b@example.com",  // dots anywhere in the local part, as browsers allow
           ".a.@example.com",
           "ann@localhost",  // no dot needed in the domain
           "ANN@EXAMPLE.COM", "1@2.3", "ann@xn--exmple-cua.de", "ann@a-b.c-d.example",
           "ann@" + std::string(63, 'a') + ".com",
           std::string(64, 'a') + "@" + std::string(63, 'b') + "." + std::string(63, 'c') + "." +
               std::string(61, 'd'),  // 254 characters
       }) {
    EXPECT_TRUE(IsValidAddress(address)) << address;
  }
}

TEST(EmailAddress, RefusesEverythingElse) {
  for (const std::string& address : std::vector<std::string>{
           "",
           "ann",
           "@example.com",
           "ann@",
           "ann@@example.com",
           "a@b@example.com",
           "<script>@example.com",
           "ann<x>@example.com",
           "a b@example.com",
           " ann@example.com",
           "ann@example.com ",
           "\"ann\"@example.com",
           "ann(comment)@example.com",
           "a,b@example.com",
           "a;b@example.com",
           "a:b@example.com",
           "a\\b@example.com",
           "a[b]@example.com",
           "zoë@example.com",
           "ann@exämple.de",
           "ann@exa_mple.com",
           "ann@-example.com",
           "ann@example-.com",
           "ann@example..com",
           "ann@.example.com",
           "ann@example.com.",
           "ann@[127.0.0.1]",
           "ann@example.com\n",
           "ann@example.com\r\nBcc: x@example.com",
           std::string("ann\0x@example.com", 17),
           "ann@" + std::string(64, 'a') + ".com",  // a label of 64
           std::string(64, 'a') + "@" + std::string(63, 'b') + "." + std::string(63, 'c') + "." +
               std::string(62, 'd'),  // 255 characters
       }) {
    EXPECT_FALSE(IsValidAddress(address)) << address;
  }
}

}  // namespace
}  // namespace cairn::email
