#include "policy/engine.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <unordered_map>

#include "activity/handler_context.hpp"
#include "mfa/mfa_check.hpp"
#include "policy/evaluator.hpp"
#include "policy/policy_store.hpp"
#include "policy/session_scope.hpp"
#include "tenancy/directory.hpp"

namespace signet::policy {

namespace {

std::string snakeCase(const std::string& camel) {
  std::string out;
  for (char c : camel) {
    if (std::isupper(static_cast<unsigned char>(c))) {
      out += '_';
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      out += c;
    }
  }
  return out;
}

Value paramsValue(const Poco::Dynamic::Var& v) {
  if (v.type() == typeid(json::Object)) {
    Fields f;
    for (const auto& [k, child] : *v.extract<json::Object>()) f[snakeCase(k)] = paramsValue(child);
    return Value::structOf(std::move(f));
  }
  if (v.type() == typeid(json::Array)) {
    List items;
    auto a = v.extract<json::Array>();
    for (size_t i = 0; i < a->size(); ++i)
      items.push_back(paramsValue(a->get(static_cast<unsigned>(i))));
    return Value::listOf(std::move(items));
  }
  return fromJson(v);
}

// ACTIVITY_TYPE_SIGN_TRANSACTION_V2 -> SIGN_TRANSACTION
std::string kindOf(const std::string& type) {
  std::string kind = type.rfind("ACTIVITY_TYPE_", 0) == 0 ? type.substr(14) : type;
  auto v = kind.rfind("_V");
  if (v != std::string::npos && v + 2 < kind.size() &&
      std::all_of(kind.begin() + static_cast<long>(v) + 2, kind.end(),
                  [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    kind.resize(v);
  return kind;
}

std::string policyLabel(const PolicyRecord& p) {
  return "'" + p.name + "' (" + p.id + ")";
}

json::Array outcomesJson(const std::vector<std::pair<std::string_view, const char*>>& outcomes) {
  json::Array list = json::array();
  for (const auto& [policyId, value] : outcomes) {
    json::Object o = json::object();
    o->set("policyId", std::string(policyId));
    o->set("outcome", std::string(value));
    list->add(o);
  }
  return list;
}

std::vector<std::string> approverIds(const json::Array& votes) {
  std::vector<std::string> ids;
  for (size_t i = 0; i < votes->size(); ++i) {
    auto v = votes->getObject(static_cast<unsigned>(i));
    if (v->getValue<std::string>("selection") != "VOTE_SELECTION_APPROVED") continue;
    std::string id = v->getValue<std::string>("userId");
    if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
  }
  return ids;
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : "; ") + i;
  return out;
}

}  // namespace

Fields conditionFacts(Gateway& gateway, Db& db, const AuthorizationRequest& request) {
  const ActivitySpec& spec = *request.spec;
  Fields facts;
  facts["activity"] = Value::structOf({{"type", Value::string(spec.type)},
                                       {"kind", Value::string(kindOf(spec.type))},
                                       {"resource", Value::string(spec.resource)},
                                       {"action", Value::string(spec.action)},
                                       {"params", paramsValue(request.parameters)}});
  const auto& providers = gateway.catalog().services().factProviders;
  if (!providers.empty() || spec.facts) {
    Caller nobody;
    HandlerContext ctx(gateway, db, nobody, request.organizationId, {}, {}, request.cache);
    auto merge = [&](const json::Object& extra) {
      if (extra)
        for (const auto& [k, v] : *extra) facts[k] = fromJson(v);
    };
    for (const auto& [module, provider] : providers)
      merge(provider(ctx, spec.type, request.parameters));
    if (spec.facts) merge(spec.facts(ctx, request.parameters));  // the activity's own
  }
  return facts;
}

Fields consensusFacts(Db& db, const json::Array& votes) {
  List approvers, credentials;
  for (const auto& userId : approverIds(votes)) {
    auto user = directory::findUserById(db, userId);
    if (!user) continue;
    List tags;
    for (const auto& t : directory::tagIdsOfUser(db, userId)) tags.push_back(Value::string(t));
    approvers.push_back(Value::structOf({{"id", Value::string(userId)},
                                         {"alias", Value::string(user->name)},
                                         {"email", Value::string(user->email.value_or(""))},
                                         {"tags", Value::listOf(std::move(tags))}}));
  }
  for (size_t i = 0; i < votes->size(); ++i) {
    auto v = votes->getObject(static_cast<unsigned>(i));
    if (v->getValue<std::string>("selection") != "VOTE_SELECTION_APPROVED") continue;
    std::string userId = v->getValue<std::string>("userId");
    std::string publicKey = v->getValue<std::string>("publicKey");
    Fields c{{"user_id", Value::string(userId)}, {"public_key", Value::string(publicKey)}};
    if (v->getValue<std::string>("scheme") == "SIGNATURE_SCHEME_TK_WEBAUTHN") {
      auto a = directory::findAuthenticatorOfUser(db, userId, publicKey);
      c["id"] = Value::string(a ? a->id : "");
      c["credential_id"] = Value::string(a ? a->credentialId : "");
      c["type"] = Value::string("CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR");
    } else {
      auto k = directory::findApiKeyOfUser(db, userId, publicKey);
      c["id"] = Value::string(k ? k->id : "");
      c["type"] = Value::string(k ? k->credentialType : "");
    }
    credentials.push_back(Value::structOf(std::move(c)));
  }
  return {{"approvers", Value::listOf(std::move(approvers))},
          {"credentials", Value::listOf(std::move(credentials))}};
}

// Policies of a set often repeat a whole clause (the same consensus on many policies):
// such a clause (CompiledPolicy::conditionRepeats and its siblings) is evaluated once per activity,
// its value or its error reused. Pieces that several distinct clauses share are remembered by the
// Memo (shape.hpp).
class ClauseResults {
 public:
  explicit ClauseResults(const Fields& facts) : facts_(facts) {}

  bool evaluate(const Node& clause, bool repeated) {
    if (!repeated) return evaluateCondition(clause, facts_, &memo_);
    Result& r = repeated_[&clause];
    if (!r.done) {
      r.done = true;
      try {
        r.value = evaluateCondition(clause, facts_, &memo_);
      } catch (const std::exception& e) {
        r.error = e.what();
      }
    }
    if (r.error) throw std::runtime_error(*r.error);
    return r.value;
  }

 private:
  struct Result {
    bool done = false, value = false;
    std::optional<std::string> error;
  };
  const Fields& facts_;
  Memo memo_;
  std::unordered_map<const Node*, Result> repeated_;
};

PolicyVerdicts evaluatePolicies(const PolicySet& policies, const Fields& condition,
                                const Fields& consensus, const Fields& time) {
  PolicyVerdicts v;
  ClauseResults conditionResults(condition), consensusResults(consensus), timeResults(time);
  auto holds = [](ClauseResults& results, const std::string& text, const NodePtr& clause,
                  bool repeated) {
    if (text.empty()) return true;  // an absent clause always holds
    // A stored clause that does not parse (written past the API, or under another grammar):
    // re-parsing raises its SyntaxError, which the per-policy handling records as an error.
    if (!clause) return results.evaluate(*parse(text), false);
    return results.evaluate(*clause, repeated);
  };
  for (size_t i = 0; i < policies.size(); ++i) {
    const PolicyRecord& p = policies[i].record;
    bool deny = p.effect == "EFFECT_DENY";
    try {
      // Every clause of every policy is evaluated; nothing short-circuits.
      const CompiledPolicy& c = policies[i];
      bool applies = holds(conditionResults, p.condition, c.condition, c.conditionRepeats);
      bool agreed = holds(consensusResults, p.consensus, c.consensus, c.consensusRepeats);
      bool active = holds(timeResults, p.time, c.time, c.timeRepeats);
      if (!active) {  // outside its time: neither allows nor denies
        v.outcomes.emplace_back(p.id, "OUTCOME_TIME_INACTIVE");
        continue;
      }
      if (!applies) continue;  // not applicable: no outcome to record
      if (deny && agreed) {
        v.denials.push_back("denied by policy " + policyLabel(p));
        v.outcomes.emplace_back(p.id, "OUTCOME_DENY_EXPLICIT");
      } else if (!deny && agreed) {
        v.allows.push_back(p.id);
        v.outcomes.emplace_back(p.id, "OUTCOME_ALLOW");
      } else if (!deny) {
        v.pending.push_back(p.id);
        v.outcomes.emplace_back(p.id, "OUTCOME_REQUIRES_CONSENSUS");
      }
    } catch (const std::exception& e) {
      // Fail closed: an erroring DENY denies; an erroring ALLOW allows nothing.
      std::string why = "policy " + policyLabel(p) + " errored " + e.what();
      if (deny)
        v.denials.push_back(why);
      else
        v.errors.push_back(why);
      v.outcomes.emplace_back(p.id, "OUTCOME_ERROR");
    }
  }
  return v;
}

Decision PolicyEngine::decide(Db& db, const AuthorizationRequest& request) {
  DirectoryView uncached(nullptr, db);
  DirectoryView& directory = request.directory ? *request.directory : uncached;
  std::optional<Fields> facts;
  auto factsOf = [&]() -> const Fields& {
    if (!facts) facts = conditionFacts(gateway_, db, request);
    return *facts;
  };
  static const std::vector<mfa::Presentation> kNone;
  auto presentationsOf = [&]() -> const std::vector<mfa::Presentation>& {
    return request.presentations ? *request.presentations : kNone;
  };
  auto voters = mfa::checkVoters(directory, approverIds(request.votes), presentationsOf, factsOf);
  json::Array statuses = json::array();
  std::vector<std::string> pending;
  for (const auto& v : voters) {
    if (v.enforced) statuses->add(mfa::statusJson(v));
    if (!v.satisfied) pending.push_back(v.userId);
  }
  const std::string submitter =
      request.votes->size() > 0 ? request.votes->getObject(0)->getValue<std::string>("userId") : "";
  auto isPending = [&](const std::string& userId) {
    return std::find(pending.begin(), pending.end(), userId) != pending.end();
  };
  // A session acts only within its profile's scope: a refused submission is denied, a refused
  // approval does not count.
  AuthorizationRequest counted = request;
  counted.votes = json::array();
  for (size_t i = 0; i < request.votes->size(); ++i) {
    auto v = request.votes->getObject(static_cast<unsigned>(i));
    std::string userId = v->getValue<std::string>("userId");
    auto refusal = sessionScopeRefusal(gateway_, directory, v, factsOf);
    if (refusal && i == 0) {
      Decision d;
      d.kind = Decision::Kind::kDeny;
      d.reason = "user " + userId + " submitted with a " + *refusal;
      d.evaluations = json::array();
      d.mfaStatuses = statuses;
      return d;
    }
    if (!refusal && (userId == submitter || !isPending(userId))) counted.votes->add(v);
  }
  Decision d = decidePolicies(directory, counted, factsOf);
  d.mfaStatuses = statuses;
  if (d.kind == Decision::Kind::kDeny || pending.empty()) return d;
  if (isPending(submitter)) {
    d.kind = Decision::Kind::kAuthenticatorsNeeded;
    d.reason = "user " + submitter + " must present the factors their MFA policy requires";
  } else if (d.kind == Decision::Kind::kConsensusNeeded) {
    d.kind = Decision::Kind::kAuthenticatorsNeeded;
    d.reason = "approvals wait for the MFA factors of user " + pending.front();
  }
  return d;
}

Decision PolicyEngine::decidePolicies(DirectoryView& directory, const AuthorizationRequest& request,
                                      const std::function<const Fields&()>& facts) {
  Db& db = directory.db();
  const ActivitySpec& spec = *request.spec;
  auto found = directory.organization(request.organizationId);
  if (!found) throw notFound("organization " + request.organizationId + " not found");
  const OrganizationRecord& org = *found;
  auto quorum = directory.rootQuorum(org.id);
  auto approvers = approverIds(request.votes);
  size_t rootApprovals = static_cast<size_t>(
      std::count_if(approvers.begin(), approvers.end(), [&](const std::string& id) {
        return std::find(quorum.begin(), quorum.end(), id) != quorum.end();
      }));
  Decision d;
  d.evaluations = json::array();
  std::string tally = std::to_string(rootApprovals) + " of " +
                      std::to_string(org.rootQuorumThreshold) + " root quorum approvals";
  if (rootApprovals >= static_cast<size_t>(org.rootQuorumThreshold)) {
    d.kind = Decision::Kind::kAllow;
    d.reason = "root quorum";
    return d;
  }
  if (spec.rootQuorumOnly) {
    d.kind = rootApprovals > 0 ? Decision::Kind::kConsensusNeeded : Decision::Kind::kDeny;
    d.reason = rootApprovals > 0 ? tally
                                 : "only the root quorum of organization " + org.id + " can run " +
                                       spec.type + "; policies cannot grant it";
    return d;
  }
  // One trusted time.now per evaluation: the gateway's clock.
  PolicyVerdicts v =
      evaluatePolicies(*policySets_.policiesOf(db, org.id), facts(),
                       consensusFacts(db, request.votes), timeFacts(gateway_.nowMs()));
  d.evaluations = outcomesJson(v.outcomes);
  if (!v.denials.empty()) {
    d.kind = Decision::Kind::kDeny;
    d.reason = join(v.denials);
  } else if (!v.allows.empty()) {
    d.kind = Decision::Kind::kAllow;
    d.reason = "allowed by policy " + std::string(v.allows.front());
  } else if (!v.pending.empty() || rootApprovals > 0) {
    d.kind = Decision::Kind::kConsensusNeeded;
    d.reason = !v.pending.empty()
                   ? "policy " + std::string(v.pending.front()) + " needs more approvals"
                   : tally;
  } else {
    d.kind = Decision::Kind::kDeny;
    std::string submitter = approvers.empty() ? "nobody" : approvers.front();
    d.reason = "implicit deny: no policy of organization " + org.id + " allows " + spec.type +
               " for user " + submitter + (v.errors.empty() ? "" : " (" + join(v.errors) + ")");
  }
  return d;
}

}  // namespace signet::policy
