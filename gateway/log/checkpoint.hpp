// Checkpoints of the activity log: C2SP tlog-checkpoint bodies (origin, tree size, base64 root)
// in C2SP signed notes, signed with Ed25519 by the log's own key, the format Go's checksum
// database and the transparency-dev witnesses read (https://c2sp.org/tlog-checkpoint,
// https://c2sp.org/signed-note).
//
// The key lives in the keyring like the gateway's other keys; its public half and the log's
// origin are kept in gateway_settings, made once per store, so every gateway on one store signs
// as the same log.
#pragma once

#include <cstdint>
#include <string>

#include "log/merkle.hpp"
#include "signet/encoding.hpp"
#include "signet/plugin.hpp"

namespace signet {
class Database;
}

namespace signet::log_checkpoint {

constexpr const char* kSecretId = "gateway-log";
constexpr const char* kKind = "ed25519-private-key";

// Makes the log's key and origin on a store that has none: `origin` when given, else
// "signet.local/log-" and the key's first 8 bytes in hex. A given origin must be a note key name:
// printable, no space, no '+'.
void ensureKey(Database& db, const crypto::SecretBytes& masterKey, const std::string& origin);

struct Identity {
  std::string origin;
  Bytes publicKey;  // Ed25519, 32 bytes
  // The verifier key an auditor pins: <origin>+<key hash hex>+<base64 of 0x01 ‖ key>.
  std::string verifierKey() const;
};
Identity identity(Db& db);

struct Checkpoint {
  std::string origin;
  uint64_t size = 0;
  merkle::Hash root{};
};

// The body and the signed note of a checkpoint.
std::string body(const Checkpoint& c);
std::string sign(const Checkpoint& c, const Identity& id, Keyring& keyring);

// Opens a signed note: its body must parse as a checkpoint of `id`'s origin and carry a valid
// signature by `id`'s key. InvalidArgument saying what is wrong otherwise.
Checkpoint open(const std::string& note, const Identity& id);

// The log's head as a kept checkpoint: its size, and the note with any witness cosignatures it
// has.
struct Issued {
  uint64_t size = 0;
  std::string note;
};
// Signs the log's head and keeps it in activity_log_checkpoints, unless the head's size was
// signed before; returns what is kept. What the periodic worker and `signet log checkpoint` do.
Issued issue(Db& db, Keyring& keyring, int64_t nowMs);

// Signed-note keys (https://c2sp.org/signed-note#verifier-keys), of the log (type 0x01, Ed25519)
// and of its witnesses (type 0x04, cosignature/v1).
constexpr uint8_t kEd25519Type = 0x01;
constexpr uint8_t kCosignatureType = 0x04;
// What opens a signature line: U+2014 (em dash) and a space; then the key's name, a space, and
// the base64 of its key hash and signature.
inline const std::string kSignatureLine = "\xE2\x80\x94 ";
// The first four bytes of SHA-256(name ‖ '\n' ‖ type ‖ key): what a signature line names.
Bytes keyHash(const std::string& name, uint8_t type, const Bytes& publicKey);
// <name>+<key hash hex>+<base64 of type ‖ key>.
std::string verifierKeyOf(const std::string& name, uint8_t type, const Bytes& publicKey);
// The name and the Ed25519 key of a verifier key of `type`; InvalidArgument naming `field` and
// saying what is wrong otherwise.
std::pair<std::string, Bytes> parseVerifierKey(const std::string& vkey, uint8_t type,
                                               const std::string& field);
// The log's identity from its verifier key (what identity().verifierKey() prints).
Identity parseLogVerifierKey(const std::string& vkey);

}  // namespace signet::log_checkpoint
