#include "auth/secret_box.hpp"

#include <memory>
#include <stdexcept>

#include <openssl/evp.h>
#include <openssl/kdf.h>

#include "common/crypto.hpp"

namespace cairn::auth {
namespace {

constexpr std::string_view kVersion = "v1.";
constexpr std::size_t kKeyBytes = 32;
constexpr std::size_t kNonceBytes = 12;
constexpr std::size_t kTagBytes = 16;
constexpr std::string_view kSalt = "cairn secret box";

using PkeyContext = std::unique_ptr<EVP_PKEY_CTX, decltype(&EVP_PKEY_CTX_free)>;
using CipherContext = std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)>;

const unsigned char* Bytes(std::string_view text) {
  return reinterpret_cast<const unsigned char*>(text.data());
}
unsigned char* Bytes(std::string& text) {
  return reinterpret_cast<unsigned char*>(text.data());
}

// RFC 5869 HKDF-SHA256 of the secret, with the purpose as `info`.
std::string DeriveKey(std::string_view secret, std::string_view purpose) {
  PkeyContext context(EVP_PKEY_CTX_new_id(EVP_PKEY_HKDF, nullptr), &EVP_PKEY_CTX_free);
  std::string key(kKeyBytes, '\0');
  std::size_t length = key.size();
  if (!context || EVP_PKEY_derive_init(context.get()) != 1 ||
      EVP_PKEY_CTX_set_hkdf_md(context.get(), EVP_sha256()) != 1 ||
      EVP_PKEY_CTX_set1_hkdf_salt(context.get(), Bytes(kSalt), static_cast<int>(kSalt.size())) !=
          1 ||
      EVP_PKEY_CTX_set1_hkdf_key(context.get(), Bytes(secret), static_cast<int>(secret.size())) !=
          1 ||
      EVP_PKEY_CTX_add1_hkdf_info(context.get(), Bytes(purpose),
                                  static_cast<int>(purpose.size())) != 1 ||
      EVP_PKEY_derive(context.get(), Bytes(key), &length) != 1 || length != kKeyBytes) {
    throw std::runtime_error("HKDF key derivation failed");
  }
  return key;
}

}  // namespace

SecretBox::SecretBox(std::string_view secret, std::string_view purpose)
    : key_(DeriveKey(secret, purpose)) {}

std::string SecretBox::Seal(std::string_view plain) const {
  const std::string nonce = crypto::RandomBytes(kNonceBytes);
  std::string out = nonce;
  out.resize(kNonceBytes + plain.size() + kTagBytes);
  CipherContext context(EVP_CIPHER_CTX_new(), &EVP_CIPHER_CTX_free);
  int written = 0;
  int final_written = 0;
  unsigned char* cipher_text = Bytes(out) + kNonceBytes;
  if (!context ||
      EVP_EncryptInit_ex(context.get(), EVP_aes_256_gcm(), nullptr, Bytes(key_), Bytes(nonce)) !=
          1 ||
      EVP_EncryptUpdate(context.get(), cipher_text, &written, Bytes(plain),
                        static_cast<int>(plain.size())) != 1 ||
      EVP_EncryptFinal_ex(context.get(), cipher_text + written, &final_written) != 1 ||
      EVP_CIPHER_CTX_ctrl(context.get(), EVP_CTRL_GCM_GET_TAG, static_cast<int>(kTagBytes),
                          cipher_text + plain.size()) != 1) {
    throw std::runtime_error("AES-256-GCM encryption failed");
  }
  return std::string(kVersion) + crypto::Base64Url(out);
}

std::optional<std::string> SecretBox::Open(std::string_view sealed) const {
  if (!sealed.starts_with(kVersion)) return std::nullopt;
  std::optional<std::string> raw = crypto::Base64UrlDecode(sealed.substr(kVersion.size()));
  if (!raw || raw->size() < kNonceBytes + kTagBytes) return std::nullopt;
  const std::string_view nonce = std::string_view(*raw).substr(0, kNonceBytes);
  const std::size_t text_size = raw->size() - kNonceBytes - kTagBytes;
  const std::string_view cipher_text = std::string_view(*raw).substr(kNonceBytes, text_size);
  std::string tag = raw->substr(kNonceBytes + text_size);
  std::string plain(text_size, '\0');
  CipherContext context(EVP_CIPHER_CTX_new(), &EVP_CIPHER_CTX_free);
  int written = 0;
  int final_written = 0;
  if (!context ||
      EVP_DecryptInit_ex(context.get(), EVP_aes_256_gcm(), nullptr, Bytes(key_), Bytes(nonce)) !=
          1 ||
      EVP_DecryptUpdate(context.get(), Bytes(plain), &written, Bytes(cipher_text),
                        static_cast<int>(cipher_text.size())) != 1 ||
      EVP_CIPHER_CTX_ctrl(context.get(), EVP_CTRL_GCM_SET_TAG, static_cast<int>(kTagBytes),
                          Bytes(tag)) != 1 ||
      EVP_DecryptFinal_ex(context.get(), Bytes(plain) + written, &final_written) != 1) {
    return std::nullopt;  // wrong key or altered: the tag does not match
  }
  return plain;
}

}  // namespace cairn::auth
