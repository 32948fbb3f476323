#include "signet/sealed_secret.hpp"

#include <array>

#include "signet/error.hpp"

namespace signet {

// The cells travel as one text, "kind nonce ciphertext next_nonce next_ciphertext", so that a
// secret is one look-up whatever the statement: the four last are hex, or "-" for a missing
// copy under the next key, and the kind is what comes before them.
std::string SealedSecret::column(const std::string& idExpression) {
  // The alias is one no caller's statement uses, so that `idExpression` names the caller's rows.
  return "(SELECT signet_sealed.kind || ' ' || signet_sealed.nonce || ' ' || "
         "signet_sealed.ciphertext || ' ' || COALESCE(signet_sealed.next_nonce, '-') || ' ' || "
         "COALESCE(signet_sealed.next_ciphertext, '-') FROM signet_secrets signet_sealed WHERE "
         "signet_sealed.id = " +
         idExpression + ") AS sealed_secret";
}

std::optional<SealedSecret> SealedSecret::fromRow(const Row& row) {
  auto text = row.optStr("sealed_secret");
  if (!text) return std::nullopt;
  std::array<std::string, 4> hex;  // from the right: next_ciphertext, next_nonce, ...
  size_t end = text->size();
  for (auto& field : hex) {
    size_t space = end == 0 ? std::string::npos : text->rfind(' ', end - 1);
    if (space == std::string::npos)  // never says what it read: the cells are not for logs
      throw internalError("a sealed secret's cells do not read as kind and four hex fields");
    field = text->substr(space + 1, end - space - 1);
    end = space;
  }
  auto copy = [](const std::string& field) {
    return field == "-" ? std::nullopt : std::optional<std::string>(field);
  };
  return SealedSecret{text->substr(0, end), hex[3], hex[2], copy(hex[1]), copy(hex[0])};
}

}  // namespace signet
