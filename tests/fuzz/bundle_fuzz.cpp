// Fuzz target: the bundles clients send or hand back: credential bundles (Base58Check of an
// encapsulated key and ciphertext), {encappedPublic, ciphertext} JSON (import and OTP codes) and
// the signed envelope of export and import bundles, each opened with fixed keys. They answer
// nullopt or signet::Error for what is not theirs.
#include "fuzz_input.hpp"
#include "signet/bundles.hpp"
#include "signet/crypto.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace signet;
  static const crypto::SecretBytes receiver = crypto::generatePrivateKey(crypto::Curve::kP256);
  static const std::string signer = toHex(crypto::uncompressPublicKey(
      crypto::Curve::kP256,
      crypto::publicKeyFromPrivate(crypto::Curve::kP256,
                                   crypto::generatePrivateKey(crypto::Curve::kP256))));
  if (size == 0) return 0;
  std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  fuzz::refusesWithErrorOnly([&, which = data[0] % 3] {
    switch (which) {
      case 0:
        bundles::openCredentialBundle(receiver, text);
        break;
      case 1:
        if (auto sealed = bundles::parseSealedJson(text)) bundles::open(receiver, *sealed);
        break;
      default:
        bundles::openEnvelope(text, signer);
        break;
    }
  });
  return 0;
}
