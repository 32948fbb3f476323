// The context a handler runs in: the transaction's Db, the keyring over it, the gateway's
// clock and id source, and who is asking.
#pragma once

#include "gateway.hpp"
#include "signet/bundles.hpp"
#include "signet/quorum_envelope.hpp"
#include "store/keyring.hpp"

namespace signet {

class HandlerContext : public ActivityContext {
 public:
  HandlerContext(Gateway& gateway, Db& db, const Caller& caller, std::string organizationId,
                 std::string activityId = {}, std::string activityType = {},
                 RequestCache* sharedCache = nullptr)
      : gateway_(gateway),
        db_(db),
        keyring_(db, gateway.masterKey()),
        caller_(caller),
        organizationId_(std::move(organizationId)),
        activityId_(std::move(activityId)),
        activityType_(std::move(activityType)),
        cache_(sharedCache ? sharedCache : &ownCache_) {}

  const std::string& organizationId() const override { return organizationId_; }
  const Caller& caller() const override { return caller_; }
  Db& db() override { return db_; }
  Keyring& keyring() override { return keyring_; }
  int64_t nowMs() const override { return gateway_.nowMs(); }
  std::string newId() override { return crypto::uuidV4(); }
  const std::string& signerPublicKey() const override { return gateway_.signerPublicKey(); }
  const Services& services() const override { return gateway_.catalog().services(); }
  RequestCache& requestCache() override { return *cache_; }
  crypto::EcdsaSignature signWithGatewayKey(const crypto::Digest& digest) override {
    auto key = keyring_.open(Gateway::kSignerSecretId, Gateway::kSignerKind);
    return crypto::signEcdsa(crypto::Curve::kP256, key, digest);
  }
  crypto::EcdsaSignature signAsOidcIssuer(const crypto::Digest& digest) override {
    auto key = keyring_.open(Gateway::kOidcIssuerSecretId, Gateway::kSignerKind);
    return crypto::signEcdsa(crypto::Curve::kP256, key, digest);
  }
  crypto::SecretBytes openClientSecret(const std::string& envelopeHex,
                                       const std::string& field) override {
    auto envelope = fromHex(envelopeHex);
    if (!envelope) throw invalidArgument("invalid field " + field + ": not hex");
    auto key = keyring_.open(Gateway::kClientSecretsSecretId, Gateway::kSignerKind);
    auto opened = quorum_envelope::open(key, *envelope);
    if (!opened)
      throw invalidArgument("invalid field " + field +
                            ": it does not open with this gateway's client-secret key "
                            "(clientSecretEncryptionPublicKey in /.well-known/signet.json)");
    return std::move(*opened);
  }
  crypto::SecretBytes openOnRampSecret(const std::string& bundle,
                                       const std::string& field) override {
    auto key = keyring_.open(Gateway::kOnRampSecretsSecretId, Gateway::kSignerKind);
    auto opened = bundles::openCredentialBundle(key, bundle);
    if (!opened)
      throw invalidArgument("invalid field " + field +
                            ": it does not open with this gateway's on-ramp key "
                            "(onRampEncryptionPublicKey in /.well-known/signet.json)");
    return std::move(*opened);
  }
  const std::string& activityId() const override { return activityId_; }
  const std::string& activityType() const override { return activityType_; }
  void onFailure(std::function<void(Db&)> write) override {
    if (!failureWrites_)
      throw internalError("onFailure is only available while an activity's handler runs");
    failureWrites_->push_back(std::move(write));
  }
  using AfterCommit = AfterCommitCall;
  using ActivityContext::afterCommit;
  void afterCommit(AfterCommitCall call) override {
    if (!afterCommit_)
      throw internalError("afterCommit is only available while an activity's handler runs");
    afterCommit_->push_back(std::move(call));
  }
  // Where afterCommit collects; set by the pipeline around a handler call.
  void collectAfterCommit(std::vector<AfterCommit>* sink) { afterCommit_ = sink; }
  // Where onFailure collects; set by the pipeline around a handler call.
  void collectFailureWrites(std::vector<std::function<void(Db&)>>* sink) { failureWrites_ = sink; }
  bool appProofsRequested() const override { return appProofs_ != nullptr; }
  void addAppProof(const std::string& proofPayload) override {
    if (appProofs_) appProofs_->add(gateway_.appProof(proofPayload));
  }
  // Where app proofs go when the request asked for them; set by the pipeline.
  void collectAppProofs(json::Array sink) { appProofs_ = std::move(sink); }
  // The request's view of the directory, when the caller was resolved through one: the
  // organizations and users it read are then known without another statement.
  void readDirectoryThrough(DirectoryView* directory) { directory_ = directory; }
  DirectoryView* directory() { return directory_; }
  void publish(const std::string& event, const json::Object& payload) override {
    for (const auto& [module, subscription] : services().subscribers)
      if (subscription.first == event) subscription.second(*this, event, payload);
  }

 private:
  Gateway& gateway_;
  Db& db_;
  DbKeyring keyring_;
  const Caller& caller_;
  std::string organizationId_;
  std::string activityId_;
  std::string activityType_;
  std::vector<std::function<void(Db&)>>* failureWrites_ = nullptr;
  std::vector<AfterCommit>* afterCommit_ = nullptr;
  json::Array appProofs_;
  DirectoryView* directory_ = nullptr;
  RequestCache ownCache_;  // when the pipeline shares none: a cache of this context alone
  RequestCache* cache_;
};

// `fn` with a context that has no caller and no organization, in a write transaction or on a
// read snapshot of the gateway's store: for background work and the operator's commands.
inline void inTransaction(Gateway& gateway, const std::function<void(RequestContext&)>& fn) {
  gateway.database().transaction([&](Db& db) {
    Caller nobody;
    HandlerContext ctx(gateway, db, nobody, "");
    fn(ctx);
  });
}
inline void onSnapshot(Gateway& gateway, const std::function<void(RequestContext&)>& fn) {
  gateway.database().read([&](Db& db) {
    Caller nobody;
    HandlerContext ctx(gateway, db, nobody, "");
    fn(ctx);
  });
}

}  // namespace signet
