// signet log checkpoint | prove | verify | key: the operator's and the auditor's side of the
// activity log (docs/activity-log.md).
//
// `verify` opens the store on a connection of its own, not through a Gateway: a gateway appends
// what is pending when it starts, and a verifier must look at the store as it found it.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "gateway.hpp"
#include "log/checkpoint.hpp"
#include "log/log_queries.hpp"
#include "log/log_verify.hpp"
#include "log/witnesses.hpp"
#include "signet/crypto.hpp"
#include "store/keyring.hpp"
#include "store/sql_connection.hpp"

namespace signet::cli {

namespace {

std::string readFile(const std::string& path, const char* option) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(std::string("--") + option + ": cannot read " + path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The store as it is, on a connection of its own: no gateway starts, so nothing pending is
// appended and no migration runs (the store may be an auditor's copy).
struct Store {
  explicit Store(const Args& args)
      : config(Config::load(args.require("data-dir"), args.get("config").value_or(""))),
        connection(openConnection(config.database)) {}
  crypto::SecretBytes masterKey() const {
    return MasterKey::load(config.masterKeyFile, config.masterKeyPkcs11);
  }
  Config config;
  std::unique_ptr<SqlConnection> connection;
};

// The log's identity as the keyring holds it: the public key derived from the sealed private
// key, so that a public key swapped in gateway_settings does not pass.
log_checkpoint::Identity sealedIdentity(Db& db, const crypto::SecretBytes& masterKey) {
  auto stored = log_checkpoint::identity(db);
  DbKeyring keyring(db, masterKey);
  auto seed = keyring.open(log_checkpoint::kSecretId, log_checkpoint::kKind);
  stored.publicKey = crypto::publicKeyFromPrivate(crypto::Curve::kEd25519, seed);
  return stored;
}

}  // namespace

int logCheckpointCommand(const std::vector<std::string>& argv) {
  Args args(argv, {"data-dir", "config", "out"}, {});
  Config config = Config::load(args.require("data-dir"), args.get("config").value_or(""));
  Gateway gateway(config);  // a checkpoint of the store as a gateway keeps it, pending appended
  std::string note;
  gateway.database().transaction([&](Db& db) {
    DbKeyring keyring(db, gateway.masterKey());
    note = log_checkpoint::issue(db, keyring, gateway.nowMs()).note;
  });
  if (auto out = args.get("out")) {
    std::ofstream file(*out, std::ios::binary | std::ios::trunc);
    if (!(file << note)) throw UsageError("--out: cannot write " + *out);
  } else {
    std::cout << note;
  }
  return 0;
}

int logKeyCommand(const std::vector<std::string>& argv) {
  Args args(argv, {"data-dir", "config"}, {});
  Store store(args);
  std::cout << sealedIdentity(*store.connection, store.masterKey()).verifierKey() << "\n";
  return 0;
}

int logProveCommand(const std::vector<std::string>& argv) {
  Args args(argv, {"data-dir", "config", "tree-size"}, {}, {"the ACTIVITY_ID"});
  Store store(args);
  json::Object body = json::object();
  if (auto size = args.get("tree-size")) body->set("treeSize", *size);
  auto masterKey = store.masterKey();
  DbKeyring keyring(*store.connection, masterKey);
  store.connection->beginSnapshot();
  auto proof = log_queries::inclusionProof(*store.connection, keyring, args.word(0), body);
  store.connection->endSnapshot();
  std::cout << json::stringify(proof) << "\n";
  return 0;
}

int logVerifyCommand(const std::vector<std::string>& argv) {
  Args args(argv, {"data-dir", "config", "from", "key", "witness", "witnesses"}, {});
  std::vector<log_witnesses::Witness> witnesses;
  for (const auto& vkey : args.list("witness"))
    witnesses.push_back(log_witnesses::parseWitness("", vkey, "--witness"));
  size_t required = witnesses.size();
  if (auto k = args.get("witnesses")) {
    bool digits = !k->empty() && k->size() < 4 &&
                  std::all_of(k->begin(), k->end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!digits || std::stoul(*k) > witnesses.size())
      throw UsageError("--witnesses must be a number from 0 to the " +
                       std::to_string(witnesses.size()) + " --witness keys given, not '" + *k +
                       "'");
    required = std::stoul(*k);
  }
  std::string note = readFile(args.require("from"), "from");
  Store store(args);
  Db& db = *store.connection;
  // An auditor with the log's verifier key needs no master key.
  log_checkpoint::Identity id = args.has("key")
                                    ? log_checkpoint::parseLogVerifierKey(*args.get("key"))
                                    : sealedIdentity(db, store.masterKey());
  log_checkpoint::Checkpoint saved;
  try {
    saved = log_checkpoint::open(note, id);
  } catch (const Error& e) {
    std::cout << "FAIL the checkpoint in " << *args.get("from") << ": " << e.what() << "\n";
    return 1;
  }
  size_t cosigned = std::count_if(witnesses.begin(), witnesses.end(), [&](const auto& w) {
    return log_witnesses::cosignedBy(note, w);
  });
  if (cosigned < required) {
    std::cout << "FAIL the checkpoint carries valid cosignatures from " << cosigned << " of the "
              << witnesses.size() << " witnesses given, " << required << " required\n";
    return 1;
  }
  // One snapshot: a gateway committing meanwhile cannot make leaves and rows disagree.
  store.connection->beginSnapshot();
  auto report = log_verify::verify(db, saved, id);
  store.connection->endSnapshot();
  if (report.ok()) {
    std::cout << "OK the log grew from " << report.checkpointSize << " to " << report.treeSize
              << " leaves and only grew; every activity is in the state its last leaf records\n"
              << "root " << merkle::toHex(report.treeRoot) << "\n";
    if (report.treeSize > report.checkpointSize)
      std::cout << "note: leaves after " << report.checkpointSize
                << " are vouched for by the store alone until a later checkpoint covers them\n";
    return 0;
  }
  const auto& first = report.findings.front();
  std::cout << "FAIL " << first.description << "\n";
  if (!first.activityId.empty()) std::cout << "activity " << first.activityId << "\n";
  for (size_t i = 1; i < report.findings.size(); ++i)
    std::cout << "also: " << report.findings[i].description << "\n";
  return 1;
}

}  // namespace signet::cli
