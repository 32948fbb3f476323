// The activity log on a real gateway, on both stores: every committed state of an activity is a
// leaf, in commit order; the proofs served check out, with our verifier and with Go's checksum
// database packages (tests/gateway/log/oracle); tampering with the store by raw SQL is found by
// the verifier and named; a store from before the log is appended when the gateway starts;
// changes made outside the gateway are not logged as if it made them; two gateways on one
// PostgreSQL keep one log.
#include <Poco/Pipe.h>
#include <Poco/PipeStream.h>
#include <Poco/Process.h>
#include <Poco/StreamCopier.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <functional>
#include <future>
#include <mutex>
#include <thread>

#include "log/activity_log.hpp"
#include "log/checkpoint.hpp"
#include "log/log_verify.hpp"
#include "log/witnesses.hpp"
#include "server/http_server.hpp"
#include "store/core_schema.hpp"
#include "store/database.hpp"
#include "store/given_texts.hpp"
#include "store/sql_connection.hpp"
#include "support/child_process.hpp"
#include "support/lock_waits.hpp"
#include "support/log_capture.hpp"
#include "support/signet_cli.hpp"
#include "support/test_gateway.hpp"
#include "support/test_org.hpp"

namespace signet::test {
namespace {

class ActivityLogTest : public BackendTest {};
SIGNET_BACKEND_SUITE(ActivityLogTest);

std::string memo(const Client& client, const std::string& org, const std::string& text) {
  json::Object p = json::object();
  p->set("text", text);
  auto a = client.submit("signet_create_memo", "ACTIVITY_TYPE_SIGNET_CREATE_MEMO", org, p);
  EXPECT_EQ(a->getValue<std::string>("status"), "ACTIVITY_STATUS_COMPLETED");
  return a->getValue<std::string>("id");
}

json::Object logQuery(const Client& client, const std::string& org, const std::string& name,
                      const std::map<std::string, std::string>& fields = {}) {
  json::Object body = orgBody(org);
  for (const auto& [k, v] : fields) body->set(k, v);
  return client.query("signet_get_log_" + name, body);
}

log_checkpoint::Identity identityOf(TestGateway& gw) {
  log_checkpoint::Identity id;
  gw.gateway().database().read([&](Db& db) { id = log_checkpoint::identity(db); });
  return id;
}

std::vector<merkle::Hash> hashesOf(const json::Array& list) {
  std::vector<merkle::Hash> out;
  for (size_t i = 0; i < list->size(); ++i)
    out.push_back(merkle::fromHex(list->getElement<std::string>(i)));
  return out;
}

std::string lineOf(const std::string& leaf, const std::string& name) {
  size_t at = leaf.find("\n" + name + " ");
  if (at == std::string::npos) return "";
  at += name.size() + 2;
  return leaf.substr(at, leaf.find('\n', at) - at);
}

// Where a gateway's write connection puts the notes its triggers make: on SQLite its temporary
// schema (activity_log::writerSetup), on PostgreSQL the store's table, beside a migration's.
std::string ownNotes(Db& db) {
  return db.isPostgres() ? "activity_log_pending" : "temp.activity_log_noted";
}

// The notes not yet appended, seen from a write connection: the store's and, on SQLite, the
// connection's own. None once a batch has committed.
int64_t notesLeft(TestGateway& gw) {
  int64_t left = 0;
  gw.write([&](Db& db) {
    left = db.queryOne("SELECT COUNT(*) AS n FROM activity_log_pending")->i64("n");
    if (!db.isPostgres())
      left += db.queryOne("SELECT COUNT(*) AS n FROM " + ownNotes(db))->i64("n");
  });
  return left;
}

// The log's checkpoint now, opened against its key, as an auditor keeps it.
log_checkpoint::Checkpoint checkpointNow(TestGateway& gw) {
  return log_checkpoint::open(logQuery(gw.rootClient(), gw.root().organizationId, "checkpoint")
                                  ->getValue<std::string>("checkpoint"),
                              identityOf(gw));
}

// How many indexes of the leaves by activity (core migration 27) stand on the leaves' table: 1.
int64_t leavesIndexedByActivity(TestGateway& gw) {
  return gw.count(gw.gateway().database().backend() == Backend::kSqlite
                      ? "SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND name = "
                        "'activity_log_leaves_activity' AND tbl_name = 'activity_log_leaves'"
                      : "SELECT COUNT(*) FROM pg_indexes WHERE indexname = "
                        "'activity_log_leaves_activity' AND tablename = 'activity_log_leaves'");
}

// The verifier's report on the store as `tamper` leaves it; the tampering is rolled back.
log_verify::Report verifyAfter(TestGateway& gw, const log_checkpoint::Checkpoint& saved,
                               const std::function<void(Db&)>& tamper) {
  struct RolledBack {};
  log_verify::Report report;
  auto id = identityOf(gw);
  // A connection of its own, as the database's own tools would use: the gateway's hooks do not
  // run on it.
  auto db = openConnection(gw.gateway().config().database);
  db->begin();
  tamper(*db);
  report = log_verify::verify(*db, saved, id);
  db->rollback();
  return report;
}

// Runs Go's checksum-database packages over `input`; their exit code and what they printed.
std::pair<int, std::string> runOracle(const json::Object& input, const std::string& dir) {
  std::string file = dir + "/oracle-input.json";
  std::ofstream(file) << json::stringify(input);
  Poco::Process::Env env;
  env["GO111MODULE"] = "off";
  env["GOPATH"] = "/usr/share/gocode";
  env["GOCACHE"] = dir + "/gocache";
  env["HOME"] = dir;
  Poco::Pipe out;
  auto handle = Poco::Process::launch(
      "go", {"run", std::string(SIGNET_TEST_SOURCE_DIR) + "/gateway/log/oracle/main.go", file}, dir,
      nullptr, &out, &out, env);
  Poco::PipeInputStream stream(out);
  std::string printed;
  Poco::StreamCopier::copyToString(stream, printed);
  return {handle.wait(), printed};
}

// The test witness (tests/gateway/log/witness): Go's note and tlog check what it cosigns.
class WitnessProcess {
 public:
  WitnessProcess(const std::string& logVerifierKey, const std::string& dir) {
    Poco::Process::Env env;
    env["GO111MODULE"] = "off";
    env["GOPATH"] = "/usr/share/gocode";
    env["GOCACHE"] = dir + "/gocache";
    env["HOME"] = dir;
    handle_ = std::make_unique<Poco::ProcessHandle>(Poco::Process::launch(
        "go",
        {"run", std::string(SIGNET_TEST_SOURCE_DIR) + "/gateway/log/witness/main.go",
         logVerifierKey},
        dir, &in_, &out_, nullptr, env));
    stream_ = std::make_unique<Poco::PipeInputStream>(out_);
    std::string first = nextLine();
    url = first.substr(0, first.find(' '));
    verifierKey = first.substr(first.find(' ') + 1);
  }
  ~WitnessProcess() { endChild(in_, *handle_); }
  std::string nextLine() {
    std::string line;
    std::getline(*stream_, line);
    return line;
  }
  std::string url, verifierKey;

 private:
  Poco::Pipe in_, out_;
  std::unique_ptr<Poco::ProcessHandle> handle_;
  std::unique_ptr<Poco::PipeInputStream> stream_;
};

TEST_P(ActivityLogTest, EveryCommittedStateIsALeafAndTheProofsCheckOutWithAnIndependentVerifier) {
  TestGateway gw(GetParam());
  Org o(gw);
  auto root = gw.rootClient();
  const std::string org = o.org();
  auto id = identityOf(gw);

  std::string first = memo(root, org, "first");
  auto early = logQuery(root, org, "checkpoint");
  auto earlyCheckpoint = log_checkpoint::open(early->getValue<std::string>("checkpoint"), id);

  // An activity that waits for a vote, then completes: two states, two leaves.
  auto u1 = o.user("U1"), u2 = o.user("U2");
  o.policy("two approvals", "EFFECT_ALLOW", "activity.resource == 'USER'",
           "approvers.count() >= 2");
  auto waiting = o.createUsers(u1);
  ASSERT_EQ(waiting->getValue<std::string>("status"), "ACTIVITY_STATUS_CONSENSUS_NEEDED");
  json::Object vote = json::object();
  vote->set("fingerprint", waiting->getValue<std::string>("fingerprint"));
  EXPECT_EQ(o.as(u2)
                .submit("approve_activity", "ACTIVITY_TYPE_APPROVE_ACTIVITY", org, vote)
                ->getValue<std::string>("status"),
            "ACTIVITY_STATUS_COMPLETED");
  std::string voted = waiting->getValue<std::string>("id");
  std::string last = memo(root, org, "last");

  // The checkpoint: the log's key signs the head, and the head is every leaf stored.
  auto latest = logQuery(root, org, "checkpoint");
  EXPECT_EQ(latest->getValue<std::string>("verifierKey"), id.verifierKey());
  auto checkpoint = log_checkpoint::open(latest->getValue<std::string>("checkpoint"), id);
  EXPECT_EQ(static_cast<int64_t>(checkpoint.size),
            gw.count("SELECT COUNT(*) FROM activity_log_leaves"));
  EXPECT_EQ(std::to_string(checkpoint.size), latest->getValue<std::string>("treeSize"));
  EXPECT_EQ(notesLeft(gw), 0);

  // Every activity's latest leaf is its stored state, and its proof checks against the root.
  json::Array inclusions = json::array();
  int64_t activities = gw.count("SELECT COUNT(*) FROM activities");
  std::vector<std::string> ids;
  gw.gateway().database().read([&](Db& db) {
    for (const auto& row : db.query("SELECT id FROM activities ORDER BY created_at_ms"))
      ids.push_back(row.str("id"));
  });
  ASSERT_EQ(static_cast<int64_t>(ids.size()), activities);
  for (const auto& activity : ids) {
    auto proof = logQuery(root, org, "inclusion_proof", {{"activityId", activity}});
    std::string leaf = proof->getValue<std::string>("leaf");
    EXPECT_EQ(lineOf(leaf, "id"), activity);
    uint64_t index = std::stoull(proof->getValue<std::string>("leafIndex"));
    EXPECT_TRUE(merkle::verifyInclusion(index, checkpoint.size, merkle::leafHash(leaf),
                                        hashesOf(proof->getArray("proof")), checkpoint.root))
        << activity;
    inclusions->add(proof);
  }
  auto votedProof = logQuery(root, org, "inclusion_proof", {{"activityId", voted}});
  auto votedLeaves = votedProof->getArray("leafIndexes");
  ASSERT_EQ(votedLeaves->size(), 2u);
  EXPECT_EQ(lineOf(votedProof->getValue<std::string>("leaf"), "status"),
            "ACTIVITY_STATUS_COMPLETED");
  auto before =
      logQuery(root, org, "inclusion_proof",
               {{"activityId", voted}, {"leafIndex", votedLeaves->getElement<std::string>(0)}});
  EXPECT_EQ(lineOf(before->getValue<std::string>("leaf"), "status"),
            "ACTIVITY_STATUS_CONSENSUS_NEEDED");
  inclusions->add(before);
  // What the store holds verifies.
  EXPECT_TRUE(verifyAfter(gw, checkpoint, [](Db&) {}).ok());

  // The log only grew since the early checkpoint.
  auto grew = logQuery(root, org, "consistency_proof",
                       {{"firstSize", std::to_string(earlyCheckpoint.size)}});
  EXPECT_TRUE(merkle::verifyConsistency(earlyCheckpoint.size, checkpoint.size, earlyCheckpoint.root,
                                        checkpoint.root, hashesOf(grew->getArray("proof"))));
  // And so does it between every pair of sizes, through our verifier.
  for (uint64_t m = 1; m <= checkpoint.size; ++m) {
    auto c = logQuery(
        root, org, "consistency_proof",
        {{"firstSize", std::to_string(m)}, {"secondSize", std::to_string(checkpoint.size)}});
    EXPECT_TRUE(merkle::verifyConsistency(
        m, checkpoint.size, merkle::fromHex(c->getValue<std::string>("firstRootHash")),
        checkpoint.root, hashesOf(c->getArray("proof"))))
        << m;
  }

  // The independent verifier: Go's sumdb note and tlog packages.
  json::Object input = json::object();
  input->set("verifierKey", id.verifierKey());
  input->set("checkpoint", latest->getValue<std::string>("checkpoint"));
  json::Array leaves = json::array();
  gw.gateway().database().read([&](Db& db) {
    for (const auto& row : db.query("SELECT leaf FROM activity_log_leaves ORDER BY idx"))
      leaves->add(row.str("leaf"));
  });
  input->set("leaves", leaves);
  input->set("inclusions", inclusions);
  json::Object consistency = json::object();
  consistency->set("firstCheckpoint", early->getValue<std::string>("checkpoint"));
  consistency->set("checkpoint", grew->getValue<std::string>("checkpoint"));
  consistency->set("proof", grew->getArray("proof"));
  json::Array consistencies = json::array();
  consistencies->add(consistency);
  input->set("consistency", consistencies);
  auto [code, printed] = runOracle(input, gw.dataDir().string());
  EXPECT_EQ(code, 0) << printed;
  EXPECT_NE(printed.find("OK " + std::to_string(checkpoint.size) + " leaves"), std::string::npos)
      << printed;
  // The oracle can fail: one hash of one proof flipped.
  auto bad = inclusions->getObject(1);
  auto proof = bad->getArray("proof");
  ASSERT_GT(proof->size(), 0u);
  std::string flipped = proof->getElement<std::string>(0);
  flipped[0] = flipped[0] == '0' ? '1' : '0';
  proof->set(0, flipped);
  auto [badCode, badPrinted] = runOracle(input, gw.dataDir().string());
  EXPECT_EQ(badCode, 1) << badPrinted;
  EXPECT_NE(badPrinted.find("FAIL leaf"), std::string::npos) << badPrinted;

  // An organization sees proofs for its own activities only; bad sizes are named.
  auto [other, otherStamper] = gw.createOrganization("Other Org");
  auto stranger = gw.clientWith(otherStamper);
  try {
    logQuery(stranger, other.organizationId, "inclusion_proof", {{"activityId", first}});
    FAIL() << "another organization's activity was proven";
  } catch (const RequestError& e) {
    EXPECT_EQ(e.httpStatus(), 404) << e.what();
  }
  for (const auto& [field, value] : std::vector<std::pair<std::string, std::string>>{
           {"treeSize", "0"}, {"treeSize", "999999"}, {"leafIndex", "999999"}}) {
    try {
      logQuery(root, org, "inclusion_proof", {{"activityId", last}, {field, value}});
      FAIL() << field << " " << value;
    } catch (const RequestError& e) {
      EXPECT_EQ(e.httpStatus(), 400) << e.what();
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(logQuery(root, org, "consistency_proof"), RequestError);
}

TEST_P(ActivityLogTest, AWitnessCosignsEachCheckpointOnceItCheckedThatTheLogOnlyGrew) {
  TestGateway gw(GetParam());
  WitnessProcess process(identityOf(gw).verifierKey(), gw.dataDir().string());
  ASSERT_EQ(process.url.rfind("http://127.0.0.1:", 0), 0u) << process.url;
  auto witness = log_witnesses::parseWitness(process.url, process.verifierKey, "witness");
  gw.restart([&](Config& c) {
    c.logWitnesses = {witness};
    c.logCheckpointSeconds = 1;
  });
  auto root = gw.rootClient();
  const std::string org = gw.root().organizationId;
  // The checkpoint of the head, once the witness cosigned it.
  auto cosignedHead = [&] {
    std::string note;
    EXPECT_TRUE(eventually([&] {
      auto answer = logQuery(root, org, "checkpoint");
      note = answer->getValue<std::string>("checkpoint");
      return log_witnesses::cosignedBy(note, witness);
    }));
    return note;
  };
  const std::string witnessed = memo(root, org, "witnessed");
  std::string first = cosignedHead();
  // Every line the witness printed is a checkpoint it cosigned after Go's tlog checked the
  // consistency proof from the last one.
  std::string line;
  do line = process.nextLine();
  while (!line.empty() && line.find(" from 0") == std::string::npos);
  for (int i = 0; i < 3; ++i) memo(root, org, "more " + std::to_string(i));
  int64_t leaves = gw.count("SELECT COUNT(*) FROM activity_log_leaves");
  std::string second;
  ASSERT_TRUE(eventually([&] {
    second = cosignedHead();
    return second.find("\n" + std::to_string(leaves) + "\n") != std::string::npos;
  }));
  do line = process.nextLine();
  while (!line.empty() && line.rfind("cosigned " + std::to_string(leaves) + " from ", 0) != 0);
  ASSERT_FALSE(line.empty());
  EXPECT_EQ(line.find(" from 0"), std::string::npos) << line;  // a proof from a non-empty tree
  // Both signatures are in the note: the log's, then the witness's.
  auto id = identityOf(gw);
  EXPECT_EQ(log_checkpoint::open(second, id).size, static_cast<uint64_t>(leaves));
  // Proofs up to a size a witness cosigned come with that cosigned note, not a fresh signature.
  auto firstSize = std::to_string(log_checkpoint::open(first, id).size);
  auto consistency = logQuery(root, org, "consistency_proof",
                              {{"firstSize", firstSize}, {"secondSize", std::to_string(leaves)}});
  EXPECT_EQ(consistency->getValue<std::string>("checkpoint"), second);
  auto inclusion = logQuery(root, org, "inclusion_proof",
                            {{"activityId", witnessed}, {"treeSize", std::to_string(leaves)}});
  EXPECT_EQ(inclusion->getValue<std::string>("checkpoint"), second);
  // An altered cosignature does not count, nor does the same line under another checkpoint.
  std::string altered = second;
  size_t at = altered.rfind(witness.name + " ") + witness.name.size() + 10;
  altered[at] = altered[at] == 'A' ? 'B' : 'A';
  EXPECT_FALSE(log_witnesses::cosignedBy(altered, witness));
  std::string moved =
      first.substr(0, first.find("\n\n") + 2) + second.substr(second.find("\n\n") + 2);
  EXPECT_FALSE(log_witnesses::cosignedBy(moved, witness));
  // A key that is not a witness's (the log's own, type 0x01) is refused as a witness key.
  EXPECT_THROW(log_witnesses::parseWitness("", id.verifierKey(), "witness"), Error);
}

TEST_P(ActivityLogTest, TamperingWithTheStoreIsFoundAndTheActivityNamed) {
  TestGateway gw(GetParam());
  auto root = gw.rootClient();
  const std::string org = gw.root().organizationId;
  auto id = identityOf(gw);
  std::vector<std::string> memos;
  // A checkpoint kept after each memo, as the periodic worker keeps them.
  for (int i = 0; i < 6; ++i) {
    memos.push_back(memo(root, org, "memo " + std::to_string(i)));
    gw.write([&](Db& db) {
      DbKeyring keyring(db, gw.gateway().masterKey());
      log_checkpoint::issue(db, keyring, gw.gateway().nowMs());
    });
  }
  auto saved = checkpointNow(gw);
  memo(root, org, "after the checkpoint");

  EXPECT_TRUE(verifyAfter(gw, saved, [](Db&) {}).ok());
  auto leafOf = [&](Db& db, const std::string& activity) {
    return db.queryOne("SELECT idx, leaf FROM activity_log_leaves WHERE activity_id = ?",
                       {activity});
  };
  auto expectNamed = [&](const log_verify::Report& r, const std::string& activity,
                         const std::string& words) {
    ASSERT_FALSE(r.ok()) << words;
    EXPECT_EQ(r.findings.front().activityId, activity) << r.findings.front().description;
    EXPECT_NE(r.findings.front().description.find(words), std::string::npos)
        << r.findings.front().description;
  };

  // A status changed.
  expectNamed(verifyAfter(gw, saved,
                          [&](Db& db) {
                            db.exec(
                                "UPDATE activities SET status = 'ACTIVITY_STATUS_FAILED' "
                                "WHERE id = ?",
                                {memos[2]});
                          }),
              memos[2], "status ACTIVITY_STATUS_COMPLETED → ACTIVITY_STATUS_FAILED");
  // A row deleted.
  expectNamed(
      verifyAfter(gw, saved,
                  [&](Db& db) { db.exec("DELETE FROM activities WHERE id = ?", {memos[3]}); }),
      memos[3], "removed from the store");
  // Two leaves swapped: the log reordered.
  auto swapped = verifyAfter(gw, saved, [&](Db& db) {
    int64_t a = leafOf(db, memos[1])->i64("idx"), b = leafOf(db, memos[4])->i64("idx");
    db.exec("UPDATE activity_log_leaves SET idx = -1 WHERE idx = ?", {a});
    db.exec("UPDATE activity_log_leaves SET idx = ? WHERE idx = ?", {a, b});
    db.exec("UPDATE activity_log_leaves SET idx = ? WHERE idx = -1", {b});
  });
  ASSERT_FALSE(swapped.ok());
  EXPECT_EQ(swapped.findings.front().activityId, memos[4]) << swapped.findings.front().description;
  EXPECT_NE(swapped.findings.front().description.find("is not the leaf the log appended"),
            std::string::npos);
  // A leaf rewritten along with its activity: the store agrees with itself, not with the root.
  auto rewrite = [&](Db& db, const std::string& activity) {
    db.exec("UPDATE activities SET status = 'ACTIVITY_STATUS_FAILED' WHERE id = ?", {activity});
    auto row = db.queryOne(
        std::string("SELECT ") + activity_log::kLeafColumns + " FROM activities WHERE id = ?",
        {activity});
    db.exec("UPDATE activity_log_leaves SET leaf = ? WHERE activity_id = ?",
            {activity_log::leafOf(*row), activity});
  };
  expectNamed(verifyAfter(gw, saved, [&](Db& db) { rewrite(db, memos[2]); }), memos[2],
              "is not the leaf the log appended");
  // And with every stored hash above it rewritten too: the checkpoints the log signed still
  // point at it.
  expectNamed(
      verifyAfter(gw, saved,
                  [&](Db& db) {
                    rewrite(db, memos[2]);
                    merkle::Frontier f;
                    std::vector<std::pair<merkle::Node, merkle::Hash>> made;
                    for (const auto& row :
                         db.query("SELECT idx, leaf FROM activity_log_leaves ORDER BY idx")) {
                      auto h = merkle::leafHash(row.str("leaf"));
                      made.push_back({{0, f.size()}, h});
                      f.append(h, made);
                    }
                    for (const auto& [node, hash] : made)
                      db.exec(
                          "UPDATE activity_log_nodes SET hash = ? WHERE idx = ?",
                          {merkle::toHex(hash), static_cast<int64_t>(merkle::storedIndex(node))});
                  }),
      memos[2], "no longer hash to the root the log signed");
  // A leaf filed under another activity, so that an activity's last leaf seems an older one.
  auto relabeled = verifyAfter(gw, saved, [&](Db& db) {
    db.exec("UPDATE activity_log_leaves SET activity_id = ? WHERE activity_id = ?",
            {memos[1], memos[4]});
  });
  ASSERT_FALSE(relabeled.ok());
  EXPECT_EQ(relabeled.findings.front().activityId, memos[4]);
  EXPECT_NE(relabeled.findings.front().description.find("is filed under activity " + memos[1]),
            std::string::npos)
      << relabeled.findings.front().description;
  // Each misfiled leaf is found, after a leaf removed before it or another misfiled one.
  auto descriptions = [](const log_verify::Report& r) {
    std::string all;
    for (const auto& f : r.findings) all += f.activityId + ": " + f.description + "\n";
    return all;
  };
  auto count = [](const std::string& text, const std::string& words) {
    size_t n = 0;
    for (size_t at = text.find(words); at != std::string::npos; at = text.find(words, at + 1)) ++n;
    return n;
  };
  // memos[1]'s leaf removed, then `change`: what verify finds, a finding a line.
  auto pastAGap = [&](const std::function<void(Db&)>& change) {
    return descriptions(verifyAfter(gw, saved, [&](Db& db) {
      db.exec("DELETE FROM activity_log_leaves WHERE activity_id = ?", {memos[1]});
      change(db);
    }));
  };
  std::string found = pastAGap([&](Db& db) {
    db.exec("UPDATE activity_log_leaves SET activity_id = ? WHERE activity_id = ?",
            {memos[3], memos[4]});
  });
  EXPECT_EQ(count(found, "was removed from the log"), 1u) << found;
  // Past the gap a leaf's position in the tree is one less than its row's idx: both are named.
  int64_t stored4 = 0;
  gw.gateway().database().read([&](Db& db) { stored4 = leafOf(db, memos[4])->i64("idx"); });
  std::string leaf4 =
      "leaf " + std::to_string(stored4 - 1) + " (stored as idx " + std::to_string(stored4) + ")";
  EXPECT_EQ(count(found, memos[4] + ": " + leaf4 + " is filed under activity " + memos[3] +
                             " but its text is of activity " + memos[4]),
            1u)
      << found;
  // And an activity altered past the gap is compared with its own leaf, read by its idx: the
  // status is all that differs (another leaf would differ in its fingerprint and times).
  found = pastAGap([&](Db& db) {
    db.exec("UPDATE activities SET status = 'ACTIVITY_STATUS_FAILED' WHERE id = ?", {memos[4]});
  });
  EXPECT_NE(found.find("activity " + memos[4] + " was altered after " + leaf4 +
                       " logged it: status ACTIVITY_STATUS_COMPLETED → ACTIVITY_STATUS_FAILED\n"),
            std::string::npos)
      << found;
  found = pastAGap([&](Db& db) { db.exec("DELETE FROM activities WHERE id = ?", {memos[4]}); });
  EXPECT_NE(found.find("activity " + memos[4] + " was removed from the store (" + leaf4 +
                       " logged it ACTIVITY_STATUS_COMPLETED)"),
            std::string::npos)
      << found;
  auto twoMisfiled = verifyAfter(gw, saved, [&](Db& db) {
    db.exec("UPDATE activity_log_leaves SET activity_id = ? WHERE activity_id = ?",
            {memos[1], memos[2]});
    db.exec("UPDATE activity_log_leaves SET activity_id = ? WHERE activity_id = ?",
            {memos[3], memos[4]});
  });
  found = descriptions(twoMisfiled);
  EXPECT_EQ(count(found, "is filed under activity "), 2u) << found;
  EXPECT_NE(found.find("is filed under activity " + memos[1] + " but its text is of activity " +
                       memos[2]),
            std::string::npos)
      << found;
  EXPECT_NE(found.find("is filed under activity " + memos[3] + " but its text is of activity " +
                       memos[4]),
            std::string::npos)
      << found;
  // A voter's stored copy altered, or removed: each vote that names it now says another user.
  // The finding names the first activity in the log whose votes name it.
  std::string digest, firstNaming;
  gw.gateway().database().read([&](Db& db) {
    auto votes = db.queryOne("SELECT votes FROM activities WHERE id = ?", {memos[2]});
    digest = json::parseArray(votes->str("votes"), "votes")
                 ->getObject(0)
                 ->getValue<std::string>("userDigest");
    // By its last leaf, as verify goes.
    firstNaming = db.queryOne(
                        "SELECT id FROM activities WHERE votes LIKE ? ORDER BY (SELECT MAX(idx) "
                        "FROM activity_log_leaves WHERE activity_id = activities.id) LIMIT 1",
                        {"%" + digest + "%"})
                      ->str("id");
  });
  expectNamed(verifyAfter(gw, saved,
                          [&](Db& db) {
                            db.exec(
                                "UPDATE vote_users SET user_json = user_json || ' ' WHERE digest "
                                "= ?",
                                {digest});
                          }),
              firstNaming, "names a voter (" + digest + ") whose stored copy was altered");
  expectNamed(
      verifyAfter(gw, saved,
                  [&](Db& db) { db.exec("DELETE FROM vote_users WHERE digest = ?", {digest}); }),
      firstNaming, "names a voter (" + digest + ") whose stored copy was removed");
  // The head rewritten: proofs and appends start from it.
  auto head = verifyAfter(gw, saved,
                          [&](Db& db) { db.exec("UPDATE activity_log_head SET size = size - 1"); });
  ASSERT_FALSE(head.ok());
  EXPECT_NE(head.findings.front().description.find("the log's head "), std::string::npos)
      << head.findings.front().description;
  // Leaves removed from the end.
  auto shorter = verifyAfter(gw, saved, [&](Db& db) {
    db.exec("DELETE FROM activity_log_leaves WHERE idx >= ?",
            {static_cast<int64_t>(saved.size) - 1});
  });
  ASSERT_FALSE(shorter.ok());
  EXPECT_NE(shorter.findings.front().description.find("fewer than the checkpoint's"),
            std::string::npos)
      << shorter.findings.front().description;
}

TEST_P(ActivityLogTest, ChangesMadeOutsideTheGatewayAreNotLoggedAsItsOwn) {
  TestGateway gw(GetParam());
  auto root = gw.rootClient();
  const std::string org = gw.root().organizationId;
  std::string target = memo(root, org, "target");
  auto saved = checkpointNow(gw);
  {
    auto db = openConnection(gw.gateway().config().database);
    db->exec("UPDATE activities SET status = 'ACTIVITY_STATUS_REJECTED' WHERE id = ?", {target});
  }
  memo(root, org, "a later batch");  // appends its own change, not the one above
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM activity_log_leaves WHERE activity_id = ?", {target}),
            1);
  auto report = verifyAfter(gw, saved, [](Db&) {});
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.findings.front().activityId, target);
  EXPECT_NE(report.findings.front().description.find("ACTIVITY_STATUS_REJECTED"), std::string::npos)
      << report.findings.front().description;
}

TEST_P(ActivityLogTest, AStoreFromBeforeTheLogIsAppendedWhenTheGatewayStarts) {
  TestGateway gw(GetParam());
  auto root = gw.rootClient();
  const std::string org = gw.root().organizationId;
  for (int i = 0; i < 5; ++i) memo(root, org, "old " + std::to_string(i));
  {
    // The store as version 0.10 left it: no log, migrations 21, 26 (its notes' leaves) and 27 not
    // applied.
    auto db = openConnection(gw.gateway().config().database);
    for (const char* table :
         {"activity_log_pending", "activity_log_leaves", "activity_log_nodes", "activity_log_head",
          "activity_log_checkpoints", "activity_log_witnesses"})
      db->exec(std::string("DROP TABLE ") + table + (db->isPostgres() ? " CASCADE" : ""));
    if (db->isPostgres()) {
      db->exec("DROP TRIGGER activity_log_note ON activities");
      db->exec("DROP FUNCTION signet_activity_changed()");
    }
    db->exec("ALTER TABLE activities DROP COLUMN log_index");
    db->exec("DELETE FROM signet_migrations WHERE module = 'core' AND version IN (21, 26, 27)");
    db->exec("DELETE FROM gateway_settings WHERE name IN ('log_public_key', 'log_origin')");
  }
  gw.restart();
  int64_t activities = gw.count("SELECT COUNT(*) FROM activities");
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM activity_log_leaves"), activities);
  // Oldest first.
  gw.gateway().database().read([&](Db& db) {
    auto logged = db.query("SELECT activity_id FROM activity_log_leaves ORDER BY idx");
    auto stored = db.query("SELECT id FROM activities ORDER BY created_at_ms, id");
    ASSERT_EQ(logged.size(), stored.size());
    for (size_t i = 0; i < logged.size(); ++i)
      EXPECT_EQ(logged[i].str("activity_id"), stored[i].str("id")) << i;
  });
  auto saved = checkpointNow(gw);
  EXPECT_EQ(static_cast<int64_t>(saved.size), activities);
  EXPECT_TRUE(verifyAfter(gw, saved, [](Db&) {}).ok());
}

TEST_P(ActivityLogTest, ALogOfTheFirstLayoutMovesToTheRowidKeysAndStillVerifies) {
  TestGateway gw(GetParam());
  auto root = gw.rootClient();
  const std::string org = gw.root().organizationId;
  for (int i = 0; i < 5; ++i) memo(root, org, "before " + std::to_string(i));
  auto saved = checkpointNow(gw);
  const int64_t leaves = gw.count("SELECT COUNT(*) FROM activity_log_leaves");
  const int64_t nodes = gw.count("SELECT COUNT(*) FROM activity_log_nodes");
  const bool sqlite = GetParam() == Backend::kSqlite;
  if (sqlite) {
    // The tables as migration 21 made them, keyed by BIGINT PRIMARY KEY, with their rows.
    auto db = openConnection(gw.gateway().config().database);
    for (const auto& [table, columns] : std::vector<std::pair<std::string, std::string>>{
             {"activity_log_leaves",
              "idx BIGINT PRIMARY KEY, activity_id TEXT NOT NULL, previous_idx BIGINT, leaf TEXT "
              "NOT NULL, appended_at_ms BIGINT NOT NULL"},
             {"activity_log_nodes", "idx BIGINT PRIMARY KEY, hash TEXT NOT NULL"}}) {
      db->exec("CREATE TABLE " + table + "_first (" + columns + ")");
      db->exec("INSERT INTO " + table + "_first SELECT * FROM " + table);
      db->exec("DROP TABLE " + table);
      db->exec("ALTER TABLE " + table + "_first RENAME TO " + table);
    }
    // A store from before migration 22 is from before 27, whose index went with the table.
    db->exec("DELETE FROM signet_migrations WHERE module = 'core' AND version IN (22, 27)");
  }
  gw.restart();
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM activity_log_leaves"), leaves);
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM activity_log_nodes"), nodes);
  if (sqlite) {
    for (const char* table : {"activity_log_leaves", "activity_log_nodes"})
      EXPECT_EQ(gw.count("SELECT COUNT(*) FROM sqlite_master WHERE name = ? AND sql LIKE "
                         "'%idx INTEGER PRIMARY KEY%'",
                         {std::string(table)}),
                1)
          << table;
    // Migration 27's index, on the table migration 22 rebuilt.
    EXPECT_EQ(leavesIndexedByActivity(gw), 1);
  }
  // The moved log still proves what it held, and grows from where it was.
  memo(gw.rootClient(), org, "after");
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM activity_log_leaves"), leaves + 1);
  EXPECT_TRUE(verifyAfter(gw, saved, [](Db&) {}).ok());
}

// A log of migration 26's layout found an activity's leaves through pointers (the activity's
// log_index to its last, each leaf's previous_idx to the one before), which its PostgreSQL
// trigger carried in the notes. Migration 27 indexes the leaves by activity instead: leaves
// appended before it are found by the index, beside those appended after, and nothing reads or
// writes the pointers any more.
TEST_P(ActivityLogTest, ALogOfThePointersLayoutIsIndexedByActivityAndProvesEveryLeaf) {
  TestGateway gw(GetParam());
  auto root = gw.rootClient();
  const std::string org = gw.root().organizationId;
  const bool sqlite = GetParam() == Backend::kSqlite;
  std::vector<std::string> memos;
  for (int i = 0; i < 3; ++i) memos.push_back(memo(root, org, "m" + std::to_string(i)));
  {
    // memos[1] noted again, as a migration notes: the next batch gives it a second leaf.
    auto db = openConnection(gw.gateway().config().database);
    db->exec("INSERT INTO activity_log_pending (activity_id) VALUES (?)", {memos[1]});
  }
  memos.push_back(memo(root, org, "m3"));
  {
    // The store as migration 26 left it: the pointers written as its append wrote them, its
    // trigger function, no index.
    auto db = openConnection(gw.gateway().config().database);
    db->exec(
        "UPDATE activities SET log_index = (SELECT MAX(idx) FROM activity_log_leaves WHERE "
        "activity_id = activities.id)");
    db->exec(
        "UPDATE activity_log_leaves SET previous_idx = (SELECT MAX(earlier.idx) FROM "
        "activity_log_leaves AS earlier WHERE earlier.activity_id = "
        "activity_log_leaves.activity_id "
        "AND earlier.idx < activity_log_leaves.idx)");
    db->exec("DROP INDEX activity_log_leaves_activity");
    if (!sqlite) {
      const std::string prefix = "postgresql: CREATE OR REPLACE FUNCTION";
      for (const auto& m : coreMigrations())
        for (const auto& statement : m.statements)
          if (m.version == 26 && statement.rfind(prefix, 0) == 0)
            db->exec(statement.substr(sizeof("postgresql: ") - 1));
    }
    db->exec("DELETE FROM signet_migrations WHERE module = 'core' AND version = 27");
    // memos[2] noted again: the start-up append gives it a second leaf, found by the index.
    db->exec("INSERT INTO activity_log_pending (activity_id) VALUES (?)", {memos[2]});
  }
  const char* const oldTrigger =
      "SELECT COUNT(*) FROM pg_proc WHERE proname = 'signet_activity_changed' AND prosrc LIKE "
      "'%log_index%'";
  if (!sqlite) {
    EXPECT_EQ(gw.count(oldTrigger), 1);
  }
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM activity_log_leaves WHERE previous_idx IS NOT NULL"), 1);
  gw.restart();
  auto client = gw.rootClient();  // the restarted gateway listens on another port
  EXPECT_EQ(leavesIndexedByActivity(gw), 1);
  if (!sqlite) {
    EXPECT_EQ(gw.count(oldTrigger), 0);
  }
  if (sqlite)
    gw.gateway().database().read([&](Db& db) {
      auto plan = db.query(
          "EXPLAIN QUERY PLAN SELECT idx, leaf FROM activity_log_leaves WHERE activity_id = ? "
          "AND idx < ? ORDER BY idx",
          {memos[1], int64_t{1000}});
      ASSERT_FALSE(plan.empty());
      EXPECT_NE(plan.front().str("detail").find("INDEX activity_log_leaves_activity"),
                std::string::npos)
          << plan.front().str("detail");
    });
  // A later activity, logged after the migration.
  memos.push_back(memo(client, org, "after"));
  auto checkpoint = checkpointNow(gw);
  for (const auto& id : memos) {
    auto proof = logQuery(client, org, "inclusion_proof", {{"activityId", id}});
    auto indexes = proof->getArray("leafIndexes");
    EXPECT_EQ(indexes->size(), id == memos[1] || id == memos[2] ? 2u : 1u) << id;
    for (size_t i = 0; i < indexes->size(); ++i) {
      auto leaf =
          logQuery(client, org, "inclusion_proof",
                   {{"activityId", id}, {"leafIndex", indexes->getElement<std::string>(i)}});
      const std::string text = leaf->getValue<std::string>("leaf");
      EXPECT_EQ(lineOf(text, "id"), id);
      EXPECT_TRUE(merkle::verifyInclusion(std::stoull(leaf->getValue<std::string>("leafIndex")),
                                          checkpoint.size, merkle::leafHash(text),
                                          hashesOf(leaf->getArray("proof")), checkpoint.root))
          << id << " leaf " << i;
    }
  }
  // The pointers are left as they were (memos[1]'s second leaf points at its first, memos[2] at
  // its first leaf), and nothing wrote new ones.
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM activity_log_leaves WHERE previous_idx IS NOT NULL"), 1);
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM activities WHERE id = ? AND log_index = (SELECT "
                     "MIN(idx) FROM activity_log_leaves WHERE activity_id = ?)",
                     {memos[2], memos[2]}),
            1);
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM activities WHERE id = ? AND log_index IS NULL",
                     {memos.back()}),
            1);
  EXPECT_TRUE(verifyAfter(gw, checkpoint, [](Db&) {}).ok());
}

TEST_P(ActivityLogTest, DeletionsLeaveTombstonesAndWhatIsRolledBackLeavesNothing) {
  TestGateway gw(GetParam());
  auto root = gw.rootClient();
  const std::string org = gw.root().organizationId;
  memo(root, org, "before");
  auto saved = checkpointNow(gw);

  // A write that fails takes its note with it: no leaf for what it inserted.
  const std::string ghost = crypto::uuidV4();
  EXPECT_THROW(gw.write([&](Db& db) {
    db.exec(
        "INSERT INTO activities (id, organization_id, type, status, fingerprint, intent, "
        "votes, created_at_ms, updated_at_ms) VALUES (?, ?, 'ACTIVITY_TYPE_X', "
        "'ACTIVITY_STATUS_COMPLETED', ?, '{}', '[]', 1, 1)",
        {ghost, org, "sha256:" + ghost});
    throw std::runtime_error("rolled back");
  }),
               std::runtime_error);
  memo(root, org, "after the rollback");
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM activity_log_leaves WHERE activity_id = ?", {ghost}), 0);
  EXPECT_EQ(notesLeft(gw), 0);

  // An organization deleted with its activities: each gets a tombstone, and the log verifies.
  // Named, not a structured binding: lambdas below capture it (clang 14 cannot).
  auto created = gw.createOrganization("Doomed");
  const std::string otherOrg = created.first.organizationId;
  std::string doomed = memo(gw.clientWith(created.second), otherOrg, "doomed");
  gw.write(
      [&](Db& db) { db.exec("DELETE FROM activities WHERE organization_id = ?", {otherOrg}); });
  auto leaves =
      gw.count("SELECT COUNT(*) FROM activity_log_leaves WHERE activity_id = ?", {doomed});
  EXPECT_EQ(leaves, 2);
  gw.gateway().database().read([&](Db& db) {
    auto last = db.queryOne(
        "SELECT leaf FROM activity_log_leaves WHERE activity_id = ? ORDER BY idx DESC LIMIT 1",
        {doomed});
    EXPECT_EQ(last->str("leaf"), activity_log::tombstoneOf(doomed));
    // Its proofs' leaves: none in a tree that holds its tombstone, its first in a tree that
    // ends before it.
    auto stored = db.query("SELECT idx FROM activity_log_leaves WHERE activity_id = ? ORDER BY idx",
                           {doomed});
    ASSERT_EQ(stored.size(), 2u);
    const auto tombstone = static_cast<uint64_t>(stored[1].i64("idx"));
    EXPECT_TRUE(activity_log::leavesOf(db, doomed, tombstone + 1).empty());
    auto before = activity_log::leavesOf(db, doomed, tombstone);
    ASSERT_EQ(before.size(), 1u);
    EXPECT_EQ(before[0].index, static_cast<uint64_t>(stored[0].i64("idx")));
  });
  auto report = verifyAfter(gw, saved, [](Db&) {});
  EXPECT_TRUE(report.ok()) << (report.ok() ? "" : report.findings.front().description);
  // Brought back behind the log's back, it is found.
  auto back = verifyAfter(gw, saved, [&](Db& db) {
    db.exec(
        "INSERT INTO activities (id, organization_id, type, status, fingerprint, intent, "
        "votes, created_at_ms, updated_at_ms) VALUES (?, ?, 'ACTIVITY_TYPE_X', "
        "'ACTIVITY_STATUS_COMPLETED', ?, '{}', '[]', 1, 1)",
        {doomed, otherOrg, "sha256:" + doomed});
  });
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.findings.front().description.find("logged it deleted"), std::string::npos);

  // An append that fails fails its batch: the activity is not stored either.
  {
    auto db = openConnection(gw.gateway().config().database);
    db->exec("UPDATE activity_log_head SET id = 2");
  }
  int64_t before = gw.count("SELECT COUNT(*) FROM activities");
  EXPECT_THROW(memo(root, org, "no head"), RequestError);
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM activities"), before);
  {
    auto db = openConnection(gw.gateway().config().database);
    db->exec("UPDATE activity_log_head SET id = 1");
  }
  memo(root, org, "head back");
  report = verifyAfter(gw, saved, [](Db&) {});
  EXPECT_TRUE(report.ok()) << (report.ok() ? "" : report.findings.front().description);
}

// The triggers note each change with the leaf the store makes of the row (leafSql), which the
// append takes as it is: it must be, byte for byte, what leafOf makes of the same row, which is
// what `signet log verify` recomputes. Rows with absent and empty fields, text beyond ASCII,
// large and negative numbers, an update and a deletion, on both stores (SQLite's SHA-256 is the
// store's sha256_hex). A note without a leaf (a migration's) after one with a leaf has the row
// read back, and one before it does not matter. On SQLite a migration's notes are in the store and
// the connection's own in its temporary schema, taken after them, so there every note without a
// leaf comes first and matters only when no note follows (`real`: a BIGINT column holding a REAL
// makes no leaf in the trigger, so that row is read back).
TEST_P(ActivityLogTest, TheStoreMakesTheLeavesLeafOfMakes) {
  TestGateway gw(GetParam());
  const std::string org = gw.root().organizationId;
  auto saved = checkpointNow(gw);
  const std::string bare = crypto::uuidV4(), full = crypto::uuidV4(), odd = crypto::uuidV4(),
                    real = crypto::uuidV4(), doomed = crypto::uuidV4();
  const bool sqlite = GetParam() == Backend::kSqlite;
  std::vector<Row> notes;
  std::map<std::string, std::string> expected;
  gw.write([&](Db& db) {
    const std::string insert =
        "INSERT INTO activities (id, organization_id, type, status, fingerprint, intent, result, "
        "votes, failure, created_at_ms, updated_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
    auto noteWithoutLeaf = [&](const std::string& id) {
      db.exec("INSERT INTO activity_log_pending (activity_id) VALUES (?)", {id});
    };
    db.exec(insert, {bare, org, "ACTIVITY_TYPE_X", "ACTIVITY_STATUS_PENDING", "sha256:" + bare,
                     "{}", nullptr, "[]", nullptr, int64_t{0}, int64_t{1}});
    noteWithoutLeaf(bare);  // then changed: the change's note is the last
    db.exec(insert,
            {full, org, "ACTIVITY_TYPE_Y", "ACTIVITY_STATUS_FAILED", "sha256:" + full,
             "{\"text\":\"h\u00e9llo \u2603 \U0001F600\"}", "{\"r\":1}", "[{\"v\":\"\u00fc\"}]",
             "{\"message\":\"no\"}", int64_t{9007199254740993}, int64_t{1764000000123}});
    noteWithoutLeaf(full);  // the last on PostgreSQL: read back
    db.exec(insert, {odd, org, "ACTIVITY_TYPE_\u00c9T\u00c9", "ACTIVITY_STATUS_\u2603",
                     "sha256:" + odd, "", "", "[]", "", int64_t{-5}, int64_t{-9007199254740993}});
    if (sqlite)
      db.exec(
          "INSERT INTO activities (id, organization_id, type, status, fingerprint, intent, "
          "votes, created_at_ms, updated_at_ms) VALUES (?, ?, 'ACTIVITY_TYPE_X', "
          "'ACTIVITY_STATUS_COMPLETED', ?, '{}', '[]', 1.5, 2)",
          {real, org, "sha256:" + real});
    db.exec(insert, {doomed, org, "ACTIVITY_TYPE_Z", "ACTIVITY_STATUS_COMPLETED",
                     "sha256:" + doomed, "{}", "{}", "[]", nullptr, int64_t{5}, int64_t{6}});
    db.exec(
        "UPDATE activities SET status = 'ACTIVITY_STATUS_COMPLETED', result = ?, "
        "updated_at_ms = ? WHERE id = ?",
        {"{\"signature\":\"00\"}", int64_t{2}, bare});
    db.exec("DELETE FROM activities WHERE id = ?", {doomed});
    // On SQLite a migration's notes are in the store and go before the connection's own.
    notes = db.query(
        sqlite ? "SELECT activity_id, leaf FROM (SELECT 0 AS part, seq, activity_id, leaf FROM "
                 "main.activity_log_pending UNION ALL SELECT 1, seq, activity_id, leaf FROM "
                 "temp.activity_log_noted) ORDER BY part, seq"
               : "SELECT activity_id, leaf FROM activity_log_pending ORDER BY seq");
    for (const auto& row : db.query(std::string("SELECT ") + activity_log::kLeafColumns +
                                        " FROM activities WHERE id IN (?, ?, ?, ?)",
                                    {bare, full, odd, real}))
      expected[row.str("id")] = activity_log::leafOf(row);
  });
  // What was noted, in order: the triggers' notes with their leaves, the migration's without.
  size_t at = 0;
  auto next = [&](const std::string& id) -> const Row& {
    EXPECT_EQ(notes.at(at).str("activity_id"), id) << at;
    return notes.at(at++);
  };
  ASSERT_EQ(notes.size(), sqlite ? 9u : 8u);
  if (sqlite) {
    EXPECT_TRUE(next(bare).isNull("leaf"));
    EXPECT_TRUE(next(full).isNull("leaf"));
  }
  EXPECT_EQ(lineOf(next(bare).str("leaf"), "status"), "ACTIVITY_STATUS_PENDING");  // its first
  if (!sqlite) {
    EXPECT_TRUE(next(bare).isNull("leaf"));
  }
  EXPECT_EQ(next(full).str("leaf"), expected.at(full));
  if (!sqlite) {
    EXPECT_TRUE(next(full).isNull("leaf"));
  }
  EXPECT_EQ(next(odd).str("leaf"), expected.at(odd));
  if (sqlite) {
    EXPECT_TRUE(next(real).isNull("leaf"));  // a REAL where an integer goes
  }
  EXPECT_EQ(lineOf(next(doomed).str("leaf"), "id"), doomed);
  EXPECT_EQ(next(bare).str("leaf"), expected.at(bare));
  EXPECT_EQ(next(doomed).str("leaf"), activity_log::tombstoneOf(doomed));
  EXPECT_EQ(lineOf(expected.at(odd), "failure"), "sha256:" + crypto::toHex(crypto::sha256("")));
  EXPECT_EQ(lineOf(expected.at(odd), "updated"), "-9007199254740993");
  EXPECT_EQ(lineOf(expected.at(bare), "failure"), "-");
  EXPECT_EQ(lineOf(expected.at(full), "created"), "9007199254740993");
  // The append took them: one leaf each, in the order of their first change, each the row's.
  std::vector<std::string> order = {bare, full, odd};
  if (sqlite) order.push_back(real);
  order.push_back(doomed);
  gw.gateway().database().read([&](Db& db) {
    auto rows = db.query(
        "SELECT activity_id, leaf FROM activity_log_leaves WHERE activity_id IN (?, ?, ?, ?, ?) "
        "ORDER BY idx",
        {bare, full, odd, real, doomed});
    ASSERT_EQ(rows.size(), order.size());
    for (size_t i = 0; i < order.size(); ++i) {
      EXPECT_EQ(rows[i].str("activity_id"), order[i]) << i;
      EXPECT_EQ(rows[i].str("leaf"),
                order[i] == doomed ? activity_log::tombstoneOf(doomed) : expected.at(order[i]))
          << i;
    }
  });
  auto report = verifyAfter(gw, saved, [](Db&) {});
  EXPECT_TRUE(report.ok()) << (report.ok() ? "" : report.findings.front().description);
}

// A completed activity of the root organization, inserted as a write that gives its leaf would
// insert it, and the leaf such a write would give, saying `status`.
struct CompletedRow {
  TestGateway& gw;
  std::string org = gw.root().organizationId;
  std::string type = "ACTIVITY_TYPE_X", done = "ACTIVITY_STATUS_COMPLETED", intent = "{\"p\":1}",
              votes = "[]";
  void insert(Db& db, const std::string& id) const {
    db.exec(
        "INSERT INTO activities (id, organization_id, type, status, fingerprint, intent, votes, "
        "created_at_ms, updated_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, 1, 2)",
        {id, org, type, done, "sha256:" + id, intent, votes});
  }
  std::string leafSaying(const std::string& id, const std::string& status) const {
    const std::string fingerprint = "sha256:" + id;
    return activity_log::leafOf(
        {id, org, type, status, fingerprint, &intent, nullptr, &votes, nullptr, 1, 2});
  }
};

// What `signet log verify` says now against `saved`: nothing on PostgreSQL, where nothing given
// is taken; on SQLite the findings, the first of which `expect` checks.
void expectVerifyFinds(TestGateway& gw, const log_checkpoint::Checkpoint& saved,
                       const std::function<void(const log_verify::Finding&)>& expect) {
  auto report = verifyAfter(gw, saved, [](Db&) {});
  if (gw.gateway().database().backend() != Backend::kSqlite) {
    EXPECT_TRUE(report.ok()) << (report.ok() ? "" : report.findings.front().description);
    return;
  }
  ASSERT_FALSE(report.ok());
  expect(report.findings.front());
}

// On SQLite a write may give its new row's leaf and the leaf's hash, made where its texts were
// (a signature's on the request's thread), and the trigger takes them instead of making them on
// the committing thread (activity_log::givenLeaf). What the log appends is then what the write
// said its row is, for that row alone, and `signet log verify` checks it against the row: a
// wrong one is named. PostgreSQL's trigger, in the server, makes its own whatever is given.
TEST_P(ActivityLogTest, AGivenLeafIsAppendedAsGivenAndVerifyNamesAWrongOne) {
  TestGateway gw(GetParam());
  auto saved = checkpointNow(gw);
  const bool sqlite = GetParam() == Backend::kSqlite;
  const CompletedRow completed{gw};
  const std::string right = crypto::uuidV4(), wrong = crypto::uuidV4(), other = crypto::uuidV4();
  const std::string rightLeaf = completed.leafSaying(right, completed.done);
  const std::string wrongLeaf = completed.leafSaying(wrong, "ACTIVITY_STATUS_FAILED");
  gw.write([&](Db& db) {
    const auto givenRight = activity_log::givenLeaf(right, rightLeaf);
    {
      GivenTexts given(givenRight);
      completed.insert(db, right);
      completed.insert(db, other);  // given nothing: its trigger makes its own
    }
    const auto givenWrong = activity_log::givenLeaf(wrong, wrongLeaf);
    GivenTexts given(givenWrong);
    completed.insert(db, wrong);
  });
  std::map<std::string, std::string> appended, rows;
  gw.gateway().database().read([&](Db& db) {
    for (const auto& row : db.query(
             "SELECT activity_id, leaf FROM activity_log_leaves WHERE activity_id IN (?, ?, ?)",
             {right, wrong, other}))
      appended[row.str("activity_id")] = row.str("leaf");
    for (const auto& row : db.query(std::string("SELECT ") + activity_log::kLeafColumns +
                                        " FROM activities WHERE id IN (?, ?, ?)",
                                    {right, wrong, other}))
      rows[row.str("id")] = activity_log::leafOf(row);
  });
  ASSERT_EQ(appended.size(), 3u);
  EXPECT_EQ(appended.at(right), rightLeaf);
  EXPECT_EQ(rows.at(right), rightLeaf);
  EXPECT_EQ(appended.at(other), rows.at(other));
  EXPECT_EQ(appended.at(wrong), sqlite ? wrongLeaf : rows.at(wrong));
  expectVerifyFinds(gw, saved, [&](const log_verify::Finding& first) {
    EXPECT_EQ(first.activityId, wrong) << first.description;
  });
}

// The leaf's hash comes with it, and the append takes it as the tree's without hashing the leaf
// again: a wrong one makes a head the leaves do not make, which `signet log verify` finds. On
// PostgreSQL nothing given is taken.
TEST_P(ActivityLogTest, AGivenLeafHashIsTheTreesAndVerifyFindsAWrongOne) {
  TestGateway gw(GetParam());
  auto saved = checkpointNow(gw);
  const bool sqlite = GetParam() == Backend::kSqlite;
  const CompletedRow completed{gw};
  const std::string id = crypto::uuidV4();
  const std::string leaf = completed.leafSaying(id, completed.done);
  auto given = activity_log::givenLeaf(id, leaf);
  const std::string wrongHash = merkle::toHex(merkle::leafHash("another leaf"));
  size_t hashes = 0;
  for (auto& [name, text] : given)
    if (name.rfind("activity log leaf hash of ", 0) == 0) {
      EXPECT_EQ(text, merkle::toHex(merkle::leafHash(leaf)));
      text = wrongHash;
      ++hashes;
    }
  ASSERT_EQ(hashes, 1u);
  gw.write([&](Db& db) {
    GivenTexts scope(given);
    completed.insert(db, id);
  });
  gw.gateway().database().read([&](Db& db) {
    auto appended =
        db.queryOne("SELECT idx, leaf FROM activity_log_leaves WHERE activity_id = ?", {id});
    ASSERT_TRUE(appended);
    EXPECT_EQ(appended->str("leaf"), leaf);
    auto node = db.queryOne("SELECT hash FROM activity_log_nodes WHERE idx = ?",
                            {static_cast<int64_t>(merkle::storedIndex(
                                {0, static_cast<uint64_t>(appended->i64("idx"))}))});
    ASSERT_TRUE(node);
    EXPECT_EQ(node->str("hash"), sqlite ? wrongHash : merkle::toHex(merkle::leafHash(leaf)));
  });
  expectVerifyFinds(gw, saved, [](const log_verify::Finding& first) {
    EXPECT_NE(first.description.find("the log's head"), std::string::npos) << first.description;
  });
}

// On SQLite a write connection's notes are in its temporary schema, in memory: a batch of many
// (an organization deleted with its activities) gives their pages back when it commits.
TEST(ActivityLogSqliteTest, ALargeBatchsNotesGiveTheirMemoryBackAtItsCommit) {
  TestGateway gw(Backend::kSqlite);
  const std::string org = gw.root().organizationId;
  auto tempPages = [&] {
    int64_t pages = 0;
    gw.write([&](Db& db) { pages = db.queryOne("PRAGMA temp.page_count")->i64("page_count"); });
    return pages;
  };
  const int64_t before = tempPages();
  int64_t during = 0;
  gw.write([&](Db& db) {
    for (int i = 0; i < 3000; ++i) {
      const std::string id = crypto::uuidV4();
      db.exec(
          "INSERT INTO activities (id, organization_id, type, status, fingerprint, intent, votes, "
          "created_at_ms, updated_at_ms) VALUES (?, ?, 'ACTIVITY_TYPE_X', "
          "'ACTIVITY_STATUS_COMPLETED', ?, '{}', '[]', 1, 1)",
          {id, org, "sha256:" + id});
    }
    during = db.queryOne("PRAGMA temp.page_count")->i64("page_count");
  });
  EXPECT_GT(during, before + 200);  // 3,000 notes of about 450 bytes
  EXPECT_LE(tempPages(), before);
  EXPECT_EQ(notesLeft(gw), 0);
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM activity_log_leaves WHERE activity_id IN (SELECT id "
                     "FROM activities WHERE type = 'ACTIVITY_TYPE_X')"),
            3000);
}

// Version 1 of the leaf's format, as an auditor's tools read it and as core migration 26 froze
// it into PostgreSQL's trigger: the text and its digests were written out by hand (the digests
// with Python's hashlib), not by our code, and the tombstone's beside it. A change to leafOf,
// leafSql, tombstoneOf or tombstoneSql fails here, and is a new format that needs a migration
// of its own (docs/activity-log.md).
TEST_P(ActivityLogTest, TheLeafFormatIsVersionOneAsFrozen) {
  TestGateway gw(GetParam());
  const std::string org = gw.root().organizationId;
  const std::string id = "a0000000-0000-4000-8000-000000000001";
  const std::string frozen =
      "signet activity v1\n"
      "id a0000000-0000-4000-8000-000000000001\n"
      "organization " +
      org +
      "\n"
      "type ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2\n"
      "status ACTIVITY_STATUS_COMPLETED\n"
      "fingerprint sha256:00\n"
      "intent sha256:015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862\n"
      "result sha256:86028b41ba792eaf82aa26a45b218f6734f7f1096a86f1746c8296e088a0ccb4\n"
      "votes sha256:4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945\n"
      "failure -\n"
      "created 1764000000000\n"
      "updated 1764000000001\n";
  std::string noted, read, tombstone;
  gw.write([&](Db& db) {
    db.exec(
        "INSERT INTO activities (id, organization_id, type, status, fingerprint, intent, result, "
        "votes, failure, created_at_ms, updated_at_ms) VALUES (?, ?, "
        "'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2', 'ACTIVITY_STATUS_COMPLETED', 'sha256:00', ?, ?, "
        "'[]', NULL, ?, ?)",
        {id, org, "{\"a\":1}", "{\"s\":\"\u00e9\"}", int64_t{1764000000000},
         int64_t{1764000000001}});
    noted = db.queryOne("SELECT leaf FROM " + ownNotes(db) + " WHERE activity_id = ?", {id})
                ->str("leaf");
    read = activity_log::leafOf(*db.queryOne(
        std::string("SELECT ") + activity_log::kLeafColumns + " FROM activities WHERE id = ?",
        {id}));
    db.exec("DELETE FROM activities WHERE id = ?", {id});
    tombstone = db.queryOne("SELECT leaf FROM " + ownNotes(db) +
                                " WHERE activity_id = ? ORDER BY seq DESC LIMIT 1",
                            {id})
                    ->str("leaf");
  });
  EXPECT_EQ(noted, frozen);  // the store's (leafSql)
  EXPECT_EQ(read, frozen);   // what `signet log verify` recomputes (leafOf)
  const std::string deleted =
      "signet activity v1\nid a0000000-0000-4000-8000-000000000001\nstatus DELETED\n";
  EXPECT_EQ(tombstone, deleted);  // the store's (tombstoneSql)
  EXPECT_EQ(activity_log::tombstoneOf(id), deleted);
}

// Noted activities are read a slice of 100 at a time (SQLite's parameter limit, and memory, when a
// migration notes a whole store). Notes past a slice, some naming an activity noted before,
// append each activity once, at its first note, with its state now; the others are tombstones.
TEST_P(ActivityLogTest, NotesPastASliceAppendEachActivityOnceAtItsFirstNote) {
  TestGateway gw(GetParam());
  auto root = gw.rootClient();
  const std::string org = gw.root().organizationId;
  std::vector<std::string> memos;
  for (int i = 0; i < 3; ++i) memos.push_back(memo(root, org, "m" + std::to_string(i)));
  auto saved = checkpointNow(gw);
  const int64_t before = gw.count("SELECT COUNT(*) FROM activity_log_leaves");
  // 250 notes: memos[1] at 99 and again at 100 (across the first slice's end), memos[0] at 0 and
  // again at 150, memos[2] last; the rest name activities that are gone.
  std::vector<std::string> noted, expected;
  for (int k = 0; k < 250; ++k) {
    std::string id = k == 0 || k == 150    ? memos[0]
                     : k == 99 || k == 100 ? memos[1]
                     : k == 249            ? memos[2]
                                           : "gone-" + std::to_string(k);
    noted.push_back(id);
    if (std::find(expected.begin(), expected.end(), id) == expected.end()) expected.push_back(id);
  }
  {
    auto db = openConnection(gw.gateway().config().database);  // no hooks: the notes are ours
    db->begin();
    for (const auto& id : noted)
      db->exec("INSERT INTO activity_log_pending (activity_id) VALUES (?)", {id});
    db->commit();
  }
  gw.write([](Db&) {});  // a batch: its append takes every note
  EXPECT_EQ(notesLeft(gw), 0);
  gw.gateway().database().read([&](Db& db) {
    auto leaves = db.query(
        "SELECT activity_id, leaf FROM activity_log_leaves WHERE idx >= ? ORDER "
        "BY idx",
        {before});
    ASSERT_EQ(leaves.size(), expected.size());
    for (size_t i = 0; i < leaves.size(); ++i) {
      const std::string& id = expected[i];
      EXPECT_EQ(leaves[i].str("activity_id"), id) << i;
      const bool gone = id.rfind("gone-", 0) == 0;
      EXPECT_EQ(lineOf(leaves[i].str("leaf"), "status") == "DELETED", gone) << i;
    }
  });
  auto report = verifyAfter(gw, saved, [](Db&) {});
  EXPECT_TRUE(report.ok()) << (report.ok() ? "" : report.findings.front().description);
}

// On PostgreSQL a batch's append is one round trip (the head locked with the session's noting
// checked, and the notes, with their leaves, taken under the lock, in one pipeline), and its
// writes go with the COMMIT; in a batch whose writes have steps, that round trip is the steps'.
// A note made without its leaf (a migration's) costs one more, the activity's read.
TEST(ActivityLogPostgresTest, ABatchsAppendIsOneRoundTripAndItsWritesGoWithTheCommit) {
  SIGNET_NEED_POSTGRES();
  TestGateway gw(Backend::kPostgres);
  const std::string org = gw.root().organizationId;
  const std::string id = memo(gw.rootClient(), org, "noted again");
  auto db = openConnection(gw.gateway().config().database);
  activity_log::writerSetup(*db);
  int64_t updated = 0;
  auto append = [&](bool byMigration) {
    db->begin();
    if (byMigration)
      db->exec("INSERT INTO activity_log_pending (activity_id) VALUES (?)", {id});
    else  // noted by the trigger
      db->exec("UPDATE activities SET updated_at_ms = ? WHERE id = ?", {++updated, id});
    const size_t before = db->roundTrips();
    activity_log::appendPending(*db, 1);
    db->commit();
    return db->roundTrips() - before;
  };
  // Prepares the statements: a leaf adds as many subtree hashes as its index has trailing ones,
  // and each count is a statement of its own. After 64 leaves, the next (at an index under 127)
  // adds no more than one of them did.
  for (int i = 0; i < 64; ++i) append(i % 2 == 0);
  ASSERT_LT(gw.count("SELECT size FROM activity_log_head"), 127);
  EXPECT_EQ(append(false), 2u);
  EXPECT_EQ(append(true), 3u);
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM activity_log_leaves WHERE activity_id = ?", {id}), 67);
  // In a batch, the append's start goes with the round trip the writes' steps make (a step
  // reading what a write sent ahead), and the append itself then makes none: the batch is that
  // round trip and the COMMIT's. (Run twice: the first prepares the step's statement.)
  auto batch = [&] {
    db->begin();
    db->exec("UPDATE activities SET updated_at_ms = ? WHERE id = ?", {++updated, id});
    const size_t before = db->roundTrips();
    auto written = db->queryAhead("SELECT COUNT(*) AS n FROM activities WHERE id = ?", {id});
    auto finish = activity_log::startAppend(*db, 1);
    EXPECT_EQ(written->rows().at(0).i64("n"), 1);  // the step
    const size_t step = db->roundTrips() - before;
    finish(*db);
    const size_t appended = db->roundTrips() - before;
    db->commit();
    return std::vector<size_t>{step, appended, db->roundTrips() - before};
  };
  batch();
  EXPECT_EQ(batch(), (std::vector<size_t>{1, 1, 2}));
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM activity_log_leaves WHERE activity_id = ?", {id}), 69);
  // Nothing noted: one round trip, and the head is not locked.
  db->begin();
  size_t before = db->roundTrips();
  activity_log::appendPending(*db, 1);
  EXPECT_EQ(db->roundTrips() - before, 1u);
  auto other = openConnection(gw.gateway().config().database);
  EXPECT_NO_THROW(
      other->queryOne("SELECT size FROM activity_log_head WHERE id = 1 FOR UPDATE NOWAIT"));
  db->commit();
}

// On PostgreSQL the append's start takes the batch's notes before the writes' steps run: a step
// that changed an activity anyway would leave a note for the next batch, a state this one never
// committed. The batch fails instead, whole, at its COMMIT.
TEST(ActivityLogPostgresTest, AStepThatChangesAnActivityFailsItsBatch) {
  SIGNET_NEED_POSTGRES();
  TestGateway gw(Backend::kPostgres);
  const std::string org = gw.root().organizationId;
  const std::string id = memo(gw.rootClient(), org, "changed by a step");
  const int64_t leaves = gw.count("SELECT COUNT(*) FROM activity_log_leaves");
  EXPECT_ANY_THROW(gw.write([&](Db& db) {
    db.exec("UPDATE activities SET updated_at_ms = 7 WHERE id = ?", {id});
    Database::afterWrites(
        [&](Db& db) { db.exec("UPDATE activities SET updated_at_ms = 8 WHERE id = ?", {id}); });
  }));
  EXPECT_EQ(
      gw.count("SELECT COUNT(*) FROM activities WHERE id = ? AND updated_at_ms IN (7, 8)", {id}),
      0);
  EXPECT_EQ(notesLeft(gw), 0);
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM activity_log_leaves"), leaves);
  // A write that changes it, without such a step, commits and is logged.
  gw.write([&](Db& db) {
    db.exec("UPDATE activities SET updated_at_ms = 9 WHERE id = ?", {id});
    Database::afterWrites([](Db& db) { db.queryOne("SELECT 1 AS one"); });
  });
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM activity_log_leaves"), leaves + 1);
}

// Runs statements on `db`, but commits a note from `other` just before the notes' DELETE: notes
// that appear between the check that found none and the DELETE, as a migration run beside the
// gateway could commit them.
class NoteCommittedBeforeTheDelete : public Db {
 public:
  NoteCommittedBeforeTheDelete(Db& db, Db& other, std::string activityId)
      : db_(db), other_(other), activityId_(std::move(activityId)) {}
  size_t exec(const std::string& sql, const SqlParams& params) override {
    return db_.exec(sql, params);
  }
  std::vector<Row> query(const std::string& sql, const SqlParams& params) override {
    if (sql.starts_with("DELETE FROM activity_log_pending"))
      other_.exec("INSERT INTO activity_log_pending (activity_id) VALUES (?)", {activityId_});
    return db_.query(sql, params);
  }
  bool isPostgres() const override { return db_.isPostgres(); }

 private:
  Db& db_;
  Db& other_;
  std::string activityId_;
};

// On PostgreSQL the notes are taken in the lock's pipeline, after a check that found none took
// no lock: notes committed in between are not appended without the lock. The batch fails as a
// deadlock would (StoreUnavailable: 503, retry), the note stays, and the next batch appends it
// once.
TEST(ActivityLogPostgresTest, NotesThatAppearAfterTheCheckAreNotAppendedWithoutTheLock) {
  SIGNET_NEED_POSTGRES();
  TestGateway gw(Backend::kPostgres);
  const std::string org = gw.root().organizationId;
  const std::string id = memo(gw.rootClient(), org, "noted late");
  const std::string leaves = "SELECT COUNT(*) FROM activity_log_leaves WHERE activity_id = ?";
  const int64_t before = gw.count(leaves, {id});
  ASSERT_EQ(notesLeft(gw), 0);
  auto db = openConnection(gw.gateway().config().database);
  auto other = openConnection(gw.gateway().config().database);
  activity_log::writerSetup(*db);
  db->begin();
  NoteCommittedBeforeTheDelete racing(*db, *other, id);
  EXPECT_THROW(activity_log::appendPending(racing, 1), StoreUnavailable);
  db->rollback();
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM activity_log_pending WHERE activity_id = ?", {id}), 1);
  EXPECT_EQ(gw.count(leaves, {id}), before);
  db->begin();
  activity_log::appendPending(*db, 1);
  db->commit();
  EXPECT_EQ(gw.count(leaves, {id}), before + 1);
  EXPECT_EQ(notesLeft(gw), 0);
}

// Two gateways on one PostgreSQL, writing at once: one log, every activity in it once, no gap.
TEST(ActivityLogPostgresTest, TwoGatewaysWritingAtOnceKeepOneLog) {
  SIGNET_NEED_POSTGRES();
  TestGateway gw(Backend::kPostgres);
  const std::string org = gw.root().organizationId;
  auto saved = checkpointNow(gw);
  Gateway second(gw.gateway().config());
  HttpServer secondServer(second, "127.0.0.1:0");
  secondServer.start();
  std::vector<std::thread> writers;
  // A refused write fails the test rather than ending the test binary from its thread.
  std::atomic<int> refused{0};
  std::mutex firstRefusalMutex;
  std::string firstRefusal;
  for (int t = 0; t < 4; ++t)
    writers.emplace_back([&, t] {
      Client client(
          t % 2 ? "http://127.0.0.1:" + std::to_string(secondServer.port()) : gw.baseUrl(),
          gw.rootStamper());
      for (int i = 0; i < 20; ++i) {
        try {
          memo(client, org, "w" + std::to_string(t) + "-" + std::to_string(i));
        } catch (const std::exception& e) {
          std::lock_guard<std::mutex> lock(firstRefusalMutex);
          if (refused++ == 0) firstRefusal = e.what();
        }
      }
    });
  for (auto& w : writers) w.join();
  secondServer.stop();
  EXPECT_EQ(refused.load(), 0) << firstRefusal;
  int64_t activities = gw.count("SELECT COUNT(*) FROM activities");
  EXPECT_EQ(gw.count("SELECT COUNT(*) FROM activity_log_leaves"), activities);
  EXPECT_EQ(gw.count("SELECT COUNT(DISTINCT activity_id) FROM activity_log_leaves"), activities);
  EXPECT_EQ(gw.count("SELECT MAX(idx) FROM activity_log_leaves"), activities - 1);
  EXPECT_EQ(gw.count("SELECT size FROM activity_log_head"), activities);
  auto report = verifyAfter(gw, saved, [](Db&) {});
  EXPECT_TRUE(report.ok()) << (report.ok() ? "" : report.findings.front().description);
}

// At start-up a gateway appends what a migration noted (every activity, as migration 21 notes a
// store from before the log). The append reads those activities and writes only the log's
// tables: a session holding one of them does not hold the start-up. (Before core migration 27
// the append rewrote each activity's pointer to its leaf, and waited for such a session.)
TEST(ActivityLogPostgresTest, AStartUpAppendDoesNotWaitForAnActivityAnotherSessionHolds) {
  SIGNET_NEED_POSTGRES();
  TestGateway gw(Backend::kPostgres);
  const std::string org = gw.root().organizationId;
  std::vector<std::string> memos;
  for (int i = 0; i < 3; ++i) memos.push_back(memo(gw.rootClient(), org, "m" + std::to_string(i)));
  auto saved = checkpointNow(gw);
  const auto config = gw.gateway().config();
  auto other = openConnection(config.database);
  other->begin();
  other->query("SELECT id FROM activities WHERE id = ? FOR UPDATE", {memos[1]});
  openConnection(config.database)
      ->exec(
          "INSERT INTO activity_log_pending (activity_id) SELECT id FROM activities ORDER BY "
          "created_at_ms, id");

  std::promise<std::string> outcome;
  std::thread starting([&] {
    try {
      Gateway second(config);
      outcome.set_value("");
    } catch (const std::exception& e) {
      outcome.set_value(e.what());
    } catch (...) {
      outcome.set_value("an exception that is not a std::exception");
    }
  });
  auto started = outcome.get_future();
  const bool inTime = started.wait_for(std::chrono::seconds(30)) == std::future_status::ready;
  other->commit();  // whatever happened, so that the thread ends
  starting.join();
  EXPECT_TRUE(inTime) << "the start-up append waited for the activity another session held";
  EXPECT_EQ(started.get(), "");
  // Each activity noted again has a second leaf, and the log still verifies.
  int64_t activities = gw.count("SELECT COUNT(*) FROM activities");
  EXPECT_EQ(notesLeft(gw), 0);
  EXPECT_GE(gw.count("SELECT COUNT(*) FROM activity_log_leaves"), 2 * activities);
  auto report = verifyAfter(gw, saved, [](Db&) {});
  EXPECT_TRUE(report.ok()) << (report.ok() ? "" : report.findings.front().description);
}

// The start-up append's retries (Gateway::startActivityLog): a note another session commits
// while the append checks for notes fails the first attempt (StoreUnavailable, the check found
// none and took no lock), and the next one appends it. The other session holds the notes' table
// in a mode that lets the check read it but makes the append's DELETE wait, and commits its note
// once the DELETE waits: so the DELETE sees a note the check did not.
TEST(ActivityLogPostgresTest, AStartUpAppendThatFindsANoteCommittedWhileItCheckedTriesAgain) {
  SIGNET_NEED_POSTGRES();
  TestGateway gw(Backend::kPostgres);
  const std::string id = memo(gw.rootClient(), gw.root().organizationId, "noted at start-up");
  auto saved = checkpointNow(gw);
  const std::string leaves = "SELECT COUNT(*) FROM activity_log_leaves WHERE activity_id = ?";
  const int64_t before = gw.count(leaves, {id});
  const auto config = gw.gateway().config();

  // What the store's logger writes: the start-up's retries say so there.
  LogCapture storeLog("signet.store");

  // Locked once the gateway is stopped (whose last batches would wait too) and before the new
  // one starts: the only session that waits is the start-up's. `locked` is kept also when the
  // restart fails before, so that this thread never waits for nothing.
  auto other = openConnection(config.database);
  other->begin();
  std::promise<void> locked;
  std::atomic<bool> lockedKept{false};
  auto keepLocked = [&] {
    if (!lockedKept.exchange(true)) locked.set_value();
  };
  std::promise<std::string> outcome;
  std::thread starting([&] {
    try {
      gw.restart([&](Config&) {
        other->exec("LOCK TABLE activity_log_pending IN SHARE ROW EXCLUSIVE MODE");
        other->exec("INSERT INTO activity_log_pending (activity_id) VALUES (?)", {id});
        keepLocked();
      });
      outcome.set_value("");
    } catch (const std::exception& e) {
      outcome.set_value(e.what());
    } catch (...) {
      outcome.set_value("an exception that is not a std::exception");
    }
    keepLocked();
  });
  // Whatever throws from here on, the other session is closed unless it committed (its
  // transaction ends with it, so that the start-up goes on), and the thread is joined.
  bool committed = false;
  struct AtExit {
    std::function<void()> run;
    ~AtExit() { run(); }
  } atExit{[&] {
    if (!committed) other.reset();
    if (starting.joinable()) starting.join();
  }};
  locked.get_future().wait();
  // The whole start-up comes before its append's DELETE (the catalog, the plugins, the keys):
  // under the sanitizers that can take a while.
  const bool waited = sessionsWaitForLocks(config.database, 1, std::chrono::seconds(60));
  other->commit();
  committed = true;
  starting.join();
  auto started = outcome.get_future();
  EXPECT_TRUE(waited) << "the start-up append did not wait for the notes' table";
  EXPECT_EQ(started.get(), "");
  std::vector<std::string> lines;
  for (const auto& line : storeLog.lines())
    if (line.find("trying again") != std::string::npos) lines.push_back(line);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("noted while this batch checked the activity log"), std::string::npos)
      << lines[0];
  // The note is appended once, by the second attempt, and the log verifies.
  EXPECT_EQ(notesLeft(gw), 0);
  EXPECT_EQ(gw.count(leaves, {id}), before + 1);
  auto report = verifyAfter(gw, saved, [](Db&) {});
  EXPECT_TRUE(report.ok()) << (report.ok() ? "" : report.findings.front().description);
}

// The operator's and the auditor's commands, on a copy of a SQLite store.
TEST(ActivityLogCliTest, AnAuditorsCheckpointCatchesAnAlterationInACopyOfTheStore) {
  namespace fs = std::filesystem;
  auto dir = (fs::temp_directory_path() / ("signet-log-" + crypto::uuidV4())).string();
  ASSERT_EQ(runSignet({"init", "--data-dir", dir, "--plugins", "memo"}).exitCode, 0);
  const auto org = createOrganizationWithCli(dir, "audited");
  const std::string& orgId = org.organizationId;
  auto stamper = ApiKeyStamper::fromHex(org.apiPrivateKey);
  std::vector<std::string> memos;
  {
    ServeProcess serve(dir);
    Client client(serve.baseUrl(), stamper);
    for (int i = 0; i < 3; ++i) memos.push_back(memo(client, orgId, "m" + std::to_string(i)));
    auto cp = runSignet({"log", "checkpoint", "--data-dir", dir, "--out", dir + "/auditor.note"});
    ASSERT_EQ(cp.exitCode, 0) << cp.err;
    memos.push_back(memo(client, orgId, "after"));
    EXPECT_EQ(serve.stop(), 0);
  }
  auto key = runSignet({"log", "key", "--data-dir", dir});
  ASSERT_EQ(key.exitCode, 0) << key.err;
  std::string vkey = key.out.substr(0, key.out.find('\n'));
  auto prove = runSignet({"log", "prove", memos[1], "--data-dir", dir});
  ASSERT_EQ(prove.exitCode, 0) << prove.err;
  EXPECT_EQ(lineOf(json::parseObject(prove.out, "prove")->getValue<std::string>("leaf"), "id"),
            memos[1]);

  auto ok = runSignet(
      {"log", "verify", "--from", dir + "/auditor.note", "--data-dir", dir, "--key", vkey});
  EXPECT_EQ(ok.exitCode, 0) << ok.out << ok.err;
  EXPECT_EQ(ok.out.rfind("OK the log grew from ", 0), 0u) << ok.out;

  // A copy, altered with SQLite's own tools: the verifier names the activity.
  std::string copy = dir + "-copy";
  fs::copy(dir, copy, fs::copy_options::recursive);
  {
    auto db = openSqlite(copy + "/signet.db");
    db->exec("UPDATE activities SET status = 'ACTIVITY_STATUS_FAILED' WHERE id = ?", {memos[1]});
  }
  auto bad = runSignet(
      {"log", "verify", "--from", dir + "/auditor.note", "--data-dir", copy, "--key", vkey});
  EXPECT_EQ(bad.exitCode, 1) << bad.out << bad.err;
  EXPECT_NE(bad.out.find("activity " + memos[1]), std::string::npos) << bad.out;
  // A checkpoint that is not the log's is refused as such.
  std::string forged = dir + "/forged.note";
  {
    std::ifstream in(dir + "/auditor.note");
    std::string note((std::istreambuf_iterator<char>(in)), {});
    note[note.find('\n') + 1] = note[note.find('\n') + 1] == '9' ? '8' : '9';
    std::ofstream(forged) << note;
  }
  auto refused = runSignet({"log", "verify", "--from", forged, "--data-dir", dir});
  EXPECT_EQ(refused.exitCode, 1);
  EXPECT_NE(refused.out.find("does not verify"), std::string::npos) << refused.out;
  fs::remove_all(dir);
  fs::remove_all(copy);
}

}  // namespace
}  // namespace signet::test
