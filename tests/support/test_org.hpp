// An organization set up through the API for policy tests: users holding P-256 keys, tags,
// policies, and activities submitted or voted on as a given user.
#pragma once

#include <map>

#include "support/test_gateway.hpp"

namespace signet::test {

const std::string kCompleted = "ACTIVITY_STATUS_COMPLETED";
const std::string kFailed = "ACTIVITY_STATUS_FAILED";
const std::string kConsensus = "ACTIVITY_STATUS_CONSENSUS_NEEDED";

inline std::string status(const json::Object& a) {
  return a->getValue<std::string>("status");
}

// What a refused submission says: bad input is answered with an error and nothing stored;
// a request that fails later is stored FAILED with its failure.
template <typename Submit>
std::string refusalOf(Submit submit) {
  try {
    auto a = submit();
    EXPECT_EQ(status(a), kFailed) << json::stringify(a);
    return failureOf(a);
  } catch (const RequestError& e) {
    return e.what();
  }
}

// create_users of one new user (no credentials), submitted by `client` in `org`.
inline json::Object createUsersWith(Client& client, const std::string& org,
                                    const std::string& type = "ACTIVITY_TYPE_CREATE_USERS_V4") {
  json::Object u = json::object();
  u->set("userName", "new user " + crypto::uuidV4().substr(0, 8));
  u->set("apiKeys", json::array());
  u->set("authenticators", json::array());
  u->set("oauthProviders", json::array());
  u->set("userTags", json::array());
  json::Array users = json::array();
  users->add(u);
  json::Object p = json::object();
  p->set("users", users);
  return client.submit("create_users", type, org, p);
}

// create_user_tag of a new, empty tag, submitted by `client` in `org`.
inline json::Object createUserTagWith(Client& client, const std::string& org) {
  json::Object p = json::object();
  p->set("userTagName", "tag " + crypto::uuidV4().substr(0, 8));
  p->set("userIds", json::array());
  return client.submit("create_user_tag", "ACTIVITY_TYPE_CREATE_USER_TAG", org, p);
}

// An organization with users (each holding a P-256 key) and tags, set up through the API by
// the root user (who alone is the root quorum).
class Org {
 public:
  explicit Org(TestGateway& gw) : gw_(gw), root_(gw.rootClient()) {
    stampers_[gw.root().userId] = gw.rootStamper();  // as(rootId) acts as the root user
  }

  std::string tag(const std::string& name) {
    json::Object p = json::object();
    p->set("userTagName", name);
    p->set("userIds", json::array());
    auto a = root_.submit("create_user_tag", "ACTIVITY_TYPE_CREATE_USER_TAG", org(), p);
    EXPECT_EQ(status(a), kCompleted) << json::stringify(a);
    return a->getObject("result")
        ->getObject("createUserTagResult")
        ->getValue<std::string>("userTagId");
  }

  // Returns the user's id; their client is user(id).
  std::string user(const std::string& name, const std::vector<std::string>& tags = {}) {
    auto priv = crypto::generatePrivateKey(crypto::Curve::kP256);
    auto pub = toHex(crypto::publicKeyFromPrivate(crypto::Curve::kP256, priv));
    json::Object key = json::object();
    key->set("apiKeyName", name);
    key->set("publicKey", pub);
    key->set("curveType", "API_KEY_CURVE_P256");
    json::Object u = json::object();
    u->set("userName", name);
    json::Array keys = json::array();
    keys->add(key);
    u->set("apiKeys", keys);
    u->set("authenticators", json::array());
    u->set("oauthProviders", json::array());
    u->set("userTags", json::stringArray(tags));
    json::Array users = json::array();
    users->add(u);
    json::Object p = json::object();
    p->set("users", users);
    auto a = root_.submit("create_users", "ACTIVITY_TYPE_CREATE_USERS_V4", org(), p);
    EXPECT_EQ(status(a), kCompleted) << json::stringify(a);
    std::string id = a->getObject("result")
                         ->getObject("createUsersResult")
                         ->getArray("userIds")
                         ->getElement<std::string>(0);
    stampers_[id] = std::make_shared<ApiKeyStamper>(std::move(priv), stamp::Scheme::kP256);
    return id;
  }

  Client as(const std::string& userId) { return gw_.clientWith(stampers_.at(userId)); }
  // The user's key, for a client of another gateway.
  std::shared_ptr<ApiKeyStamper> stamper(const std::string& userId) const {
    return stampers_.at(userId);
  }
  Client& root() { return root_; }
  const std::string& org() const { return gw_.root().organizationId; }

  std::string policy(const std::string& name, const std::string& effect,
                     const std::string& condition, const std::string& consensus = "") {
    json::Object p = json::object();
    p->set("policyName", name);
    p->set("effect", effect);
    p->set("condition", condition);
    if (!consensus.empty()) p->set("consensus", consensus);
    p->set("notes", "");
    auto a = root_.submit("create_policy", "ACTIVITY_TYPE_CREATE_POLICY_V3", org(), p);
    EXPECT_EQ(status(a), kCompleted) << json::stringify(a);
    return a->getObject("result")
        ->getObject("createPolicyResult")
        ->getValue<std::string>("policyId");
  }

  // An activity of each kind the cases use, submitted by `userId`.
  json::Object createUsers(const std::string& userId,
                           const std::string& type = "ACTIVITY_TYPE_CREATE_USERS_V4") {
    Client client = as(userId);
    return createUsersWith(client, org(), type);
  }
  json::Object deleteUsers(const std::string& userId, const std::vector<std::string>& ids) {
    json::Object p = json::object();
    p->set("userIds", json::stringArray(ids));
    return as(userId).submit("delete_users", "ACTIVITY_TYPE_DELETE_USERS", org(), p);
  }
  json::Object createPolicyAs(const std::string& userId, const std::string& name) {
    json::Object p = json::object();
    p->set("policyName", name);
    p->set("effect", "EFFECT_ALLOW");
    p->set("condition", "activity.action == 'VERIFY'");
    p->set("notes", "");
    return as(userId).submit("create_policy", "ACTIVITY_TYPE_CREATE_POLICY_V3", org(), p);
  }
  json::Object vote(const std::string& userId, const json::Object& activity, bool approve = true) {
    json::Object p = json::object();
    p->set("fingerprint", activity->getValue<std::string>("fingerprint"));
    return approve
               ? as(userId).submit("approve_activity", "ACTIVITY_TYPE_APPROVE_ACTIVITY", org(), p)
               : as(userId).submit("reject_activity", "ACTIVITY_TYPE_REJECT_ACTIVITY", org(), p);
  }

 private:
  TestGateway& gw_;
  Client root_;
  std::map<std::string, std::shared_ptr<ApiKeyStamper>> stampers_;
};

}  // namespace signet::test
