#include "signet/contacts.hpp"

#include <algorithm>
#include <cctype>

#include "signet/error.hpp"

namespace signet {

namespace {
std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return s.substr(i);
}
}  // namespace

std::string validateEmail(const std::string& input, const std::string& field) {
  std::string email = trim(input);
  auto at = email.find('@');
  bool ok = email.size() <= 254 && at != std::string::npos && at > 0 && at == email.rfind('@') &&
            email.find('.', at) != std::string::npos && email.back() != '.' &&
            std::none_of(email.begin(), email.end(), [](char c) {
              auto u = static_cast<unsigned char>(c);
              return std::isspace(u) || u < 0x20 || u == 0x7f || c == ',';
            });
  if (!ok)
    throw invalidArgument("invalid field " + field + ": \"" + input + "\" is not an email address");
  return email;
}

std::string validatePhoneNumber(const std::string& input, const std::string& field) {
  std::string phone = trim(input);
  // E.164: a plus, a non-zero country code digit, at most 15 digits in all.
  bool ok = phone.size() >= 3 && phone.size() <= 16 && phone[0] == '+' && phone[1] >= '1' &&
            phone[1] <= '9' && std::all_of(phone.begin() + 1, phone.end(), [](char c) {
              return std::isdigit(static_cast<unsigned char>(c));
            });
  if (!ok)
    throw invalidArgument("invalid field " + field + ": \"" + input +
                          "\" is not an E.164 phone number (like +14155550123)");
  return phone;
}

std::string mailboxKey(const std::string& email) {
  std::string address = trim(email);
  std::transform(address.begin(), address.end(), address.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  auto at = address.rfind('@');
  if (at == std::string::npos) return address;
  std::string local;
  for (char c : address.substr(0, at))
    if (c != '"' && c != '\\') local += c;
  if (auto plus = local.find('+'); plus != std::string::npos) local.resize(plus);
  return local + address.substr(at);
}

}  // namespace signet
