// Byte encodings used on the wire: lowercase hex and base64url (padded or not).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace signet {

using Bytes = std::vector<uint8_t>;

std::string toHex(const uint8_t* data, size_t size);
inline std::string toHex(const Bytes& b) {
  return toHex(b.data(), b.size());
}
// Accepts upper or lower case and an optional 0x prefix; nullopt on any other character
// or an odd length.
std::optional<Bytes> fromHex(std::string_view hex);

std::string base64UrlEncode(const uint8_t* data, size_t size);  // no padding
inline std::string base64UrlEncode(const Bytes& b) {
  return base64UrlEncode(b.data(), b.size());
}
inline std::string base64UrlEncode(std::string_view s) {
  return base64UrlEncode(reinterpret_cast<const uint8_t*>(s.data()), s.size());
}
// Standard base64 (RFC 4648 §4), '=' padded.
std::string base64Encode(const uint8_t* data, size_t size);
inline std::string base64Encode(std::string_view s) {
  return base64Encode(reinterpret_cast<const uint8_t*>(s.data()), s.size());
}
// Every byte but RFC 3986's unreserved characters as %XX (upper-case hex): a query or form
// value that reads back the same everywhere.
std::string percentEncode(std::string_view text);
// name=value pairs, percent-encoded and joined with '&' (a query string without its '?', or an
// application/x-www-form-urlencoded body).
std::string formEncode(const std::vector<std::pair<std::string, std::string>>& fields);
// Decodes base64url or standard base64, with or without '=' padding.
std::optional<Bytes> base64Decode(std::string_view text);

// Base58 with the Bitcoin alphabet, and Base58Check (payload ‖ first 4 bytes of
// SHA-256(SHA-256(payload)), no version byte added here). nullopt on a bad character or checksum.
inline constexpr std::string_view kBase58Bitcoin =
    "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
inline constexpr std::string_view kBase58Ripple =
    "rpshnaf39wBUDNEGHJKLM4PQRST7VWXYZ2bcdeCg65jkm8oFqi1tuvAxyz";
std::string base58Encode(const Bytes& data, std::string_view alphabet = kBase58Bitcoin);
std::optional<Bytes> base58Decode(std::string_view text);
std::string base58CheckEncode(const Bytes& payload, std::string_view alphabet = kBase58Bitcoin);
std::optional<Bytes> base58CheckDecode(std::string_view text);

// ASCII letters lowered, every other byte kept (header names, emails, hex).
std::string asciiLower(std::string text);
// `text` with every byte `plain` refuses written as \xNN (lowercase hex): what a log line or a
// message shows of bytes a stranger sent, which then can neither move a terminal's cursor nor
// forge a line. `plain` should refuse the backslash, so that no byte reads as an escape.
std::string escapeBytes(std::string_view text, bool (*plain)(unsigned char));

inline Bytes toBytes(std::string_view s) {
  return Bytes(s.begin(), s.end());
}
inline std::string toString(const Bytes& b) {
  return std::string(b.begin(), b.end());
}

}  // namespace signet
