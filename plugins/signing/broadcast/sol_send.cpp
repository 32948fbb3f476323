// sol_send_transaction (broadcast.hpp): the transaction is parsed and its signers checked
// against signWiths here; the worker sets the blockhash, puts the sponsor in front when the
// send is sponsored, signs and sends.
#include "broadcast.hpp"
#include "chains/solana/solana_transaction.hpp"
#include "gas_usage.hpp"
#include "keys/key_material.hpp"
#include "sponsor.hpp"

namespace signing::broadcast {

using namespace signet;

namespace {
constexpr size_t kMaxSigners = 16;

json::Object keyRef(const SignWithTarget& t) {
  json::Object key = json::object();
  key->set("walletAccount", t.walletAccount);
  key->set("id", t.id);
  key->set("addressFormat", t.addressFormat);
  key->set("address", t.address.empty() ? base58Encode(*fromHex(t.publicKeyHex)) : t.address);
  return key;
}

using SolP = SolSendTransactionParameters;
}  // namespace

const Shape<SolP> kSolSendTransactionV1 = {
    field("unsignedTransaction", &SolP::unsignedTransaction),
    field("signWith", &SolP::signWith, {.required = true}), field("caip2", &SolP::caip2),
    field("recentBlockhash", &SolP::recentBlockhash), field("sponsor", &SolP::sponsor)};
const Shape<SolP> kSolSendTransactionV2 = {
    field("unsignedTransaction", &SolP::unsignedTransaction),
    field("signWiths", &SolP::signWiths, {.required = true}), field("caip2", &SolP::caip2),
    field("recentBlockhash", &SolP::recentBlockhash), field("sponsor", &SolP::sponsor)};

json::Object Broadcast::solSendTransaction(ActivityContext& ctx,
                                           const SolSendTransactionParameters& p) {
  std::string caip2 = requireChain(*this, p.caip2, true);
  const bool v2 = ctx.activityVersion() >= 2;
  const std::string& text = p.unsignedTransaction;
  auto raw = v2 ? fromHex(text) : base64Decode(text);
  if (!raw || raw->empty())
    throw invalidArgument(std::string("invalid field parameters.unsignedTransaction: not ") +
                          (v2 ? "hex" : "base64"));
  auto tx = parseSolanaTransaction(*raw, "parameters.unsignedTransaction");

  // Each version's shape requires its own: signWiths (V2) or signWith (V1).
  std::vector<std::string> signWiths = v2 ? p.signWiths.value_or(std::vector<std::string>{})
                                          : std::vector<std::string>{p.signWith.value_or("")};
  std::string field = v2 ? "parameters.signWiths" : "parameters.signWith";
  if (signWiths.empty() || signWiths.size() > kMaxSigners)
    throw invalidArgument("invalid field " + field + ": " + std::to_string(signWiths.size()) +
                          " signers (from 1 to 16)");
  // The gateway signs for every required signer, so they must be exactly the keys named, and
  // (V2) in the transaction's order.
  json::Array signers = json::array();
  std::vector<std::string> required;
  for (size_t i = 0; i < tx.requiredSignatures; ++i)
    required.push_back(base58Encode(tx.accountKeys[i]));
  for (size_t i = 0; i < signWiths.size(); ++i) {
    auto target = locateSignWith(ctx, signWiths[i]);
    if (!target || target->curve != crypto::Curve::kEd25519)
      throw invalidArgument("invalid field " + field + (v2 ? "[" + std::to_string(i) + "]" : "") +
                            ": \"" + signWiths[i] + "\" is not a Solana key of organization " +
                            ctx.organizationId());
    auto key = keyRef(*target);
    std::string address = key->getValue<std::string>("address");
    bool inOrder = i < required.size() && required[i] == address;
    bool present = std::find(required.begin(), required.end(), address) != required.end();
    if (!present || (v2 && !inOrder))
      throw invalidArgument("invalid field " + field +
                            ": the transaction's required signers are [" +
                            [&] {
                              std::string s;
                              for (const auto& r : required) s += (s.empty() ? "" : ", ") + r;
                              return s;
                            }() +
                            "], which signWiths must name " + (v2 ? "in that order" : "") + " (" +
                            address + " " + (present ? "is out of order" : "is not one") + ")");
    signers->add(key);
  }
  if (signWiths.size() != required.size())
    throw invalidArgument("invalid field " + field + ": the transaction needs " +
                          std::to_string(required.size()) + " signers and " +
                          std::to_string(signWiths.size()) + " are named");

  json::Object request = json::object();
  request->set("transaction", toHex(*raw));
  request->set("signers", signers);
  if (const auto& hash = p.recentBlockhash; hash && !hash->empty()) {
    auto decoded = base58Decode(*hash);
    if (!decoded || decoded->size() != 32)
      throw invalidArgument("invalid field parameters.recentBlockhash: \"" + *hash +
                            "\" is not a base58 blockhash");
    request->set("recentBlockhash", *hash);
  }

  Send s;
  s.id = ctx.newId();
  s.organizationId = ctx.organizationId();
  s.billingOrganizationId = billingOrganizationOf(ctx, ctx.organizationId());
  s.caip2 = caip2;
  s.kind = SendKind::kSol;
  if (p.sponsor.value_or(false)) {
    auto sponsor = sponsorAddress(ctx.db(), "solana");
    if (!sponsor)
      throw failedPrecondition(
          "this gateway has no solana sponsor key (signet signing "
          "create-sponsor --family solana)");
    // The sponsor signs the whole message as its fee payer: a transaction that names it would
    // have it sign for more than fees.
    for (const auto& k : tx.accountKeys)
      if (base58Encode(k) == *sponsor)
        throw invalidArgument(
            "invalid field parameters.unsignedTransaction: it names the gateway's sponsor " +
            *sponsor + ", which pays fees only");
    if (!prices_.configured(caip2))
      throw failedPrecondition("no USD price is configured for " + caip2 +
                               " (plugins.settings.signing.broadcast.usdPrice or priceSource)");
    requireSponsorship(ctx.db(), s.organizationId, s.billingOrganizationId, 0, ctx.nowMs());
    s.kind = SendKind::kSolSponsored;
  }
  s.request = request;
  insertSend(ctx.db(), s, ctx.nowMs());
  wake();
  json::Object r = json::object();
  r->set("sendTransactionStatusId", s.id);
  return r;
}

}  // namespace signing::broadcast
