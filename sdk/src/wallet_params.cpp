#include "signet/wallet_params.hpp"

namespace signet {

const Shape<WalletAccountParameters>& walletAccountShape() {
  using A = WalletAccountParameters;
  static const Shape<A> shape = {field("curve", &A::curve), field("pathFormat", &A::pathFormat),
                                 field("path", &A::path), field("addressFormat", &A::addressFormat),
                                 field("name", &A::name)};
  return shape;
}

const Shape<WalletParameters>& walletShape() {
  using W = WalletParameters;
  static const Shape<W> shape = {field("walletName", &W::walletName, {.displayName = true}),
                                 field("accounts", &W::accounts, walletAccountShape()),
                                 field("mnemonicLength", &W::mnemonicLength, {.decimal = true})};
  return shape;
}

}  // namespace signet
