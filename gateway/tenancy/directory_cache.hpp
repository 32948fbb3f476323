// The directory reads every stamped request makes (the target organization, the API key, its
// user and root quorum, the user as the request's vote shows them, the MFA policies of its
// voters, and the IP allowlists of the key's organization), kept in memory between requests.
//
// Invalidation: every write to the tables they come from bumps one number in the store,
// directory_generation.value, by triggers (core migration 16), so that no write path can
// forget to. An entry serves only a request that read the same number, which it reads once,
// before any data. So a change is seen by the very next request, on every gateway that shares
// the store, and an entry can never hold data older than its number:
// - in a snapshot, the number and the data are of one moment;
// - outside a transaction, each read sees the latest commit, so data read after the number is
//   at least as new as it.
// Inside a write transaction the number would count that transaction's uncommitted changes,
// which may yet roll back, so those reads go straight to the store (DirectoryView with no
// cache).
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "mfa/mfa_store.hpp"
#include "tenancy/directory.hpp"
#include "tenancy/ip_allowlists.hpp"

namespace signet {

class DirectoryCache {
 public:
  // Entries of all kinds past which the cache starts over (about 2 KB each at most).
  static constexpr size_t kMaxEntries = 50000;

  template <class T>
  struct Map {
    std::unordered_map<std::string, T> entries;
  };
  struct Hits {
    uint64_t hits = 0, misses = 0;
  };
  Hits hits() const;
  // Whether the newest entries hold an API key with this public key in this organization: a
  // guess, from memory and without the generation, for work worth starting before the caller is
  // authenticated (ActivitySpec::readAhead), never for deciding anything.
  bool mayHoldApiKey(const std::string& publicKey, const std::string& organizationId) const;

 private:
  friend class DirectoryView;
  // The value cached under `key` for `generation`, if any.
  template <class T>
  std::optional<T> get(Map<T>& map, const std::string& key, int64_t generation);
  // Keeps `value` if `generation` is the newest seen; a newer one empties the cache first.
  template <class T>
  void put(Map<T>& map, const std::string& key, int64_t generation, const T& value);
  void clearLocked();

  mutable std::mutex mutex_;
  int64_t generation_ = -1;
  size_t size_ = 0;
  Hits hits_;
  Map<std::optional<OrganizationRecord>> organizations_;
  Map<std::vector<std::string>> quorums_;
  Map<std::vector<ApiKeyRecord>> keys_;
  Map<std::optional<UserRecord>> users_;
  Map<json::Object> userJson_;  // shared and never changed once made: votes only read it
  Map<std::vector<mfa::MfaPolicyRecord>> mfaPolicies_;
  Map<std::vector<IpAllowlist>> ipAllowlists_;
};

// One request's reads of the directory, through the cache when there is one.
class DirectoryView {
 public:
  // `cache` null: every read goes to the store (inside write transactions).
  DirectoryView(DirectoryCache* cache, Db& db) : cache_(cache), db_(db) {}

  std::optional<OrganizationRecord> organization(const std::string& id);
  std::vector<std::string> rootQuorum(const std::string& organizationId);
  std::vector<ApiKeyRecord> apiKeysByPublicKey(const std::string& publicKey);
  // The user's key with this public key. Cached, it is picked from apiKeysByPublicKey's entry,
  // which the request's authentication has already filled.
  std::optional<ApiKeyRecord> apiKeyOfUser(const std::string& userId, const std::string& publicKey);
  std::optional<UserRecord> user(const std::string& organizationId, const std::string& userId);
  // The user as a vote shows it (userJson); NotFound when the user is gone.
  json::Object userJson(const std::string& organizationId, const std::string& userId);
  // The user's MFA policies, lowest order first (mfa::policiesOfUser).
  std::vector<mfa::MfaPolicyRecord> mfaPolicies(const std::string& userId);
  // The organization's IP allowlists, its own and its keys' (ip_allowlists::listsOf).
  std::vector<IpAllowlist> ipAllowlists(const std::string& organizationId);
  // The store this view reads, for what it does not hold.
  Db& db() { return db_; }

 private:
  int64_t generation();
  template <class T, class Load>
  T cached(DirectoryCache::Map<T>* map, const std::string& key, Load load);

  DirectoryCache* cache_;
  Db& db_;
  std::optional<int64_t> generation_;
};

}  // namespace signet
