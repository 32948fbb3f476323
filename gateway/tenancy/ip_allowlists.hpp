// IP allowlists: set_ip_allowlist, remove_ip_allowlist, get_ip_allowlist, and the check every
// request stamped with an API key passes before anything else runs.
//
// An organization-level list (no publicKey) covers every API key of its organization while it
// is enabled; a key-level list covers that one key, and where a key has a list of its own, that
// list decides for it (a narrower rule for one key, or a wider one, over the organization's).
// The organization is the one that holds the key: a parent's key acting on a sub-organization
// answers to the parent's lists. The auth proxy's service key, whose requests the proxy makes
// for users anywhere, answers only to a list of its own. Passkey and attested stamps are not
// covered: the list names API keys.
//
// The client address is the request's (HttpRequestData::peer: behind server.trustedProxies,
// the address X-Forwarded-For gives). When it, or a stored rule, cannot be read, the list's
// onEvaluationError decides: DENY (the default) refuses, ALLOW lets the request through.
// The lists are read through the directory cache (their table bumps directory_generation), so
// the check costs a request no read of its own once the organization's lists are cached.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "server/client_address.hpp"
#include "signet/plugin.hpp"
#include "signet/typed_parameters.hpp"

namespace signet {

class DirectoryView;

struct IpAllowlistRule {
  std::string cidr;
  std::string label;
  int64_t createdAtMs = 0;
  // `cidr` parsed once, when the list is read (and then cached), not on every request it
  // checks; nullopt when the stored text is not a network.
  std::optional<Cidr> network;
};

struct IpAllowlist {
  std::string organizationId;
  std::string publicKey;          // empty: the organization's own list
  std::optional<bool> enabled;    // organization-level lists only
  std::string onEvaluationError;  // ALLOW or DENY
  std::vector<IpAllowlistRule> rules;
  bool unreadable = false;  // the stored rules did not parse: onEvaluationError decides
};

namespace ip_allowlists {

// Every list of an organization, its own and its keys'.
std::vector<IpAllowlist> listsOf(Db& db, const std::string& organizationId);

// PermissionDenied (403) naming the list, the key and the address, when the lists of the key's
// organization do not let `client` use the API key `caller` stamped with. `serviceKey`: the
// key has a budget of its own (the auth proxy's), so only a list of its own covers it.
void check(DirectoryView& directory, const Caller& caller, bool serviceKey,
           const std::string& client);

struct IpAllowlistRuleParameters {
  std::string cidr;
  std::optional<std::string> label;
};
struct SetIpAllowlistParameters {
  std::optional<std::string> publicKey, onEvaluationError;
  std::optional<bool> enabled;
  std::optional<std::vector<IpAllowlistRuleParameters>> rules;
};
struct RemoveIpAllowlistParameters {
  std::optional<std::string> publicKey;
};
extern const Shape<SetIpAllowlistParameters> kSetIpAllowlist;
extern const Shape<RemoveIpAllowlistParameters> kRemoveIpAllowlist;

json::Object setIpAllowlist(ActivityContext& ctx, const SetIpAllowlistParameters& params);
json::Object removeIpAllowlist(ActivityContext& ctx, const RemoveIpAllowlistParameters& params);
json::Object getIpAllowlist(RequestContext& ctx, const json::Object& body);

}  // namespace ip_allowlists
}  // namespace signet
