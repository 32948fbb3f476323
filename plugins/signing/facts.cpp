#include "facts.hpp"

#include "keys/key_material.hpp"
#include "keys/private_key_tags.hpp"
#include "sign_transaction.hpp"

namespace signing {

using namespace signet;
using json::Array;
using json::Object;

namespace {
Object walletFact(RequestContext& ctx, const std::string& walletId) {
  auto row = ctx.db().queryOne(
      "SELECT name, exported, imported FROM signing_wallets WHERE organization_id = ? AND id = ?",
      {ctx.organizationId(), walletId});
  if (!row) return nullptr;
  Object w = json::object();
  w->set("id", walletId);
  w->set("label", row->str("name"));
  w->set("exported", row->i64("exported") != 0);
  w->set("imported", row->i64("imported") != 0);
  return w;
}

Object privateKeyFact(RequestContext& ctx, const std::string& keyId) {
  auto row = ctx.db().queryOne(
      "SELECT name, exported, imported FROM signing_private_keys WHERE organization_id = ? AND "
      "id = ?",
      {ctx.organizationId(), keyId});
  if (!row) return nullptr;
  Object k = json::object();
  k->set("id", keyId);
  k->set("label", row->str("name"));
  k->set("exported", row->i64("exported") != 0);
  k->set("imported", row->i64("imported") != 0);
  k->set("tags", json::stringArray(privateKeyTags().tagsOf(ctx.db(), keyId)));
  return k;
}

Object accountFact(const std::string& address) {
  Object a = json::object();
  a->set("address", address);
  return a;
}

// A JSON number or decimal/hex string as {"$uint": decimal}; anything else as it is.
Poco::Dynamic::Var integerValue(const Poco::Dynamic::Var& v) {
  if (v.isInteger() && v.convert<int64_t>() >= 0) return uintFact(v.convert<std::string>());
  if (v.isString()) {
    std::string s = v.convert<std::string>();
    if (!s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
          return std::isdigit(static_cast<unsigned char>(c));
        }))
      return uintFact(s);
  }
  return v;
}

// The typed-data message as maps (so m['k'] reads it), integers typed by `types`.
Poco::Dynamic::Var typedValue(const Object& types, const std::string& type,
                              const Poco::Dynamic::Var& v) {
  if (type.size() > 2 && type.back() == ']') {
    std::string inner = type.substr(0, type.rfind('['));
    json::Array out = json::array();
    try {
      auto list = v.extract<Poco::JSON::Array::Ptr>();
      for (size_t i = 0; i < list->size(); ++i)
        out->add(typedValue(types, inner, list->get(static_cast<unsigned>(i))));
    } catch (...) {
      return v;
    }
    return out;
  }
  if (types->has(type)) {
    Object fields = json::object();
    try {
      auto o = v.extract<Poco::JSON::Object::Ptr>();
      auto defs = types->getArray(type);
      for (size_t i = 0; i < defs->size(); ++i) {
        auto def = defs->getObject(static_cast<unsigned>(i));
        std::string name = def->optValue<std::string>("name", "");
        if (o->has(name))
          fields->set(name,
                      typedValue(types, def->optValue<std::string>("type", ""), o->get(name)));
      }
    } catch (...) {
      return v;
    }
    return mapFact(fields);
  }
  if (type.rfind("uint", 0) == 0) return integerValue(v);
  return v;
}

Object eip712Fact(const std::string& payload) {
  auto typed = json::parseObject(payload, "parameters.payload");
  auto types = typed->getObject("types");
  auto domain = typed->getObject("domain");
  Object d = json::object();
  if (domain) {
    if (domain->has("name")) d->set("name", domain->get("name"));
    if (domain->has("version")) d->set("version", domain->get("version"));
    if (domain->has("chainId")) d->set("chain_id", integerValue(domain->get("chainId")));
    if (domain->has("verifyingContract"))
      d->set("verifying_contract", domain->get("verifyingContract"));
  }
  Object fact = json::object();
  fact->set("primary_type", typed->optValue<std::string>("primaryType", ""));
  fact->set("domain", d);
  std::string primary = typed->optValue<std::string>("primaryType", "");
  if (types && typed->has("message"))
    fact->set("message", typedValue(types, primary, typed->get("message")));
  return fact;
}

Object eip7702Fact(const std::string& payload) {
  auto a = json::parseObject(payload, "parameters.payload");
  Object fact = json::object();
  fact->set("address", a->optValue<std::string>("address", ""));
  if (a->has("chainId")) fact->set("chain_id", integerValue(a->get("chainId")));
  if (a->has("nonce")) fact->set("nonce", integerValue(a->get("nonce")));
  return fact;
}
}  // namespace

namespace {
// Facts `fill` puts in an object; malformed parameters are the handler's to refuse, so facts
// that cannot be read from them stay absent.
template <class Fill>
Object collect(Fill fill) {
  Object facts = json::object();
  try {
    fill(facts);
  } catch (const Error&) {
  }
  return facts;
}

void setIf(Object facts, const char* name, const Object& value) {
  if (value) facts->set(name, value);
}

// The wallet and account, or the private key, that `signWith` names.
void signerFacts(RequestContext& ctx, const std::optional<SignWithTarget>& target, Object facts) {
  if (target && target->walletAccount) {
    setIf(facts, "wallet", walletFact(ctx, target->walletId));
    setIf(facts, "wallet_account", accountFact(target->address));
  } else if (target) {
    setIf(facts, "private_key", privateKeyFact(ctx, target->id));
  }
}

void payloadFacts(const Object& p, Object facts) {
  std::string encoding = p->optValue<std::string>("encoding", "");
  Object eth = json::object();
  if (encoding == "PAYLOAD_ENCODING_EIP712")
    eth->set("eip_712", eip712Fact(p->optValue<std::string>("payload", "")));
  if (encoding == "PAYLOAD_ENCODING_EIP7702_AUTHORIZATION")
    eth->set("eip_7702_authorization", eip7702Fact(p->optValue<std::string>("payload", "")));
  if (eth->size() > 0) facts->set("eth", eth);
}
}  // namespace

Object rawSigningFacts(RequestContext& ctx, const Object& p) {
  return collect([&](Object facts) {
    signerFacts(ctx, locateSignWith(ctx, p->optValue<std::string>("signWith", "")), facts);
    payloadFacts(p, facts);
  });
}

Object transactionSigningFacts(RequestContext& ctx, const Object& p) {
  return collect([&](Object facts) {
    auto target = locateSignWith(ctx, p->optValue<std::string>("signWith", ""));
    signerFacts(ctx, target, facts);
    if (target) {
      Object tx = transactionFacts(ctx, *target, p);  // kept alive while it is read
      for (const auto& [k, v] : *tx) facts->set(k, v);
    }
  });
}

Object sendTransactionFacts(RequestContext& ctx, const Object& p) {
  return collect([&](Object facts) {
    if (p->has("unsignedTransaction")) {  // Solana: V2 hex with signWiths, V1 base64
      Array signers = p->getArray("signWiths");
      std::string first = signers && signers->size() > 0 ? signers->getElement<std::string>(0)
                                                         : p->optValue<std::string>("signWith", "");
      auto target = locateSignWith(ctx, first);
      signerFacts(ctx, target, facts);
      std::string text = p->getValue<std::string>("unsignedTransaction");
      auto raw = signers ? fromHex(text) : base64Decode(text);
      if (!target || !raw) return;
      Object tx = json::object();
      tx->set("type", "TRANSACTION_TYPE_SOLANA");
      tx->set("unsignedTransaction", toHex(*raw));
      Object chainFacts = transactionFacts(ctx, *target, tx);  // kept alive while it is read
      for (const auto& [k, v] : *chainFacts) facts->set(k, v);
      return;
    }
    std::string from = p->optValue<std::string>("from", "");
    signerFacts(ctx, locateSignWith(ctx, from), facts);
    // One call: V1 carries it at the top, V2 as the only entry of `calls`.
    Array calls = p->getArray("calls");
    Object call =
        calls ? (calls->size() == 1 ? calls->getObject(0) : nullptr) : (p->has("to") ? p : nullptr);
    if (!call) return;
    Object tx = json::object();
    tx->set("from", asciiLower(from));
    tx->set("to", asciiLower(call->optValue<std::string>("to", "")));
    tx->set("data", asciiLower(call->optValue<std::string>("data", "0x")));
    tx->set("value", integerValue(call->optValue<std::string>("value", "0")));
    std::string chain = p->optValue<std::string>("caip2", "");
    if (chain.rfind("eip155:", 0) == 0) tx->set("chain_id", integerValue(chain.substr(7)));
    Object eth = json::object();
    eth->set("tx", tx);
    facts->set("eth", eth);
  });
}

Object walletAccountFacts(RequestContext& ctx, const Object& p) {
  return collect([&](Object facts) {
    auto target = locateSignWith(ctx, p->optValue<std::string>("address", ""));
    if (target && target->walletAccount) signerFacts(ctx, target, facts);
  });
}

Object walletFacts(RequestContext& ctx, const Object& p) {
  return collect([&](Object facts) {
    setIf(facts, "wallet", walletFact(ctx, p->optValue<std::string>("walletId", "")));
  });
}

Object walletsFacts(RequestContext& ctx, const Object& p) {
  return collect([&](Object facts) {
    json::Array wallets = json::array();
    for (const auto& id : json::optionalStringArray(p, "walletIds", "parameters"))
      if (auto w = walletFact(ctx, id)) wallets->add(w);
    facts->set("wallets", wallets);
  });
}

Object privateKeyFacts(RequestContext& ctx, const Object& p) {
  return collect([&](Object facts) {
    setIf(facts, "private_key", privateKeyFact(ctx, p->optValue<std::string>("privateKeyId", "")));
  });
}

}  // namespace signing
