// A keyring secret's sealed cells, read by a statement of the caller's own so that opening the
// secret costs no read of its own (on PostgreSQL, a round trip). The statement selects
// column(idExpression), the secret whose id that expression gives; fromRow takes the cells back,
// and Keyring::open(id, kind, sealed) opens them as open(id, kind) would have. Nothing here is
// plaintext: the cells open only under the master key.
#pragma once

#include <optional>
#include <string>

#include "signet/db.hpp"

namespace signet {

struct SealedSecret {
  // "(SELECT … FROM <the keyring's table> WHERE id = <idExpression>) AS sealed_secret": a scalar
  // subquery, a look-up of one secret for each row, planned for the keyring's table as it is.
  // (A join let PostgreSQL keep a plan made when the table was young: a hash of every secret.)
  // `idExpression` is SQL text: a `?` or a column qualified by its table's alias
  // ("targets.secret_id"), never text from a request. One such column a statement.
  static std::string column(const std::string& idExpression);
  // The cells column() selected; nullopt when there is no such secret.
  static std::optional<SealedSecret> fromRow(const Row& row);

  std::string kind;
  std::string nonce;
  std::string ciphertext;
  // A master-key rotation that stopped halfway leaves a copy under the next key beside it.
  std::optional<std::string> nextNonce;
  std::optional<std::string> nextCiphertext;
};

}  // namespace signet
