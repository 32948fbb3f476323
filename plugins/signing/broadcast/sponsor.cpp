#include "sponsor.hpp"

#include "eth_tx.hpp"
#include "keys/addresses.hpp"

namespace signing::broadcast {

using namespace signet;

namespace {
std::string secretId(const std::string& family) {
  return "sponsor-key:" + family;
}
constexpr const char* kKind = "sponsor-key";

crypto::Curve curveOf(const std::string& family) {
  return family == "solana" ? crypto::Curve::kEd25519 : crypto::Curve::kSecp256k1;
}

std::string addressOf(const std::string& family, const crypto::SecretBytes& key) {
  if (family == "solana")
    return base58Encode(crypto::publicKeyFromPrivate(crypto::Curve::kEd25519, key));
  return ethereumChecksumAddress(ethAddressOf(key));
}
}  // namespace

std::optional<std::string> sponsorAddress(Db& db, const std::string& family) {
  auto r = db.queryOne("SELECT address FROM signing_sponsors WHERE family = ?", {family});
  return r ? std::optional(r->str("address")) : std::nullopt;
}

std::optional<Sponsor> openSponsor(RequestContext& ctx, const std::string& family) {
  auto address = sponsorAddress(ctx.db(), family);
  if (!address) return std::nullopt;
  return Sponsor{*address, ctx.keyring().open(secretId(family), kKind)};
}

CommandSpec createSponsorCommand() {
  return {
      .name = "create-sponsor",
      .summary =
          "make the key that pays for sponsored sends on a chain family (eip155 or "
          "solana) and print its address, for the operator to fund",
      .usage = "--family eip155|solana",
      .options = {"family"},
      .run = [](CommandContext& c) {
        std::string family = c.option("family").value_or("");
        if (family != "eip155" && family != "solana")
          throw invalidArgument("--family must be eip155 or solana, not \"" + family + "\"");
        std::string address;
        c.transaction([&](RequestContext& ctx) {
          if (auto existing = sponsorAddress(ctx.db(), family))
            throw failedPrecondition("a " + family + " sponsor key exists already: " + *existing);
          auto key = crypto::generatePrivateKey(curveOf(family));
          address = addressOf(family, key);
          ctx.keyring().seal(secretId(family), kKind, key);
          ctx.db().exec(
              "INSERT INTO signing_sponsors (family, address, created_at_ms) VALUES (?, ?, ?)",
              {family, address, ctx.nowMs()});
        });
        json::Object o = json::object();
        o->set("family", family);
        o->set("address", address);
        c.print(json::stringify(o));
        return 0;
      }};
}

}  // namespace signing::broadcast
