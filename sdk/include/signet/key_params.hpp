// Request parameters that carry public keys, checked the same way everywhere.
#pragma once

#include <string>

#include "signet/encoding.hpp"

namespace signet {

// A P-256 public key given as hex (any SEC1 form), as its 33-byte compressed form;
// InvalidArgument naming `field` and the value otherwise.
Bytes p256PublicKeyParam(const std::string& hex, const std::string& field);

}  // namespace signet
