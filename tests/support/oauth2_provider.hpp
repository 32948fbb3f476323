// An OAuth 2.0 provider on loopback in the manner of X and Discord: a token endpoint that
// exchanges a code with PKCE (S256) for a client authenticated with HTTP Basic, and user-info
// endpoints in each provider's shape (/x/users/me answers {"data":{"id"}}, /discord/users/@me
// answers {"id"}). Codes are single use, as the real providers' are.
#pragma once

#include <Poco/Net/HTTPServer.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace signet::test {

class OAuth2Provider {
 public:
  OAuth2Provider(std::string clientId, std::string clientSecret);
  ~OAuth2Provider();

  std::string url(const std::string& path) const;
  // The code a user who consented gets: for `userId`, bound to `redirectUri` and to the S256
  // challenge of `codeVerifier`.
  std::string issueCode(const std::string& userId, const std::string& redirectUri,
                        const std::string& codeVerifier);
  // The access token issued for the last successful exchange.
  std::string lastAccessToken() const;
  void failTokenEndpointWith(int status);  // 0: answer normally
  int tokenRequests() const;

  // For the request handler: status and body.
  std::pair<int, std::string> answer(const std::string& method, const std::string& path,
                                     const std::string& authorization,
                                     const std::map<std::string, std::string>& form);

 private:
  struct Code {
    std::string userId, redirectUri, challenge;
    bool used = false;
  };
  std::unique_ptr<Poco::Net::HTTPServer> server_;
  std::string clientId_, clientSecret_;
  mutable std::mutex mutex_;
  std::map<std::string, Code> codes_;
  std::map<std::string, std::string> tokens_;  // access token -> user id
  std::string lastAccessToken_;
  int failWith_ = 0;
  int tokenRequests_ = 0;
};

}  // namespace signet::test
