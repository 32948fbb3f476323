#include "log/witnesses.hpp"

#include <algorithm>
#include <tuple>

#include "log/activity_log.hpp"
#include "signet/crypto.hpp"
#include "signet/egress.hpp"
#include "signet/error.hpp"
#include "store/database.hpp"

namespace signet::log_witnesses {

namespace {

// The checkpoint body of a note: its text up to the blank line, that line's newline kept.
std::string bodyOf(const std::string& note) {
  size_t blank = note.rfind("\n\n");
  if (blank == std::string::npos) throw invalidArgument("not a signed note");
  return note.substr(0, blank + 1);
}

// The lines of `text` that are signature lines by `witness`, verified; the first valid one.
std::optional<std::string> validLine(const std::string& text, const std::string& body,
                                     const Witness& witness) {
  Bytes wanted =
      log_checkpoint::keyHash(witness.name, log_checkpoint::kCosignatureType, witness.publicKey);
  const std::string prefix = log_checkpoint::kSignatureLine + witness.name + " ";
  for (size_t at = 0; at < text.size();) {
    size_t nl = text.find('\n', at);
    if (nl == std::string::npos) nl = text.size();
    std::string line = text.substr(at, nl - at);
    at = nl + 1;
    if (line.rfind(prefix, 0) != 0) continue;
    auto sig = base64Decode(line.substr(prefix.size()));
    if (!sig || sig->size() != 4 + 8 + 64 ||
        !std::equal(wanted.begin(), wanted.end(), sig->begin()))
      continue;
    uint64_t time = 0;
    for (int i = 0; i < 8; ++i) time = time << 8 | (*sig)[4 + i];
    std::string signedText = "cosignature/v1\ntime " + std::to_string(time) + "\n" + body;
    if (crypto::verifyEd25519(witness.publicKey,
                              reinterpret_cast<const uint8_t*>(signedText.data()),
                              signedText.size(), Bytes(sig->begin() + 12, sig->end())))
      return line + "\n";
  }
  return std::nullopt;
}

uint64_t knownSize(Database& database, const Witness& witness) {
  uint64_t size = 0;
  database.read([&](Db& db) {
    if (auto row = db.queryOne("SELECT size FROM activity_log_witnesses WHERE verifier_key = ?",
                               {witness.verifierKey}))
      size = static_cast<uint64_t>(row->i64("size"));
  });
  return size;
}

}  // namespace

Witness parseWitness(const std::string& url, const std::string& verifierKey,
                     const std::string& field) {
  Witness w;
  w.url = url;
  while (!w.url.empty() && w.url.back() == '/') w.url.pop_back();
  w.verifierKey = verifierKey;
  std::tie(w.name, w.publicKey) = log_checkpoint::parseVerifierKey(
      verifierKey, log_checkpoint::kCosignatureType, field + ".verifierKey");
  if (!w.url.empty() && w.url.rfind("http://", 0) != 0 && w.url.rfind("https://", 0) != 0)
    throw invalidArgument("invalid field " + field + ".url: \"" + url +
                          "\" is not an http:// or https:// URL");
  return w;
}

bool cosignedBy(const std::string& note, const Witness& witness) {
  std::string body = bodyOf(note);
  return validLine(note.substr(body.size() + 1), body, witness).has_value();
}

void requestCosignature(Database& database, const Witness& witness, uint64_t size) {
  std::string note;
  database.read([&](Db& db) {
    auto row = db.queryOne("SELECT note FROM activity_log_checkpoints WHERE size = ?",
                           {static_cast<int64_t>(size)});
    if (!row) throw notFound("no checkpoint of size " + std::to_string(size) + " is kept");
    note = row->str("note");
  });
  if (cosignedBy(note, witness)) return;
  const std::string body = bodyOf(note);
  // Only the log's own signature goes to the witness: the request carries the checkpoint the
  // log signed, not other witnesses' lines.
  std::string ownNote = note.substr(0, note.find('\n', body.size() + 1) + 1);

  uint64_t old = std::min(knownSize(database, witness), size);
  for (int attempt = 0; attempt < 2; ++attempt) {
    std::vector<merkle::Hash> proof;
    database.read([&](Db& db) { proof = activity_log::consistencyProof(db, old, size); });
    std::string request = "old " + std::to_string(old) + "\n";
    for (const auto& h : proof) request += base64Encode(h.data(), h.size()) + "\n";
    request += "\n" + ownNote;
    auto answer = egress::exchange(
        {.method = "POST", .url = witness.url + "/add-checkpoint", .body = request},
        {.peer = "log witness " + witness.name,
         .allowHttp = true,  // the operator named it
         .allowInternal = true,
         .maxAnswerBytes = 64 * 1024});
    if (answer.status == 409 && attempt == 0) {
      // The witness holds another size: its answer says which, and the proof starts there.
      std::string text = answer.body.substr(0, answer.body.find('\n'));
      if (text.empty() || text.size() > 19 ||
          !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
          std::stoull(text) > size)
        throw Error(Code::kUnavailable, "log witness " + witness.name +
                                            " holds a tree size this log cannot prove from: \"" +
                                            text + "\"");
      old = std::stoull(text);
      continue;
    }
    if (answer.status != 200)
      throw Error(Code::kUnavailable, "log witness " + witness.name +
                                          " refused the checkpoint of " + std::to_string(size) +
                                          " (HTTP " + std::to_string(answer.status) +
                                          "): " + answer.body.substr(0, 200));
    auto line = validLine(answer.body, body, witness);
    if (!line)
      throw Error(Code::kUnavailable, "log witness " + witness.name +
                                          " answered no valid cosignature of the checkpoint of " +
                                          std::to_string(size));
    database.transaction([&](Db& db) {
      auto row = db.queryOne("SELECT note FROM activity_log_checkpoints WHERE size = ?",
                             {static_cast<int64_t>(size)});
      if (!row || cosignedBy(row->str("note"), witness)) return;
      db.exec("UPDATE activity_log_checkpoints SET note = ? WHERE size = ?",
              {row->str("note") + *line, static_cast<int64_t>(size)});
      db.exec("DELETE FROM activity_log_witnesses WHERE verifier_key = ? AND size < ?",
              {witness.verifierKey, static_cast<int64_t>(size)});
      if (!db.queryOne("SELECT size FROM activity_log_witnesses WHERE verifier_key = ?",
                       {witness.verifierKey}))
        db.exec("INSERT INTO activity_log_witnesses (verifier_key, size) VALUES (?, ?)",
                {witness.verifierKey, static_cast<int64_t>(size)});
    });
    return;
  }
  throw Error(Code::kUnavailable,
              "log witness " + witness.name + " disagreed twice on the size it holds");
}

}  // namespace signet::log_witnesses
