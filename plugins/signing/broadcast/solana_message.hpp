// Solana transactions rewritten before signing: a fresh recent blockhash, and a sponsor put in
// front as the fee payer (the first required signer pays the fees). Both keep every
// instruction's meaning: the sponsor's key is inserted at index 0, so every account and program
// index moves up by one, lookup-resolved ones included.
#pragma once

#include "chains/solana/solana_transaction.hpp"
#include "quantity.hpp"

namespace signing::broadcast {

// The wire bytes of `tx`'s fields, with every signature slot zeroed.
Bytes serializeUnsigned(const SolanaTransaction& tx);
SolanaTransaction withBlockhash(const SolanaTransaction& tx, const Bytes& blockhash);
SolanaTransaction withFeePayer(const SolanaTransaction& tx, const Bytes& payer);

}  // namespace signing::broadcast
