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
}  // namespace

std::string storedVotes(Db& db, const std::string& organizationId, const json::Array& votes) {
  json::Array stored = json::array();
  std::map<std::string, std::string> users;  // digest -> JSON, each written once
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
    users.emplace(std::move(digest), std::move(text));
  }
  // Keyed by content, so a user already held is left as it is, and nothing but the store's own
  // trouble refuses the write: its answer need not be waited for (execUnanswered).
  for (const auto& [digest, text] : users)
    execUnanswered(db,
                   "INSERT INTO vote_users (organization_id, digest, user_json) VALUES (?, ?, ?) "
                   "ON CONFLICT (organization_id, digest) DO NOTHING",
                   {organizationId, digest, text});
  return json::stringify(stored);
}

void attach(Db& db, const std::string& organizationId, const std::vector<json::Array>& votes) {
  std::vector<std::string> digests;
  for (const auto& list : votes)
    for (size_t i = 0; list && i < list->size(); ++i) {
      auto vote = list->getObject(static_cast<unsigned>(i));
      if (vote && vote->has(kDigest)) digests.push_back(vote->getValue<std::string>(kDigest));
    }
  if (digests.empty()) return;
  std::sort(digests.begin(), digests.end());
  digests.erase(std::unique(digests.begin(), digests.end()), digests.end());
  SqlParams params{organizationId};
  params.insert(params.end(), digests.begin(), digests.end());
  std::map<std::string, json::Object> users;
  for (const auto& row : db.query("SELECT digest, user_json FROM vote_users WHERE organization_id "
                                  "= ? AND digest IN (" +
                                      placeholders(digests.size()) + ")",
                                  params)) {
    const std::string& text = row.str("user_json");
    if (crypto::toHex(crypto::sha256(text)) != row.str("digest"))
      throw internalError("the stored user of a vote in organization " + organizationId +
                          " does not match its digest " + row.str("digest") +
                          ": the store was altered");
    users.emplace(row.str("digest"), json::parseObject(text, "stored vote user"));
  }
  for (const auto& list : votes)
    for (size_t i = 0; list && i < list->size(); ++i) {
      auto vote = list->getObject(static_cast<unsigned>(i));
      if (!vote || !vote->has(kDigest)) continue;
      auto found = users.find(vote->getValue<std::string>(kDigest));
      if (found == users.end())
        throw internalError("the stored user of vote " + vote->optValue<std::string>("id", "") +
                            " in organization " + organizationId + " is missing");
      vote->remove(kDigest);
      vote->set(kUser, found->second);
    }
}

}  // namespace signet::vote_users
