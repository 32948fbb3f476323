#include "tenancy/directory_cache.hpp"

#include "signet/error.hpp"

namespace signet {

DirectoryCache::Hits DirectoryCache::hits() const {
  std::lock_guard lock(mutex_);
  return hits_;
}

bool DirectoryCache::mayHoldApiKey(const std::string& publicKey,
                                   const std::string& organizationId) const {
  std::lock_guard lock(mutex_);
  auto it = keys_.entries.find(publicKey);
  if (it == keys_.entries.end()) return false;
  for (const auto& key : it->second)
    if (key.organizationId == organizationId) return true;
  return false;
}

template <class T>
std::optional<T> DirectoryCache::get(Map<T>& map, const std::string& key, int64_t generation) {
  std::lock_guard lock(mutex_);
  if (generation == generation_) {
    auto it = map.entries.find(key);
    if (it != map.entries.end()) {
      ++hits_.hits;
      return it->second;
    }
  }
  ++hits_.misses;
  return std::nullopt;
}

template <class T>
void DirectoryCache::put(Map<T>& map, const std::string& key, int64_t generation, const T& value) {
  std::lock_guard lock(mutex_);
  if (generation < generation_) return;  // read before a change another request has seen
  if (generation > generation_ || size_ >= kMaxEntries) {
    clearLocked();
    generation_ = generation;
  }
  if (map.entries.emplace(key, value).second) ++size_;
}

void DirectoryCache::clearLocked() {
  organizations_.entries.clear();
  quorums_.entries.clear();
  keys_.entries.clear();
  users_.entries.clear();
  userJson_.entries.clear();
  mfaPolicies_.entries.clear();
  ipAllowlists_.entries.clear();
  size_ = 0;
}

int64_t DirectoryView::generation() {
  if (!generation_)
    generation_ = db_.queryOne("SELECT value FROM directory_generation WHERE id = 1")->i64("value");
  return *generation_;
}

template <class T, class Load>
T DirectoryView::cached(DirectoryCache::Map<T>* map, const std::string& key, Load load) {
  if (!cache_) return load();
  int64_t g = generation();  // before the data: see directory_cache.hpp
  if (auto hit = cache_->get(*map, key, g)) return std::move(*hit);
  T value = load();
  cache_->put(*map, key, g, value);
  return value;
}

std::optional<OrganizationRecord> DirectoryView::organization(const std::string& id) {
  return cached(cache_ ? &cache_->organizations_ : nullptr, id,
                [&] { return directory::findOrganization(db_, id); });
}

std::vector<std::string> DirectoryView::rootQuorum(const std::string& organizationId) {
  return cached(cache_ ? &cache_->quorums_ : nullptr, organizationId,
                [&] { return directory::rootQuorumUserIds(db_, organizationId); });
}

std::vector<ApiKeyRecord> DirectoryView::apiKeysByPublicKey(const std::string& publicKey) {
  return cached(cache_ ? &cache_->keys_ : nullptr, publicKey,
                [&] { return directory::apiKeysByPublicKey(db_, publicKey); });
}

std::optional<ApiKeyRecord> DirectoryView::apiKeyOfUser(const std::string& userId,
                                                        const std::string& publicKey) {
  if (!cache_) return directory::findApiKeyOfUser(db_, userId, publicKey);
  for (auto& k : apiKeysByPublicKey(publicKey))
    if (k.userId == userId) return std::move(k);
  return std::nullopt;
}

std::optional<UserRecord> DirectoryView::user(const std::string& organizationId,
                                              const std::string& userId) {
  return cached(cache_ ? &cache_->users_ : nullptr, organizationId + "/" + userId,
                [&] { return directory::findUser(db_, organizationId, userId); });
}

json::Object DirectoryView::userJson(const std::string& organizationId, const std::string& userId) {
  return cached(cache_ ? &cache_->userJson_ : nullptr, organizationId + "/" + userId, [&] {
    return signet::userJson(db_, directory::requireUser(db_, organizationId, userId));
  });
}

std::vector<mfa::MfaPolicyRecord> DirectoryView::mfaPolicies(const std::string& userId) {
  return cached(cache_ ? &cache_->mfaPolicies_ : nullptr, userId,
                [&] { return mfa::policiesOfUser(db_, userId); });
}

std::vector<IpAllowlist> DirectoryView::ipAllowlists(const std::string& organizationId) {
  return cached(cache_ ? &cache_->ipAllowlists_ : nullptr, organizationId,
                [&] { return ip_allowlists::listsOf(db_, organizationId); });
}

}  // namespace signet
