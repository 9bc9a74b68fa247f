#include "common/log.hpp"

#include <gtest/gtest.h>

#include <string>

namespace cairn::log {
namespace {

std::string Escaped(std::string_view text) {
  std::string out;
  AppendEscaped(out, text);
  return out;
}

TEST(LogEscaping, PrintableTextIsUnchanged) {
  EXPECT_EQ(Escaped("GET /api/tables/notes é"), "GET /api/tables/notes é");
}

TEST(LogEscaping, LineBreaksCannotForgeALine) {
  const std::string forged = Escaped("/api/x\r\n2026-01-01T00:00:00.000Z ERROR admin logged in");
  EXPECT_EQ(forged.find('\n'), std::string::npos);
  EXPECT_EQ(forged.find('\r'), std::string::npos);
  EXPECT_EQ(forged, "/api/x\\x0d\\x0a2026-01-01T00:00:00.000Z ERROR admin logged in");
}

TEST(LogEscaping, ControlCharactersAndBackslashesAreEscaped) {
  EXPECT_EQ(Escaped(std::string("a\0b", 3)), "a\\x00b");
  EXPECT_EQ(Escaped("\x1b[31m\x7f"), "\\x1b[31m\\x7f");
  // A literal `\x0a` typed by a client stays distinguishable from an escaped newline.
  EXPECT_EQ(Escaped("\\x0a"), "\\\\x0a");
}

}  // namespace
}  // namespace cairn::log
