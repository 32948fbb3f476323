#include "log/log_queries.hpp"

#include "activity/activity_store.hpp"
#include "log/activity_log.hpp"
#include "log/checkpoint.hpp"

namespace signet::log_queries {

namespace {

json::Array hexList(const std::vector<merkle::Hash>& hashes) {
  json::Array out = json::array();
  for (const auto& h : hashes) out->add(merkle::toHex(h));
  return out;
}

// A tree size the caller names: at most the log's, and at least `low`. The log's when absent.
uint64_t sizeField(const json::Object& body, const char* field, uint64_t treeSize, uint64_t low) {
  auto given = json::optionalInt64String(body, field, "");
  if (!given) return treeSize;
  if (*given < static_cast<int64_t>(low) || static_cast<uint64_t>(*given) > treeSize)
    throw invalidArgument("invalid field " + std::string(field) + ": " + std::to_string(*given) +
                          " is not a tree size from " + std::to_string(low) + " to the log's " +
                          std::to_string(treeSize));
  return static_cast<uint64_t>(*given);
}

// The log's root at `size` and its signed checkpoint for it, which a proof is checked against:
// the note kept for that size when there is one, since it carries the witnesses'
// cosignatures, else a fresh signature. A root the log had at an earlier size is as much the
// log's statement as its latest.
struct SignedRoot {
  merkle::Hash root;
  std::string note;
};
SignedRoot signedAt(Db& db, Keyring& keyring, const log_checkpoint::Identity& id, uint64_t size,
                    const activity_log::Head& head) {
  merkle::Hash root = size == head.size ? head.root : activity_log::rootAt(db, size);
  if (auto kept = db.queryOne("SELECT note FROM activity_log_checkpoints WHERE size = ?",
                              {static_cast<int64_t>(size)}))
    return {root, kept->str("note")};
  return {root, log_checkpoint::sign({id.origin, size, root}, id, keyring)};
}

}  // namespace

json::Object getCheckpoint(RequestContext& ctx, const json::Object&) {
  auto head = activity_log::head(ctx.db());
  auto id = log_checkpoint::identity(ctx.db());
  auto signedHead = signedAt(ctx.db(), ctx.keyring(), id, head.size, head);
  json::Object out = json::object();
  out->set("checkpoint", signedHead.note);
  out->set("treeSize", std::to_string(head.size));
  out->set("rootHash", merkle::toHex(head.root));
  out->set("verifierKey", id.verifierKey());
  out->set("timestampMs", std::to_string(ctx.nowMs()));
  return out;
}

json::Object getInclusionProof(RequestContext& ctx, const json::Object& body) {
  std::string activityId = json::requireString(body, "activityId", "");
  if (!activities::exists(ctx.db(), ctx.organizationId(), activityId))
    throw notFound("activity " + activityId + " (activityId) not found in organization " +
                   ctx.organizationId());
  return inclusionProof(ctx.db(), ctx.keyring(), activityId, body);
}

json::Object inclusionProof(Db& db, Keyring& keyring, const std::string& activityId,
                            const json::Object& body) {
  auto head = activity_log::head(db);
  uint64_t size = sizeField(body, "treeSize", head.size, 1);
  auto leaves = activity_log::leavesOf(db, activityId, size);
  if (leaves.empty())
    throw notFound("activity " + activityId + " has no leaf in the log's first " +
                   std::to_string(size) + " (it is logged when its batch commits)");
  // The latest state by default; an earlier one by its index.
  const activity_log::Leaf* leaf = &leaves.back();
  if (auto index = json::optionalInt64String(body, "leafIndex", "")) {
    leaf = nullptr;
    for (const auto& l : leaves)
      if (static_cast<int64_t>(l.index) == *index) leaf = &l;
    if (!leaf)
      throw invalidArgument("invalid field leafIndex: " + std::to_string(*index) +
                            " is not a leaf of activity " + activityId);
  }
  json::Object out = json::object();
  out->set("activityId", activityId);
  out->set("leafIndex", std::to_string(leaf->index));
  out->set("leaf", leaf->text);
  out->set("leafHash", merkle::toHex(merkle::leafHash(leaf->text)));
  json::Array indexes = json::array();
  for (const auto& l : leaves) indexes->add(std::to_string(l.index));
  out->set("leafIndexes", indexes);
  auto signedRoot = signedAt(db, keyring, log_checkpoint::identity(db), size, head);
  out->set("treeSize", std::to_string(size));
  out->set("rootHash", merkle::toHex(signedRoot.root));
  out->set("proof", hexList(activity_log::inclusionProof(db, leaf->index, size)));
  out->set("checkpoint", signedRoot.note);
  return out;
}

json::Object getConsistencyProof(RequestContext& ctx, const json::Object& body) {
  auto head = activity_log::head(ctx.db());
  if (!body->has("firstSize"))
    throw invalidArgument("invalid field firstSize: required (the smaller tree size)");
  uint64_t first = sizeField(body, "firstSize", head.size, 0);
  uint64_t second = sizeField(body, "secondSize", head.size, first);
  json::Object out = json::object();
  out->set("firstSize", std::to_string(first));
  out->set("secondSize", std::to_string(second));
  out->set("firstRootHash", merkle::toHex(activity_log::rootAt(ctx.db(), first)));
  auto signedSecond =
      signedAt(ctx.db(), ctx.keyring(), log_checkpoint::identity(ctx.db()), second, head);
  out->set("secondRootHash", merkle::toHex(signedSecond.root));
  out->set("proof", hexList(activity_log::consistencyProof(ctx.db(), first, second)));
  out->set("checkpoint", signedSecond.note);
  return out;
}

}  // namespace signet::log_queries
