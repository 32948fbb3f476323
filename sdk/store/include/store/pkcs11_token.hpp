// An AES key in a PKCS#11 token (an HSM, or SoftHSM for tests) that wraps the keyring's data
// key: the way Vault's and OpenBao's PKCS#11 seal protect their root key. The token key is
// made inside the token as sensitive and not extractable, so it never leaves it; the data key
// is stored only encrypted by it (AES-256-GCM, done by the token) and opened through the token
// when a gateway or a command starts.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "signet/crypto.hpp"

namespace signet {

struct Pkcs11Settings {
  std::string module;  // the token's PKCS#11 library: /usr/lib/softhsm/libsofthsm2.so
  std::string token;   // the token's label
  std::string key;     // the AES key's label in the token
  std::string pinEnv = "SIGNET_PKCS11_PIN";  // the user PIN's environment variable
};

class Pkcs11Token {
 public:
  // Loads the module, finds the token by label and logs in with the PIN from the environment.
  // Errors name the module, the token or the step that failed, never the PIN.
  explicit Pkcs11Token(const Pkcs11Settings& settings);
  ~Pkcs11Token();
  Pkcs11Token(const Pkcs11Token&) = delete;
  Pkcs11Token& operator=(const Pkcs11Token&) = delete;

  bool hasKey() const;
  // A 256-bit AES key made in the token: a token object, sensitive, not extractable, for
  // encryption and decryption only. Refused when the label is taken.
  void generateKey();
  // AES-256-GCM by the token under the key, with a fresh 96-bit nonce: nonce ‖ ciphertext ‖ tag.
  Bytes encrypt(const crypto::SecretBytes& plaintext, const Bytes& aad);
  // nullopt when it does not open (another key, tampered bytes).
  std::optional<crypto::SecretBytes> decrypt(const Bytes& sealed, const Bytes& aad);
  // Whether the token would hand the key's value out: asked of the token itself (tests).
  bool keyValueReadable() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace signet
