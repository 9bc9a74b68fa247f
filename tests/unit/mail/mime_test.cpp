#include "mail/mime.hpp"

#include <gtest/gtest.h>

#include <random>

#include "mail/limits.hpp"
#include "support/mail_reader.hpp"

namespace cairn::mail {
namespace {

std::vector<std::string> Lines(const std::string& encoded) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = encoded.find("\r\n", start);
    lines.push_back(encoded.substr(start, end - start));
    if (end == std::string::npos) return lines;
    start = end + 2;
  }
}

// What a reader gets back: the text with every line break as `\n`.
std::string RoundTrip(const std::string& text) {
  std::string decoded = test::DecodeQuotedPrintable(EncodeQuotedPrintable(text));
  std::string out;
  for (std::size_t i = 0; i < decoded.size(); ++i) {
    if (decoded[i] == '\r' && i + 1 < decoded.size() && decoded[i + 1] == '\n') continue;
    out += decoded[i];
  }
  return out;
}

// RFC 2045 §6.7 and the module's own rules, checked on every physical line.
void ExpectWellFormedQuotedPrintable(const std::string& encoded) {
  for (std::size_t i = 0; i < encoded.size(); ++i) {
    if (encoded[i] == '\r') {
      EXPECT_TRUE(i + 1 < encoded.size() && encoded[i + 1] == '\n') << "bare CR at " << i;
    }
    if (encoded[i] == '\n') {
      EXPECT_TRUE(i > 0 && encoded[i - 1] == '\r') << "bare LF at " << i;
    }
  }
  for (const std::string& line : Lines(encoded)) {
    EXPECT_LE(line.size(), kQuotedPrintableLineLength) << line;
    for (char c : line) {
      EXPECT_TRUE(c == '\t' || (c >= 0x20 && c <= 0x7E)) << "byte " << int(c) << " in " << line;
    }
    if (!line.empty()) {
      EXPECT_NE(line.back(), ' ') << line;
      EXPECT_NE(line.back(), '\t') << line;
      EXPECT_NE(line.front(), '.') << line;
    }
  }
}

TEST(QuotedPrintableTest, EncodesTheSpecialBytes) {
  EXPECT_EQ(EncodeQuotedPrintable("hello world"), "hello world");
  EXPECT_EQ(EncodeQuotedPrintable("a=b"), "a=3Db");
  EXPECT_EQ(EncodeQuotedPrintable("café"), "caf=C3=A9");
  EXPECT_EQ(EncodeQuotedPrintable("end \nnext\t"), "end=20\r\nnext=09");
  EXPECT_EQ(EncodeQuotedPrintable("a\nb\r\nc\rd\n"), "a\r\nb\r\nc\r\nd\r\n");
  EXPECT_EQ(EncodeQuotedPrintable(".\n.hidden"), "=2E\r\n=2Ehidden");
  EXPECT_EQ(EncodeQuotedPrintable(std::string("nul\0", 4)), "nul=00");
}

TEST(QuotedPrintableTest, BreaksLongLinesSoftly) {
  const std::string long_line(200, 'x');
  const std::string encoded = EncodeQuotedPrintable(long_line);
  ExpectWellFormedQuotedPrintable(encoded);
  EXPECT_EQ(Lines(encoded).size(), 3u);
  EXPECT_EQ(Lines(encoded)[0], std::string(75, 'x') + "=");
  EXPECT_EQ(RoundTrip(long_line), long_line);
}

TEST(QuotedPrintableTest, NeverSplitsAnEscapeAcrossLines) {
  std::string text;
  for (int i = 0; i < 100; ++i) text += "é€";  // 5 bytes → 15 encoded characters each
  const std::string encoded = EncodeQuotedPrintable(text);
  ExpectWellFormedQuotedPrintable(encoded);
  EXPECT_EQ(RoundTrip(text), text);  // the reader rejects a split `=XX`
}

TEST(QuotedPrintableTest, KeepsLinksAndCodesIntact) {
  const std::string text =
      "Sign in: https://app.example.com/api/auth/magic-link/verify?token=Zm9vYmFy&callbackURL=%2F"
      "dashboard\nYour code: 483920\n";
  ExpectWellFormedQuotedPrintable(EncodeQuotedPrintable(text));
  EXPECT_EQ(RoundTrip(text), text);
}

TEST(QuotedPrintableTest, RandomTextRoundTrips) {
  std::mt19937 random(20240611);
  const std::string alphabet = std::string("ab .=\t\n-") + "é" + "\xF0\x9F\x98\x80";
  for (int round = 0; round < 300; ++round) {
    std::string text;
    const int length = static_cast<int>(random() % 400);
    for (int i = 0; i < length; ++i) text += alphabet[random() % alphabet.size()];
    const std::string encoded = EncodeQuotedPrintable(text);
    ExpectWellFormedQuotedPrintable(encoded);
    ASSERT_EQ(RoundTrip(text), text) << "round " << round;
  }
}

TEST(EncodedWordsTest, EncodesUtf8AsBase64Words) {
  EXPECT_EQ(EncodeWords("Grüße"), "=?utf-8?B?R3LDvMOfZQ==?=");
  EXPECT_EQ(EncodeWords(""), "");
  EXPECT_EQ(test::DecodeEncodedWords(EncodeWords("Grüße")), "Grüße");
}

TEST(EncodedWordsTest, LongTextBecomesShortWordsOfWholeCharacters) {
  std::string text;
  for (int i = 0; i < 100; ++i) text += "€";  // 3 bytes each; 39-byte chunks hold 13
  const std::string encoded = EncodeWords(text);
  const std::vector<std::string> lines = Lines(encoded);
  EXPECT_EQ(lines.size(), 8u);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string word = i == 0 ? lines[i] : lines[i].substr(1);  // folded: leading space
    EXPECT_LE(word.size(), 64u);
    const std::string decoded = test::DecodeEncodedWords(word);
    EXPECT_EQ(decoded.size() % 3, 0u) << "a character was split in word " << i;
  }
  // Unfold (remove CRLF) and decode: whitespace between adjacent words is not part of the text.
  std::string unfolded;
  for (const std::string& line : lines) unfolded += line;
  EXPECT_EQ(test::DecodeEncodedWords(unfolded), text);
}

TEST(MimeTest, FormatsRfc5322Dates) {
  EXPECT_EQ(FormatDate(1'700'000'000'123), "Tue, 14 Nov 2023 22:13:20 +0000");
  EXPECT_EQ(FormatDate(0), "Thu, 01 Jan 1970 00:00:00 +0000");
}

TEST(MimeTest, RandomHexIsHexAndDiffers) {
  const std::string a = RandomHex(16), b = RandomHex(16);
  EXPECT_EQ(a.size(), 32u);
  EXPECT_EQ(a.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_NE(a, b);
}

TEST(MimeTest, DetectsControlCharacters) {
  EXPECT_TRUE(HasControlCharacter("a\rb"));
  EXPECT_TRUE(HasControlCharacter("a\nb"));
  EXPECT_TRUE(HasControlCharacter(std::string("a\0b", 3)));
  EXPECT_TRUE(HasControlCharacter("a\x7F"));
  EXPECT_FALSE(HasControlCharacter("Grüße, world!"));
  EXPECT_TRUE(IsPrintableAscii("Hello, world!"));
  EXPECT_FALSE(IsPrintableAscii("Grüße"));
  EXPECT_FALSE(IsPrintableAscii("tab\there"));
}

}  // namespace
}  // namespace cairn::mail
