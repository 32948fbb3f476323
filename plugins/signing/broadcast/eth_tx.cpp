#include "eth_tx.hpp"

#include "chains/ethereum/rlp.hpp"

namespace signing::broadcast {

using namespace signet;

namespace {
Bytes uintItem(Uint128 v) {
  return rlpEncodeString(minimalBytes(v));
}

Bytes signatureBytes(const std::array<uint8_t, 32>& half) {
  return rlpEncodeString(minimalBytes(Bytes(half.begin(), half.end())));
}

std::vector<Bytes> authorizationItems(const std::vector<Authorization>& list) {
  std::vector<Bytes> items;
  for (const auto& a : list)
    items.push_back(
        rlpEncodeList({uintItem(a.chainId), rlpEncodeString(a.address), uintItem(a.nonce),
                       uintItem(a.signature.recoveryId), signatureBytes(a.signature.sig.r),
                       signatureBytes(a.signature.sig.s)}));
  return items;
}

std::vector<Bytes> unsignedItems(const EthTx& tx) {
  std::vector<Bytes> items = {uintItem(tx.chainId),
                              uintItem(tx.nonce),
                              uintItem(tx.maxPriorityFeePerGas),
                              uintItem(tx.maxFeePerGas),
                              uintItem(tx.gas),
                              rlpEncodeString(tx.to),
                              rlpEncodeString(minimalBytes(tx.value)),
                              rlpEncodeString(tx.data),
                              rlpEncodeList({})};  // no access list
  if (tx.type() == 4) items.push_back(rlpEncodeList(authorizationItems(tx.authorizations)));
  return items;
}

Bytes typed(int type, const Bytes& payload) {
  Bytes out;
  out.reserve(1 + payload.size());
  out.push_back(static_cast<uint8_t>(type));
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}
}  // namespace

crypto::Digest authorizationDigest(uint64_t chainId, const Bytes& address, uint64_t nonce) {
  return keccak(
      typed(0x05, rlpEncodeList({uintItem(chainId), rlpEncodeString(address), uintItem(nonce)})));
}

crypto::Digest EthTx::signingDigest() const {
  return keccak(typed(type(), rlpEncodeList(unsignedItems(*this))));
}

Bytes EthTx::signedBytes(const crypto::RecoverableSignature& sig) const {
  auto items = unsignedItems(*this);
  items.push_back(uintItem(sig.recoveryId));
  items.push_back(signatureBytes(sig.sig.r));
  items.push_back(signatureBytes(sig.sig.s));
  return typed(type(), rlpEncodeList(items));
}

Bytes ethAddressOf(const crypto::SecretBytes& privateKey) {
  Bytes pub = crypto::uncompressPublicKey(
      crypto::Curve::kSecp256k1,
      crypto::publicKeyFromPrivate(crypto::Curve::kSecp256k1, privateKey));
  auto h = crypto::keccak256(pub.data() + 1, pub.size() - 1);
  return Bytes(h.end() - 20, h.end());
}

}  // namespace signing::broadcast
