// Witnesses of the activity log: independent services that cosign a checkpoint once they have
// checked that it is consistent with the last one they saw, following the C2SP witness protocol
// (https://c2sp.org/tlog-witness) and cosignature format (https://c2sp.org/tlog-cosignature,
// cosignature/v1: a timestamped Ed25519 signature). A verifier that requires k of n witnesses'
// cosignatures is safe from a log that shows different histories to different people, unless
// k witnesses collude with it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "log/checkpoint.hpp"

namespace signet {
class Database;
}

namespace signet::log_witnesses {

struct Witness {
  std::string url;          // where it listens; add-checkpoint is posted to <url>/add-checkpoint
  std::string name;         // its key's name, which its cosignature lines carry
  Bytes publicKey;          // Ed25519
  std::string verifierKey;  // <name>+<hash>+<base64 of 0x04 ‖ key>, as configured
};

// A witness's verifier key (signature type 0x04, cosignature/v1); InvalidArgument naming
// `field` when it is not one. `url` may be empty for a witness only checked, never asked.
Witness parseWitness(const std::string& url, const std::string& verifierKey,
                     const std::string& field);

// Whether `note` carries a valid cosignature by `witness` of its checkpoint body.
bool cosignedBy(const std::string& note, const Witness& witness);

// Asks `witness` to cosign the checkpoint of `size` the store keeps, with a consistency proof
// from the last size the witness cosigned (or the size it says it holds, when it disagrees: one
// retry). A valid cosignature is appended to the stored note. Throws when the witness cannot be
// reached or refuses, saying why; the checkpoint stays as it was.
void requestCosignature(Database& database, const Witness& witness, uint64_t size);

}  // namespace signet::log_witnesses
