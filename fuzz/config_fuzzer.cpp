// Fuzz target: the config loader (YAML and JSON parsing, schema and semantic checks, model
// building) must report issues for any input, never crash or hang.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string_view>

#include "config/loader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // Includes resolve against a directory that holds nothing, so `$ref`s fail cleanly.
  const std::filesystem::path base = "/nonexistent-cairn-fuzz";
  (void)cairn::config::LoadConfigText(text, /*yaml=*/true, base);
  (void)cairn::config::LoadConfigText(text, /*yaml=*/false, base);
  return 0;
}
