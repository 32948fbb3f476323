// FROST signing (RFC 9591) in the FROST(secp256k1, SHA-256) ciphersuite with BIP-340 Taproot
// challenges, "FROST-secp256k1-SHA256-TR-v1", as the Spark network signs with it (the
// frost-secp256k1-tr crate of the ZF FROST project, in the nested-signing variant the Spark
// SDK and operators build on), for one signer's share.
//
// What the TR ciphersuite changes from plain FROST: a signer whose key package's verifying key
// has an odd Y negates its signing share (BIP-340 keys are even); the challenge is BIP-340's
// tagged hash over R.x ‖ P.x ‖ message; a group commitment R with an odd Y makes each signer
// negate its nonces. Spark adds participant groups, each interpolated on its own (the user is
// a group of one, so its Lagrange coefficient is 1), and an optional adaptor point T added to R.
#pragma once

#include <array>
#include <map>
#include <optional>
#include <set>
#include <string_view>

#include "signet/crypto.hpp"

namespace signing::frost {

using Scalar = std::array<uint8_t, 32>;  // big-endian, below the group order
using Point = std::array<uint8_t, 33>;   // compressed SEC1

struct Commitment {
  Point hiding, binding;
};

// A signer's nonces for one signature, wiped when they go.
struct Nonces {
  signet::crypto::SecretBytes hiding, binding;
};

// H(m) in the ciphersuite, hashed to a scalar with expand_message_xmd (RFC 9380 §5.3.1) under
// the domain "FROST-secp256k1-SHA256-TR-v1" ‖ `tag`: H1 is "rho", H3 "nonce", HID "id".
Scalar hashToScalar(std::string_view tag, const signet::Bytes& message);
// The identifier Identifier::derive(label) gives (HID).
Scalar derivedIdentifier(std::string_view label);

// Whether `bytes` is a nonzero scalar below the group order.
bool isScalar(const Scalar& bytes);
// A compressed point (33 bytes, as crypto:: and the json readers give them) in FROST's form.
Point pointOf(const signet::Bytes& compressed);

// FROST's encoding of a commitment list (encode_group_commitment_list): each identifier, then
// its hiding and binding commitments, in the identifiers' order.
signet::Bytes encodeCommitments(const std::map<Scalar, Commitment>& commitments);

// The public commitments of `nonces`: D = hiding·G, E = binding·G.
Commitment commitmentOf(const Nonces& nonces);

// What one signer's share is computed from.
struct SigningPackage {
  signet::Bytes message;
  // Every signer's commitments by identifier, this signer's included (its order is the
  // identifiers' numeric order, as the binding factors require).
  std::map<Scalar, Commitment> commitments;
  // The identifiers this signer's Lagrange coefficient is computed over: its own group.
  std::set<Scalar> group;
  std::optional<Point> adaptor;  // T, added to the group commitment
};

// round2::sign of the ciphersuite: this signer's share z = d + e·ρ + λ·s·c, where
// `verifyingKey` is its key package's (the key the signature verifies under).
Scalar signShare(const SigningPackage& package, const Scalar& self, const Nonces& nonces,
                 const signet::crypto::SecretBytes& signingShare, const Point& verifyingKey);

// Spark's user participant (spark-frost's SigningRole::User): `key` is the user's whole key,
// `verifyingKey` the group key P_operators + P_user before the Taproot tweak, and `operators`
// the operators' commitments. The user signs as Identifier::derive("user"), alone in its
// group, under the BIP-341 key-path tweak of the group key; its share is negated when that
// group key's Y is odd, as the operators' shares are.
Scalar signAsSparkUser(const signet::Bytes& message, const signet::crypto::SecretBytes& key,
                       const Nonces& nonces, const Point& verifyingKey,
                       const std::map<Scalar, Commitment>& operators,
                       const std::optional<Point>& adaptor);

// The user's identifier.
const Scalar& sparkUserIdentifier();

}  // namespace signing::frost
