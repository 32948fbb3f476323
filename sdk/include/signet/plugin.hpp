// The plugin API: what a plugin (or a built-in module of the core) registers, and the
// contexts its handlers run in. A plugin is a shared library declared with SIGNET_PLUGIN
// (plugin_descriptor.hpp): the host reads its descriptor from the file and refuses a build
// mismatch before loading it, so no C++ type of this header crosses a boundary it was not
// built for.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "signet/crypto.hpp"
#include "signet/db.hpp"
#include "signet/error.hpp"
#include "signet/json.hpp"
#include "signet/plugin_descriptor.hpp"
#include "signet/request_cache.hpp"
#include "signet/sealed_secret.hpp"

namespace signet {

// Who made the request, as resolved from its stamp.
struct Caller {
  std::string userId;
  std::string userName;
  std::string organizationId;  // the organization the credential belongs to
  std::string publicKey;       // the stamp's public key (or WebAuthn credential id)
  std::string scheme;          // SIGNATURE_SCHEME_* or WEBAUTHN
  std::string signature;
  bool inRootQuorum = false;  // of the organization the request targets
  // X-Stamp-Attested only: the attestation the stamp carried, a verification token (scheme
  // STAMP_ATTESTED_SCHEME_P256_VERIFICATION_TOKEN) or a verified OIDC ID token (scheme
  // STAMP_ATTESTED_SCHEME_P256_OIDC). Empty for every other stamp.
  std::string attestation;
};

// Secrets at rest: sealed with AES-256-GCM under the master key, bound to (id, kind).
class Keyring {
 public:
  virtual ~Keyring() = default;
  virtual void seal(const std::string& id, const std::string& kind,
                    const crypto::SecretBytes& plaintext) = 0;
  virtual crypto::SecretBytes open(const std::string& id, const std::string& kind) = 0;
  // The same secret from its cells, read by the caller's own statement (signet/sealed_secret.hpp).
  virtual crypto::SecretBytes open(const std::string& id, const std::string& kind,
                                   const SealedSecret& sealed) = 0;
  virtual void erase(const std::string& id) = 0;
};

class ActivityContext;
struct Services;

// N of ACTIVITY_TYPE_..._VN; 1 for a type without a version suffix.
inline int activityTypeVersion(const std::string& type) {
  size_t v = type.rfind("_V");
  if (v == std::string::npos || v + 2 >= type.size()) return 1;
  int n = 0;
  for (size_t i = v + 2; i < type.size(); ++i) {
    if (type[i] < '0' || type[i] > '9' || n > 1000) return 1;
    n = n * 10 + (type[i] - '0');
  }
  return n > 0 ? n : 1;
}

// What every handler gets. Handlers never read the clock, the random source, or HTTP
// directly: everything comes through here, so handlers can be tested without a server.
class RequestContext {
 public:
  virtual ~RequestContext() = default;
  virtual const std::string& organizationId() const = 0;  // the organization targeted
  virtual const Caller& caller() const = 0;
  virtual Db& db() = 0;
  virtual Keyring& keyring() = 0;
  virtual int64_t nowMs() const = 0;
  virtual std::string newId() = 0;  // a fresh UUID
  // The gateway signer's P-256 public key, uncompressed hex: what verification tokens,
  // export bundles and session JWTs are checked against.
  virtual const std::string& signerPublicKey() const = 0;
  // What the enabled modules offer each other (see Services).
  virtual const Services& services() const = 0;
  // Signs a digest with the gateway signer's private key (low-S ECDSA P-256). The key is
  // opened from the keyring for this call only and never leaves the core.
  virtual crypto::EcdsaSignature signWithGatewayKey(const crypto::Digest& digest) = 0;
  // The same as a DigestSigner, for jwt::signEs256 and bundles::signedEnvelope.
  crypto::DigestSigner gatewaySigner() {
    return [this](const crypto::Digest& d) { return signWithGatewayKey(d); };
  }
  // Signs a digest with the key of the gateway's own OpenID Connect issuer (GatewayFacts), a key
  // apart from the signer's, so that an ID token can never pass for a verification token.
  virtual crypto::EcdsaSignature signAsOidcIssuer(const crypto::Digest& digest) = 0;
  // Opens a secret a client encrypted to the gateway's client-secret key (GatewayFacts), given
  // as hex of a quorum envelope (signet/quorum_envelope.hpp). InvalidArgument naming `field`
  // when it does not open. Keep the plaintext only as long as the request needs it.
  virtual crypto::SecretBytes openClientSecret(const std::string& envelopeHex,
                                               const std::string& field) = 0;
  // Opens a secret a client encrypted to the gateway's on-ramp key (GatewayFacts), given as
  // @turnkey/crypto's encryptOnRampSecret makes it: Base58Check of the compressed encapsulated
  // key and the HPKE ciphertext (bundles::openCredentialBundle). InvalidArgument naming `field`
  // when it does not open.
  virtual crypto::SecretBytes openOnRampSecret(const std::string& bundle,
                                               const std::string& field) = 0;
  // What an activity's facts hook and its handler share (RequestCache): the facts hook keeps
  // what it read or parsed, and the handler takes it instead of doing it again. Elsewhere a
  // cache of this context alone.
  virtual RequestCache& requestCache() = 0;
};

// A network call an activity makes once its writes are committed (ActivityContext::afterCommit).
struct AfterCommitCall {
  std::function<void()> call;
  // When any call of the activity failed: runs in the transaction that stores the failure.
  std::function<void(ActivityContext&)> undo;
  // Whatever the calls' outcome: runs in the transaction that stores the activity's final
  // state, after the undos. What the activity keeps of its calls (a delivery's record).
  std::function<void(ActivityContext&)> keep;
};

class ActivityContext : public RequestContext {
 public:
  virtual const std::string& activityId() const = 0;
  virtual const std::string& activityType() const = 0;
  // The version of the activity type being run: N of a trailing _VN, else 1. The one way
  // versions are declared: a row per type and version, all naming one handler, which reads
  // this where the versions differ.
  int activityVersion() const { return activityTypeVersion(activityType()); }
  // Delivers an event to every subscriber, synchronously and inside this activity's
  // transaction, so that a subscriber's writes (an outbox row) commit or roll back with it.
  virtual void publish(const std::string& event, const json::Object& payload) = 0;
  // Writes that must survive this activity's failure (a wrong OTP counts as an attempt even
  // though the activity fails and its own writes roll back). They run in a transaction of
  // their own only when the handler throws, in the order registered.
  virtual void onFailure(std::function<void(Db&)> write) = 0;
  // A network call the activity needs (an email, an SMS), run once the activity's writes are
  // committed: outside the write lock, so that a slow relay holds up only its own request,
  // and before the answer. Meanwhile the activity is stored as PENDING. If a call throws,
  // every `undo` of the activity runs, in one transaction with a context like the handler's
  // (remove what must not outlive a failed delivery, such as an OTP code), and the activity
  // is FAILED with the error; otherwise COMPLETED.
  virtual void afterCommit(AfterCommitCall call) = 0;
  // A call and its undo, with nothing to keep.
  void afterCommit(std::function<void()> call, std::function<void(ActivityContext&)> undo) {
    afterCommit(AfterCommitCall{std::move(call), std::move(undo), {}});
  }
  // App proofs (tkhq/sdk packages/crypto, proof.ts): whether the request asked for them
  // (generateAppProofs), and adding one: the core signs `proofPayload` (a JSON string) with the
  // gateway's ephemeral key and attaches {scheme, publicKey, proofPayload, signature} to
  // activity.appProofs.
  virtual bool appProofsRequested() const = 0;
  virtual void addAppProof(const std::string& proofPayload) = 0;
};

// Creates a wallet in an organization from v1WalletParams, read through walletShape()
// (signet/wallet_params.hpp); returns {walletId, addresses[]}. The signing plugin provides it;
// create_sub_organization calls it for its `wallet`.
struct WalletParameters;
using WalletCreator = std::function<json::Object(
    ActivityContext&, const std::string& organizationId, const WalletParameters& wallet)>;
// Runs before an organization is deleted: refuses (throws) when something must not be lost,
// else removes the module's own rows of that organization.
using OrganizationDeletionHook = std::function<void(
    ActivityContext&, const std::string& organizationId, bool deleteWithoutExport)>;
using EventHandler =
    std::function<void(ActivityContext&, const std::string& event, const json::Object& payload)>;
// A list_suborgs filter: given the filter value, an SQL condition on `organizations.id` (with
// `?` placeholders) and its parameters.
struct SubOrganizationFilter {
  std::string filterType;  // EMAIL, WALLET_ACCOUNT_ADDRESS, ...
  std::function<std::pair<std::string, SqlParams>(const std::string& value)> condition;
};

// Facts for policy conditions, as JSON merged into the condition's keywords: {"wallet": {...},
// "eth": {"tx": {...}}}. Objects are structs, arrays lists, numbers ints; {"$uint": "<decimal>"}
// is a u256, {"$int": "<decimal>"} a signed integer (ABI intN), and {"$map": {...}} a map. A
// fact that does not apply is left out, so a condition reading it fails instead of matching.
//
// An activity's own facts come from its row (ActivitySpec::facts), which gets the intent's
// parameters; the keywords it fills are declared once per module (Registry::factKeywords). What
// it reads or parses on the way, it keeps in ctx.requestCache() for the handler, which runs on the
// same view of the store right after (when policies are read at all: a root quorum skips them).
using ActivityFacts = std::function<json::Object(RequestContext&, const json::Object& parameters)>;
// Facts a module adds to every activity's decision, its own and other modules' (a risk score
// for any signing, say), given the activity type: Registry::factProvider.
using FactProvider = std::function<json::Object(RequestContext&, const std::string& activityType,
                                                const json::Object& parameters)>;
// The markers above, so that no module spells them itself.
inline json::Object uintFact(const std::string& decimal) {
  json::Object o = json::object();
  o->set("$uint", decimal);
  return o;
}
inline json::Object intFact(const std::string& decimal) {
  json::Object o = json::object();
  o->set("$int", decimal);
  return o;
}
inline json::Object mapFact(const json::Object& entries) {
  json::Object o = json::object();
  o->set("$map", entries);
  return o;
}

// A session profile's scope (a policy condition), or nullopt when the organization has no such
// profile. The module that keeps session profiles provides it: the engine holds sessions to
// their profile's scope, and MFA policies that pin a profile are checked with it.
using SessionProfileLookup = std::function<std::optional<std::string>(
    RequestContext&, const std::string& organizationId, const std::string& profileId)>;

// Events the core publishes (payload fields in parentheses).
inline constexpr const char* kEventFeatureSet = "organization.feature_set";  // (name, value)
inline constexpr const char* kEventFeatureRemoved = "organization.feature_removed";  // (name)
// (invitationId, organizationId, organizationName, senderUserId, senderUserName,
//  receiverUserName, receiverUserEmail, accessType)
inline constexpr const char* kEventInvitationCreated = "organization.invitation_created";

// An OpenID Connect ID token whose signature, issuer and time claims were checked (an
// OidcVerifier's answer). The audience and the nonce are the caller's to check: they depend on
// what the token is for.
struct OidcIdentity {
  std::string issuer;
  std::string subject;
  std::vector<std::string> audiences;  // `aud`, a string or a list
  std::string nonce;                   // `nonce`, else `tknonce`; empty when neither
  json::Object claims;
};
// Checks an ID token: that its issuer is one someone chose (configured by the operator, or the
// issuer of an OAuth provider stored in `db`), before any network call; its signature under the
// issuer's published keys (RS256 or ES256); `exp`, `nbf` and `iat` with 60 s leeway.
// `mayFetch`: whether it may fetch the issuer's discovery document and keys over the network.
// Never pass true inside an activity's transaction; fetch in the activity's `prepare` instead,
// so that a slow issuer holds up only its own request. InvalidArgument names `field` and the
// check that failed ("issuer not trusted"); keys that cannot be had are Unavailable ("issuer
// keys unavailable"), whatever the network answered.
using OidcVerifier =
    std::function<OidcIdentity(const Services& services, Db& db, const std::string& token,
                               const std::string& field, int64_t nowMs, bool mayFetch)>;

// What the gateway publishes about itself, in /.well-known/signet.json and its OpenID
// configuration.
struct GatewayFacts {
  std::string publicUrl;            // config publicUrl: the issuer of the ID tokens it signs
  std::string oidcIssuerPublicKey;  // P-256, uncompressed hex: signs those tokens (ES256)
  std::string oidcIssuerKeyId;      // their `kid`
  // P-256, uncompressed hex: what clients encrypt secrets to (an OAuth 2.0 client secret, with
  // @turnkey/crypto's encryptOauth2ClientSecret and its override argument).
  std::string clientSecretPublicKey;
  // P-256, compressed hex (what encryptOnRampSecret's override argument takes): what clients
  // encrypt a fiat on-ramp provider's secret and private API keys to. A key apart from the
  // client-secret key, since the two are used with different schemes.
  std::string onRampSecretPublicKey;
  // The main listener's URL as bound (http://127.0.0.1:PORT, the port known once it listens):
  // where a module that is a client of the API (the auth proxy) reaches it in this process.
  // Empty before the listener starts, and in a process that serves no API.
  std::function<std::string()> localUrl;
  // What such a module sends in kLocalCallHeader: a random value made at start-up, which marks
  // a request as this process's own, so that the per-address limit of the main listener does
  // not count every stranger the embedded proxy forwards as one loopback client.
  std::string localCallToken;
};
inline constexpr const char* kLocalCallHeader = "X-Signet-Local-Call";

// What the core offers modules that sign users in (sessions, OAuth): users, session keys and
// verification tokens, without those modules reading the core's tables.
struct UserRef {
  std::string organizationId;
  std::string userId;
  std::string userName;
};
struct VerifiedContact {
  std::string tokenId;
  std::string type;                      // OTP_TYPE_EMAIL or OTP_TYPE_SMS
  std::string contact;                   // the address or number the code went to
  std::string organizationId;            // the organization that issued the token
  std::optional<std::string> publicKey;  // compressed P-256 hex, when the token is key-bound
  int64_t expiresAtMs = 0;
};
struct SessionKey {
  std::string name;
  std::string publicKey;       // P-256, any SEC1 encoding, hex
  std::string credentialType;  // CREDENTIAL_TYPE_LOGIN, _READ_WRITE_SESSION_KEY_P256, ...
  int64_t expirationSeconds = 900;
  // The session profile the login asked for; empty for the default read/write session. MFA
  // policies that pin an AUTHENTICATION_TYPE_SESSION id match on it.
  std::string sessionProfileId;
};
// The budget of the auth proxy's key (IdentityServices::setApiKeyRateBudget).
inline constexpr const char* kAuthProxyBudget = "auth-proxy";

struct IdentityServices {
  std::function<std::optional<UserRef>(RequestContext&, const std::string& organizationId,
                                       const std::string& userId)>
      findUser;
  // The user of `organizationId` whose email (OTP_TYPE_EMAIL, case-insensitive) or phone number
  // (OTP_TYPE_SMS) is `contact`.
  std::function<std::optional<UserRef>(RequestContext&, const std::string& organizationId,
                                       const std::string& otpType, const std::string& contact)>
      findUserByContact;
  // The user of `organizationId` with an OAuth provider of `issuer` and `subject` whose audience
  // is one of `audiences`.
  std::function<std::optional<UserRef>(RequestContext&, const std::string& organizationId,
                                       const std::string& issuer, const std::string& subject,
                                       const std::vector<std::string>& audiences)>
      findUserByOidc;
  // Whether any organization has stored an OAuth provider of `issuer` from a verified token
  // (not from bare oidcClaims): such issuers are trusted for their keys to be fetched.
  std::function<bool(Db&, const std::string& issuer)> oauthIssuerStored;
  std::function<std::string(RequestContext&, const std::string& organizationId)> organizationName;
  // The parent of a sub-organization; empty for a root organization. NotFound for an unknown one.
  std::function<std::string(RequestContext&, const std::string& organizationId)>
      parentOrganizationId;
  // Whether the user is in the root quorum of a root organization (one without a parent):
  // the users FEATURE_NAME_ROOT_USER_EMAIL_RECOVERY is about.
  std::function<bool(RequestContext&, const std::string& organizationId, const std::string& userId)>
      isRootUserOfRootOrganization;
  // Removes an invitation (one whose email could not be sent); whether it existed.
  std::function<bool(ActivityContext&, const std::string& organizationId,
                     const std::string& invitationId)>
      deleteInvitation;
  // Registers an expiring P-256 API key for a user. At the user's cap of expiring keys the
  // expired ones go first, then the oldest. Returns the API key id.
  std::function<std::string(ActivityContext&, const std::string& organizationId,
                            const std::string& userId, const SessionKey& key)>
      issueSessionKey;
  // Deletes the user's API keys whose credential type is one of `credentialTypes`; returns
  // how many.
  std::function<size_t(ActivityContext&, const std::string& organizationId,
                       const std::string& userId, const std::vector<std::string>& credentialTypes)>
      revokeSessionKeys;
  // Deletes one API key of the user (a session key whose delivery failed); whether it existed.
  std::function<bool(ActivityContext&, const std::string& organizationId, const std::string& userId,
                     const std::string& apiKeyId)>
      deleteSessionKey;
  // Checks a verification token (signed by this gateway, unexpired, issued for the
  // organization or its parent, unspent) and, with `spend`, marks it spent. InvalidArgument
  // naming `field` otherwise.
  std::function<VerifiedContact(RequestContext&, const std::string& token,
                                const std::string& organizationId, const std::string& field,
                                bool spend)>
      verificationToken;
  // Whether the organization may use an OTP or email sign-in method: `feature` is
  // FEATURE_NAME_OTP_EMAIL_AUTH, FEATURE_NAME_SMS_AUTH or FEATURE_NAME_EMAIL_AUTH. A root
  // organization needs the feature set; a sub-organization needs its parent's and must not
  // have switched it off with create_sub_organization's disable* flags.
  std::function<bool(RequestContext&, const std::string& organizationId,
                     const std::string& feature)>
      authFeatureEnabled;
  // What create_users, create_api_keys and create_policy do, with the same checks, in
  // ctx.organizationId(), as part of the calling activity: for a module that sets up a service
  // user of its own (the auth proxy's). The parameters and results are those activities'
  // (createUsersIntentV3, createApiKeysIntentV2, createPolicyIntentV3).
  std::function<json::Object(ActivityContext&, const json::Object& parameters)> createUsers;
  std::function<json::Object(ActivityContext&, const json::Object& parameters)> createApiKeys;
  // Charges the requests of an API key of ctx.organizationId() to the named budget instead of the
  // organization's (limits.rateLimit.perAuthProxyPerSecond for "auth-proxy"): for a service key
  // strangers make requests through, so that they cannot spend the organization's allowance.
  std::function<void(ActivityContext&, const std::string& apiKeyId, const std::string& budget)>
      setApiKeyRateBudget;
  std::function<json::Object(ActivityContext&, const json::Object& parameters)> createPolicy;
  // Checks a policy condition as policies are checked when written (the parser's position and
  // expectation, the keywords a condition may read); InvalidArgument naming `field`.
  std::function<void(const std::string& expression, const std::string& field)> checkPolicyCondition;
};

// An activity's status change. The core writes it to its event outbox in the same transaction
// as the change, one row per subscribing module, so that none is lost between a commit and its
// handling; it hands each to the module's handler after the commit.
struct ActivityEvent {
  std::string eventId;  // UUID, the same for every module: what notifications carry
  std::string activityId;
  std::string organizationId;
  std::string parentOrganizationId;  // empty for a root organization
  std::string activityType;
  std::string status;     // ACTIVITY_STATUS_*
  json::Object activity;  // the activity as get_activity renders it, at the change
  int64_t createdAtMs = 0;
};
// Runs in a transaction of its own after the change commits; the event leaves the module's
// outbox in that same transaction, so a handler that throws, or a crash, gets it again (at least
// once; write idempotently). Events of one module are handled in the order they were written.
using ActivityEventHandler = std::function<void(RequestContext& ctx, const ActivityEvent& event)>;
struct ActivityEventsSpec {
  ActivityEventHandler handler;
  // Whether the module wants an organization's events at all: a query of the module's own
  // tables, with two parameters, the organization's id and its parent's (the organization's own
  // for a root organization), that returns a row when it does. Empty: every organization's
  // events. It runs in the transaction that makes the change, after the change's handler (it
  // sees an endpoint created by the very activity whose event this is) and before anything is
  // rendered or written: an organization no subscriber wants pays for the module being enabled
  // with this one read. On PostgreSQL it goes with the change's own row write, in one round
  // trip. Keep it to one indexed read (SELECT 1 ... LIMIT 1).
  std::string interestQuery = {};
};

// A module's background task, which `signet serve` runs on a thread of its own from start-up
// to shutdown (deliveries, retries). It gets the store through transactions of its own, never
// inside a request.
class WorkerContext {
 public:
  virtual ~WorkerContext() = default;
  // Waits up to `ms` or until wake(); false once the gateway is stopping (return then).
  virtual bool waitFor(int64_t ms) = 0;
  virtual bool stopping() const = 0;
  // Cuts a wait short (from any thread: an event handler that queued work).
  virtual void wake() = 0;
  // `fn` in a write transaction, or on a read snapshot; the context has no caller and no
  // organization.
  virtual void transaction(const std::function<void(RequestContext&)>& fn) = 0;
  virtual void read(const std::function<void(RequestContext&)>& fn) = 0;
  virtual int64_t nowMs() const = 0;
};
// A command of the plugin's own, run by the operator on a data directory:
// `signet <plugin> <name> --data-dir DIR [--option value ...]`, whether or not a gateway serves
// the store.
class CommandContext {
 public:
  virtual ~CommandContext() = default;
  // The options given (--name value), only those the spec declares.
  virtual std::optional<std::string> option(const std::string& name) const = 0;
  // `fn` in a write transaction, or on a read snapshot, of the data directory's store.
  virtual void transaction(const std::function<void(RequestContext&)>& fn) = 0;
  virtual void read(const std::function<void(RequestContext&)>& fn) = 0;
  // A line on standard output.
  virtual void print(const std::string& line) = 0;
};
struct CommandSpec {
  std::string name;                  // "rotate-key"
  std::string summary;               // one line for `signet --help`
  std::string usage;                 // the options, after `signet <plugin> <name> --data-dir DIR`
  std::vector<std::string> options;  // the --options it takes, beside --data-dir and --config
  std::function<int(CommandContext&)> run;  // the exit code; throw signet::Error to refuse
};

// A number the gateway's GET /metrics reports as a Prometheus gauge, read on a snapshot of the
// store at each scrape (a queue's depth). `name` is the whole metric name and must start with
// signet_<plugin>_ (dashes as underscores), so that modules cannot collide.
struct GaugeSpec {
  std::string name;  // signet_webhooks_pending_deliveries
  std::string help;
  std::function<double(RequestContext&)> read;
};

struct WorkerSpec {
  std::string name;
  std::function<void(WorkerContext&)> run;  // returns when waitFor says the gateway stops
};

struct Services {
  IdentityServices identity;   // provided by the core
  WalletCreator createWallet;  // empty when no enabled module provides wallets
  std::string walletProvider;  // the module that provides it
  std::vector<std::pair<std::string, OrganizationDeletionHook>> deletionHooks;  // (module, hook)
  std::vector<std::pair<std::string, SubOrganizationFilter>> subOrganizationFilters;
  std::vector<std::pair<std::string, std::pair<std::string, EventHandler>>>
      subscribers;                                                  // (module, (event, handler))
  std::vector<std::pair<std::string, FactProvider>> factProviders;  // (module, provider)
  std::set<std::string> factKeywords;        // the top-level keywords the providers declare
  SessionProfileLookup sessionProfileScope;  // empty when no enabled module keeps profiles
  OidcVerifier verifyOidcToken;              // empty when no enabled module verifies ID tokens
  std::vector<std::pair<std::string, ActivityEventsSpec>>
      activityEventSubscribers;  // (module, its handler and interest)
  GatewayFacts gateway;          // provided by the core
};

// Returns the fields of the result (the pipeline puts them under the result key).
// Throw signet::Error: InvalidArgument means bad input (HTTP 400, nothing stored); any other
// code fails the activity, which is stored with status FAILED and the error as `failure`.
using ActivityHandler =
    std::function<json::Object(ActivityContext&, const json::Object& parameters)>;
using QueryHandler = std::function<json::Object(RequestContext&, const json::Object& body)>;
// Runs before a new activity's transaction, outside the write lock, with the intent's parameters
// and a context that may read (its db() is a read connection; writes are refused): the place for
// network calls whose answers the handler then reads from a cache (an OIDC issuer's keys, what
// an OAuth 2.0 provider says of a code). A throw refuses the request with nothing stored. It runs
// again before an approved activity executes, since its cache may have expired while the votes
// came in.
using ActivityPreparer = std::function<void(RequestContext&, const json::Object& parameters)>;
// Runs first on a read-only activity's snapshot on PostgreSQL, before the caller is
// authenticated and before the parameters are checked, to send the reads its facts and handler
// will make ahead of them (Db::queryAhead, the answer kept in the request cache they share): they
// then go with the snapshot's first statement instead of a round trip each. (SQLite has no round
// trip to save; it is not called there, nor for a stamp whose key the gateway has not seen in the
// organization.) It only sends: nothing it reads may be answered or acted on before the decision,
// and its context's caller is empty. The parameters are unchecked: skip what they do not give (a
// field missing, not a string, or longer than any real value). A throw of the plugin's costs only
// the early start; a read the server refuses fails the request, as any read of the snapshot would.
using ActivityReadAhead = std::function<void(RequestContext&, const json::Object& parameters)>;

// Where an activity type stands in its rollout. A plugin declares each version's default state
// (ActivitySpec::rollout); the operator overrides it with `signet rollout set`.
enum class RolloutState {
  kGeneral,     // allowed for every organization
  kCanary,      // allowed for listed organizations and a stable share of the others
  kDisabled,    // refused, naming the version
  kDeprecated,  // allowed; responses carry Deprecation, Sunset and a Link to the replacement
  kRetired,     // refused, naming the replacement
};
struct RolloutDefault {
  RolloutState state = RolloutState::kGeneral;
  // The type to use instead when deprecated or retired; empty: the newest general version
  // served at the same path.
  std::string replacement;
  // When deprecated by default: since when, and when it is to go (epoch seconds; the sunset is
  // optional). Responses carry them as Deprecation and Sunset.
  int64_t deprecatedAt = 0;
  int64_t sunsetAt = 0;
};

// The shape of one parameter of an activity's intent. Declared shapes are checked before the
// policy engine runs, so a malformed intent is refused (400, nothing stored) instead of being
// decided, recorded and failed. Fields not declared are left to the handler. A field sent as
// null counts as absent, as the json:: helpers read it. A plugin usually declares them through
// signet/typed_parameters.hpp, which also reads the checked intent into a struct.
// kDecimal: an integer, or one written in decimal in a string (the API's 64-bit fields, which
// clients send either way).
enum class ParamType { kString, kBool, kInteger, kObject, kArray, kUuid, kDecimal };
struct ParamSpec {
  std::string name;
  ParamType type = ParamType::kString;
  bool required = true;
  size_t maxLength = 0;  // strings, and an array's strings: 1 to maxLength bytes when set
  // A name (json::requireName's rule): strings, and an array's strings, without control
  // characters.
  bool displayName = false;
  // An array's elements: each must be of this type when set.
  std::optional<ParamType> elements = std::nullopt;
  // An object's declared fields, or those of each element of an array (whose elements are then
  // objects), checked as the top level's are, at paths like parameters.accounts[2].curve.
  std::vector<ParamSpec> fields = {};
  // An object (or each object of an array) that holds only its declared fields: any other name
  // is refused, naming it and the fields there are (a settings object, where a misspelled field
  // silently ignored would leave a setting the operator believes changed unchanged).
  bool closed = false;
};

struct ActivitySpec {
  std::string type;       // ACTIVITY_TYPE_CREATE_API_KEYS_V2
  std::string path;       // create_api_keys (served at /public/v1/submit/<path>)
  std::string intentKey;  // createApiKeysIntentV2
  std::string resultKey;  // createApiKeysResult
  std::string resource;   // policy resource, e.g. API_KEY
  std::string action;     // policy action, e.g. CREATE
  bool rootQuorumOnly = false;
  ActivityHandler handler;
  // Whether a credential of the target's parent organization may run this activity in a
  // sub-organization (login activities). Otherwise only the sub-organization's own users may.
  bool allowParentOrganization = false;
  // The version's state until the operator says otherwise: a new version can ship as canary.
  RolloutDefault rollout = {};
  // The intent's parameters, checked before policies run (ParamSpec).
  std::vector<ParamSpec> parameters = {};
  // The facts policies may read while deciding this activity (ActivityFacts); empty: none
  // beyond the core's `activity`. Malformed parameters are the handler's to refuse: leave the
  // fact out rather than throw.
  ActivityFacts facts = {};
  // The handler only reads (signing with a stored key): the pipeline then decides and runs it
  // on a read-only snapshot, beside other requests, and only the activity's own record waits
  // for the write lock. A write from such a handler is refused by the store. Anything that
  // creates, changes or spends state keeps the default.
  bool readOnly = false;
  // Network calls before the transaction (ActivityPreparer); empty: none.
  ActivityPreparer prepare = {};
  // Reads sent ahead on a read-only activity's snapshot (ActivityReadAhead); empty: none.
  ActivityReadAhead readAhead = {};
  // Request fields that are single-use secrets or bearer credentials (an OTP code, a
  // verification token, an ID token), as paths into the parameters: "otpCode",
  // "rootUsers[].oauthProviders[].oidcToken" ([] walks every element of an array). Never stored
  // in clear: sealed in the keyring while the activity may still run (it awaits votes), then
  // gone; "<redacted>" in the stored intent and signed request throughout.
  std::vector<std::string> secrets = {};
  // Fields of the result that are bearer credentials (a verification token): stored sealed in
  // the keyring, never in clear, and shown as "<redacted>" wherever the activity is copied
  // (webhook events); get_activity returns them to a caller allowed to read the activity.
  std::vector<std::string> secretResults = {};
};

struct QuerySpec {
  std::string path;  // get_api_keys (served at /public/v1/query/<path>)
  QueryHandler handler;
};

// HTTP routes beside the coordinator API: discovery documents, JWKS, a proxy's own API. A
// plugin's routes are served under the prefix the core assigns it, /plugins/<name>, and on any
// listener of its own (ListenerSpec).
struct HttpCall {
  std::string method;
  std::string path;     // the whole path, /plugins/<name>/jwks
  std::string subpath;  // the route's own path: /jwks (on a listener, the whole path)
  std::string query;    // what followed '?', undecoded
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;
  // The client's address as the connection came from it (no proxy header is trusted): what
  // per-client limits count.
  std::string peer = {};
};
struct HttpReply {
  int status = 200;
  std::string contentType = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
};
enum class RouteAccess {
  kPublic,   // anyone; the context has no caller and no organization
  kStamped,  // a stamped POST whose JSON body names organizationId, resolved as queries are
  // Anyone, and the handler runs outside the store: no transaction is held while it runs and
  // its context's db() and keyring() refuse. For routes that are clients of the API over the
  // network (the auth proxy forwards to it), which must not hold a connection or the write
  // lock while they wait for their own requests.
  kDetached,
};
using RouteHandler = std::function<HttpReply(RequestContext&, const HttpCall&)>;
struct RouteSpec {
  std::string method;  // GET, POST, ...
  std::string path;    // "/jwks": exact, below the plugin's prefix (or the listener's root)
  RouteAccess access = RouteAccess::kPublic;
  RouteHandler handler;
  // Served at `path` itself rather than below /plugins/<name>: only for the API's discovery
  // documents, so `path` must start with /public/v1/discovery/ (one module per path).
  bool atRoot = false;
};
// A listener of the plugin's own, which `signet serve` starts beside the main one, with the
// same limits. The address usually comes from the plugin's settings.
struct ListenerSpec {
  std::string name;     // as the descriptor declares it
  std::string address;  // host:port; port 0 picks a free one
  std::vector<RouteSpec> routes;
  // What `signet serve` prints before the URL once the listener accepts connections ("auth proxy
  // listening on" gives "auth proxy listening on http://127.0.0.1:8090"); empty: "plugin NAME
  // listener LISTENER on".
  std::string announce = {};
};

class Registry {
 public:
  virtual ~Registry() = default;
  virtual void activity(ActivitySpec spec) = 0;
  virtual void query(QuerySpec spec) = 0;
  virtual void route(RouteSpec spec) = 0;
  virtual void listener(ListenerSpec spec) = 0;
  // `module` names the migration stream, normally the plugin's name.
  virtual void migrations(const std::string& module, std::vector<Migration> list) = 0;
  virtual void walletCreator(WalletCreator creator) = 0;
  virtual void organizationDeletionHook(OrganizationDeletionHook hook) = 0;
  virtual void subscribe(const std::string& event, EventHandler handler) = 0;
  virtual void subOrganizationFilter(SubOrganizationFilter filter) = 0;
  // The top-level policy keywords the module's facts fill ({"eth", "solana"}), its activities'
  // (ActivitySpec::facts) and its providers'. Policy conditions may read them while the module
  // is enabled. A keyword of the core's or of another enabled module is refused.
  virtual void factKeywords(std::vector<std::string> keywords) = 0;
  // Facts for every activity, declaring the keywords the provider fills.
  virtual void factProvider(std::vector<std::string> keywords, FactProvider provider) = 0;
  virtual void sessionProfileLookup(SessionProfileLookup lookup) = 0;
  // The module that verifies OpenID Connect ID tokens for the others (one per gateway).
  virtual void oidcVerifier(OidcVerifier verifier) = 0;
  // Activities' status changes, after they commit (ActivityEvent), for the organizations the
  // spec's `interestQuery` wants.
  virtual void activityEvents(ActivityEventsSpec spec) = 0;
  // A background task that `signet serve` runs (WorkerSpec).
  virtual void worker(WorkerSpec spec) = 0;
  // A command of the plugin's own (CommandSpec).
  virtual void command(CommandSpec spec) = 0;
  // A gauge of GET /metrics (GaugeSpec).
  virtual void gauge(GaugeSpec spec) = 0;
  // The plugin's settings: the object at plugins.settings.<name> in the gateway's config (an
  // empty object when absent), and the gateway's data directory. Parse them at registration
  // and throw signet::Error naming the field: an enabled plugin with bad settings stops
  // start-up.
  virtual const json::Object& settings() const = 0;
  virtual const std::string& dataDir() const = 0;
  // A line `signet serve` prints at start-up when the plugin is enabled (a development mode).
  virtual void startupNotice(const std::string& line) = 0;
};

}  // namespace signet
