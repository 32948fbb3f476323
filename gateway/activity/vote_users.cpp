#include "activity/vote_users.hpp"

#include <algorithm>
#include <map>

#include "signet/crypto.hpp"
#include "signet/error.hpp"
#include "store/sql_connection.hpp"
#include "store/sql_text.hpp"

namespace signet::vote_users {

namespace {
const char* const kUser = "user";
const char* const kDigest = "userDigest";

// The digests `votes` name, in their order.
std::vector<std::string> digestsOf(const json::Array& votes) {
  std::vector<std::string> out;
  for (size_t i = 0; votes && i < votes->size(); ++i) {
    auto vote = votes->getObject(static_cast<unsigned>(i));
    if (vote && vote->has(kDigest)) out.push_back(vote->getValue<std::string>(kDigest));
  }
  return out;
}
}  // namespace

StoredVotes storedVotes(const json::Array& votes) {
  StoredVotes out;
  json::Array stored = json::array();
  for (size_t i = 0; votes && i < votes->size(); ++i) {
    auto vote = votes->getObject(static_cast<unsigned>(i));
    auto user = vote ? vote->getObject(kUser) : nullptr;
    if (!user) {  // an operator's vote has no user
      stored->add(vote);
      continue;
    }
    std::string text = json::stringify(user);
    std::string digest = crypto::toHex(crypto::sha256(text));
    json::Object copy = new Poco::JSON::Object(*vote);  // the record in hand keeps its user
    copy->remove(kUser);
    copy->set(kDigest, digest);
    stored->add(copy);
    out.users.emplace(std::move(digest), std::move(text));
  }
  out.text = json::stringify(stored);
  return out;
}

void writeUsers(Db& db, const std::string& organizationId, const std::string& activityId,
                const StoredVotes& votes) {
  // Only a copy the store does not hold yet is written, and the statement neither conflicts
  // nor waits: on PostgreSQL the table has no unique key, so two batches writing the same new
  // copy at once store it twice (harmless, attach takes either) instead of one waiting on the
  // other, or two deadlocking. Nothing but the store's own trouble can refuse it, so its answer
  // need not be waited for (execUnanswered, docs/durability.md).
  for (const auto& [digest, text] : votes.users)
    execUnanswered(db,
                   "INSERT INTO vote_users (organization_id, digest, user_json) SELECT ?, ?, ? "
                   "WHERE NOT EXISTS (SELECT 1 FROM vote_users WHERE organization_id = ? AND "
                   "digest = ?) AND EXISTS (SELECT 1 FROM activities WHERE id = ?)",
                   {organizationId, digest, text, organizationId, digest, activityId});
}

std::vector<std::string> digestsIn(const std::string& storedVotesText) {
  if (storedVotesText.find(kDigest) == std::string::npos) return {};  // most hold none
  return digestsOf(json::parseArray(storedVotesText, "stored votes"));
}

bool copyMatches(const std::string& digest, const std::string& userJson) {
  return crypto::toHex(crypto::sha256(userJson)) == digest;
}

std::vector<size_t> attach(Db& db, const std::string& organizationId,
                           const std::vector<json::Array>& votes) {
  std::vector<size_t> added(votes.size(), 0);
  std::vector<std::string> digests;
  for (const auto& list : votes) {
    auto named = digestsOf(list);
    digests.insert(digests.end(), named.begin(), named.end());
  }
  if (digests.empty()) return added;
  std::sort(digests.begin(), digests.end());
  digests.erase(std::unique(digests.begin(), digests.end()), digests.end());
  SqlParams params{organizationId};
  params.insert(params.end(), digests.begin(), digests.end());
  struct Copy {
    json::Object user;
    size_t characters;
  };
  std::map<std::string, Copy> users;
  for (const auto& row : db.query("SELECT digest, user_json FROM vote_users WHERE organization_id "
                                  "= ? AND digest IN (" +
                                      placeholders(digests.size()) + ")",
                                  params)) {
    const std::string& text = row.str("user_json");
    if (!copyMatches(row.str("digest"), text))
      throw internalError("the stored user of a vote in organization " + organizationId +
                          " does not match its digest " + row.str("digest") +
                          ": the store was altered");
    users.emplace(row.str("digest"),
                  Copy{json::parseObject(text, "stored vote user"), text.size()});
  }
  for (size_t l = 0; l < votes.size(); ++l)
    for (size_t i = 0; votes[l] && i < votes[l]->size(); ++i) {
      auto vote = votes[l]->getObject(static_cast<unsigned>(i));
      if (!vote || !vote->has(kDigest)) continue;
      auto found = users.find(vote->getValue<std::string>(kDigest));
      if (found == users.end())
        throw internalError("the stored user of vote " + vote->optValue<std::string>("id", "") +
                            " in organization " + organizationId + " is missing");
      vote->remove(kDigest);
      vote->set(kUser, found->second.user);
      added[l] += found->second.characters;
    }
  return added;
}

}  // namespace signet::vote_users
