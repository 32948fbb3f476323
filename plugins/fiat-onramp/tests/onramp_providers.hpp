// MoonPay's and Coinbase's server APIs on loopback, as far as the gateway uses them, checking
// what the real ones check: MoonPay's "Api-Key <secret>" header and publishable key; Coinbase's
// CDP JWT (ES256 under the key the test made, kid and sub naming the key, iss "cdp", the uris
// claim naming this very request, a two-minute lifetime). The test sets what each reports.
#pragma once

#include <Poco/Net/HTTPServer.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "signet/crypto.hpp"

namespace signet::test {

class OnRampProviders {
 public:
  OnRampProviders(std::string moonPayPublishable, std::string moonPaySecret,
                  std::string coinbaseKeyId, Bytes coinbasePublicKey);
  ~OnRampProviders();

  std::string url() const;
  std::string hostAndPort() const;
  // What the providers say of a transaction (MoonPay: waitingPayment, completed, failed...;
  // Coinbase: ONRAMP_TRANSACTION_STATUS_*). Unknown transactions are not found.
  void report(const std::string& transactionId, const std::string& providerStatus);
  // The session tokens Coinbase issued, with the address and asset each was for.
  struct IssuedToken {
    std::string token, address, blockchain, asset;
  };
  std::vector<IssuedToken> issuedTokens() const;
  // Requests refused for their authentication, with the reason.
  std::vector<std::string> refusals() const;
  // Status requests answered: in all, and about one transaction.
  int statusRequests() const;
  int statusRequestsFor(const std::string& transactionId) const;

  // For the request handler: status and body.
  std::pair<int, std::string> answer(const std::string& method, const std::string& uri,
                                     const std::string& authorization, const std::string& body);

 private:
  std::pair<int, std::string> refuse(const std::string& why);
  bool coinbaseJwtHolds(const std::string& authorization, const std::string& method,
                        const std::string& path);

  std::unique_ptr<Poco::Net::HTTPServer> server_;
  std::string moonPayPublishable_, moonPaySecret_, coinbaseKeyId_;
  Bytes coinbasePublicKey_;
  mutable std::mutex mutex_;
  std::map<std::string, std::string> reports_;
  std::vector<IssuedToken> tokens_;
  std::vector<std::string> refusals_;
  int statusRequests_ = 0;
  std::map<std::string, int> statusRequestsFor_;
};

}  // namespace signet::test
