#include "chains/spark/feldman.hpp"

#include <stdexcept>

namespace signing {

using namespace signet;
using crypto::SecretBytes;

namespace {
const auto kK1 = crypto::Curve::kSecp256k1;

SecretBytes scalarOf(uint32_t v) {
  Bytes b(32, 0);
  for (int i = 0; i < 4; ++i) b[31 - i] = static_cast<uint8_t>(v >> (8 * i));
  return SecretBytes(std::move(b));
}

// The arithmetic helpers return nullopt only for a zero result, which random coefficients
// reach with probability 2^-256; treated as an internal failure rather than retried.
SecretBytes need(std::optional<SecretBytes> v) {
  if (!v) throw std::runtime_error("Feldman split reached a zero scalar");
  return std::move(*v);
}
}  // namespace

std::vector<VerifiableShare> feldmanSplit(const SecretBytes& secret, uint32_t threshold,
                                          uint32_t count) {
  if (threshold < 1 || threshold > count)
    throw std::invalid_argument("threshold must be between 1 and the number of shares");
  if (!crypto::isValidPrivateKey(kK1, secret))
    throw std::invalid_argument("the secret is not a secp256k1 scalar");
  std::vector<SecretBytes> coefficients;
  coefficients.push_back(SecretBytes(secret.bytes()));
  for (uint32_t j = 1; j < threshold; ++j) coefficients.push_back(crypto::generatePrivateKey(kK1));
  std::vector<Bytes> proofs;
  for (const auto& a : coefficients) proofs.push_back(crypto::publicKeyFromPrivate(kK1, a));

  std::vector<VerifiableShare> shares;
  for (uint32_t i = 1; i <= count; ++i) {
    // Horner: f(i) = (...(a_{t-1}·i + a_{t-2})·i + ...)·i + a_0.
    SecretBytes x = scalarOf(i);
    SecretBytes acc(coefficients.back().bytes());
    for (size_t j = coefficients.size() - 1; j-- > 0;)
      acc = need(
          crypto::addScalarsSecp256k1(need(crypto::mulScalarsSecp256k1(acc, x)), coefficients[j]));
    shares.push_back({i, std::move(acc), proofs});
  }
  return shares;
}

}  // namespace signing
