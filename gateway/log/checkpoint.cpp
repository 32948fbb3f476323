#include "log/checkpoint.hpp"

#include <algorithm>

#include "log/activity_log.hpp"
#include "signet/crypto.hpp"
#include "signet/error.hpp"
#include "store/database.hpp"
#include "store/keyring.hpp"

namespace signet::log_checkpoint {

namespace {

bool isKeyName(const std::string& name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    auto u = static_cast<unsigned char>(c);
    return u > 0x20 && u != 0x7f && c != '+';
  });
}

uint64_t parseSize(const std::string& text) {
  bool digits = !text.empty() && text.size() <= 19 &&
                std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!digits || (text.size() > 1 && text[0] == '0'))
    throw invalidArgument("the checkpoint's tree size \"" + text +
                          "\" is not a decimal number without leading zeros");
  return std::stoull(text);
}

}  // namespace

void ensureKey(Database& db, const crypto::SecretBytes& masterKey, const std::string& origin) {
  if (!origin.empty() && !isKeyName(origin))
    throw invalidArgument("invalid field log.origin: \"" + origin +
                          "\" must be printable, without spaces or '+' (a signed-note key name)");
  db.transaction([&](Db& tx) {
    if (tx.isPostgres()) tx.query("SELECT pg_advisory_xact_lock(7321)");  // gateways starting
    if (auto stored =
            tx.queryOne("SELECT value FROM gateway_settings WHERE name = 'log_public_key'")) {
      // What the API hands out must be the sealed key's: a public key swapped in the table
      // would have clients pin a key that is not the log's.
      auto seed = DbKeyring(tx, masterKey).open(kSecretId, kKind);
      if (toHex(crypto::publicKeyFromPrivate(crypto::Curve::kEd25519, seed)) !=
          stored->str("value"))
        throw failedPrecondition(
            "the activity log's public key in gateway_settings is not the sealed key's: the "
            "store was altered");
      return;
    }
    auto seed = crypto::generatePrivateKey(crypto::Curve::kEd25519);
    Bytes pub = crypto::publicKeyFromPrivate(crypto::Curve::kEd25519, seed);
    DbKeyring(tx, masterKey).seal(kSecretId, kKind, seed);
    std::string name =
        origin.empty() ? "signet.local/log-" + toHex(Bytes(pub.begin(), pub.begin() + 8)) : origin;
    tx.exec("INSERT INTO gateway_settings (name, value) VALUES ('log_public_key', ?)",
            {toHex(pub)});
    tx.exec("INSERT INTO gateway_settings (name, value) VALUES ('log_origin', ?)", {name});
  });
}

Bytes keyHash(const std::string& name, uint8_t type, const Bytes& publicKey) {
  std::string data = name + "\n";
  data.push_back(static_cast<char>(type));
  data.append(publicKey.begin(), publicKey.end());
  auto digest = crypto::sha256(data);
  return Bytes(digest.begin(), digest.begin() + 4);
}

std::string verifierKeyOf(const std::string& name, uint8_t type, const Bytes& publicKey) {
  Bytes typed{type};
  typed.insert(typed.end(), publicKey.begin(), publicKey.end());
  return name + "+" + toHex(keyHash(name, type, publicKey)) + "+" +
         base64Encode(typed.data(), typed.size());
}

std::pair<std::string, Bytes> parseVerifierKey(const std::string& vkey, uint8_t type,
                                               const std::string& field) {
  auto bad = [&](const std::string& why) {
    return invalidArgument("invalid field " + field + ": \"" + vkey + "\" " + why);
  };
  size_t first = vkey.find('+');
  size_t second = first == std::string::npos ? first : vkey.find('+', first + 1);
  if (second == std::string::npos || !isKeyName(vkey.substr(0, first)))
    throw bad("is not <name>+<hash>+<key>");
  std::string name = vkey.substr(0, first);
  auto typed = base64Decode(vkey.substr(second + 1));
  if (!typed || typed->size() != 33 || (*typed)[0] != type)
    throw bad(type == kCosignatureType ? "holds no cosignature/v1 key (type 0x04, Ed25519)"
                                       : "holds no Ed25519 key (type 0x01)");
  Bytes key(typed->begin() + 1, typed->end());
  if (vkey.substr(first + 1, second - first - 1) != toHex(keyHash(name, type, key)))
    throw bad("does not hash to its key");
  return {name, key};
}

std::string Identity::verifierKey() const {
  return verifierKeyOf(origin, kEd25519Type, publicKey);
}

Identity identity(Db& db) {
  Identity id;
  for (const auto& row :
       db.query("SELECT name, value FROM gateway_settings WHERE name IN ('log_public_key', "
                "'log_origin')")) {
    if (row.str("name") == "log_origin")
      id.origin = row.str("value");
    else
      id.publicKey = fromHex(row.str("value")).value_or(Bytes{});
  }
  if (id.origin.empty() || id.publicKey.size() != 32)
    throw internalError("the store has no activity log key (the gateway makes it when it starts)");
  return id;
}

Identity parseLogVerifierKey(const std::string& vkey) {
  auto [name, key] = parseVerifierKey(vkey, kEd25519Type, "--key");
  return {name, key};
}

std::string body(const Checkpoint& c) {
  return c.origin + "\n" + std::to_string(c.size) + "\n" +
         base64Encode(c.root.data(), c.root.size()) + "\n";
}

std::string sign(const Checkpoint& c, const Identity& id, Keyring& keyring) {
  std::string text = body(c);
  auto seed = keyring.open(kSecretId, kKind);
  Bytes sig = crypto::signEd25519(seed, reinterpret_cast<const uint8_t*>(text.data()), text.size());
  Bytes line = keyHash(id.origin, kEd25519Type, id.publicKey);
  line.insert(line.end(), sig.begin(), sig.end());
  return text + "\n" + kSignatureLine + id.origin + " " + base64Encode(line.data(), line.size()) +
         "\n";
}

Issued issue(Db& db, Keyring& keyring, int64_t nowMs) {
  auto head = activity_log::head(db);
  if (auto kept = db.queryOne("SELECT note FROM activity_log_checkpoints WHERE size = ?",
                              {static_cast<int64_t>(head.size)}))
    return {head.size, kept->str("note")};  // with the cosignatures it gathered since
  auto id = identity(db);
  std::string note = sign({id.origin, head.size, head.root}, id, keyring);
  // Another gateway on the store may keep the same size at once: one of the two is kept.
  db.exec(
      "INSERT INTO activity_log_checkpoints (size, root, issued_at_ms, note) VALUES (?, ?, ?, ?) "
      "ON CONFLICT (size) DO NOTHING",
      {static_cast<int64_t>(head.size), merkle::toHex(head.root), nowMs, note});
  return {head.size, note};
}

Checkpoint open(const std::string& note, const Identity& id) {
  size_t blank = note.rfind("\n\n");  // the text has no blank line; its signatures follow one
  if (blank == std::string::npos)
    throw invalidArgument("not a signed note: no blank line between the text and its signatures");
  std::string text = note.substr(0, blank + 1);
  std::vector<std::string> lines;
  for (size_t at = 0; at < text.size();) {
    size_t nl = text.find('\n', at);
    lines.push_back(text.substr(at, nl - at));
    at = nl + 1;
  }
  if (lines.size() < 3) throw invalidArgument("a checkpoint has an origin, a size and a root");
  Checkpoint c;
  c.origin = lines[0];
  if (c.origin != id.origin)
    throw invalidArgument("the checkpoint is of log \"" + c.origin + "\", not \"" + id.origin +
                          "\"");
  c.size = parseSize(lines[1]);
  auto root = base64Decode(lines[2]);
  if (!root || root->size() != 32 || base64Encode(root->data(), 32) != lines[2])
    throw invalidArgument("the checkpoint's root \"" + lines[2] +
                          "\" is not a base64 SHA-256 hash");
  std::copy(root->begin(), root->end(), c.root.begin());

  Bytes wanted = keyHash(id.origin, kEd25519Type, id.publicKey);
  std::string signatures = note.substr(blank + 2);
  for (size_t at = 0; at < signatures.size();) {
    size_t nl = signatures.find('\n', at);
    if (nl == std::string::npos) break;
    std::string line = signatures.substr(at, nl - at);
    at = nl + 1;
    if (line.rfind(kSignatureLine, 0) != 0) continue;
    size_t space = line.find(' ', kSignatureLine.size());
    if (space == std::string::npos ||
        line.substr(kSignatureLine.size(), space - kSignatureLine.size()) != id.origin)
      continue;
    auto sig = base64Decode(line.substr(space + 1));
    if (!sig || sig->size() != 68 || !std::equal(wanted.begin(), wanted.end(), sig->begin()))
      continue;
    if (crypto::verifyEd25519(id.publicKey, reinterpret_cast<const uint8_t*>(text.data()),
                              text.size(), Bytes(sig->begin() + 4, sig->end())))
      return c;
    throw invalidArgument("the checkpoint's signature by " + id.origin + " does not verify");
  }
  throw invalidArgument("the checkpoint carries no signature by the log's key (" +
                        id.verifierKey() + ")");
}

}  // namespace signet::log_checkpoint
