// The 65-byte r ‖ s ‖ v form of a secp256k1 signature with v = 27 + recovery id, which Tron
// transactions and Tempo's sender signature carry.
#pragma once

#include "signet/crypto.hpp"

namespace signing {

inline signet::Bytes rsv27(const signet::crypto::RecoverableSignature& sig) {
  signet::Bytes out;
  out.reserve(sig.sig.r.size() + sig.sig.s.size() + 1);
  out.insert(out.end(), sig.sig.r.begin(), sig.sig.r.end());
  out.insert(out.end(), sig.sig.s.begin(), sig.sig.s.end());
  out.push_back(static_cast<uint8_t>(27 + sig.recoveryId));
  return out;
}

}  // namespace signing
